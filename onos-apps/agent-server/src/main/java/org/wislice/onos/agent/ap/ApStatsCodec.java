package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/**
 * An ap-agent's stats event data: {interval_s, vaps?, radios?, clients?, latency?}. Checked as any stats event; a MEC
 * node's parts (vnfs, node) are not read.
 */
public final class ApStatsCodec extends AgentCodec<ApStats> {

    ApStatsCodec() {
        super("stats");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.stats(json, path);
    }

    @Override
    public ApStats read(JsonNode j) {
        return new ApStats(number(j, "interval_s"),
                           j.has("vaps") ? ApCodecs.VAP_SAMPLE.readAll(j.get("vaps")) : null,
                           j.has("radios") ? ApCodecs.RADIO_CAPACITY.readAll(j.get("radios")) : null,
                           j.has("clients") ? ApCodecs.STATS_CLIENT.readAll(j.get("clients")) : null,
                           j.has("latency") ? ApCodecs.VAP_LATENCY.readAll(j.get("latency")) : null);
    }

    @Override
    public ObjectNode encode(ApStats s) {
        ObjectNode j = Json.object();
        putNumber(j, "interval_s", s.intervalS);
        if (s.vaps != null) {
            j.set("vaps", ApCodecs.VAP_SAMPLE.encodeAll(s.vaps));
        }
        if (s.radios != null) {
            j.set("radios", ApCodecs.RADIO_CAPACITY.encodeAll(s.radios));
        }
        if (s.clients != null) {
            j.set("clients", ApCodecs.STATS_CLIENT.encodeAll(s.clients));
        }
        if (s.latency != null) {
            j.set("latency", ApCodecs.VAP_LATENCY.encodeAll(s.latency));
        }
        return j;
    }
}
