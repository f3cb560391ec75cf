package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** NodeStats: {cpu_pct, memory_used_mib}. */
public final class NodeStatsCodec extends AgentCodec<NodeStats> {

    NodeStatsCodec() {
        super("NodeStats");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.nodeStats(json, path);
    }

    @Override
    public NodeStats read(JsonNode j) {
        return new NodeStats(number(j, "cpu_pct"), number(j, "memory_used_mib"));
    }

    @Override
    public ObjectNode encode(NodeStats n) {
        ObjectNode j = Json.object();
        putNumber(j, "cpu_pct", n.cpuPct);
        putNumber(j, "memory_used_mib", n.memoryUsedMib);
        return j;
    }
}
