package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

/** A stats event's vAP sample: {vap_id, tx_bps, rx_bps, clients}. */
public final class VapSampleCodec extends AgentCodec<VapSample> {

    VapSampleCodec() {
        super("vAP sample");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.vapSample(json, path);
    }

    @Override
    public VapSample read(JsonNode j) {
        return new VapSample(text(j, "vap_id"), number(j, "tx_bps"), number(j, "rx_bps"), j.get("clients").asLong());
    }

    @Override
    public ObjectNode encode(VapSample v) {
        ObjectNode j = Json.object().put("vap_id", v.vapId);
        putNumber(j, "tx_bps", v.txBps);
        putNumber(j, "rx_bps", v.rxBps);
        return j.put("clients", v.clients);
    }
}
