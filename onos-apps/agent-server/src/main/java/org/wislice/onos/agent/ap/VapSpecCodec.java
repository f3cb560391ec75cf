package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** VapSpec: {vap_id, radio, ssid, security, hidden?, tenant_id, slice_id, rate_limit, max_clients?, wmm_ac?,
 * probe?}. */
public final class VapSpecCodec extends AgentCodec<VapSpec> {

    VapSpecCodec() {
        super("VapSpec");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.vapSpec(json, path);
    }

    @Override
    public VapSpec read(JsonNode j) {
        return new VapSpec(text(j, "vap_id"), text(j, "radio"), text(j, "ssid"),
                           ApCodecs.SECURITY.read(j.get("security")),
                           j.has("hidden") ? j.get("hidden").asBoolean() : null, j.get("tenant_id").asInt(),
                           text(j, "slice_id"), ApCodecs.RATE_LIMIT.read(j.get("rate_limit")),
                           intOrNull(j, "max_clients"), j.has("wmm_ac") ? text(j, "wmm_ac") : null,
                           j.has("probe") ? ApCodecs.PROBE.read(j.get("probe")) : null);
    }

    @Override
    public ObjectNode encode(VapSpec v) {
        ObjectNode j = Json.object().put("vap_id", v.vapId).put("radio", v.radio).put("ssid", v.ssid);
        j.set("security", ApCodecs.SECURITY.encode(v.security));
        putIfSet(j, "hidden", v.hidden);
        j.put("tenant_id", v.tenantId).put("slice_id", v.sliceId);
        j.set("rate_limit", ApCodecs.RATE_LIMIT.encode(v.rateLimit));
        putIfSet(j, "max_clients", v.maxClients);
        putIfSet(j, "wmm_ac", v.wmmAc);
        if (v.probe != null) {
            j.set("probe", ApCodecs.PROBE.encode(v.probe));
        }
        return j;
    }
}
