package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** A mec-agent's stats event data: {interval_s, node?, vnfs?}; checked as any stats event. */
public final class MecStatsCodec extends AgentCodec<MecStats> {

    MecStatsCodec() {
        super("stats");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.stats(json, path);
    }

    @Override
    public MecStats read(JsonNode j) {
        return new MecStats(number(j, "interval_s"), j.has("node") ? MecCodecs.NODE_STATS.read(j.get("node")) : null,
                            j.has("vnfs") ? MecCodecs.VNF_STATS.readAll(j.get("vnfs")) : null);
    }

    @Override
    public ObjectNode encode(MecStats s) {
        ObjectNode j = Json.object();
        putNumber(j, "interval_s", s.intervalS);
        if (s.node != null) {
            j.set("node", MecCodecs.NODE_STATS.encode(s.node));
        }
        if (s.vnfs != null) {
            j.set("vnfs", MecCodecs.VNF_STATS.encodeAll(s.vnfs));
        }
        return j;
    }
}
