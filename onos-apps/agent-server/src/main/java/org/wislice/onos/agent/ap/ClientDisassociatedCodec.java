package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Set;

/** clientDisassociated's data: {vap_id, mac, reason?}. */
public final class ClientDisassociatedCodec extends AgentCodec<ClientDisassociated> {

    ClientDisassociatedCodec() {
        super("clientDisassociated");
    }

    @Override
    public void check(JsonNode d, String at) throws ProtocolException {
        Fields.object(d, at, Set.of("vap_id", "mac", "reason"), Set.of("vap_id", "mac"));
        Fields.string(d, "vap_id", at, Fields.IDENT);
        Fields.string(d, "mac", at, Fields.MAC);
        Fields.integer(d, "reason", at, 0, 65535);
    }

    @Override
    public ClientDisassociated read(JsonNode j) {
        return new ClientDisassociated(text(j, "vap_id"), text(j, "mac"), intOrNull(j, "reason"));
    }

    @Override
    public ObjectNode encode(ClientDisassociated e) {
        ObjectNode j = Json.object().put("vap_id", e.vapId).put("mac", e.mac);
        putIfSet(j, "reason", e.reason);
        return j;
    }
}
