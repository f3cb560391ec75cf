package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Set;

/** vapState's data: {vap_id, state: up|down|failed|removed}. */
public final class VapStateChangedCodec extends AgentCodec<VapStateChanged> {

    VapStateChangedCodec() {
        super("vapState");
    }

    @Override
    public void check(JsonNode d, String at) throws ProtocolException {
        Fields.object(d, at, Set.of("vap_id", "state"), Set.of("vap_id", "state"));
        Fields.string(d, "vap_id", at, Fields.IDENT);
        Fields.oneOf(d, "state", at, Set.of("up", "down", "failed", "removed"));
    }

    @Override
    public VapStateChanged read(JsonNode j) {
        return new VapStateChanged(text(j, "vap_id"), text(j, "state"));
    }

    @Override
    public ObjectNode encode(VapStateChanged e) {
        return Json.object().put("vap_id", e.vapId).put("state", e.state);
    }
}
