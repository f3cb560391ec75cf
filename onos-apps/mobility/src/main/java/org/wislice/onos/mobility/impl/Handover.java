package org.wislice.onos.mobility.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/** One association followed: where the client's downlink went, how long it took, what was cleaned up. */
final class Handover {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    final String mac;
    final String sliceId;
    final String agentId;
    final String vapId;
    final String branchId;
    final long pathSwitchMs;
    final long switchConfirmMs;
    final List<String> kicked;
    final String error;
    final long atMs;

    Handover(String mac, String sliceId, String agentId, String vapId, String branchId, long pathSwitchMs,
             long switchConfirmMs, List<String> kicked, String error, long atMs) {
        this.mac = mac;
        this.sliceId = sliceId;
        this.agentId = agentId;
        this.vapId = vapId;
        this.branchId = branchId;
        this.pathSwitchMs = pathSwitchMs;
        this.switchConfirmMs = switchConfirmMs;
        this.kicked = List.copyOf(kicked);
        this.error = error;
        this.atMs = atMs;
    }

    ObjectNode toJson() {
        ObjectNode n = MAPPER.createObjectNode().put("mac", mac).put("slice_id", sliceId).put("agent_id", agentId)
                .put("vap_id", vapId).put("branch_id", branchId).put("path_switch_ms", pathSwitchMs)
                .put("switch_confirm_ms", switchConfirmMs);
        ArrayNode k = n.putArray("kicked");
        kicked.forEach(k::add);
        return n.put("error", error).put("at_ms", atMs);
    }
}
