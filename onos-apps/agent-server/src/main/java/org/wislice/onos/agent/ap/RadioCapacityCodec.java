package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** A stats event's radio entry: {name, capacity_kbps, capacity_source}. */
public final class RadioCapacityCodec extends AgentCodec<RadioCapacity> {

    RadioCapacityCodec() {
        super("radio capacity");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.radioCapacityEntry(json, path);
    }

    @Override
    public RadioCapacity read(JsonNode j) {
        return new RadioCapacity(text(j, "name"), j.get("capacity_kbps").asLong(), text(j, "capacity_source"));
    }

    @Override
    public ObjectNode encode(RadioCapacity r) {
        return Json.object().put("name", r.name).put("capacity_kbps", r.capacityKbps)
                .put("capacity_source", r.capacitySource);
    }
}
