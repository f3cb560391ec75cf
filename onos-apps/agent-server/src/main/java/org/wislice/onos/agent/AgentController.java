package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.util.Dictionary;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The controller side of one agent role (ap or mec), shared by the WiFi and NFV managers: the agent server across
 * component (re)configurations, one session per agent_id on this controller node (a reconnect replaces the older
 * connection), the agent's record marked connected on hello and disconnected on close, the desired-state push
 * after every welcome, calls to agents with their error replies mapped onto ControllerException (the REST error
 * codes), and the event latency metrics. What is specific to the role is its AgentApp. In a cluster an agent is
 * connected to one node; a call made on another node goes to that node through the AgentForwarder.
 *
 * @param <C> the role's hello capabilities
 */
public final class AgentController<C> {

    private final Logger log = LoggerFactory.getLogger(getClass());
    /** "ap-agent", "mec-agent": how log lines and errors name one agent. */
    private final String agentName;
    private final AgentServerConfig defaults;
    private final AgentCodec<C> capabilities;
    private final AgentApp<C> app;
    private final ConfiguredAgentServer server;
    /** Sessions of the agents connected to this controller node. */
    private final Map<String, AgentSession> sessions = new ConcurrentHashMap<>();
    /** Per agent: serializes a removal through the controller with the refresh of what the agent reports. */
    private final Map<String, Object> stateLocks = new ConcurrentHashMap<>();
    private final LatencyRecorder eventLatency = new LatencyRecorder(100_000);
    private volatile String localNode = "";
    /** Calls to agents connected to another node of the cluster (null: a single node, they are unreachable). */
    private volatile AgentForwarder forwarder;
    private volatile long requestTimeoutMs;
    /** Where the node's own agent port comes from (the process environment; tests give their own). */
    private final Function<String, String> environment;

    /**
     * @param defaults     the role's agent server settings before component properties (role, port, timeouts)
     * @param capabilities how the role's hello capabilities are read
     * @param app          what is specific to the role
     */
    public AgentController(AgentServerConfig defaults, AgentCodec<C> capabilities, AgentApp<C> app) {
        this(defaults, capabilities, app, System::getenv);
    }

    /** environment: the node's environment variables (AgentServerConfig#nodePortVariable). */
    public AgentController(AgentServerConfig defaults, AgentCodec<C> capabilities, AgentApp<C> app,
                           Function<String, String> environment) {
        this.environment = environment;
        this.defaults = defaults;
        this.agentName = defaults.role + "-agent";
        this.capabilities = capabilities;
        this.app = app;
        this.server = new ConfiguredAgentServer(agentName + "s", new Listener());
    }

    // --- lifecycle (from the manager's @Activate, @Modified, @Deactivate) -------------------------------------

    /** Starts serving agents on this controller node with the component's properties (null: the defaults). */
    public void activate(String localNodeId, Dictionary<?, ?> properties) {
        localNode = localNodeId;
        configure(properties);
    }

    /** Applies the component's properties; a changed agent server setting restarts it, ending every session. */
    public void configure(Dictionary<?, ?> properties) {
        String controllerId = localNode.replaceAll("[^A-Za-z0-9_.:-]", "_");
        AgentServerConfig config = defaults.withControllerId(controllerId).withProperties(properties);
        try {
            config = config.withNodePort(environment);
        } catch (IllegalArgumentException e) {
            log.error("{}; listening on the configured agentPort {}", e.getMessage(), config.port);
        }
        requestTimeoutMs = config.requestTimeoutMs;
        if (server.apply(config)) {
            sessionsEnded();
        }
    }

    public void deactivate() {
        server.stop();
        sessionsEnded();
    }

    private void sessionsEnded() {
        sessions.clear();
        app.sessionsEnded();
    }

    /** The port the agent server listens on (a configured 0 picks one), -1 when it is not listening. */
    public int port() {
        return server.port();
    }

