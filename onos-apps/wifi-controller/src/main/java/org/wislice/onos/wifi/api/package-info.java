/** The WiFi controller's service, events and errors, for REST, CLI and other apps. */
package org.wislice.onos.wifi.api;
