package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** Client: {mac, vap_id, signal_dbm (or null), connected_s, tx_bytes, rx_bytes}. */
public final class ClientCodec extends AgentCodec<Client> {

    ClientCodec() {
        super("Client");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.client(json, path);
    }

    @Override
    public Client read(JsonNode j) {
        return new Client(text(j, "mac"), text(j, "vap_id"), intOrNull(j, "signal_dbm"),
                          j.get("connected_s").asLong(), j.get("tx_bytes").asLong(), j.get("rx_bytes").asLong());
    }

    @Override
    public ObjectNode encode(Client c) {
        ObjectNode j = Json.object().put("mac", c.mac).put("vap_id", c.vapId);
        putNullable(j, "signal_dbm", c.signalDbm);
        return j.put("connected_s", c.connectedS).put("tx_bytes", c.txBytes).put("rx_bytes", c.rxBytes);
    }
}
