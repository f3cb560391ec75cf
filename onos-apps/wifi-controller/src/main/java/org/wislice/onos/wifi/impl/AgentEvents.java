package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.wislice.onos.agent.AgentRecord;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ReportedState;
import org.wislice.onos.agent.ap.ApCapabilities;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.ap.ApStats;
import org.wislice.onos.agent.ap.Client;
import org.wislice.onos.agent.ap.ClientAssociated;
import org.wislice.onos.agent.ap.RadioCapacity;
import org.wislice.onos.agent.ap.StatsClient;
import org.wislice.onos.agent.ap.VapLatency;
import org.wislice.onos.agent.ap.VapSample;
import org.wislice.onos.agent.ap.VapState;
import org.wislice.onos.wifi.api.WifiEvent;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Applies what ap-agents report to the WifiStore (which turns it into WifiEvents): getVaps and getClient results
 * after a (re)connect, and validated events: clients, vAP states, and from stats events the radios' current
 * capacity and the clients' counters and rates, firmware upgrades' progress; the vAP samples themselves are posted as STATS events, and each
 * agent's last stats event (with the latest latency of each probed vAP) is kept (on this node) for GET
 * /onos/wifi/stats.
 */
final class AgentEvents {
    private final Logger log = getLogger(getClass());
    private final WifiStore store;
    private final Consumer<WifiEvent> post;
    private final FirmwareUpgrades upgrades;
    /**
     * Last stats event of each agent connected to this node, as {agent_id, ts, interval_s, vaps?, radios?,
     * clients?}: rates are ephemeral, kept per node, not in the store. One entry per connected agent.
     */
    private final Map<String, ObjectNode> lastStats = new ConcurrentHashMap<>();
    /**
     * Per agent, what its last stats event said of each client (at most Schema.MAX_STATS_CLIENTS): a client
     * whose numbers did not change since is not written again.
     */
    private final Map<String, Map<String, StatsClient>> clientSamples = new ConcurrentHashMap<>();
    /**
     * Per agent, the latest VapLatency of each probed vAP (+ "ts" of the stats event that carried it): an event
     * may leave out a vAP whose probe could not be read then, and a poller should still see its last numbers. A
     * vAP not reported for LATENCY_KEPT_INTERVALS stats intervals is dropped (its probe or the vAP is gone).
     */
    private final Map<String, Map<String, ObjectNode>> latency = new ConcurrentHashMap<>();
    static final int LATENCY_KEPT_INTERVALS = 3;

    AgentEvents(WifiStore store, Consumer<WifiEvent> post, FirmwareUpgrades upgrades) {
        this.store = store;
        this.post = post;
        this.upgrades = upgrades;
    }

    /** Replaces the agent's stored vAP states with what getVaps reports now. */
    void refreshVaps(String agentId, List<VapState> reported) {
        ReportedState.replace(reported, VapState::vapId, vap -> store.putVap(agentId, vap),
                              store.vaps(agentId).stream().map(v -> v.value().vapId()).collect(Collectors.toList()),
                              vapId -> store.removeVap(agentId, vapId));
    }

    /** Replaces the agent's stored clients with what getClient reports now. */
    void refreshClients(String agentId, List<Client> reported) {
        clientSamples.remove(agentId); // fresh records: the next stats event writes its counters again
        ReportedState.replace(reported, Client::mac, client -> store.putClient(agentId, client),
                              store.clients(agentId).stream().map(c -> c.get("mac").asText())
                                      .collect(Collectors.toList()),
                              mac -> store.removeClient(agentId, mac));
    }

    /** A validated event (the agent server checked it against the protocol). */
    void handle(String agentId, JsonNode event) {
        JsonNode data = event.get("data");
        double ts = event.get("ts").asDouble();
        switch (event.get("event").asText()) {
            case "clientAssociated": {
                ClientAssociated associated = ApCodecs.CLIENT_ASSOCIATED.read(data);
                store.putClient(agentId, Client.associated(associated), ts);
                forgetSample(agentId, associated.mac());
                break;
            }
            case "clientDisassociated": {
                String mac = ApCodecs.CLIENT_DISASSOCIATED.read(data).mac();
                store.removeClient(agentId, mac);
                forgetSample(agentId, mac);
                break;
            }
            case "vapState":
                ApCodecs.VAP_STATE_CHANGED.read(data).applyTo(vapId -> store.removeVap(agentId, vapId),
                        (vapId, state) -> store.updateVapState(agentId, vapId, state, ts));
                break;
            case "stats": {
                ApStats stats = ApCodecs.STATS.read(data);
                stats.radios().ifPresent(radios -> radioCapacities(agentId, radios));
                onStats(agentId, stats, ts);
                break;
            }
            case "firmwareProgress":
                upgrades.progress(agentId, ApCodecs.FIRMWARE_PROGRESS.read(data));
                break;
            default:
                log.debug("ap-agent {} sent {} (not an ap event)", agentId, event.get("event").asText());
        }
    }

