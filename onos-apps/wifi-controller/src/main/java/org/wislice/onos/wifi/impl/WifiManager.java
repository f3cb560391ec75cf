package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.cluster.ClusterService;
import org.onosproject.core.CoreService;
import org.onosproject.event.AbstractListenerManager;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.wislice.onos.agent.AgentListener;
import org.wislice.onos.agent.AgentRequestException;
import org.wislice.onos.agent.AgentServerConfig;
import org.wislice.onos.agent.AgentSession;
import org.wislice.onos.agent.ConfiguredAgentServer;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.LatencyRecorder;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;
import org.wislice.onos.wifi.api.WifiEvent;
import org.wislice.onos.wifi.api.WifiListener;
import org.wislice.onos.wifi.api.WifiService;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;
import static org.wislice.onos.wifi.impl.OsgiPropertyConstants.*;

/**
 * The WiFi controller: serves ap-agents (spec/agent), keeps their state in the WifiStore, pushes the desired
 * vAPs on every (re)connect, and re-posts store changes as WifiEvents.
 */
@Component(immediate = true, service = WifiService.class,
        property = {
                AGENT_PORT + ":Integer=" + AGENT_PORT_DEFAULT,
                BIND_ADDRESS + "=" + BIND_ADDRESS_DEFAULT,
                SHARED_SECRET + "=" + SHARED_SECRET_DEFAULT,
                TLS_CERT_FILE + "=" + TLS_CERT_FILE_DEFAULT,
                TLS_KEY_FILE + "=" + TLS_KEY_FILE_DEFAULT,
                TLS_CLIENT_CA_FILE + "=" + TLS_CLIENT_CA_FILE_DEFAULT,
                REQUEST_TIMEOUT_MS + ":Integer=" + REQUEST_TIMEOUT_MS_DEFAULT,
                STATS_INTERVAL_S + ":Integer=" + STATS_INTERVAL_S_DEFAULT,
        })
public class WifiManager extends AbstractListenerManager<WifiEvent, WifiListener> implements WifiService {

    static final String APP_NAME = "org.wislice.wifi";
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ClusterService clusterService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService cfgService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected WifiStore store;

    /** Sessions of agents connected to this node. */
    private final Map<String, AgentSession> sessions = new ConcurrentHashMap<>();
    private final LatencyRecorder eventLatency = new LatencyRecorder(100_000);
    private final WifiStoreDelegate delegate = this::post;
    private final WifiListener latencyListener = this::recordLatency;
    // One field per component property, holding its value (ONOS's convention; its cfg catalog needs them).
    private int agentPort = AGENT_PORT_DEFAULT;
    private String bindAddress = BIND_ADDRESS_DEFAULT;
    private String sharedSecret = SHARED_SECRET_DEFAULT;
    private String tlsCertFile = TLS_CERT_FILE_DEFAULT;
    private String tlsKeyFile = TLS_KEY_FILE_DEFAULT;
    private String tlsClientCaFile = TLS_CLIENT_CA_FILE_DEFAULT;
    private int requestTimeoutMs = REQUEST_TIMEOUT_MS_DEFAULT;
    private int statsIntervalS = STATS_INTERVAL_S_DEFAULT;
    private final ConfiguredAgentServer server = new ConfiguredAgentServer("ap-agents", new Agents());
    private AgentEvents events;

    @Activate
    protected void activate(ComponentContext context) {
        coreService.registerApplication(APP_NAME);
        cfgService.registerProperties(getClass());
        eventDispatcher.addSink(WifiEvent.class, listenerRegistry);
        store.setDelegate(delegate);
        events = new AgentEvents(store, this::post);
        addListener(latencyListener);
        server.apply(agentServerConfig(context));
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        stopServer();
        removeListener(latencyListener);
        store.unsetDelegate(delegate);
        eventDispatcher.removeSink(WifiEvent.class);
        cfgService.unregisterProperties(getClass(), false);
        log.info("Stopped");
    }

    @Modified
    protected void modified(ComponentContext context) {
        if (server.apply(agentServerConfig(context))) {
            sessions.clear();
            events.forgetAll();
        }
    }

