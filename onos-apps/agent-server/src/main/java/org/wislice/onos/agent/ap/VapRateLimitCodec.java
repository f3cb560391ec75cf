package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

import java.util.Set;

/** updateVap's params: {vap_id, rate_limit}. */
public final class VapRateLimitCodec extends AgentCodec<VapRateLimit> {

    VapRateLimitCodec() {
        super("updateVap params");
    }

    @Override
    public void check(JsonNode p, String at) throws ProtocolException {
        Fields.object(p, at, Set.of("vap_id", "rate_limit"), Set.of("vap_id", "rate_limit"));
        Fields.string(p, "vap_id", at, Fields.IDENT);
        Schema.rateLimit(p.get("rate_limit"), at + ".rate_limit");
    }

    @Override
    public VapRateLimit read(JsonNode j) {
        return new VapRateLimit(text(j, "vap_id"), ApCodecs.RATE_LIMIT.read(j.get("rate_limit")));
    }

    @Override
    public ObjectNode encode(VapRateLimit v) {
        ObjectNode j = Json.object().put("vap_id", v.vapId);
        j.set("rate_limit", ApCodecs.RATE_LIMIT.encode(v.rateLimit));
        return j;
    }
}
