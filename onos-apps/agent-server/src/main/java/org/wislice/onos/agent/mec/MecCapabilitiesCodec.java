package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** A mec-agent hello's capabilities: {capacity, catalog, dpdk, pof_switch}. */
public final class MecCapabilitiesCodec extends AgentCodec<MecCapabilities> {

    MecCapabilitiesCodec() {
        super("mec capabilities");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.mecCapabilities(json, path);
    }

    @Override
    public MecCapabilities read(JsonNode j) {
        return new MecCapabilities(MecCodecs.CAPACITY.read(j.get("capacity")), texts(j.get("catalog")),
                                   j.get("dpdk").asBoolean(), j.get("pof_switch").asBoolean());
    }

    @Override
    public ObjectNode encode(MecCapabilities c) {
        ObjectNode j = Json.object();
        j.set("capacity", MecCodecs.CAPACITY.encode(c.capacity));
        j.set("catalog", textArray(c.catalog));
        return j.put("dpdk", c.dpdk).put("pof_switch", c.pofSwitch);
    }
}
