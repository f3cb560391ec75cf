/** A slice client's downlink follows it to the AP it associates with. */
package org.wislice.onos.mobility.impl;
