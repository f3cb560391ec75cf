package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** VapState: the VapSpec fields (security without passphrase) + {ifname, bssid, state, clients, pof_port}. */
public final class VapStateCodec extends AgentCodec<VapState> {

    VapStateCodec() {
        super("VapState");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.vapState(json, path);
    }

    @Override
    public VapState read(JsonNode j) {
        return new VapState(ApCodecs.VAP_SPEC.read(j), text(j, "ifname"), text(j, "bssid"), text(j, "state"),
                            j.get("clients").asLong(), intOrNull(j, "pof_port"));
    }

    @Override
    public ObjectNode encode(VapState v) {
        ObjectNode j = ApCodecs.VAP_SPEC.encode(v.spec);
        j.put("ifname", v.ifname).put("bssid", v.bssid).put("state", v.state).put("clients", v.clients);
        putNullable(j, "pof_port", v.pofPort);
        return j;
    }
}
