/** REST API of the WiFi controller under /onos/wifi (spec/onos-rest/README.md). */
package org.wislice.onos.wifi.rest;