    /** The agent's session on this node ended: its last stats are no longer current. */
    void forget(String agentId) {
        lastStats.remove(agentId);
        clientSamples.remove(agentId);
        latency.remove(agentId);
    }

    /** The agent server restarted: every session on this node ended. */
    void forgetAll() {
        lastStats.clear();
        clientSamples.clear();
        latency.clear();
    }

    /** The last stats event of every agent connected to this node, by agent_id. */
    List<ObjectNode> lastStats() {
        List<ObjectNode> all = new ArrayList<>(lastStats.values());
        all.sort(Comparator.comparing(s -> s.get("agent_id").asText()));
        return all;
    }

    private void forgetSample(String agentId, String mac) {
        Map<String, StatsClient> samples = clientSamples.get(agentId);
        if (samples != null) {
            samples.remove(mac);
        }
    }

    private void onStats(String agentId, ApStats stats, double ts) {
        ObjectNode last = Json.object().put("agent_id", agentId).put("ts", ts);
        last.setAll(ApCodecs.STATS.encode(stats)); // interval_s and the event's lists, numbers as the agent sent them
        ArrayNode kept = keptLatency(agentId, stats, ts);
        if (kept.size() > 0) {
            last.set("latency", kept);
        }
        lastStats.put(agentId, last);
        stats.clients().ifPresent(clients -> clientCounters(agentId, clients, ts));
        for (VapSample v : stats.vaps().orElse(List.of())) {
            ObjectNode sample = Json.object();
            sample.put("agent_id", agentId);
            sample.put("vap_id", v.vapId());
            sample.put("tx_bps", v.txBps());
            sample.put("rx_bps", v.rxBps());
            sample.put("clients", v.clients());
            sample.put("interval_s", stats.intervalS());
            post.accept(new WifiEvent(WifiEvent.Type.STATS, sample, (long) (ts * 1000)));
        }
    }

    /**
     * Merges the event's latency into the agent's kept VapLatency per vAP and returns them by vap_id, each with
     * the "ts" of the event that reported it; entries older than LATENCY_KEPT_INTERVALS intervals are dropped.
     */
    private ArrayNode keptLatency(String agentId, ApStats stats, double ts) {
        Map<String, ObjectNode> kept = latency.computeIfAbsent(agentId, a -> new ConcurrentHashMap<>());
        for (VapLatency l : stats.latency().orElse(List.of())) {
            kept.put(l.vapId(), ApCodecs.VAP_LATENCY.encode(l).put("ts", ts));
        }
        double oldest = ts - LATENCY_KEPT_INTERVALS * stats.intervalS();
        kept.values().removeIf(l -> l.get("ts").asDouble() < oldest);
        ArrayNode out = Json.MAPPER.createArrayNode();
        kept.values().stream().sorted(Comparator.comparing(l -> l.get("vap_id").asText())).forEach(out::add);
        return out;
    }

    /**
     * A stats event's clients: the stored client of each (same agent, MAC and vAP) takes the reported tx_bytes,
     * rx_bytes and tx_bps/rx_bps (removed when the event has no rates for it) and updated_ts. Only clients whose
     * numbers changed since the agent's previous stats event are written, so an idle client costs no store write;
     * a client the store does not have is left to the association events.
     */
    private void clientCounters(String agentId, List<StatsClient> reported, double ts) {
        Map<String, StatsClient> previous = clientSamples.getOrDefault(agentId, Map.of());
        Map<String, StatsClient> current = new ConcurrentHashMap<>();
        for (StatsClient sample : reported) {
            current.put(sample.mac(), sample);
            if (!sample.equals(previous.get(sample.mac()))) {
                store.updateClient(agentId, sample.mac(), client -> counters(sample, client, ts));
            }
        }
        clientSamples.put(agentId, current);
    }

    /** The client record with the sample's numbers, or null (no change) if the record is of another vAP. */
    private static ObjectNode counters(StatsClient sample, ObjectNode client, double ts) {
        if (!sample.vapId().equals(client.path("vap_id").asText())) {
            return null;
        }
        client.put("tx_bytes", sample.txBytes()).put("rx_bytes", sample.rxBytes()).put("updated_ts", ts);
        if (sample.hasRates()) {
            client.put("tx_bps", sample.txBps()).put("rx_bps", sample.rxBps());
        } else {
            client.remove(List.of("tx_bps", "rx_bps"));
        }
        return client;
    }

    /**
     * A stats event's radios: the stored agent's radios of those names take the reported capacity_kbps and
     * capacity_source (the agent record is written, and AGENT_UPDATED posted, only when one changed).
     */
    private void radioCapacities(String agentId, List<RadioCapacity> reported) {
        store.agent(agentId).ifPresent(agent -> {
            AgentRecord<ApCapabilities> updated =
                    agent.withCapabilities(agent.capabilities().withCapacities(reported));
            if (updated != agent) {
                store.putAgent(updated);
            }
        });
    }
}
