package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** Capacity: {cpu, memory_mib}; cpu > 0 when offered, >= 0 when used. */
public final class CapacityCodec extends AgentCodec<Capacity> {

    private final boolean used;

    CapacityCodec(boolean used) {
        super("Capacity");
        this.used = used;
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.capacity(json, path, used);
    }

    @Override
    public Capacity read(JsonNode j) {
        return new Capacity(number(j, "cpu"), j.get("memory_mib").asLong());
    }

    @Override
    public ObjectNode encode(Capacity c) {
        ObjectNode j = Json.object();
        putNumber(j, "cpu", c.cpu);
        return j.put("memory_mib", c.memoryMib);
    }
}