    /** How long a call waits for the agent's reply (the agent server's requestTimeoutMs). */
    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    /** The id of this controller node, as the agents' records name it. */
    public String localNode() {
        return localNode;
    }

    private static double now() {
        return System.currentTimeMillis() / 1000.0;
    }

    // --- sessions -------------------------------------------------------------------------------------------

    /** The agent server's callbacks: on its ordered executors, never on network threads. */
    private final class Listener implements AgentListener {
        @Override
        public String onHello(AgentSession session, JsonNode hello) {
            AgentSession previous = sessions.put(session.agentId(), session);
            if (previous != null && previous != session) {
                // The agent reconnected before its old connection timed out: the newest connection wins.
                previous.close("replaced by a new connection");
            }
            C caps = capabilities.read(hello.get("capabilities")); // the server validated the hello
            String firmware = hello.has("firmware_version") ? hello.get("firmware_version").asText() : null;
            app.putAgent(new AgentRecord<>(session.agentId(), true, session.remoteAddress(), localNode,
                                           hello.get("software").asText(), caps, now(), firmware));
            return null;
        }

        @Override
        public void onWelcomed(AgentSession session) {
            pushDesiredState(session);
        }

        @Override
        public void onEvent(AgentSession session, JsonNode event) {
            app.event(session.agentId(), event);
        }

        @Override
        public void onClosed(AgentSession session, String reason) {
            String agentId = session.agentId();
            if (!sessions.remove(agentId, session)) {
                return; // an older connection of an agent that already reconnected
            }
            app.disconnected(agentId);
            app.agent(agentId).ifPresent(a -> app.putAgent(a.disconnected(now())));
            log.info("{} {} disconnected: {}", agentName, agentId, reason);
        }
    }

    /** The desired state with one sync call, then what the agent runs read back; an invalid reply closes. */
    private void pushDesiredState(AgentSession session) {
        String agentId = session.agentId();
        try {
            SyncResult sync = session.call(app.desiredState(agentId));
            if (!sync.failed().isEmpty()) {
                log.warn("{} {} failed to create {}", agentName, agentId, sync.failed());
            }
            app.refresh(session);
        } catch (InvalidReplyException e) {
            log.warn("{} {} sent an invalid reply: {}", agentName, agentId, e.getMessage());
            session.close("invalid reply: " + e.detail());
        } catch (ControllerException e) {
            log.warn("pushing the desired state to {} {} failed: {}", agentName, agentId, e.getMessage());
        }
    }

    /**
     * Runs change while no other change of this agent's stored state runs. The refresh after a welcome (its read
     * of what the agent runs and the store update) and a removal through REST (its call and store update) each
     * run whole under it: a report read before a removal would otherwise put back what the removal took away. A
     * creation stores the agent's answer under it: a report read before the creation would otherwise drop it.
     * Calls made inside wait for replies on network threads, never on the agent's ordered executor.
     */
    public void underStateLock(String agentId, Runnable change) {
        synchronized (stateLocks.computeIfAbsent(agentId, id -> new Object())) {
            change.run();
        }
    }

    // --- calls ----------------------------------------------------------------------------------------------

    /** Where calls to agents connected to another controller node go (null: nowhere, agent_unreachable). */
    public void forwardThrough(AgentForwarder f) {
        forwarder = f;
    }

    /**
     * Asks the agent, here or on the node it is connected to: the reply's result, or ControllerException with the
     * REST error code (not_found for an agent never seen, agent_unreachable when it is connected nowhere).
     */
    public JsonNode ask(String agentId, String method, ObjectNode params) {
        AgentSession s = sessions.get(agentId);
        if (s != null && s.isOpen()) {
            return s.ask(method, params);
        }
        AgentForwarder f = forwarder;
        AgentRecord<C> record = app.agent(agentId).orElse(null);
        if (f != null && record != null && record.connected() && record.controllerNode != null
                && !record.controllerNode.equals(localNode)) {
            return f.ask(record.controllerNode, agentId, method, params);
        }
        return session(agentId).ask(method, params); // throws why there is no session
    }