    /** The agent server's settings: this app's defaults overridden by the component properties. */
    private AgentServerConfig agentServerConfig(ComponentContext context) {
        String controllerId = clusterService.getLocalNode().id().id().replaceAll("[^A-Za-z0-9_.:-]", "_");
        AgentServerConfig defaults = new AgentServerConfig("ap", BIND_ADDRESS_DEFAULT, AGENT_PORT_DEFAULT,
                controllerId, SHARED_SECRET_DEFAULT, REQUEST_TIMEOUT_MS_DEFAULT, STATS_INTERVAL_S_DEFAULT, 30)
                .withTls(TLS_CERT_FILE_DEFAULT, TLS_KEY_FILE_DEFAULT, TLS_CLIENT_CA_FILE_DEFAULT);
        AgentServerConfig cfg = defaults.withProperties(context == null ? null : context.getProperties());
        agentPort = cfg.port;
        bindAddress = cfg.bindAddress;
        sharedSecret = cfg.secret;
        tlsCertFile = cfg.tlsCertFile;
        tlsKeyFile = cfg.tlsKeyFile;
        tlsClientCaFile = cfg.tlsClientCaFile;
        requestTimeoutMs = (int) cfg.requestTimeoutMs;
        statsIntervalS = cfg.statsIntervalS;
        return cfg;
    }

    private void stopServer() {
        server.stop();
        sessions.clear();
        events.forgetAll();
    }

    /** Port the agent server listens on (tests configure 0 = any free port). */
    int boundPort() {
        return server.port();
    }

    // --- agent sessions -----------------------------------------------------------------------------------------

    /** Agent session callbacks: run on the agent server's ordered executors, never on network threads. */
    private final class Agents implements AgentListener {
        @Override
        public String onHello(AgentSession session, JsonNode hello) {
            AgentSession previous = sessions.put(session.agentId(), session);
            if (previous != null && previous != session) {
                // The agent reconnected before its old connection timed out: the newest connection wins.
                previous.close("replaced by a new connection");
            }
            ObjectNode agent = store.agent(session.agentId()).orElse(Json.object());
            agent.put("agent_id", session.agentId());
            agent.put("connected", true);
            agent.put("address", session.remoteAddress());
            agent.put("node", clusterService.getLocalNode().id().id());
            agent.put("software", hello.get("software").asText());
            agent.set("radios", hello.get("capabilities").get("radios").deepCopy());
            agent.set("security", hello.get("capabilities").get("security").deepCopy());
            agent.put("pof_switch", hello.get("capabilities").get("pof_switch").asBoolean());
            agent.put("last_seen", now());
            store.putAgent(agent);
            return null;
        }

        @Override
        public void onWelcomed(AgentSession session) {
            pushDesiredState(session);
        }

        @Override
        public void onEvent(AgentSession session, JsonNode event) {
            events.handle(session.agentId(), event);
        }

        @Override
        public void onClosed(AgentSession session, String reason) {
            if (!sessions.remove(session.agentId(), session)) {
                return; // an older connection of an agent that already reconnected
            }
            events.forget(session.agentId());
            store.agent(session.agentId()).ifPresent(agent -> {
                agent.put("connected", false);
                agent.put("last_seen", now());
                store.putAgent(agent);
            });
            log.info("ap-agent {} disconnected: {}", session.agentId(), reason);
        }
    }

    /** syncVaps with the stored desired set, then refresh vAP states and clients from the agent. */
    private void pushDesiredState(AgentSession session) {
        String agentId = session.agentId();
        ArrayNode specs = Json.MAPPER.createArrayNode();
        store.desiredVaps(agentId).forEach(specs::add);
        ObjectNode params = Json.object();
        params.set("vaps", specs);
        try {
            JsonNode sync = session.request("syncVaps", params).join();
            if (sync.has("failed") && sync.get("failed").size() > 0) {
                log.warn("ap-agent {} failed to create vAPs: {}", agentId, sync.get("failed"));
            }
            events.refreshVaps(session);
            events.refreshClients(session);
        } catch (CompletionException e) {
            log.warn("pushing desired vAPs to {} failed: {}", agentId, e.getCause().getMessage());
        } catch (ProtocolException e) {
            log.warn("ap-agent {} sent an invalid reply: {}", agentId, e.getMessage());
            session.close("invalid reply: " + e.getMessage());
        }
    }

    private void recordLatency(WifiEvent event) {
        if (event.type() == WifiEvent.Type.CLIENT_ASSOCIATED || event.type() == WifiEvent.Type.STATS
                || event.type() == WifiEvent.Type.VAP_UPDATED && event.subject().has("updated_ts")) {
            eventLatency.record(System.currentTimeMillis() - event.time());
        }
    }

    private static double now() {
        return System.currentTimeMillis() / 1000.0;
    }

    // --- WifiService --------------------------------------------------------------------------------------------

    private AgentSession session(String agentId) {
        AgentSession s = sessions.get(agentId);
        if (s == null || !s.isOpen()) {
            if (store.agent(agentId).isEmpty()) {
                throw new ControllerException("not_found", "no ap-agent " + agentId);
            }
            throw new ControllerException(AgentRequestException.UNREACHABLE,
                                          "ap-agent " + agentId + " is not connected to this controller node");
        }
        return s;
    }

