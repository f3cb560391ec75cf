package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Set;

/** removeClient's params: {mac, vap_id?, reason? (1-65535)}. */
public final class ClientRemovalCodec extends AgentCodec<ClientRemoval> {

    ClientRemovalCodec() {
        super("removeClient params");
    }

    @Override
    public void check(JsonNode p, String at) throws ProtocolException {
        Fields.object(p, at, Set.of("mac", "vap_id", "reason"), Set.of("mac"));
        Fields.string(p, "mac", at, Fields.MAC);
        Fields.string(p, "vap_id", at, Fields.IDENT);
        Fields.integer(p, "reason", at, 1, 65535);
    }

    @Override
    public ClientRemoval read(JsonNode j) {
        return new ClientRemoval(text(j, "mac"), j.has("vap_id") ? text(j, "vap_id") : null, intOrNull(j, "reason"));
    }

    @Override
    public ObjectNode encode(ClientRemoval r) {
        ObjectNode j = Json.object().put("mac", r.mac);
        putIfSet(j, "vap_id", r.vapId);
        putIfSet(j, "reason", r.reason);
        return j;
    }
}
