package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A placed value as the REST API and the stores write it: the value's fields and the agent's id under the role's
 * key ("agent_id" for a vAP, "node" for a vNF).
 */
public final class PlacedCodec<T> extends AgentCodec<Placed<T>> {

    private final String agentKey;
    private final AgentCodec<T> value;

    public PlacedCodec(String agentKey, AgentCodec<T> value) {
        super(value.name());
        this.agentKey = agentKey;
        this.value = value;
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        if (json == null || !json.isObject() || !json.has(agentKey)) {
            throw ProtocolException.badRequest(path + ": object with '" + agentKey + "' expected");
        }
        Fields.string(json, agentKey, path, Fields.IDENT);
        ObjectNode rest = json.deepCopy();
        rest.remove(agentKey);
        value.check(rest, path);
    }

    @Override
    public Placed<T> read(JsonNode j) {
        return new Placed<>(text(j, agentKey), value.read(j));
    }

    @Override
    public ObjectNode encode(Placed<T> p) {
        return value.encode(p.value).put(agentKey, p.agentId);
    }
}
