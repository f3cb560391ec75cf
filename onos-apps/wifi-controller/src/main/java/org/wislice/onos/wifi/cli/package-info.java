/** Karaf CLI commands of the WiFi controller (wifi-agents, wifi-vaps, wifi-vap-add, ...). */
package org.wislice.onos.wifi.cli;
