package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Set;

/** steerClient's params: {vap_id, mac, target_bssid, target_channel? (1-233), disassoc_timer_tbtt? (0-65535)}. */
public final class ClientSteeringCodec extends AgentCodec<ClientSteering> {

    ClientSteeringCodec() {
        super("steerClient params");
    }

    @Override
    public void check(JsonNode p, String at) throws ProtocolException {
        Fields.object(p, at, Set.of("vap_id", "mac", "target_bssid", "target_channel", "disassoc_timer_tbtt"),
                      Set.of("vap_id", "mac", "target_bssid"));
        Fields.string(p, "vap_id", at, Fields.IDENT);
        Fields.string(p, "mac", at, Fields.MAC);
        Fields.string(p, "target_bssid", at, Fields.MAC);
        Fields.integer(p, "target_channel", at, 1, 233);
        Fields.integer(p, "disassoc_timer_tbtt", at, 0, 65535);
    }

    @Override
    public ClientSteering read(JsonNode j) {
        return new ClientSteering(text(j, "vap_id"), text(j, "mac"), text(j, "target_bssid"),
                                  intOrNull(j, "target_channel"), intOrNull(j, "disassoc_timer_tbtt"));
    }

    @Override
    public ObjectNode encode(ClientSteering s) {
        ObjectNode j = Json.object().put("vap_id", s.vapId).put("mac", s.mac).put("target_bssid", s.targetBssid);
        putIfSet(j, "target_channel", s.targetChannel);
        putIfSet(j, "disassoc_timer_tbtt", s.disassocTimerTbtt);
        return j;
    }
}
