package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

import java.util.ArrayList;
import java.util.List;

/**
 * VnfState: the VnfSpec fields + {vnf_id, address, class, state, container_id, ports: [{name, pof_port}]} + the
 * optional cpus and cpu_mode of a placed vNF (absent stays absent).
 */
public final class VnfStateCodec extends AgentCodec<VnfState> {

    VnfStateCodec() {
        super("VnfState");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.vnfState(json, path);
    }

    @Override
    public VnfState read(JsonNode j) {
        List<VnfPort> ports = new ArrayList<>();
        j.get("ports").forEach(p -> ports.add(new VnfPort(text(p, "name"), intOrNull(p, "pof_port"))));
        return new VnfState(MecCodecs.VNF_SPEC.read(j), j.get("vnf_id").asLong(), text(j, "address"),
                            text(j, "class"), text(j, "state"), text(j, "container_id"), ports,
                            textOrNull(j, "cpus"), textOrNull(j, "cpu_mode"));
    }

    private static String textOrNull(JsonNode j, String field) {
        return j.has(field) ? j.get(field).asText() : null;
    }

    @Override
    public ObjectNode encode(VnfState v) {
        ObjectNode j = MecCodecs.VNF_SPEC.encode(v.spec);
        j.put("vnf_id", v.vnfId).put("address", v.address).put("class", v.vnfClass).put("state", v.state)
                .put("container_id", v.containerId);
        ArrayNode ports = j.putArray("ports");
        v.ports.forEach(p -> putNullable(ports.addObject().put("name", p.name), "pof_port", p.pofPort));
        putIfSet(j, "cpus", v.cpus);
        putIfSet(j, "cpu_mode", v.cpuMode);
        return j;
    }
}
