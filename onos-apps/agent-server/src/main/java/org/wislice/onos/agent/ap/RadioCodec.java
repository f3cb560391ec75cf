package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** Radio: {name, mac, channel, hw_mode, max_vaps, vaps_used, capacity_kbps?, capacity_source?}. */
public final class RadioCodec extends AgentCodec<Radio> {

    RadioCodec() {
        super("Radio");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.radio(json, path);
    }

    @Override
    public Radio read(JsonNode j) {
        return new Radio(text(j, "name"), text(j, "mac"), j.get("channel").asInt(), text(j, "hw_mode"),
                         j.get("max_vaps").asInt(), j.get("vaps_used").asInt(), longOrNull(j, "capacity_kbps"),
                         j.has("capacity_source") ? text(j, "capacity_source") : null);
    }

    @Override
    public ObjectNode encode(Radio r) {
        ObjectNode j = Json.object().put("name", r.name).put("mac", r.mac).put("channel", r.channel)
                .put("hw_mode", r.hwMode).put("max_vaps", r.maxVaps).put("vaps_used", r.vapsUsed);
        putIfSet(j, "capacity_kbps", r.capacityKbps);
        putIfSet(j, "capacity_source", r.capacitySource);
        return j;
    }
}
