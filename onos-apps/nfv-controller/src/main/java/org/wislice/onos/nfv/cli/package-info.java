/** Karaf CLI commands of the NFV controller (nfv-nodes, nfv-vnfs, nfv-vnf-add, nfv-vnf-remove). */
package org.wislice.onos.nfv.cli;
