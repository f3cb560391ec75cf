package org.wislice.onos.nfv.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onlab.util.Tools;
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
import org.wislice.onos.nfv.api.NfvEvent;
import org.wislice.onos.nfv.api.NfvListener;
import org.wislice.onos.nfv.api.NfvService;

import java.lang.management.ManagementFactory;
import java.util.Dictionary;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;
import static org.wislice.onos.nfv.impl.OsgiPropertyConstants.*;

/**
 * The NFV controller: serves mec-agents (spec/agent), keeps MEC nodes and vNFs in the NfvStore, places new vNFs
 * (Placement), pushes each node's desired vNFs on (re)connect, and re-posts store changes as NfvEvents.
 */
@Component(immediate = true, service = NfvService.class,
        property = {
                AGENT_PORT + ":Integer=" + AGENT_PORT_DEFAULT,
                BIND_ADDRESS + "=" + BIND_ADDRESS_DEFAULT,
                SHARED_SECRET + "=" + SHARED_SECRET_DEFAULT,
                TLS_CERT_FILE + "=" + TLS_CERT_FILE_DEFAULT,
                TLS_KEY_FILE + "=" + TLS_KEY_FILE_DEFAULT,
                TLS_CLIENT_CA_FILE + "=" + TLS_CLIENT_CA_FILE_DEFAULT,
                REQUEST_TIMEOUT_MS + ":Integer=" + REQUEST_TIMEOUT_MS_DEFAULT,
                STATS_INTERVAL_S + ":Integer=" + STATS_INTERVAL_S_DEFAULT,
                AP_DISTANCES + "=" + AP_DISTANCES_DEFAULT,
                DEFAULT_DISTANCE + ":Integer=" + DEFAULT_DISTANCE_DEFAULT,
        })
public class NfvManager extends AbstractListenerManager<NfvEvent, NfvListener> implements NfvService {

    static final String APP_NAME = "org.wislice.nfv";
    private static final Set<String> REQUEST_FIELDS = Set.of("tenant_id", "instance_id", "image", "params", "cpu",
            "memory_mib", "chain_position", "node", "near_ap");
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ClusterService clusterService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService cfgService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected NfvStore store;

    private String apDistances = AP_DISTANCES_DEFAULT;
    private int defaultDistance = DEFAULT_DISTANCE_DEFAULT;
    private volatile Placement placement = new Placement(Map.of(), DEFAULT_DISTANCE_DEFAULT);

    private final Map<String, AgentSession> sessions = new ConcurrentHashMap<>();
    private final LatencyRecorder eventLatency = new LatencyRecorder(100_000);
    private final NfvStoreDelegate delegate = this::post;
    private final NfvListener latencyListener = this::recordLatency;
    /** Serializes placement decisions on this node, so two requests do not both take the last free core. */
    private final Object placementLock = new Object();
    // One field per component property, holding its value (ONOS's convention; its cfg catalog needs them).
    private int agentPort = AGENT_PORT_DEFAULT;
    private String bindAddress = BIND_ADDRESS_DEFAULT;
    private String sharedSecret = SHARED_SECRET_DEFAULT;
    private String tlsCertFile = TLS_CERT_FILE_DEFAULT;
    private String tlsKeyFile = TLS_KEY_FILE_DEFAULT;
    private String tlsClientCaFile = TLS_CLIENT_CA_FILE_DEFAULT;
    private int requestTimeoutMs = REQUEST_TIMEOUT_MS_DEFAULT;
    private int statsIntervalS = STATS_INTERVAL_S_DEFAULT;
    private final ConfiguredAgentServer server = new ConfiguredAgentServer("mec-agents", new Agents());

    @Activate
    protected void activate(ComponentContext context) {
        coreService.registerApplication(APP_NAME);
        cfgService.registerProperties(getClass());
        eventDispatcher.addSink(NfvEvent.class, listenerRegistry);
        store.setDelegate(delegate);
        addListener(latencyListener);
        readConfig(context);
        server.apply(agentServerConfig(context));
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        stopServer();
        removeListener(latencyListener);
        store.unsetDelegate(delegate);
        eventDispatcher.removeSink(NfvEvent.class);
        cfgService.unregisterProperties(getClass(), false);
        log.info("Stopped");
    }

    @Modified
    protected void modified(ComponentContext context) {
        readConfig(context);
        if (server.apply(agentServerConfig(context))) {
            sessions.clear();
        }
    }

