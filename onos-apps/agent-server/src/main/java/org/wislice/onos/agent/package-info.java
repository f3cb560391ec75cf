/**
 * Controller side of the WiSlice agent protocol (spec/agent/PROTOCOL.md), shared by the WiFi and NFV controllers
 * and inlined privately into each app bundle.
 */
package org.wislice.onos.agent;