    /** Another node's call to an agent connected here: {agent_id, method, params} -> {result} or {error}. */
    public ObjectNode answerForwarded(ObjectNode request) {
        ObjectNode answer = Json.object();
        try {
            AgentSession s = sessions.get(request.path("agent_id").asText());
            if (s == null || !s.isOpen()) {
                throw new ControllerException(AgentRequestException.UNREACHABLE, agentName + " "
                        + request.path("agent_id").asText() + " is not connected to controller node " + localNode);
            }
            JsonNode params = request.get("params");
            answer.set("result", s.ask(request.path("method").asText(),
                                       params instanceof ObjectNode ? (ObjectNode) params : Json.object()));
        } catch (ControllerException e) {
            answer.putObject("error").put("code", e.code()).put("message", e.getMessage());
        }
        return answer;
    }

    /** The result of answerForwarded's answer, or its error thrown as the ControllerException it was. */
    static JsonNode unwrapForwarded(ObjectNode answer) {
        JsonNode error = answer.get("error");
        if (error != null) {
            throw new ControllerException(error.path("code").asText("internal"), error.path("message").asText());
        }
        return answer.path("result");
    }

    /** The agent's open session here: not_found for an agent never seen, agent_unreachable when not connected. */
    public AgentSession session(String agentId) {
        AgentSession s = sessions.get(agentId);
        if (s == null || !s.isOpen()) {
            if (app.agent(agentId).isEmpty()) {
                throw new ControllerException("not_found", "no " + agentName + " " + agentId);
            }
            throw new ControllerException(AgentRequestException.UNREACHABLE,
                                          agentName + " " + agentId + " is not connected to this controller node");
        }
        return s;
    }

    /** Calls the agent (see ask): its answer, or ControllerException with the REST error code. */
    public <P, R> R call(String agentId, AgentCall<P, R> call, P params) {
        AgentCall.Request<R> request = call.with(params);
        return request.result(ask(agentId, request.method(), request.params()));
    }

    /**
     * Calls the agent about something whose desired state the caller stored first. If the agent is away or
     * answers with an error, undo takes that desired state back before the error is thrown, unless keep accepts
     * the error's code: the agent then still gets it with the sync after its next welcome. An invalid answer is
     * not undone (the agent did it).
     */
    public <P, R> R callOrUndo(String agentId, AgentCall<P, R> call, P params, Predicate<String> keep,
                               Runnable undo) {
        AgentCall.Request<R> request = call.with(params);
        JsonNode result;
        try {
            result = ask(agentId, request.method(), request.params());
        } catch (ControllerException e) {
            if (!keep.test(e.code())) {
                undo.run();
            }
            throw e;
        }
        return request.result(result);
    }

    /**
     * Asks the agent to remove something (delVap, delVnf) if it is connected (here or on another node): not_found
     * means it is gone already. An agent that is not connected loses it with the sync after its next welcome.
     */
    public <P> void removeIfConnected(String agentId, AgentCall<P, ?> call, P params) {
        try {
            call(agentId, call, params);
        } catch (ControllerException e) {
            if (!"not_found".equals(e.code()) && !AgentRequestException.UNREACHABLE.equals(e.code())) {
                throw e;
            }
        }
    }

    // --- metrics --------------------------------------------------------------------------------------------

    /** An event the agent stamped at eventTimeMs reached the app's listeners now. */
    public void recordEventLatency(long eventTimeMs) {
        eventLatency.record(System.currentTimeMillis() - eventTimeMs);
    }

    /** {agents_connected, events, event_p50_ms, event_p99_ms (null before the first), heap_used_mib, violations}. */
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

    /** Clears the event latency samples (between benchmark phases). */
    public void resetMetrics() {
        eventLatency.reset();
    }
}
