/**
 * The mec-agent side of the protocol as typed values: VnfSpec, VnfState, VnfStats, NodeStats, capacities, the
 * stats event (MecStats), the events and the calls (MecCalls), each value with its codec (MecCodecs).
 */
package org.wislice.onos.agent.mec;
