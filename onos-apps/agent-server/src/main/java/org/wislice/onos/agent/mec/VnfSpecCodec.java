package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

import java.util.LinkedHashMap;
import java.util.Map;

/** VnfSpec: {tenant_id, instance_id, image, params?, cpu, memory_mib, chain_position, chain_id?, latency_class?}. */
public final class VnfSpecCodec extends AgentCodec<VnfSpec> {

    VnfSpecCodec() {
        super("VnfSpec");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.vnfSpec(json, path);
    }

    @Override
    public VnfSpec read(JsonNode j) {
        Map<String, Object> params = null;
        if (j.has("params")) {
            params = new LinkedHashMap<>();
            for (var it = j.get("params").fields(); it.hasNext(); ) {
                var e = it.next();
                JsonNode v = e.getValue();
                params.put(e.getKey(), v.isNumber() ? v.numberValue() : v.isBoolean() ? (Object) v.asBoolean()
                        : v.asText());
            }
        }
        return new VnfSpec(j.get("tenant_id").asInt(), j.get("instance_id").asInt(), text(j, "image"), params,
                           number(j, "cpu"), j.get("memory_mib").asLong(), j.get("chain_position").asInt(),
                           longOrNull(j, "chain_id"), j.hasNonNull("latency_class") ? text(j, "latency_class") : null);
    }

    @Override
    public ObjectNode encode(VnfSpec v) {
        ObjectNode j = Json.object().put("tenant_id", v.tenantId).put("instance_id", v.instanceId)
                .put("image", v.image);
        if (v.params != null) {
            ObjectNode params = j.putObject("params");
            v.params.forEach((name, value) -> putIfSet(params, name, value));
        }
        putNumber(j, "cpu", v.cpu);
        j.put("memory_mib", v.memoryMib).put("chain_position", v.chainPosition);
        putIfSet(j, "chain_id", v.chainId);
        putIfSet(j, "latency_class", v.latencyClass);
        return j;
    }
}
