/**
 * The ap-agent side of the protocol as typed values: VapSpec, VapState, Radio, Client, the stats event (ApStats),
 * the events, and the calls (ApCalls), each value with its codec (ApCodecs).
 */
package org.wislice.onos.agent.ap;
