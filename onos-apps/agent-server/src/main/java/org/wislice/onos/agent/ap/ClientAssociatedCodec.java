package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Set;

/** clientAssociated's data: {vap_id, mac, signal_dbm?}. */
public final class ClientAssociatedCodec extends AgentCodec<ClientAssociated> {

    ClientAssociatedCodec() {
        super("clientAssociated");
    }

    @Override
    public void check(JsonNode d, String at) throws ProtocolException {
        Fields.object(d, at, Set.of("vap_id", "mac", "signal_dbm"), Set.of("vap_id", "mac"));
        Fields.string(d, "vap_id", at, Fields.IDENT);
        Fields.string(d, "mac", at, Fields.MAC);
        Fields.nullableInteger(d, "signal_dbm", at, -127, 0);
    }

    @Override
    public ClientAssociated read(JsonNode j) {
        return new ClientAssociated(text(j, "vap_id"), text(j, "mac"), intOrNull(j, "signal_dbm"));
    }

    @Override
    public ObjectNode encode(ClientAssociated e) {
        ObjectNode j = Json.object().put("vap_id", e.vapId).put("mac", e.mac);
        putIfSet(j, "signal_dbm", e.signalDbm);
        return j;
    }
}
