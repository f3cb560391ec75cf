package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** VapLatency: {vap_id, sent, received, lost, p50_us, p90_us, p99_us, max_us, samples}, all required. */
public final class VapLatencyCodec extends AgentCodec<VapLatency> {

    VapLatencyCodec() {
        super("VapLatency");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.vapLatency(json, path);
    }

    @Override
    public VapLatency read(JsonNode j) {
        return new VapLatency(text(j, "vap_id"), j.get("sent").asLong(), j.get("received").asLong(),
                              j.get("lost").asLong(), j.get("p50_us").asLong(), j.get("p90_us").asLong(),
                              j.get("p99_us").asLong(), j.get("max_us").asLong(), j.get("samples").asLong());
    }

    @Override
    public ObjectNode encode(VapLatency l) {
        return Json.object().put("vap_id", l.vapId).put("sent", l.sent).put("received", l.received)
                .put("lost", l.lost).put("p50_us", l.p50Us).put("p90_us", l.p90Us).put("p99_us", l.p99Us)
                .put("max_us", l.maxUs).put("samples", l.samples);
    }
}
