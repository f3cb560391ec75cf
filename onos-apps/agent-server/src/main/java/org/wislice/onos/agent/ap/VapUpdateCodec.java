package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

import java.util.Set;

/** updateVap's params: {vap_id, rate_limit?, wmm_ac?, probe? (null: stop it)}, at least one of the three. */
public final class VapUpdateCodec extends AgentCodec<VapUpdate> {

    private static final Set<String> CHANGES = Set.of("rate_limit", "wmm_ac", "probe");

    VapUpdateCodec() {
        super("updateVap params");
    }

    @Override
    public void check(JsonNode p, String at) throws ProtocolException {
        Fields.object(p, at, Set.of("vap_id", "rate_limit", "wmm_ac", "probe"), Set.of("vap_id"));
        Fields.string(p, "vap_id", at, Fields.IDENT);
        if (CHANGES.stream().noneMatch(p::has)) {
            throw ProtocolException.badRequest(at + ": nothing to change (rate_limit, wmm_ac or probe expected)");
        }
        if (p.has("rate_limit")) {
            Schema.rateLimit(p.get("rate_limit"), at + ".rate_limit");
        }
        Fields.oneOf(p, "wmm_ac", at, Schema.WMM_ACS);
        if (p.has("probe") && !p.get("probe").isNull()) {
            Schema.probe(p.get("probe"), at + ".probe");
        }
    }

    @Override
    public VapUpdate read(JsonNode j) {
        JsonNode probe = j.get("probe");
        RateLimit rates = j.has("rate_limit") ? ApCodecs.RATE_LIMIT.read(j.get("rate_limit")) : null;
        return new VapUpdate(text(j, "vap_id"), rates, j.has("wmm_ac") ? text(j, "wmm_ac") : null,
                             probe != null && !probe.isNull() ? ApCodecs.PROBE.read(probe) : null,
                             probe != null && probe.isNull());
    }

    @Override
    public ObjectNode encode(VapUpdate v) {
        ObjectNode j = Json.object().put("vap_id", v.vapId);
        if (v.rateLimit != null) {
            j.set("rate_limit", ApCodecs.RATE_LIMIT.encode(v.rateLimit));
        }
        putIfSet(j, "wmm_ac", v.wmmAc);
        if (v.probe != null) {
            j.set("probe", ApCodecs.PROBE.encode(v.probe));
        } else if (v.dropProbe) {
            j.putNull("probe");
        }
        return j;
    }
}
