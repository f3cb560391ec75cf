package org.wislice.onos.nfv.impl;

import org.wislice.onos.agent.AgentRecordCodec;
import org.wislice.onos.agent.PlacedCodec;
import org.wislice.onos.agent.mec.MecCapabilities;
import org.wislice.onos.agent.mec.MecCodecs;
import org.wislice.onos.agent.mec.VnfState;

/** How the NFV controller writes its records, in the store and in REST answers (spec/onos-rest). */
final class NfvRecords {

    /** A mec-agent: {agent_id, connected, address, controller_node, software, capacity, catalog, dpdk, ...}. */
    static final AgentRecordCodec<MecCapabilities> NODE_RECORD =
            new AgentRecordCodec<>("controller_node", MecCodecs.CAPABILITIES);
    /** A MEC node with used and load. */
    static final NodeCodec NODE = new NodeCodec();
    /** A vNF: its VnfState + node. */
    static final PlacedCodec<VnfState> VNF = new PlacedCodec<>("node", MecCodecs.VNF_STATE);

    private NfvRecords() {
    }
}
