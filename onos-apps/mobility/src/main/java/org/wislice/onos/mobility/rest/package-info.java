/** REST of the mobility app, under /onos/mobility. */
package org.wislice.onos.mobility.rest;
