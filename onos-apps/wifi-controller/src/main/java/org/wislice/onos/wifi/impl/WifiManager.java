package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import org.wislice.onos.agent.RestBodies;
import org.wislice.onos.agent.SyncResult;
import org.wislice.onos.agent.ap.ApCalls;
import org.wislice.onos.agent.ap.ApCapabilities;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.ap.ChannelChange;
import org.wislice.onos.agent.ap.ClientQuery;
import org.wislice.onos.agent.ap.ClientRemoval;
import org.wislice.onos.agent.ap.ClientSteering;
import org.wislice.onos.agent.ap.Radio;
import org.wislice.onos.agent.ap.Rate;
import org.wislice.onos.agent.ap.RateLimit;
import org.wislice.onos.agent.ap.SteerOutcome;
import org.wislice.onos.agent.ap.VapLatency;
import org.wislice.onos.agent.ap.VapSpec;
import org.wislice.onos.agent.ap.VapUpdate;
import org.wislice.onos.agent.ap.VapState;
import org.wislice.onos.wifi.api.WifiEvent;
import org.wislice.onos.wifi.api.WifiListener;
import org.wislice.onos.wifi.api.WifiService;

import java.util.Dictionary;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;
import static org.wislice.onos.wifi.impl.OsgiPropertyConstants.*;

