package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.util.Dictionary;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The controller side of one agent role (ap or mec), shared by the WiFi and NFV managers: the agent server across
 * component (re)configurations, one session per agent_id on this controller node (a reconnect replaces the older
 * connection), the agent's record marked connected on hello and disconnected on close, the desired-state push
 * after every welcome, calls to agents with their error replies mapped onto ControllerException (the REST error
 * codes), and the event latency metrics. What is specific to the role is its AgentApp.
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

    /**
     * @param defaults     the role's agent server settings before component properties (role, port, timeouts)
     * @param capabilities how the role's hello capabilities are read
     * @param app          what is specific to the role
     */
    public AgentController(AgentServerConfig defaults, AgentCodec<C> capabilities, AgentApp<C> app) {
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
        if (server.apply(defaults.withControllerId(controllerId).withProperties(properties))) {
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
     * run whole under it: a report read before a removal would otherwise put back what the removal took away.
     * Calls made inside wait for replies on network threads, never on the agent's ordered executor.
     */
    public void underStateLock(String agentId, Runnable change) {
        synchronized (stateLocks.computeIfAbsent(agentId, id -> new Object())) {
            change.run();
        }
    }

    // --- calls ----------------------------------------------------------------------------------------------

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

    /** Calls the agent (AgentSession#call): its answer, or ControllerException with the REST error code. */
    public <P, R> R call(String agentId, AgentCall<P, R> call, P params) {
        return session(agentId).call(call, params);
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
            result = session(agentId).ask(request.method(), request.params());
        } catch (ControllerException e) {
            if (!keep.test(e.code())) {
                undo.run();
            }
            throw e;
        }
        return request.result(result);
    }

    /**
     * Asks the agent to remove something (delVap, delVnf) if it is connected here: not_found means it is gone
     * already. An agent that is not connected loses it with the sync after its next welcome.
     */
    public <P> void removeIfConnected(String agentId, AgentCall<P, ?> call, P params) {
        AgentSession s = sessions.get(agentId);
        if (s == null || !s.isOpen()) {
            return;
        }
        try {
            s.call(call, params);
        } catch (ControllerException e) {
            if (!"not_found".equals(e.code())) {
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
