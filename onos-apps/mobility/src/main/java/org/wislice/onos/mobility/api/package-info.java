/** The mobility app's service: the handovers it followed. */
package org.wislice.onos.mobility.api;