/**
 * The WiFi controller: serves ap-agents through an AgentController (sessions, desired-state push, calls), keeps
 * their state in the WifiStore, and re-posts store changes as WifiEvents. What is WiFi's own: the desired vAPs
 * (syncVaps), what is read back (getVaps, getClient), the ap-agent events (AgentEvents) and the vAP operations.
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
    /** The agent server before component properties (the controller id is the cluster node's). */
    private static final AgentServerConfig AGENT_SERVER = new AgentServerConfig("ap", BIND_ADDRESS_DEFAULT,
            AGENT_PORT_DEFAULT, "onos", SHARED_SECRET_DEFAULT, REQUEST_TIMEOUT_MS_DEFAULT, STATS_INTERVAL_S_DEFAULT,
            30).withTls(TLS_CERT_FILE_DEFAULT, TLS_KEY_FILE_DEFAULT, TLS_CLIENT_CA_FILE_DEFAULT);
    /** Errors after which a vAP stays desired: the agent is away or slow, and gets it with its next syncVaps. */
    private static final Set<String> AGENT_AWAY = Set.of(AgentRequestException.UNREACHABLE,
                                                         AgentRequestException.TIMEOUT);
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
    protected WifiStore store;

    // The property catalog (onos-maven-plugin cfg) takes each property's description from the field of its name.
    // The values in force are the agent server's, in the AgentController.
    /** TCP port for ap-agents. */
    private int agentPort = AGENT_PORT_DEFAULT;
    /** Address the ap-agent server binds. */
    private String bindAddress = BIND_ADDRESS_DEFAULT;
    /** Shared secret of the hmac-sha256 agent auth; empty accepts auth none (set it, or tlsClientCaFile). */
    private String sharedSecret = SHARED_SECRET_DEFAULT;
    /** Server certificate chain (PEM file); with tlsKeyFile, agent connections are TLS. */
    private String tlsCertFile = TLS_CERT_FILE_DEFAULT;
    /** Private key of tlsCertFile (PEM file, unencrypted PKCS#8). */
    private String tlsKeyFile = TLS_KEY_FILE_DEFAULT;
    /** CA (PEM file) that ap-agents' client certificates must chain to; set = client certificates required. */
    private String tlsClientCaFile = TLS_CLIENT_CA_FILE_DEFAULT;
    /** How long a request to an ap-agent may take (ms). */
    private int requestTimeoutMs = REQUEST_TIMEOUT_MS_DEFAULT;
    /** How often ap-agents send stats events (s, told in the welcome). */
    private int statsIntervalS = STATS_INTERVAL_S_DEFAULT;

    /** Calls to agents connected to another node of the cluster, and other nodes' calls to ours. */
    private ClusterAgentForwarder forwarder;
    private final AgentController<ApCapabilities> agents =
            new AgentController<>(AGENT_SERVER, ApCodecs.CAPABILITIES, new ApAgents());
    private final WifiStoreDelegate delegate = this::post;
    private final WifiListener latencyListener = this::recordLatency;
    private AgentEvents events;
    private FirmwareUpgrades upgrades;
    /** Seals the passphrases the store keeps; set before activate by unit tests, else read from the key file. */
    PassphraseCipher passphrases;

    @Activate
    protected void activate(ComponentContext context) {
        if (passphrases == null) {
            passphrases = PassphraseCipher.fromFile(PassphraseCipher.keyFile());
        }
        coreService.registerApplication(APP_NAME);
        cfgService.registerProperties(getClass());
        eventDispatcher.addSink(WifiEvent.class, listenerRegistry);
        store.setDelegate(delegate);
        upgrades = new FirmwareUpgrades(store, agents, System::currentTimeMillis);
        events = new AgentEvents(store, this::post, upgrades);
        addListener(latencyListener);
        agents.activate(clusterService.getLocalNode().id().id(), properties(context));
        forwarder = new ClusterAgentForwarder(clusterCommunicator, "ap", agents::requestTimeoutMs);
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
        eventDispatcher.removeSink(WifiEvent.class);
        cfgService.unregisterProperties(getClass(), false);
        log.info("Stopped");
    }

    @Modified
    protected void modified(ComponentContext context) {
        agents.configure(properties(context));
    }

    private static Dictionary<?, ?> properties(ComponentContext context) {
        return context == null ? null : context.getProperties();
    }

    /** Port the agent server listens on (tests configure 0 = any free port). */
    int boundPort() {
        return agents.port();
    }

    /** What the AgentController does that is WiFi's own. */
    private final class ApAgents implements AgentApp<ApCapabilities> {
        @Override
        public Optional<AgentRecord<ApCapabilities>> agent(String agentId) {
            return store.agent(agentId);
        }

        @Override
        public void putAgent(AgentRecord<ApCapabilities> agent) {
            store.putAgent(agent);
        }

        @Override
        public AgentCall.Request<SyncResult> desiredState(String agentId) {
            // The one place passphrases are opened: the push to their agent.
            return ApCalls.SYNC_VAPS.with(store.desiredVaps(agentId).stream().map(v -> v.open(passphrases))
                                                  .collect(Collectors.toList()));
        }

        @Override
        public void refresh(AgentSession agent) {
            String agentId = agent.agentId();
            agents.underStateLock(agentId, () -> {
                events.refreshVaps(agentId, agent.call(ApCalls.GET_VAPS, null));
                events.refreshClients(agentId, agent.call(ApCalls.GET_CLIENT, ClientQuery.ALL));
            });
        }

        @Override
        public void event(String agentId, JsonNode event) {
            events.handle(agentId, event);
        }

        @Override
        public void disconnected(String agentId) {
            events.forget(agentId);
        }

        @Override
        public void sessionsEnded() {
            events.forgetAll();
        }
    }

    private void recordLatency(WifiEvent event) {
        if (event.type() == WifiEvent.Type.CLIENT_ASSOCIATED || event.type() == WifiEvent.Type.STATS
                || event.type() == WifiEvent.Type.VAP_UPDATED && event.subject().has("updated_ts")) {
            agents.recordEventLatency(event.time());
        }
    }

    // --- WifiService --------------------------------------------------------------------------------------------

    private static ObjectNode record(AgentRecord<ApCapabilities> agent, long vaps, long clients) {
        return WifiRecords.AGENT.encode(agent).put("vaps", vaps).put("clients", clients);
    }

    @Override
    public List<ObjectNode> agents() {
        Map<String, Long> vapsByAgent = store.vaps(null).stream()
                .collect(Collectors.groupingBy(Placed::agentId, Collectors.counting()));
        Map<String, Long> clientsByAgent = store.clients(null).stream()
                .collect(Collectors.groupingBy(c -> c.get("agent_id").asText(), Collectors.counting()));
        return store.agents().stream().map(a -> record(a, vapsByAgent.getOrDefault(a.agentId(), 0L),
                                                       clientsByAgent.getOrDefault(a.agentId(), 0L)))
                .collect(Collectors.toList());
    }

    @Override
    public Optional<ObjectNode> agent(String agentId) {
        return store.agent(agentId).map(a -> record(a, store.vaps(agentId).size(), store.clients(agentId).size()));
    }

    @Override
    public List<ObjectNode> aps() {
        return agents().stream().map(a -> upgrades.ap(a.get("agent_id").asText(), a)).collect(Collectors.toList());
    }

    @Override
    public Optional<ObjectNode> ap(String agentId) {
        return agent(agentId).map(a -> upgrades.ap(agentId, a));
    }

    @Override
    public ObjectNode upgradeFirmware(String agentId, JsonNode request) {
        return upgrades.request(agentId, request);
    }

    @Override
    public List<ObjectNode> vaps(String agentId) {
        return store.vaps(agentId).stream().map(WifiRecords.VAP::encode).collect(Collectors.toList());
    }

    @Override
    public ObjectNode createVap(String agentId, JsonNode vapSpec) {
        VapSpec spec = RestBodies.decode(ApCodecs.VAP_SPEC, vapSpec, "vap");
        if (store.agent(agentId).isEmpty()) {
            throw new ControllerException("not_found", "no ap-agent " + agentId);
        }
        if (store.desiredVap(agentId, spec.vapId()).isPresent()) {
            throw new ControllerException("conflict", "vAP " + spec.vapId() + " already exists on " + agentId);
        }
        // Desired state first: if the agent is away, the vAP is created when it reconnects.
        store.putDesiredVap(agentId, DesiredVap.seal(spec, passphrases));
        // The agent refused it: nothing is desired.
        return askForVap(agentId, ApCalls.CREATE_VAP, spec, () -> store.removeDesiredVap(agentId, spec.vapId()));
    }

    /**
     * Sends a vAP call whose desired state is already stored, records the VapState the agent answers and returns
     * it. If the agent refuses (not when it is away or slow: the desired state then reaches it with its next
     * syncVaps), undoRefused takes the desired state back first.
     */
    private <P> ObjectNode askForVap(String agentId, AgentCall<P, VapState> call, P params, Runnable undoRefused) {
        VapState state = agents.callOrUndo(agentId, call, params, AGENT_AWAY::contains, undoRefused);
        // Under the state lock: a refresh that read the agent's vAPs before this one existed must not drop it.
        agents.underStateLock(agentId, () -> store.putVap(agentId, state));
        return WifiRecords.VAP.encode(new Placed<>(agentId, state));
    }

    @Override
    public void removeVap(String agentId, String vapId) {
        agents.underStateLock(agentId, () -> {
            boolean desired = store.removeDesiredVap(agentId, vapId);
            boolean known = store.vap(agentId, vapId).isPresent();
            if (!desired && !known) {
                throw new ControllerException("not_found", "no vAP " + vapId + " on " + agentId);
            }
            agents.removeIfConnected(agentId, ApCalls.DEL_VAP, vapId);
            store.removeVap(agentId, vapId);
            store.clients(agentId).stream().filter(c -> vapId.equals(c.get("vap_id").asText()))
                    .forEach(c -> store.removeClient(agentId, c.get("mac").asText()));
        });
    }

    @Override
    public ObjectNode updateRateLimit(String vapId, JsonNode rateLimit) {
        return update(VapUpdate.rates(vapId, RestBodies.decode(ApCodecs.RATE_LIMIT, rateLimit, "rate_limit")));
    }

    @Override
    public ObjectNode updateVap(String vapId, JsonNode changes) {
        if (changes == null || !changes.isObject()) {
            throw new ControllerException("bad_request", "an object of rate_limit, wmm_ac and/or probe expected");
        }
        ObjectNode params = Json.object().put("vap_id", vapId);
        params.setAll((ObjectNode) changes.deepCopy());
        return update(RestBodies.decode(ApCodecs.VAP_UPDATE, params, "vap"));
    }

    /** updateVap on the one agent whose desired vAPs have it: the desired spec first, taken back if refused. */
    private ObjectNode update(VapUpdate update) {
        String vapId = update.vapId();
        List<String> owners = store.agents().stream().map(AgentRecord::agentId)
                .filter(a -> store.desiredVap(a, vapId).isPresent()).sorted().collect(Collectors.toList());
        if (owners.isEmpty()) {
            throw new ControllerException("not_found", "no vAP " + vapId);
        }
        if (owners.size() > 1) {
            throw new ControllerException("conflict", "vAP " + vapId + " exists on several agents: " + owners);
        }
        String agentId = owners.get(0);
        DesiredVap desired = store.desiredVap(agentId, vapId).orElseThrow();
        // Desired state first: an agent that is away gets the change with its next syncVaps.
        store.putDesiredVap(agentId, desired.with(update));
        // The agent refused: the vAP stays as it was.
        return askForVap(agentId, ApCalls.UPDATE_VAP, update, () -> store.putDesiredVap(agentId, desired));
    }

    @Override
    public List<ObjectNode> clients(String agentId, String vapId) {
        return store.clients(agentId).stream()
                .filter(c -> vapId == null || vapId.equals(c.get("vap_id").asText()))
                .collect(Collectors.toList());
    }

    @Override
    public void kickClient(String agentId, String mac) {
        agents.call(agentId, ApCalls.REMOVE_CLIENT, ClientRemoval.of(mac));
        store.removeClient(agentId, mac);
    }

    @Override
    public ObjectNode steerClient(String mac, String targetAgent, String targetVap, String targetBssid,
                                  Integer disassocTimerTbtt) {
        boolean noTarget = targetVap == null && targetBssid == null && targetAgent == null;
        if (targetVap != null && targetBssid != null || noTarget) {
            throw new ControllerException("bad_request",
                    "give the target as a vAP, a BSSID or an AP (target_agent alone: the client's SSID there)");
        }
        List<ObjectNode> serving = store.clients(null).stream()
                .filter(c -> mac.equals(c.path("mac").asText())).collect(Collectors.toList());
        if (serving.isEmpty()) {
            throw new ControllerException("not_found", "no client " + mac);
        }
        if (serving.size() > 1) {
            throw new ControllerException("conflict", "client " + mac + " is on several vAPs");
        }
        String agentId = serving.get(0).path("agent_id").asText();
        String vapId = serving.get(0).path("vap_id").asText();
        // A BSS transition stays within the client's ESS, i.e. its slice: the same SSID, whose vAPs on other APs
        // the slice was admitted with. Another SSID would be another tenant's network the station holds no
        // credentials for (it would refuse, or drop off after the old AP let it go).
        String ssid = store.vaps(agentId).stream().filter(p -> p.value().vapId().equals(vapId))
                .map(p -> p.value().spec().ssid()).findFirst().orElse(null);
        List<Placed<VapState>> targets = store.vaps(targetAgent).stream()
                .filter(p -> targetVap != null ? targetVap.equals(p.value().vapId())
                        : targetBssid != null ? targetBssid.equals(p.value().bssid())
                        : p.value().spec().ssid().equals(ssid))
                .collect(Collectors.toList());
        if (targets.isEmpty() && targetVap == null && targetBssid == null) {
            throw new ControllerException("conflict", "no vAP of SSID '" + ssid + "' on " + targetAgent
                    + ": the client's slice has no vAP on that AP (it was not admitted there)");
        }
        if (targets.isEmpty()) {
            throw new ControllerException("not_found", "no target vAP " + (targetVap != null ? targetVap
                    : "with BSSID " + targetBssid) + (targetAgent != null ? " on " + targetAgent : ""));
        }
        if (targets.size() > 1) {
            throw new ControllerException("conflict", "target vAP " + targetVap + " exists on several agents");
        }
        Placed<VapState> target = targets.get(0);
        if (target.agentId().equals(agentId) && target.value().vapId().equals(vapId)) {
            throw new ControllerException("bad_request", "client " + mac + " is already on vAP " + vapId);
        }
        if (ssid != null && !ssid.equals(target.value().spec().ssid())) {
            throw new ControllerException("bad_request", "target vAP " + target.value().vapId() + " serves SSID '"
                    + target.value().spec().ssid() + "', client " + mac + " is on SSID '" + ssid
                    + "': a BSS transition stays within the client's SSID (its slice)");
        }
        Integer channel = store.agent(target.agentId())
                .flatMap(a -> a.capabilities().radios().stream()
                        .filter(r -> r.name().equals(target.value().spec().radio())).findFirst())
                .map(Radio::channel).orElse(null);
        String bssid = target.value().bssid();
        SteerOutcome outcome = agents.call(agentId, ApCalls.STEER_CLIENT,
                new ClientSteering(vapId, mac, bssid, channel, disassocTimerTbtt));
        ObjectNode out = Json.object().put("agent_id", agentId).put("vap_id", vapId).put("mac", mac)
                .put("target_agent_id", target.agentId()).put("target_vap_id", target.value().vapId())
                .put("target_bssid", bssid);
        out.setAll(ApCodecs.STEER_OUTCOME.encode(outcome));
        return out;
    }

    @Override
    public ObjectNode changeChannel(String agentId, String radio, int channel) {
        if (channel < 1 || channel > 233) {
            throw new ControllerException("bad_request", "channel must be 1-233");
        }
        Radio updated = agents.call(agentId, ApCalls.CHANGE_CHANNEL, new ChannelChange(radio, channel, null));
        store.agent(agentId).ifPresent(a -> store.putAgent(a.withCapabilities(a.capabilities().withRadio(updated))));
        return ApCodecs.RADIO.encode(updated);
    }

    @Override
    public ObjectNode rates(String agentId, String vapId) {
        if (store.vap(agentId, vapId).isEmpty()) {
            throw new ControllerException("not_found", "no vAP " + vapId + " on " + agentId);
        }
        Rate tx = agents.call(agentId, ApCalls.GET_TX_RATE, vapId);
        Rate rx = agents.call(agentId, ApCalls.GET_RX_RATE, vapId);
        return Json.object().put("tx_bps", tx.bps()).put("rx_bps", rx.bps()).put("interval_s", tx.intervalS());
    }

    @Override
    public ObjectNode latency(String agentId, String vapId) {
        List<String> owners = store.vaps(agentId).stream().filter(p -> vapId.equals(p.value().vapId()))
                .map(Placed::agentId).sorted().collect(Collectors.toList());
        if (owners.isEmpty()) {
            throw new ControllerException("not_found", "no vAP " + vapId + (agentId != null ? " on " + agentId : ""));
        }
        if (owners.size() > 1) {
            throw new ControllerException("conflict", "vAP " + vapId + " exists on several agents: " + owners);
        }
        VapLatency latency = agents.call(owners.get(0), ApCalls.GET_LATENCY, vapId);
        ObjectNode out = Json.object().put("agent_id", owners.get(0));
        out.setAll(ApCodecs.VAP_LATENCY.encode(latency));
        return out;
    }

    @Override
    public ObjectNode stats() {
        ObjectNode root = Json.object().put("node", agents.localNode());
        ArrayNode list = root.putArray("agents");
        events.lastStats().forEach(list::add);
        return root;
    }

    @Override
    public ObjectNode metrics() {
        return agents.metrics();
    }

    @Override
    public void resetMetrics() {
        agents.resetMetrics();
    }
}
