package org.wislice.onos.nfv.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.event.ListenerService;

import java.util.List;

/**
 * MEC nodes (mec-agents) and the vNFs placed on them. Records are the objects of spec/agent/PROTOCOL.md; failures
 * throw org.wislice.onos.agent.ControllerException.
 */
public interface NfvService extends ListenerService<NfvEvent, NfvListener> {

    /** {agent_id, connected, address, capacity, used, catalog, dpdk, load} of every node seen. */
    List<ObjectNode> nodes();

    /** VnfStates, each with "node". */
    List<ObjectNode> vnfs();

    /**
     * Places (or pins, with "node") a VnfSpec and creates it: returns {"vnf": VnfState, "node": agent_id}.
     * "near_ap" names the slice's AP for the distance term of the placement.
     */
    ObjectNode createVnf(JsonNode request);

    void removeVnf(long vnfId);

    /** VnfStats of one vNF, fresh from its node. */
    ObjectNode vnfStats(long vnfId);

    /** Agents connected, event latency percentiles, heap. */
    ObjectNode metrics();
}
