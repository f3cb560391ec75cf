package org.wislice.onos.nfv.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onlab.util.Tools;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.cluster.ClusterService;
import org.onosproject.store.cluster.messaging.ClusterCommunicationService;
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
import org.wislice.onos.agent.AgentApp;
import org.wislice.onos.agent.AgentCall;
import org.wislice.onos.agent.AgentController;
import org.wislice.onos.agent.AgentRecord;
import org.wislice.onos.agent.AgentRequestException;
import org.wislice.onos.agent.AgentServerConfig;
import org.wislice.onos.agent.AgentSession;
import org.wislice.onos.agent.ClusterAgentForwarder;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.Placed;
import org.wislice.onos.agent.ReportedState;
import org.wislice.onos.agent.RestBodies;
import org.wislice.onos.agent.SyncResult;
import org.wislice.onos.agent.mec.Capacity;
import org.wislice.onos.agent.mec.MecCalls;
import org.wislice.onos.agent.mec.MecCapabilities;
import org.wislice.onos.agent.mec.MecCodecs;
import org.wislice.onos.agent.mec.MecStats;
import org.wislice.onos.agent.mec.VnfSpec;
import org.wislice.onos.agent.mec.VnfState;
import org.wislice.onos.nfv.api.NfvEvent;
import org.wislice.onos.nfv.api.NfvListener;
import org.wislice.onos.nfv.api.NfvService;

import java.util.Dictionary;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;
import static org.wislice.onos.nfv.impl.OsgiPropertyConstants.*;

