package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Set;

/** firmwareProgress's data: {version, state, reason? (at most 1024 characters)}. */
public final class FirmwareProgressCodec extends AgentCodec<FirmwareProgress> {

    /** The states an agent reports ("requested" is the controller's own, before the agent's first event). */
    public static final Set<String> STATES = Set.of("downloading", "verifying", "installing", "restarting", "done",
                                                    "failed", "rolled_back");

    FirmwareProgressCodec() {
        super("firmwareProgress");
    }

    @Override
    public void check(JsonNode d, String at) throws ProtocolException {
        Fields.object(d, at, Set.of("version", "state", "reason"), Set.of("version", "state"));
        Fields.string(d, "version", at, Fields.FIRMWARE_VERSION);
        Fields.oneOf(d, "state", at, STATES);
        Fields.maxLength(d, "reason", at, 1024);
    }

    @Override
    public FirmwareProgress read(JsonNode j) {
        return new FirmwareProgress(text(j, "version"), text(j, "state"), j.has("reason") ? text(j, "reason") : null);
    }

    @Override
    public ObjectNode encode(FirmwareProgress p) {
        ObjectNode j = Json.object().put("version", p.version).put("state", p.state);
        putIfSet(j, "reason", p.reason);
        return j;
    }
}
