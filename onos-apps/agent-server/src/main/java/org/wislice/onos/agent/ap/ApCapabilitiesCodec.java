package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** An ap-agent hello's capabilities: {radios: [Radio], security: [mode], pof_switch}. */
public final class ApCapabilitiesCodec extends AgentCodec<ApCapabilities> {

    ApCapabilitiesCodec() {
        super("ap capabilities");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.apCapabilities(json, path);
    }

    @Override
    public ApCapabilities read(JsonNode j) {
        return new ApCapabilities(ApCodecs.RADIO.readAll(j.get("radios")), texts(j.get("security")),
                                  j.get("pof_switch").asBoolean());
    }

    @Override
    public ObjectNode encode(ApCapabilities c) {
        ObjectNode j = Json.object();
        j.set("radios", ApCodecs.RADIO.encodeAll(c.radios));
        j.set("security", textArray(c.security));
        return j.put("pof_switch", c.pofSwitch);
    }
}