    /** Reads the placement settings (the agent server's are read by agentServerConfig). */
    private void readConfig(ComponentContext context) {
        if (context == null) {
            return;
        }
        Dictionary<?, ?> p = context.getProperties();
        defaultDistance = Tools.getIntegerProperty(p, DEFAULT_DISTANCE, DEFAULT_DISTANCE_DEFAULT);
        apDistances = Optional.ofNullable(Tools.get(p, AP_DISTANCES)).orElse(AP_DISTANCES_DEFAULT);
        try {
            placement = new Placement(Placement.parseDistances(apDistances), defaultDistance);
        } catch (IllegalArgumentException e) {
            log.error("ignoring {}: {}", AP_DISTANCES, e.getMessage());
        }
    }

    /** The agent server's settings: this app's defaults overridden by the component properties. */
    private AgentServerConfig agentServerConfig(ComponentContext context) {
        String controllerId = clusterService.getLocalNode().id().id().replaceAll("[^A-Za-z0-9_.:-]", "_");
        AgentServerConfig defaults = new AgentServerConfig("mec", BIND_ADDRESS_DEFAULT, AGENT_PORT_DEFAULT,
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
    }

    int boundPort() {
        return server.port();
    }

    // --- agent sessions -----------------------------------------------------------------------------------------

    private final class Agents implements AgentListener {
        @Override
        public String onHello(AgentSession session, JsonNode hello) {
            AgentSession previous = sessions.put(session.agentId(), session);
            if (previous != null && previous != session) {
                previous.close("replaced by a new connection");
            }
            JsonNode caps = hello.get("capabilities");
            ObjectNode node = store.node(session.agentId()).orElse(Json.object());
            node.put("agent_id", session.agentId());
            node.put("connected", true);
            node.put("address", session.remoteAddress());
            node.put("controller_node", clusterService.getLocalNode().id().id());
            node.put("software", hello.get("software").asText());
            node.set("capacity", caps.get("capacity").deepCopy());
            node.set("catalog", caps.get("catalog").deepCopy());
            node.put("dpdk", caps.get("dpdk").asBoolean());
            node.put("pof_switch", caps.get("pof_switch").asBoolean());
            node.put("last_seen", System.currentTimeMillis() / 1000.0);
            store.putNode(node);
            return null;
        }

        @Override
        public void onWelcomed(AgentSession session) {
            pushDesiredState(session);
        }

        @Override
        public void onEvent(AgentSession session, JsonNode event) {
            handleEvent(session.agentId(), event);
        }

        @Override
        public void onClosed(AgentSession session, String reason) {
            if (!sessions.remove(session.agentId(), session)) {
                return;
            }
            store.node(session.agentId()).ifPresent(n -> {
                n.put("connected", false);
                n.put("last_seen", System.currentTimeMillis() / 1000.0);
                store.putNode(n);
            });
            log.info("mec-agent {} disconnected: {}", session.agentId(), reason);
        }
    }

    private List<ObjectNode> desiredOn(String agentId) {
        return store.desiredVnfs().stream().filter(d -> agentId.equals(d.get("node").asText()))
                .collect(Collectors.toList());
    }

    private void pushDesiredState(AgentSession session) {
        String agentId = session.agentId();
        ArrayNode specs = Json.MAPPER.createArrayNode();
        desiredOn(agentId).forEach(d -> specs.add(d.get("spec")));
        ObjectNode params = Json.object();
        params.set("vnfs", specs);
        try {
            JsonNode sync = session.request("syncVnfs", params).join();
            if (sync.has("failed") && sync.get("failed").size() > 0) {
                log.warn("mec-agent {} failed to create vNFs: {}", agentId, sync.get("failed"));
            }
            refreshVnfs(session);
        } catch (CompletionException e) {
            log.warn("pushing desired vNFs to {} failed: {}", agentId, e.getCause().getMessage());
        } catch (ProtocolException e) {
            session.close("invalid reply: " + e.getMessage());
        }
    }

    private void refreshVnfs(AgentSession session) throws ProtocolException {
        String agentId = session.agentId();
        JsonNode list = session.request("getVnfs", Json.object()).join().get("vnfs");
        if (list == null || !list.isArray()) {
            throw ProtocolException.badRequest("getVnfs result: vnfs array expected");
        }
        for (int i = 0; i < list.size(); i++) {
            Schema.vnfState(list.get(i), "vnfs[" + i + "]");
        }
        Set<Long> present = new java.util.HashSet<>();
        for (JsonNode v : list) {
            ObjectNode state = v.deepCopy();
            state.put("node", agentId);
            store.putVnf(v.get("vnf_id").asLong(), state);
            present.add(v.get("vnf_id").asLong());
        }
        for (ObjectNode stale : store.vnfs()) {
            if (agentId.equals(stale.get("node").asText()) && !present.contains(stale.get("vnf_id").asLong())) {
                store.removeVnf(stale.get("vnf_id").asLong());
            }
        }
    }

    private void handleEvent(String agentId, JsonNode event) {
        JsonNode data = event.get("data");
        double ts = event.get("ts").asDouble();
        switch (event.get("event").asText()) {
            case "vnfState": {
                long vnfId = data.get("vnf_id").asLong();
                String state = data.get("state").asText();
                if ("removed".equals(state)) {
                    store.removeVnf(vnfId);
                    break;
                }
                store.vnf(vnfId).filter(v -> agentId.equals(v.get("node").asText())).ifPresent(v -> {
                    v.put("state", state);
                    v.put("updated_ts", ts);
                    store.putVnf(vnfId, v);
                });
                break;
            }
            case "stats":
                if (data.has("node")) {
                    ObjectNode sample = Json.object().put("agent_id", agentId)
                            .put("cpu_pct", data.get("node").get("cpu_pct").asDouble())
                            .put("memory_used_mib", data.get("node").get("memory_used_mib").asDouble());
                    loads.put(agentId, sample.get("cpu_pct").asDouble());
                    post(new NfvEvent(NfvEvent.Type.STATS, sample, (long) (ts * 1000)));
                }
                break;
            default:
                log.debug("mec-agent {} sent {} (not a mec event)", agentId, event.get("event").asText());
        }
    }

    /** Latest CPU load per node from stats events: per controller node, ephemeral. */
    private final Map<String, Double> loads = new ConcurrentHashMap<>();

    private void recordLatency(NfvEvent event) {
        if (event.type() == NfvEvent.Type.STATS
                || event.type() == NfvEvent.Type.VNF_UPDATED && event.subject().has("updated_ts")) {
            eventLatency.record(System.currentTimeMillis() - event.time());
        }
    }

    // --- NfvService ---------------------------------------------------------------------------------------------

    private AgentSession session(String agentId) {
        AgentSession s = sessions.get(agentId);
        if (s == null || !s.isOpen()) {
            throw new ControllerException(AgentRequestException.UNREACHABLE,
                                          "mec-agent " + agentId + " is not connected to this controller node");
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

    /** Node records with what the controller has placed on them ("used") and their latest load. */
    @Override
    public List<ObjectNode> nodes() {
        Map<String, List<ObjectNode>> placed = store.desiredVnfs().stream()
                .collect(Collectors.groupingBy(d -> d.get("node").asText()));
        return store.nodes().stream().map(n -> {
            String id = n.get("agent_id").asText();
            double cpu = 0;
            long mem = 0;
            for (ObjectNode d : placed.getOrDefault(id, List.of())) {
                cpu += d.get("spec").get("cpu").asDouble();
                mem += d.get("spec").get("memory_mib").asLong();
            }
            n.putObject("used").put("cpu", cpu).put("memory_mib", mem);
            n.put("load", loads.getOrDefault(id, 0.0));
            return n;
        }).collect(Collectors.toList());
    }

    @Override
    public List<ObjectNode> vnfs() {
        return store.vnfs();
    }

    @Override
    public ObjectNode createVnf(JsonNode request) {
        if (request == null || !request.isObject()) {
            throw new ControllerException("bad_request", "VnfSpec object expected");
        }
        request.fieldNames().forEachRemaining(f -> {
            if (!REQUEST_FIELDS.contains(f)) {
                throw new ControllerException("bad_request", "unknown field '" + f + "'");
            }
        });
        ObjectNode spec = request.deepCopy();
        String pinned = textOrNull(spec.remove("node"), "node");
        String nearAp = textOrNull(spec.remove("near_ap"), "near_ap");
        try {
            Schema.vnfSpec(spec, "vnf");
        } catch (ProtocolException e) {
            throw new ControllerException("bad_request", e.getMessage());
        }
        long vnfId = (spec.get("tenant_id").asLong() << 16) | spec.get("instance_id").asLong();
        String node;
        synchronized (placementLock) {
            List<ObjectNode> nodes = nodes();
            if (pinned != null) {
                ObjectNode n = nodes.stream().filter(x -> pinned.equals(x.get("agent_id").asText())).findFirst()
                        .orElseThrow(() -> new ControllerException("not_found", "no MEC node " + pinned));
                placement.choose(List.of(n), spec, nearAp); // same capacity and catalog checks
                node = pinned;
            } else {
                node = placement.choose(nodes, spec, nearAp);
            }
            ObjectNode desired = Json.object().put("node", node).put("vnf_id", vnfId);
            desired.set("spec", spec);
            if (!store.putDesiredVnfIfAbsent(vnfId, desired)) {
                throw new ControllerException("conflict", "vNF " + vnfId + " exists");
            }
        }
        ObjectNode params = Json.object();
        params.set("vnf", spec);
        JsonNode result;
        try {
            result = call(session(node), "createVnf", params);
        } catch (ControllerException e) {
            if (!AgentRequestException.TIMEOUT.equals(e.code())) {
                store.removeDesiredVnf(vnfId); // refused or unreachable: nothing placed
            }
            throw e;
        }
        JsonNode vnf = result.get("vnf");
        try {
            Schema.vnfState(vnf, "vnf");
        } catch (ProtocolException e) {
            throw new ControllerException("internal", "agent sent an invalid VnfState: " + e.getMessage());
        }
        ObjectNode state = vnf.deepCopy();
        state.put("node", node);
        store.putVnf(vnfId, state);
        ObjectNode out = Json.object();
        out.set("vnf", state);
        out.put("node", node);
        return out;
    }

    private static String textOrNull(JsonNode v, String what) {
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual() || !v.asText().matches("^[A-Za-z0-9_.:-]{1,64}$")) {
            throw new ControllerException("bad_request", what + " must be an agent_id");
        }
        return v.asText();
    }

    @Override
    public void removeVnf(long vnfId) {
        Optional<ObjectNode> desired = store.desiredVnf(vnfId);
        Optional<ObjectNode> state = store.vnf(vnfId);
        if (desired.isEmpty() && state.isEmpty()) {
            throw new ControllerException("not_found", "no vNF " + vnfId);
        }
        String node = desired.map(d -> d.get("node").asText()).orElseGet(() -> state.get().get("node").asText());
        store.removeDesiredVnf(vnfId);
        AgentSession s = sessions.get(node);
        if (s != null && s.isOpen()) {
            try {
                call(s, "delVnf", Json.object().put("vnf_id", vnfId));
            } catch (ControllerException e) {
                if (!"not_found".equals(e.code())) {
                    throw e;
                }
            }
        }
        store.removeVnf(vnfId);
    }

    @Override
    public ObjectNode vnfStats(long vnfId) {
        ObjectNode state = store.vnf(vnfId)
                .orElseThrow(() -> new ControllerException("not_found", "no vNF " + vnfId));
        JsonNode result = call(session(state.get("node").asText()), "getStatistics",
                               Json.object().put("vnf_id", vnfId));
        JsonNode list = result.path("vnfs");
        for (JsonNode s : list) {
            if (s.path("vnf_id").asLong(-1) == vnfId) {
                try {
                    Schema.vnfStats(s, "stats");
                } catch (ProtocolException e) {
                    throw new ControllerException("internal", "agent sent invalid VnfStats: " + e.getMessage());
                }
                return s.deepCopy();
            }
        }
        throw new ControllerException("not_found", "node has no statistics for vNF " + vnfId);
    }

    @Override
    public ObjectNode metrics() {
        ObjectNode m = Json.object();
        m.put("agents_connected", sessions.size());
        m.put("events", eventLatency.count());
        double p50 = eventLatency.percentile(50);
        double p99 = eventLatency.percentile(99);
        m.set("event_p50_ms", Double.isNaN(p50) ? Json.MAPPER.nullNode() : Json.MAPPER.valueToTree(p50));
        m.set("event_p99_ms", Double.isNaN(p99) ? Json.MAPPER.nullNode() : Json.MAPPER.valueToTree(p99));
        m.put("heap_used_mib", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0);
        m.put("protocol_violations", server.violations());
        return m;
    }
}
