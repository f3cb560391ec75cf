package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Set;

/** steerClient's result: {accepted, status_code (0-255 or null), reason (at most 256 characters)}. */
public final class SteerOutcomeCodec extends AgentCodec<SteerOutcome> {

    private static final Set<String> FIELDS = Set.of("accepted", "status_code", "reason");

    SteerOutcomeCodec() {
        super("steerClient result");
    }

    @Override
    public void check(JsonNode j, String at) throws ProtocolException {
        Fields.object(j, at, FIELDS, FIELDS);
        Fields.bool(j, "accepted", at);
        Fields.nullableInteger(j, "status_code", at, 0, 255);
        Fields.maxLength(j, "reason", at, 256);
    }

    @Override
    public SteerOutcome read(JsonNode j) {
        return new SteerOutcome(j.get("accepted").asBoolean(), intOrNull(j, "status_code"), text(j, "reason"));
    }

    @Override
    public ObjectNode encode(SteerOutcome o) {
        ObjectNode j = Json.object().put("accepted", o.accepted);
        putNullable(j, "status_code", o.statusCode);
        return j.put("reason", o.reason);
    }
}
