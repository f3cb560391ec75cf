package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** security: {mode, passphrase?, fast_transition?}; checked as a VapSpec's (VapStateCodec checks a VapState's: mode only). */
public final class SecurityCodec extends AgentCodec<Security> {

    SecurityCodec() {
        super("security");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.security(json, path, true);
    }

    @Override
    public Security read(JsonNode j) {
        return new Security(text(j, "mode"), j.has("passphrase") ? text(j, "passphrase") : null,
                            j.path("fast_transition").asBoolean(false));
    }

    @Override
    public ObjectNode encode(Security s) {
        ObjectNode j = Json.object().put("mode", s.mode);
        putIfSet(j, "passphrase", s.passphrase);
        if (s.fastTransition) {
            j.put("fast_transition", true);
        }
        return j;
    }
}
