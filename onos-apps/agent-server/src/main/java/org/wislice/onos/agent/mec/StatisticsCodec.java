package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

import java.util.List;

/** getStatistics's result: {node?: NodeStats, vnfs?: [VnfStats]} (no vnfs reads as none). */
public final class StatisticsCodec extends AgentCodec<Statistics> {

    StatisticsCodec() {
        super("VnfStats");
    }

    @Override
    public void check(JsonNode j, String path) throws ProtocolException {
        if (j == null || !j.isObject()) {
            throw ProtocolException.badRequest(path + ": object expected");
        }
        if (j.has("node")) {
            Schema.nodeStats(j.get("node"), path + ".node");
        }
        if (j.has("vnfs")) {
            MecCodecs.VNF_STATS.decodeAll(j.get("vnfs"), path + ".vnfs");
        }
    }

    @Override
    public Statistics read(JsonNode j) {
        return new Statistics(j.has("node") ? MecCodecs.NODE_STATS.read(j.get("node")) : null,
                              j.has("vnfs") ? MecCodecs.VNF_STATS.readAll(j.get("vnfs")) : List.of());
    }

    @Override
    public ObjectNode encode(Statistics s) {
        ObjectNode j = Json.object();
        if (s.node != null) {
            j.set("node", MecCodecs.NODE_STATS.encode(s.node));
        }
        j.set("vnfs", MecCodecs.VNF_STATS.encodeAll(s.vnfs));
        return j;
    }
}
