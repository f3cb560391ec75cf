package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** Probe: {source_ip, target_ip, interval_ms?}. */
public final class ProbeCodec extends AgentCodec<Probe> {

    ProbeCodec() {
        super("Probe");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.probe(json, path);
    }

    @Override
    public Probe read(JsonNode j) {
        return new Probe(text(j, "source_ip"), text(j, "target_ip"), intOrNull(j, "interval_ms"));
    }

    @Override
    public ObjectNode encode(Probe p) {
        ObjectNode j = Json.object().put("source_ip", p.sourceIp).put("target_ip", p.targetIp);
        putIfSet(j, "interval_ms", p.intervalMs);
        return j;
    }
}
