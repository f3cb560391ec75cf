/** The NFV controller's service, events and errors, for REST, CLI and other apps. */
package org.wislice.onos.nfv.api;
