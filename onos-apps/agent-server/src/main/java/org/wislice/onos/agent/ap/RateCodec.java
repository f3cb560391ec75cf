package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

/** getTxRate / getRxRate's result: bps (a number >= 0) and interval_s (a number) are what must be there. */
public final class RateCodec extends AgentCodec<Rate> {

    RateCodec() {
        super("rate reply");
    }

    @Override
    public void check(JsonNode j, String path) throws ProtocolException {
        if (j == null || !j.path("bps").isNumber() || j.path("bps").asDouble() < 0) {
            throw ProtocolException.badRequest(path + ".bps: number >= 0 expected");
        }
        if (!j.path("interval_s").isNumber()) {
            throw ProtocolException.badRequest(path + ".interval_s: number expected");
        }
    }

    @Override
    public Rate read(JsonNode j) {
        return new Rate(j.has("vap_id") ? text(j, "vap_id") : null, number(j, "bps"), number(j, "packets_per_s"),
                        number(j, "interval_s"));
    }

    @Override
    public ObjectNode encode(Rate r) {
        ObjectNode j = Json.object();
        putIfSet(j, "vap_id", r.vapId);
        putNumber(j, "bps", r.bps);
        putNumber(j, "packets_per_s", r.packetsPerS);
        putNumber(j, "interval_s", r.intervalS);
        return j;
    }
}