/**
 * The NFV controller: serves mec-agents through an AgentController (sessions, desired-state push, calls), keeps
 * MEC nodes and vNFs in the NfvStore, and re-posts store changes as NfvEvents. What is NFV's own: the desired
 * vNFs of each node (syncVnfs), what is read back (getVnfs), the mec-agent events, and placing new vNFs
 * (Placement by capacity, load and distance to the slice's AP).
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
    /** The agent server before component properties (the controller id is the cluster node's). */
    private static final AgentServerConfig AGENT_SERVER = new AgentServerConfig("mec", BIND_ADDRESS_DEFAULT,
            AGENT_PORT_DEFAULT, "onos", SHARED_SECRET_DEFAULT, REQUEST_TIMEOUT_MS_DEFAULT, STATS_INTERVAL_S_DEFAULT,
            30).withTls(TLS_CERT_FILE_DEFAULT, TLS_KEY_FILE_DEFAULT, TLS_CLIENT_CA_FILE_DEFAULT);
    private static final Set<String> REQUEST_FIELDS = Set.of("tenant_id", "instance_id", "image", "params", "cpu",
            "memory_mib", "chain_position", "chain_id", "latency_class", "node", "near_ap");
    /** A VnfState's cpu_mode when its node runs it on the pof-switch's core (spec/agent PROTOCOL.md). */
    static final String SWITCH_MODE = "switch";
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ClusterService clusterService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ClusterCommunicationService clusterCommunicator;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService cfgService;
    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected NfvStore store;

    // The property catalog (onos-maven-plugin cfg) takes each property's description from the field of its name.
    // The agent server's values in force are the AgentController's.
    /** TCP port for mec-agents. */
    private int agentPort = AGENT_PORT_DEFAULT;
    /** Address the mec-agent server binds. */
    private String bindAddress = BIND_ADDRESS_DEFAULT;
    /** Shared secret of the hmac-sha256 agent auth; empty accepts auth none (set it, or tlsClientCaFile). */
    private String sharedSecret = SHARED_SECRET_DEFAULT;
    /** Server certificate chain (PEM file); with tlsKeyFile, agent connections are TLS. */
    private String tlsCertFile = TLS_CERT_FILE_DEFAULT;
    /** Private key of tlsCertFile (PEM file, unencrypted PKCS#8). */
    private String tlsKeyFile = TLS_KEY_FILE_DEFAULT;
    /** CA (PEM file) that mec-agents' client certificates must chain to; set = client certificates required. */
    private String tlsClientCaFile = TLS_CLIENT_CA_FILE_DEFAULT;
    /** How long a request to a mec-agent may take (ms; vNF creation pulls and starts containers). */
    private int requestTimeoutMs = REQUEST_TIMEOUT_MS_DEFAULT;
    /** How often mec-agents send stats events (s, told in the welcome). */
    private int statsIntervalS = STATS_INTERVAL_S_DEFAULT;
    /** AP -> MEC distances for placement: "ap-1:mec-1=1,ap-1:mec-2=4" (hops, or any consistent unit). */
    private String apDistances = AP_DISTANCES_DEFAULT;
    /** Distance assumed for an AP/MEC pair missing from apDistances. */
    private int defaultDistance = DEFAULT_DISTANCE_DEFAULT;
    private volatile Placement placement = new Placement(Map.of(), DEFAULT_DISTANCE_DEFAULT);

    /** Calls to agents connected to another node of the cluster, and other nodes' calls to ours. */
    private ClusterAgentForwarder forwarder;
    private final AgentController<MecCapabilities> agents =
            new AgentController<>(AGENT_SERVER, MecCodecs.CAPABILITIES, new MecAgents());
    private final NfvStoreDelegate delegate = this::post;
    private final NfvListener latencyListener = this::recordLatency;
    /** Serializes placement decisions on this node, so two requests do not both take the last free core. */
    private final Object placementLock = new Object();
    /** Latest CPU load per node from stats events: per controller node, ephemeral. */
    private final Map<String, Double> loads = new ConcurrentHashMap<>();

    @Activate
    protected void activate(ComponentContext context) {
        coreService.registerApplication(APP_NAME);
        cfgService.registerProperties(getClass());
        eventDispatcher.addSink(NfvEvent.class, listenerRegistry);
        store.setDelegate(delegate);
        addListener(latencyListener);
        readPlacementConfig(context);
        agents.activate(clusterService.getLocalNode().id().id(), properties(context));
        forwarder = new ClusterAgentForwarder(clusterCommunicator, "mec", agents::requestTimeoutMs);
        forwarder.serve(agents);
        agents.forwardThrough(forwarder);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        if (forwarder != null) {
            forwarder.stop();
        }
        agents.deactivate();
        removeListener(latencyListener);
        store.unsetDelegate(delegate);
        eventDispatcher.removeSink(NfvEvent.class);
        cfgService.unregisterProperties(getClass(), false);
        log.info("Stopped");
    }

    @Modified
    protected void modified(ComponentContext context) {
        readPlacementConfig(context);
        agents.configure(properties(context));
    }

    private static Dictionary<?, ?> properties(ComponentContext context) {
        return context == null ? null : context.getProperties();
    }

    /** Reads the placement settings (the agent server's are the AgentController's). */
    private void readPlacementConfig(ComponentContext context) {
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

    int boundPort() {
        return agents.port();
    }

    /** What the AgentController does that is NFV's own. */
    private final class MecAgents implements AgentApp<MecCapabilities> {
        @Override
        public Optional<AgentRecord<MecCapabilities>> agent(String agentId) {
            return store.node(agentId);
        }

        @Override
        public void putAgent(AgentRecord<MecCapabilities> agent) {
            store.putNode(agent);
        }

        @Override
        public AgentCall.Request<SyncResult> desiredState(String agentId) {
            return MecCalls.SYNC_VNFS.with(store.desiredVnfs().stream().filter(d -> agentId.equals(d.agentId()))
                                                   .map(Placed::value).collect(Collectors.toList()));
        }

        @Override
        public void refresh(AgentSession agent) {
            String node = agent.agentId();
            agents.underStateLock(node, () -> ReportedState.replace(
                    agent.call(MecCalls.GET_VNFS, null), VnfState::vnfId,
                    vnf -> store.putVnf(new Placed<>(node, vnf)),
                    store.vnfs().stream().filter(v -> node.equals(v.agentId()))
                            .map(v -> v.value().vnfId()).collect(Collectors.toList()),
                    store::removeVnf));
        }

        @Override
        public void event(String agentId, JsonNode event) {
            handleEvent(agentId, event);
        }
    }

    /** A validated event (the agent server checked it against the protocol). */
    private void handleEvent(String agentId, JsonNode event) {
        JsonNode data = event.get("data");
        double ts = event.get("ts").asDouble();
        switch (event.get("event").asText()) {
            case "vnfState":
                MecCodecs.VNF_STATE_CHANGED.read(data).applyTo(store::removeVnf,
                        (vnfId, state) -> store.updateVnfState(agentId, vnfId, state, ts));
                break;
            case "stats": {
                MecStats stats = MecCodecs.STATS.read(data);
                stats.node().ifPresent(node -> {
                    ObjectNode sample = Json.object().put("agent_id", agentId).put("cpu_pct", node.cpuPct())
                            .put("memory_used_mib", node.memoryUsedMib());
                    loads.put(agentId, node.cpuPct());
                    post(new NfvEvent(NfvEvent.Type.STATS, sample, (long) (ts * 1000)));
                });
                break;
            }
            default:
                log.debug("mec-agent {} sent {} (not a mec event)", agentId, event.get("event").asText());
        }
    }

    private void recordLatency(NfvEvent event) {
        if (event.type() == NfvEvent.Type.STATS
                || event.type() == NfvEvent.Type.VNF_UPDATED && event.subject().has("updated_ts")) {
            agents.recordEventLatency(event.time());
        }
    }

    // --- NfvService ---------------------------------------------------------------------------------------------

    /**
     * The MEC nodes with what the controller has placed on them, their latest load and how many of the vNFs they
     * reported run on their switch's core.
     */
    private List<Node> currentNodes() {
        Map<String, List<VnfSpec>> placed = store.desiredVnfs().stream().collect(Collectors.groupingBy(
                Placed::agentId, Collectors.mapping(Placed::value, Collectors.toList())));
        Map<String, Long> onSwitchCore = store.vnfs().stream()
                .filter(v -> v.value().cpuMode().filter(SWITCH_MODE::equals).isPresent())
                .collect(Collectors.groupingBy(Placed::agentId, Collectors.counting()));
        return store.nodes().stream().map(n -> {
            Capacity used = Capacity.NONE;
            for (VnfSpec spec : placed.getOrDefault(n.agentId(), List.of())) {
                used = used.plus(spec);
            }
            return new Node(n, used, loads.getOrDefault(n.agentId(), 0.0),
                            onSwitchCore.getOrDefault(n.agentId(), 0L).intValue());
        }).collect(Collectors.toList());
    }

    @Override
    public List<ObjectNode> nodes() {
        return currentNodes().stream().map(NfvRecords.NODE::encode).collect(Collectors.toList());
    }

    @Override
    public List<ObjectNode> vnfs() {
        return store.vnfs().stream().map(this::vnfJson).collect(Collectors.toList());
    }

    /** A vNF's VnfState + node, and the chain_id and latency_class it was asked with (the agent keeps them but
     *  VnfState has neither). */
    private ObjectNode vnfJson(Placed<VnfState> vnf) {
        ObjectNode json = NfvRecords.VNF.encode(vnf);
        Optional<VnfSpec> desired = store.desiredVnf(vnf.value().vnfId()).map(Placed::value);
        desired.flatMap(VnfSpec::chainId).ifPresent(chain -> json.put("chain_id", chain));
        desired.flatMap(VnfSpec::latencyClass).ifPresent(c -> json.put("latency_class", c));
        return json;
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
        ObjectNode json = request.deepCopy();
        String pinned = textOrNull(json.remove("node"), "node");
        String nearAp = textOrNull(json.remove("near_ap"), "near_ap");
        VnfSpec spec = RestBodies.decode(MecCodecs.VNF_SPEC, json, "vnf");
        long vnfId = spec.vnfId();
        String node;
        synchronized (placementLock) {
            List<Node> nodes = currentNodes();
            if (pinned != null) {
                Node n = nodes.stream().filter(x -> pinned.equals(x.agentId())).findFirst()
                        .orElseThrow(() -> new ControllerException("not_found", "no MEC node " + pinned));
                placement.choose(List.of(n), spec, nearAp); // same capacity and catalog checks
                node = pinned;
            } else {
                node = placement.choose(nodes, spec, nearAp);
            }
            if (!store.putDesiredVnfIfAbsent(new Placed<>(node, spec))) {
                throw new ControllerException("conflict", "vNF " + vnfId + " exists");
            }
        }
        // Refused or unreachable: nothing is placed. A timeout keeps it: the node may still be creating it.
        VnfState state = agents.callOrUndo(node, MecCalls.CREATE_VNF, spec, AgentRequestException.TIMEOUT::equals,
                                           () -> store.removeDesiredVnf(vnfId));
        Placed<VnfState> placed = new Placed<>(node, state);
        // Under the state lock: a refresh that read the agent's vNFs before this one existed must not drop it
        // (it compares its report with the store while holding the lock).
        agents.underStateLock(node, () -> store.putVnf(placed));
        ObjectNode out = Json.object();
        out.set("vnf", vnfJson(placed));
        return out.put("node", node);
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
        Optional<Placed<VnfSpec>> desired = store.desiredVnf(vnfId);
        Optional<Placed<VnfState>> state = store.vnf(vnfId);
        if (desired.isEmpty() && state.isEmpty()) {
            throw new ControllerException("not_found", "no vNF " + vnfId);
        }
        String node = desired.map(Placed::agentId).orElseGet(() -> state.get().agentId());
        agents.underStateLock(node, () -> {
            store.removeDesiredVnf(vnfId);
            agents.removeIfConnected(node, MecCalls.DEL_VNF, vnfId);
            store.removeVnf(vnfId);
        });
    }

    @Override
    public ObjectNode vnfStats(long vnfId) {
        Placed<VnfState> vnf = store.vnf(vnfId)
                .orElseThrow(() -> new ControllerException("not_found", "no vNF " + vnfId));
        return agents.call(vnf.agentId(), MecCalls.GET_STATISTICS, vnfId).vnf(vnfId).map(MecCodecs.VNF_STATS::encode)
                .orElseThrow(() -> new ControllerException("not_found", "node has no statistics for vNF " + vnfId));
    }

    @Override
    public ObjectNode metrics() {
        return agents.metrics();
    }
}
