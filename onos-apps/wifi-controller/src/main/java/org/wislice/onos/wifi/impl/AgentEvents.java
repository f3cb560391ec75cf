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
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Applies what ap-agents report to the WifiStore (which turns it into WifiEvents): getVaps and getClient results
 * after a (re)connect, and validated events: clients, vAP states, and from stats events the radios' current
 * capacity and the clients' counters and rates; the vAP samples themselves are posted as STATS events, and each
 * agent's last stats event is kept (on this node) for GET /onos/wifi/stats.
 */
final class AgentEvents {
    private final Logger log = getLogger(getClass());
    private final WifiStore store;
    private final Consumer<WifiEvent> post;
    /**
     * Last stats event of each agent connected to this node, as {agent_id, ts, interval_s, vaps?, radios?,
     * clients?}: rates are ephemeral, kept per node, not in the store. One entry per connected agent.
     */
    private final Map<String, ObjectNode> lastStats = new ConcurrentHashMap<>();
    /**
     * Per agent, what its last stats event said of each client (at most Schema.MAX_STATS_CLIENTS): a client
     * whose numbers did not change since is not written again.
     */
    private final Map<String, Map<String, ClientSample>> clientSamples = new ConcurrentHashMap<>();

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
        clientSamples.remove(agentId); // fresh records: the next stats event writes its counters again
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
                forgetSample(agentId, data.get("mac").asText());
                break;
            }
            case "clientDisassociated":
                store.removeClient(agentId, data.get("mac").asText());
                forgetSample(agentId, data.get("mac").asText());
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

    /** The agent's session on this node ended: its last stats are no longer current. */
    void forget(String agentId) {
        lastStats.remove(agentId);
        clientSamples.remove(agentId);
    }

    /** The agent server restarted: every session on this node ended. */
    void forgetAll() {
        lastStats.clear();
        clientSamples.clear();
    }

    /** The last stats event of every agent connected to this node, by agent_id. */
    List<ObjectNode> lastStats() {
        List<ObjectNode> all = new ArrayList<>(lastStats.values());
        all.sort(Comparator.comparing(s -> s.get("agent_id").asText()));
        return all;
    }

    private void forgetSample(String agentId, String mac) {
        Map<String, ClientSample> samples = clientSamples.get(agentId);
        if (samples != null) {
            samples.remove(mac);
        }
    }

    private void onStats(String agentId, JsonNode data, double ts) {
        ObjectNode last = Json.object().put("agent_id", agentId).put("ts", ts);
        last.set("interval_s", data.get("interval_s"));
        for (String key : new String[] {"vaps", "radios", "clients"}) {
            if (data.has(key)) {
                last.set(key, data.get(key)); // the event's own nodes: read-only from here on
            }
        }
        lastStats.put(agentId, last);
        if (data.has("clients")) {
            clientCounters(agentId, data.get("clients"), ts);
        }
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
            post.accept(new WifiEvent(WifiEvent.Type.STATS, sample, (long) (ts * 1000)));
        }
    }

    /**
     * A stats event's clients: the stored client of each (same agent, MAC and vAP) takes the reported tx_bytes,
     * rx_bytes and tx_bps/rx_bps (removed when the event has no rates for it) and updated_ts. Only clients whose
     * numbers changed since the agent's previous stats event are written, so an idle client costs no store write;
     * a client the store does not have is left to the association events.
     */
    private void clientCounters(String agentId, JsonNode reported, double ts) {
        Map<String, ClientSample> previous = clientSamples.getOrDefault(agentId, Map.of());
        Map<String, ClientSample> current = new ConcurrentHashMap<>();
        for (JsonNode c : reported) {
            ClientSample sample = new ClientSample(c);
            String mac = c.get("mac").asText();
            current.put(mac, sample);
            if (!sample.equals(previous.get(mac))) {
                store.updateClient(agentId, mac, client -> sample.applyTo(client, ts));
            }
        }
        clientSamples.put(agentId, current);
    }

    /** What a stats event says of one client; rates NaN when it has none. */
    private static final class ClientSample {
        private final String vapId;
        private final long txBytes;
        private final long rxBytes;
        private final double txBps;
        private final double rxBps;

        ClientSample(JsonNode c) {
            vapId = c.get("vap_id").asText();
            txBytes = c.get("tx_bytes").asLong();
            rxBytes = c.get("rx_bytes").asLong();
            txBps = c.has("tx_bps") ? c.get("tx_bps").asDouble() : Double.NaN;
            rxBps = c.has("rx_bps") ? c.get("rx_bps").asDouble() : Double.NaN;
        }

        /** The client record with these numbers, or null (no change) if the record is of another vAP. */
        ObjectNode applyTo(ObjectNode client, double ts) {
            if (!vapId.equals(client.path("vap_id").asText())) {
                return null;
            }
            client.put("tx_bytes", txBytes).put("rx_bytes", rxBytes).put("updated_ts", ts);
            if (Double.isNaN(txBps)) {
                client.remove(List.of("tx_bps", "rx_bps"));
            } else {
                client.put("tx_bps", txBps).put("rx_bps", rxBps);
            }
            return client;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof ClientSample)) {
                return false;
            }
            ClientSample s = (ClientSample) o;
            // Double.compare: NaN equals NaN (no rates both times).
            return vapId.equals(s.vapId) && txBytes == s.txBytes && rxBytes == s.rxBytes
                    && Double.compare(txBps, s.txBps) == 0 && Double.compare(rxBps, s.rxBps) == 0;
        }

        @Override
        public int hashCode() {
            return Objects.hash(vapId, txBytes, rxBytes, txBps, rxBps);
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
