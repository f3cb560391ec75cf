package org.wislice.onos.wifi.impl;

import org.wislice.onos.agent.AgentRecordCodec;
import org.wislice.onos.agent.PlacedCodec;
import org.wislice.onos.agent.ap.ApCapabilities;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.ap.VapState;

/** How the WiFi controller writes its records, in the store and in REST answers (spec/onos-rest). */
final class WifiRecords {

    /** An ap-agent: {agent_id, connected, address, node, software, radios, security, pof_switch, last_seen}. */
    static final AgentRecordCodec<ApCapabilities> AGENT = new AgentRecordCodec<>("node", ApCodecs.CAPABILITIES);
    /** A vAP: its VapState + agent_id. */
    static final PlacedCodec<VapState> VAP = new PlacedCodec<>("agent_id", ApCodecs.VAP_STATE);

    private WifiRecords() {
    }
}