    private static JsonNode call(AgentSession s, String method, ObjectNode params) {
        try {
            return s.request(method, params).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof AgentRequestException) {
                throw ControllerException.of((AgentRequestException) e.getCause());
            }
            throw new ControllerException("internal", String.valueOf(e.getCause()));
        }
    }

    private static void checked(JsonNode node, String what, SchemaCheck check) {
        try {
            check.check(node);
        } catch (ProtocolException e) {
            throw new ControllerException("internal", "agent sent an invalid " + what + ": " + e.getMessage());
        }
    }

    @FunctionalInterface
    private interface SchemaCheck {
        void check(JsonNode node) throws ProtocolException;
    }

    @Override
    public List<ObjectNode> agents() {
        Map<String, List<ObjectNode>> vapsByAgent = store.vaps(null).stream()
                .collect(Collectors.groupingBy(v -> v.get("agent_id").asText()));
        Map<String, Long> clientsByAgent = store.clients(null).stream()
                .collect(Collectors.groupingBy(c -> c.get("agent_id").asText(), Collectors.counting()));
        return store.agents().stream().map(a -> {
            String id = a.get("agent_id").asText();
            a.put("vaps", vapsByAgent.getOrDefault(id, List.of()).size());
            a.put("clients", clientsByAgent.getOrDefault(id, 0L));
            return a;
        }).collect(Collectors.toList());
    }

    @Override
    public Optional<ObjectNode> agent(String agentId) {
        return store.agent(agentId).map(a -> {
            a.put("vaps", store.vaps(agentId).size());
            a.put("clients", store.clients(agentId).size());
            return a;
        });
    }

    @Override
    public List<ObjectNode> vaps(String agentId) {
        return store.vaps(agentId);
    }

    @Override
    public ObjectNode createVap(String agentId, JsonNode vapSpec) {
        try {
            Schema.vapSpec(vapSpec, "vap");
        } catch (ProtocolException e) {
            throw new ControllerException("bad_request", e.getMessage());
        }
        if (store.agent(agentId).isEmpty()) {
            throw new ControllerException("not_found", "no ap-agent " + agentId);
        }
        String vapId = vapSpec.get("vap_id").asText();
        if (store.desiredVap(agentId, vapId).isPresent()) {
            throw new ControllerException("conflict", "vAP " + vapId + " already exists on " + agentId);
        }
        // Desired state first: if the agent is away, the vAP is created when it reconnects.
        store.putDesiredVap(agentId, (ObjectNode) vapSpec.deepCopy());
        ObjectNode params = Json.object();
        params.set("vap", vapSpec);
        // The agent refused it: nothing is desired.
        return askForVap(agentId, "createVap", params, () -> store.removeDesiredVap(agentId, vapId));
    }

    /**
     * Sends a vAP call whose desired state is already stored, records the VapState the agent answers and returns
     * it. If the agent refuses (not when it is away or slow: the desired state then reaches it with its next
     * syncVaps), undoRefused takes the desired state back first.
     */
    private ObjectNode askForVap(String agentId, String method, ObjectNode params, Runnable undoRefused) {
        AgentSession s = session(agentId);
        JsonNode result;
        try {
            result = call(s, method, params);
        } catch (ControllerException e) {
            if (!AgentRequestException.UNREACHABLE.equals(e.code()) && !AgentRequestException.TIMEOUT.equals(e.code())) {
                undoRefused.run();
            }
            throw e;
        }
        JsonNode vap = result.get("vap");
        checked(vap, "VapState", n -> Schema.vapState(n, "vap"));
        ObjectNode state = (ObjectNode) vap.deepCopy();
        store.putVap(agentId, state);
        return state;
    }

    @Override
    public void removeVap(String agentId, String vapId) {
        boolean desired = store.removeDesiredVap(agentId, vapId);
        boolean known = store.vap(agentId, vapId).isPresent();
        if (!desired && !known) {
            throw new ControllerException("not_found", "no vAP " + vapId + " on " + agentId);
        }
        AgentSession s = sessions.get(agentId);
        if (s != null && s.isOpen()) {
            try {
                call(s, "delVap", Json.object().put("vap_id", vapId));
            } catch (ControllerException e) {
                if (!"not_found".equals(e.code())) {
                    throw e;
                }
            }
        }
        // Not connected: the next syncVaps removes it from the agent.
        store.removeVap(agentId, vapId);
        store.clients(agentId).stream().filter(c -> vapId.equals(c.get("vap_id").asText()))
                .forEach(c -> store.removeClient(agentId, c.get("mac").asText()));
    }

    @Override
    public ObjectNode updateRateLimit(String vapId, JsonNode rateLimit) {
        try {
            Schema.rateLimit(rateLimit, "rate_limit");
        } catch (ProtocolException e) {
            throw new ControllerException("bad_request", e.getMessage());
        }
        List<String> owners = store.agents().stream().map(a -> a.get("agent_id").asText())
                .filter(a -> store.desiredVap(a, vapId).isPresent()).sorted().collect(Collectors.toList());
        if (owners.isEmpty()) {
            throw new ControllerException("not_found", "no vAP " + vapId);
        }
        if (owners.size() > 1) {
            throw new ControllerException("conflict", "vAP " + vapId + " exists on several agents: " + owners);
        }
        String agentId = owners.get(0);
        ObjectNode spec = store.desiredVap(agentId, vapId).orElseThrow();
        JsonNode previous = spec.get("rate_limit");
        // Desired state first: an agent that is away gets the new rates with its next syncVaps.
        spec.set("rate_limit", rateLimit.deepCopy());
        store.putDesiredVap(agentId, spec);
        ObjectNode params = Json.object().put("vap_id", vapId);
        params.set("rate_limit", rateLimit.deepCopy());
        return askForVap(agentId, "updateVap", params, () -> {
            spec.set("rate_limit", previous); // the agent refused: the vAP keeps its rates
            store.putDesiredVap(agentId, spec);
        });
    }

    @Override
    public List<ObjectNode> clients(String agentId, String vapId) {
        return store.clients(agentId).stream()
                .filter(c -> vapId == null || vapId.equals(c.get("vap_id").asText()))
                .collect(Collectors.toList());
    }

    @Override
    public void kickClient(String agentId, String mac) {
        call(session(agentId), "removeClient", Json.object().put("mac", mac));
        store.removeClient(agentId, mac);
    }

    @Override
    public ObjectNode changeChannel(String agentId, String radio, int channel) {
        if (channel < 1 || channel > 233) {
            throw new ControllerException("bad_request", "channel must be 1-233");
        }
        JsonNode result = call(session(agentId), "changeChannel",
                               Json.object().put("radio", radio).put("channel", channel));
        JsonNode updated = result.get("radio");
        checked(updated, "Radio", n -> Schema.radio(n, "radio"));
        store.agent(agentId).ifPresent(agent -> {
            ArrayNode radios = Json.MAPPER.createArrayNode();
            agent.withArray("radios").forEach(r -> radios.add(
                    r.get("name").asText().equals(radio) ? updated : r));
            agent.set("radios", radios);
            store.putAgent(agent);
        });
        return (ObjectNode) updated.deepCopy();
    }

    @Override
    public ObjectNode rates(String agentId, String vapId) {
        if (store.vap(agentId, vapId).isEmpty()) {
            throw new ControllerException("not_found", "no vAP " + vapId + " on " + agentId);
        }
        AgentSession s = session(agentId);
        JsonNode tx = call(s, "getTxRate", Json.object().put("vap_id", vapId));
        JsonNode rx = call(s, "getRxRate", Json.object().put("vap_id", vapId));
        for (JsonNode r : List.of(tx, rx)) {
            if (!r.path("bps").isNumber() || r.path("bps").asDouble() < 0 || !r.path("interval_s").isNumber()) {
                throw new ControllerException("internal", "agent sent an invalid rate reply");
            }
        }
        return Json.object().put("tx_bps", tx.get("bps").asDouble()).put("rx_bps", rx.get("bps").asDouble())
                .put("interval_s", tx.get("interval_s").asDouble());
    }

    @Override
    public ObjectNode stats() {
        ObjectNode root = Json.object().put("node", clusterService.getLocalNode().id().id());
        ArrayNode agents = root.putArray("agents");
        events.lastStats().forEach(agents::add);
        return root;
    }

    @Override
    public ObjectNode metrics() {
        ObjectNode m = Json.object();
        m.put("agents_connected", sessions.size());
        m.put("events", eventLatency.count());
        // null until the first event: JSON has no NaN.
        double p50 = eventLatency.percentile(50);
        double p99 = eventLatency.percentile(99);
        m.set("event_p50_ms", Double.isNaN(p50) ? Json.MAPPER.nullNode() : Json.MAPPER.valueToTree(p50));
        m.set("event_p99_ms", Double.isNaN(p99) ? Json.MAPPER.nullNode() : Json.MAPPER.valueToTree(p99));
        m.put("heap_used_mib", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0);
        m.put("protocol_violations", server.violations());
        return m;
    }

    @Override
    public void resetMetrics() {
        eventLatency.reset();
    }
}
