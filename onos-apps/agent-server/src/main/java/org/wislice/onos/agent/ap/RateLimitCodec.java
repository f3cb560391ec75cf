package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** rate_limit: {down_kbps, up_kbps, down_guaranteed_kbps?, up_guaranteed_kbps?}. */
public final class RateLimitCodec extends AgentCodec<RateLimit> {

    RateLimitCodec() {
        super("rate_limit");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.rateLimit(json, path);
    }

    @Override
    public RateLimit read(JsonNode j) {
        return new RateLimit(j.get("down_kbps").asLong(), j.get("up_kbps").asLong(),
                             longOrNull(j, "down_guaranteed_kbps"), longOrNull(j, "up_guaranteed_kbps"));
    }

    @Override
    public ObjectNode encode(RateLimit r) {
        ObjectNode j = Json.object().put("down_kbps", r.downKbps).put("up_kbps", r.upKbps);
        putIfSet(j, "down_guaranteed_kbps", r.downGuaranteedKbps);
        putIfSet(j, "up_guaranteed_kbps", r.upGuaranteedKbps);
        return j;
    }
}
