package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** A stats event's client: {mac, vap_id, tx_bytes, rx_bytes, tx_bps?, rx_bps?}. */
public final class StatsClientCodec extends AgentCodec<StatsClient> {

    StatsClientCodec() {
        super("StatsClient");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.statsClient(json, path);
    }

    @Override
    public StatsClient read(JsonNode j) {
        return new StatsClient(text(j, "mac"), text(j, "vap_id"), j.get("tx_bytes").asLong(),
                               j.get("rx_bytes").asLong(), number(j, "tx_bps"), number(j, "rx_bps"));
    }

    @Override
    public ObjectNode encode(StatsClient c) {
        ObjectNode j = Json.object().put("mac", c.mac).put("vap_id", c.vapId).put("tx_bytes", c.txBytes)
                .put("rx_bytes", c.rxBytes);
        putNumber(j, "tx_bps", c.txBps);
        putNumber(j, "rx_bps", c.rxBps);
        return j;
    }
}
