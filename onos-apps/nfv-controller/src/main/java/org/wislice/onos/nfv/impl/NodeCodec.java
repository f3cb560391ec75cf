package org.wislice.onos.nfv.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.mec.MecCodecs;

/**
 * A MEC node as GET /onos/nfv/nodes answers it: its record (NfvRecords.NODE_RECORD: agent_id, connected, address,
 * controller_node, software, capacity, catalog, dpdk, pof_switch, last_seen) + used + load + switch_core_vnfs.
 */
public final class NodeCodec extends AgentCodec<Node> {

    NodeCodec() {
        super("MEC node");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        if (json == null || !json.isObject() || !json.has("used") || !json.has("load")
                || !json.has("switch_core_vnfs")) {
            throw ProtocolException.badRequest(path + ": node with used, load and switch_core_vnfs expected");
        }
        ObjectNode record = json.deepCopy();
        record.remove("used");
        record.remove("load");
        record.remove("switch_core_vnfs");
        NfvRecords.NODE_RECORD.check(record, path);
        MecCodecs.USED.check(json.get("used"), path + ".used");
        Fields.number(json, "load", path, 0, false, Double.MAX_VALUE);
        Fields.integer(json, "switch_core_vnfs", path, 0, Integer.MAX_VALUE);
    }

    @Override
    public Node read(JsonNode j) {
        return new Node(NfvRecords.NODE_RECORD.read(j), MecCodecs.USED.read(j.get("used")), j.get("load").asDouble(),
                        j.get("switch_core_vnfs").asInt());
    }

    @Override
    public ObjectNode encode(Node n) {
        ObjectNode j = NfvRecords.NODE_RECORD.encode(n.agent);
        j.set("used", MecCodecs.USED.encode(n.used));
        return j.put("load", n.load).put("switch_core_vnfs", n.switchCoreVnfs);
    }
}
