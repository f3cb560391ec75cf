package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Set;

/** getClient's params: {mac?, vap_id?}. */
public final class ClientQueryCodec extends AgentCodec<ClientQuery> {

    ClientQueryCodec() {
        super("getClient params");
    }

    @Override
    public void check(JsonNode p, String at) throws ProtocolException {
        Fields.object(p, at, Set.of("mac", "vap_id"), Set.of());
        Fields.string(p, "mac", at, Fields.MAC);
        Fields.string(p, "vap_id", at, Fields.IDENT);
    }

    @Override
    public ClientQuery read(JsonNode j) {
        return new ClientQuery(j.has("mac") ? text(j, "mac") : null, j.has("vap_id") ? text(j, "vap_id") : null);
    }

    @Override
    public ObjectNode encode(ClientQuery q) {
        ObjectNode j = Json.object();
        putIfSet(j, "mac", q.mac);
        putIfSet(j, "vap_id", q.vapId);
        return j;
    }
}
