package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * An agent record as the REST API and the store write it: {agent_id, connected, address, NODE, software,
 * firmware_version? (absent when its hello had none), the capabilities' fields, last_seen}, NODE being the role's name for the controller node ("node" for ap-agents,
 * "controller_node" for MEC nodes).
 */
public final class AgentRecordCodec<C> extends AgentCodec<AgentRecord<C>> {

    private final String nodeKey;
    private final AgentCodec<C> capabilities;
    private final Set<String> common;

    public AgentRecordCodec(String nodeKey, AgentCodec<C> capabilities) {
        super("agent record");
        this.nodeKey = nodeKey;
        this.capabilities = capabilities;
        this.common = Set.of("agent_id", "connected", "address", nodeKey, "software", "last_seen");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        if (json == null || !json.isObject()) {
            throw ProtocolException.badRequest(path + ": object expected");
        }
        ObjectNode caps = Json.object();
        for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!common.contains(e.getKey()) && !"firmware_version".equals(e.getKey())) {
                caps.set(e.getKey(), e.getValue());
            }
        }
        capabilities.check(caps, path);
        for (String field : common) {
            if (!json.has(field)) {
                throw ProtocolException.badRequest(path + ": missing field '" + field + "'");
            }
        }
        Fields.string(json, "agent_id", path, Fields.IDENT);
        Fields.bool(json, "connected", path);
        Fields.string(json, "address", path, null);
        Fields.string(json, nodeKey, path, null);
        Fields.maxLength(json, "software", path, 128);
        Fields.string(json, "firmware_version", path, Fields.FIRMWARE_VERSION);
        Fields.number(json, "last_seen", path, 0, false, Double.MAX_VALUE);
    }

    @Override
    public AgentRecord<C> read(JsonNode j) {
        return new AgentRecord<>(text(j, "agent_id"), j.get("connected").asBoolean(), text(j, "address"),
                                 text(j, nodeKey), text(j, "software"), capabilities.read(j),
                                 j.get("last_seen").asDouble(),
                                 j.has("firmware_version") ? text(j, "firmware_version") : null);
    }

    @Override
    public ObjectNode encode(AgentRecord<C> a) {
        ObjectNode j = Json.object().put("agent_id", a.agentId).put("connected", a.connected)
                .put("address", a.address).put(nodeKey, a.controllerNode).put("software", a.software);
        putIfSet(j, "firmware_version", a.firmwareVersion);
        j.setAll(capabilities.encode(a.capabilities));
        return j.put("last_seen", a.lastSeen);
    }
}
