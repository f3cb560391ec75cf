package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.wislice.onos.agent.AgentSession;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;
import org.wislice.onos.wifi.api.WifiEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Applies what ap-agents report to the WifiStore (which turns it into WifiEvents): getVaps and getClient results
 * after a (re)connect, and validated events: clients, vAP states, and from stats events the radios' current
 * capacity; the stats samples themselves are posted as STATS events.
 */
final class AgentEvents {
    private final Logger log = getLogger(getClass());
    private final WifiStore store;
    private final Consumer<WifiEvent> post;
    /** Last stats sample per "agent/vap": rates are ephemeral, kept per node, not in the store. */
    private final Map<String, ObjectNode> lastStats = new ConcurrentHashMap<>();

    AgentEvents(WifiStore store, Consumer<WifiEvent> post) {
        this.store = store;
        this.post = post;
    }

    /** Replaces the agent's stored vAP states with what getVaps reports now. */
    void refreshVaps(AgentSession session) throws ProtocolException {
        String agentId = session.agentId();
        JsonNode result = session.request("getVaps", Json.object()).join();
        JsonNode list = result.get("vaps");
        if (list == null || !list.isArray()) {
            throw ProtocolException.badRequest("getVaps result: vaps array expected");
        }
        for (int i = 0; i < list.size(); i++) {
            Schema.vapState(list.get(i), "vaps[" + i + "]");
        }
        List<String> present = new ArrayList<>();
        for (JsonNode vap : list) {
            store.putVap(agentId, (ObjectNode) vap.deepCopy());
            present.add(vap.get("vap_id").asText());
        }
        for (ObjectNode stale : store.vaps(agentId)) {
            if (!present.contains(stale.get("vap_id").asText())) {
                store.removeVap(agentId, stale.get("vap_id").asText());
            }
        }
    }

    /** Replaces the agent's stored clients with what getClient reports now. */
    void refreshClients(AgentSession session) throws ProtocolException {
        String agentId = session.agentId();
        JsonNode result = session.request("getClient", Json.object()).join();
        JsonNode list = result.get("clients");
        if (list == null || !list.isArray()) {
            throw ProtocolException.badRequest("getClient result: clients array expected");
        }
        for (int i = 0; i < list.size(); i++) {
            Schema.client(list.get(i), "clients[" + i + "]");
        }
        List<String> present = new ArrayList<>();
        for (JsonNode client : list) {
            store.putClient(agentId, (ObjectNode) client.deepCopy());
            present.add(client.get("mac").asText());
        }
        for (ObjectNode stale : store.clients(agentId)) {
            if (!present.contains(stale.get("mac").asText())) {
                store.removeClient(agentId, stale.get("mac").asText());
            }
        }
    }

    void handle(String agentId, JsonNode event) {
        JsonNode data = event.get("data");
        double ts = event.get("ts").asDouble();
        switch (event.get("event").asText()) {
            case "clientAssociated": {
                ObjectNode client = Json.object();
                client.put("mac", data.get("mac").asText());
                client.put("vap_id", data.get("vap_id").asText());
                client.set("signal_dbm", data.has("signal_dbm") ? data.get("signal_dbm") : Json.MAPPER.nullNode());
                client.put("connected_s", 0).put("tx_bytes", 0).put("rx_bytes", 0);
                client.put("updated_ts", ts);
                store.putClient(agentId, client);
                break;
            }
            case "clientDisassociated":
                store.removeClient(agentId, data.get("mac").asText());
                break;
            case "vapState":
                if ("removed".equals(data.get("state").asText())) {
                    // Gone from the agent; if still desired, the next syncVaps brings it back.
                    store.removeVap(agentId, data.get("vap_id").asText());
                    break;
                }
                store.vap(agentId, data.get("vap_id").asText()).ifPresent(vap -> {
                    vap.put("state", data.get("state").asText());
                    vap.put("updated_ts", ts);
                    store.putVap(agentId, vap);
                });
                break;
            case "stats":
                if (data.has("radios")) {
                    radioCapacities(agentId, data.get("radios"));
                }
                onStats(agentId, data, ts);
                break;
            default:
                log.debug("ap-agent {} sent {} (not an ap event)", agentId, event.get("event").asText());
        }
    }

    private void onStats(String agentId, JsonNode data, double ts) {
        if (!data.has("vaps")) {
            return;
        }
        for (JsonNode v : data.get("vaps")) {
            ObjectNode sample = Json.object();
            sample.put("agent_id", agentId);
            sample.put("vap_id", v.get("vap_id").asText());
            sample.put("tx_bps", v.get("tx_bps").asDouble());
            sample.put("rx_bps", v.get("rx_bps").asDouble());
            sample.put("clients", v.get("clients").asLong());
            sample.put("interval_s", data.get("interval_s").asDouble());
            lastStats.put(agentId + "/" + v.get("vap_id").asText(), sample);
            post.accept(new WifiEvent(WifiEvent.Type.STATS, sample, (long) (ts * 1000)));
        }
    }

    /**
     * A stats event's radios: the stored agent's radios of those names take the reported capacity_kbps and
     * capacity_source (the agent record is written, and AGENT_UPDATED posted, only when one changed).
     */
    private void radioCapacities(String agentId, JsonNode reported) {
        store.agent(agentId).ifPresent(agent -> {
            boolean changed = false;
            for (JsonNode radio : agent.withArray("radios")) {
                for (JsonNode r : reported) {
                    if (!r.get("name").asText().equals(radio.path("name").asText())) {
                        continue;
                    }
                    long capacity = r.get("capacity_kbps").asLong();
                    String source = r.get("capacity_source").asText();
                    if (!radio.path("capacity_kbps").isIntegralNumber()
                            || radio.get("capacity_kbps").asLong() != capacity
                            || !source.equals(radio.path("capacity_source").asText())) {
                        ((ObjectNode) radio).put("capacity_kbps", capacity).put("capacity_source", source);
                        changed = true;
                    }
                }
            }
            if (changed) {
                store.putAgent(agent);
            }
        });
    }
}
