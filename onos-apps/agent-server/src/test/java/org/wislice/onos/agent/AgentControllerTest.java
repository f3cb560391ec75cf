package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.wislice.onos.agent.ap.ApCalls;
import org.wislice.onos.agent.ap.ApCapabilities;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.ap.VapState;

import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** The agent-controller base with an ap role app that keeps its records in a map, and scripted agents. */
public class AgentControllerTest {

    private static final String SECRET = "s3cret";

    /** Records in a map, an empty desired state, getVaps read back into a list. */
    private static final class MapApp implements AgentApp<ApCapabilities> {
        final Map<String, AgentRecord<ApCapabilities>> records = new ConcurrentHashMap<>();
        final List<VapState> refreshed = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        volatile int sessionsEnded;

        @Override
        public Optional<AgentRecord<ApCapabilities>> agent(String agentId) {
            return Optional.ofNullable(records.get(agentId));
        }

        @Override
        public void putAgent(AgentRecord<ApCapabilities> agent) {
            records.put(agent.agentId(), agent);
        }

        @Override
        public AgentCall.Request<SyncResult> desiredState(String agentId) {
            return ApCalls.SYNC_VAPS.with(List.of());
        }

        @Override
        public void refresh(AgentSession agent) {
            refreshed.addAll(agent.call(ApCalls.GET_VAPS, null));
        }

        @Override
        public void event(String agentId, JsonNode event) {
            events.add(agentId + " " + event.get("event").asText());
        }

        @Override
        public void sessionsEnded() {
            sessionsEnded++;
        }
    }

    private final MapApp app = new MapApp();
    private AgentController<ApCapabilities> controller;

    @Before
    public void setUp() {
        AgentServerConfig defaults = new AgentServerConfig("ap", "127.0.0.1", 0, "x", SECRET, 500, 5, 30);
        controller = new AgentController<>(defaults, ApCodecs.CAPABILITIES, app);
        controller.activate("node 1", new Hashtable<>());
    }

    @After
    public void tearDown() {
        controller.deactivate();
    }

    static ObjectNode capabilities() {
        ObjectNode caps = Json.object();
        caps.putArray("radios").addObject().put("name", "phy0").put("mac", "02:00:00:00:00:00").put("channel", 6)
                .put("hw_mode", "g").put("max_vaps", 8).put("vaps_used", 0);
        caps.putArray("security").add("open");
        return caps.put("pof_switch", false);
    }

    private static ObjectNode vapState() {
        ObjectNode v = Json.object().put("vap_id", "v1").put("radio", "phy0").put("ssid", "x").put("tenant_id", 1)
                .put("slice_id", "s-1");
        v.putObject("security").put("mode", "open");
        v.putObject("rate_limit").put("down_kbps", 0).put("up_kbps", 0);
        return v.put("ifname", "wlan0_1").put("bssid", "02:00:00:00:00:01").put("state", "up").put("clients", 0);
    }

    /** Connects an agent; it answers the push (syncVaps, then getVaps with vaps). */
    private TestAgentClient connect(String agentId, ObjectNode... vaps) throws Exception {
        TestAgentClient agent = new TestAgentClient(controller.port());
        JsonNode welcome = agent.hello("ap", agentId, SECRET, capabilities());
        assertEquals("welcome", welcome.get("type").asText());
        assertEquals("node_1", welcome.get("controller_id").asText());
        JsonNode sync = agent.serveOne(r -> {
            ObjectNode result = Json.object();
            result.putArray("failed").addObject().put("vap_id", "v9").put("error", "no radio");
            return result;
        });
        assertEquals("syncVaps", sync.get("method").asText());
        assertEquals(0, sync.at("/params/vaps").size());
        agent.serveOne(r -> {
            ObjectNode result = Json.object();
            for (ObjectNode v : vaps) {
                result.withArray("vaps").add(v);
            }
            result.withArray("vaps");
            return result;
        });
        return agent;
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 300 && !condition.getAsBoolean(); i++) {
            Thread.sleep(10);
        }
        assertTrue("condition not met", condition.getAsBoolean());
    }

    private boolean connected(String agentId) {
        return app.agent(agentId).map(AgentRecord::connected).orElse(false);
    }

    @Test
    public void helloRecordsTheAgentAndItsDesiredStateIsPushed() throws Exception {
        try (TestAgentClient agent = connect("ap-1", vapState())) {
            waitFor(() -> app.refreshed.size() == 1);
            AgentRecord<ApCapabilities> record = app.agent("ap-1").orElseThrow();
            assertTrue(record.connected());
            assertEquals("phy0", record.capabilities().radios().get(0).name());
            ObjectNode json = new AgentRecordCodec<>("node", ApCodecs.CAPABILITIES).encode(record);
            assertEquals("node 1", json.get("node").asText());
            assertEquals("test-agent", json.get("software").asText());
            assertEquals("v1", app.refreshed.get(0).vapId());
            assertEquals(1, controller.metrics().get("agents_connected").asInt());
        }
        waitFor(() -> !connected("ap-1"));
        assertEquals(0, controller.metrics().get("agents_connected").asInt());
    }

    @Test
    public void aReconnectReplacesTheOlderSession() throws Exception {
        TestAgentClient first = connect("ap-2");
        waitFor(() -> connected("ap-2"));
        try (TestAgentClient second = connect("ap-2")) {
            JsonNode bye = first.read();
            assertEquals("replaced by a new connection", bye.get("reason").asText());
            first.close();
            Thread.sleep(200);
            assertTrue("the older session's close leaves the agent connected", connected("ap-2"));
            ObjectNode ev = Json.object().put("type", "event").put("event", "vapState").put("ts", 1);
            ev.putObject("data").put("vap_id", "v1").put("state", "down");
            second.send(ev);
            waitFor(() -> app.events.contains("ap-2 vapState"));
        }
        waitFor(() -> !connected("ap-2"));
    }

    @Test
    public void anInvalidReplyDuringThePushClosesTheSession() throws Exception {
        try (TestAgentClient agent = new TestAgentClient(controller.port())) {
            agent.hello("ap", "ap-3", SECRET, capabilities());
            agent.serveOne(r -> Json.object());
            agent.serveOne(r -> {
                ObjectNode result = Json.object();
                result.putArray("vaps").add(vapState().put("bssid", "not-a-mac"));
                return result;
            });
            JsonNode bye = agent.read();
            assertEquals("bye", bye.get("type").asText());
            assertEquals("invalid reply: vaps[0].bssid: invalid value", bye.get("reason").asText());
        }
        assertTrue(app.refreshed.isEmpty());
    }

    @Test
    public void callErrorsAreTheRestErrorCodes() throws Exception {
        assertCode("not_found", 404, () -> controller.call("nobody", ApCalls.DEL_VAP, "v1"));
        try (TestAgentClient agent = connect("ap-4")) {
            waitFor(() -> connected("ap-4"));
            CompletableFuture<Void> refused = CompletableFuture.runAsync(
                    () -> controller.call("ap-4", ApCalls.DEL_VAP, "v1"));
            JsonNode req = agent.serveOne(r -> {
                throw new IllegalStateException("no vAP v1");
            });
            assertEquals("v1", req.at("/params/vap_id").asText());
            assertCode("not_found", 404, () -> refused.join());
            // No answer within the request timeout (500 ms).
            assertCode("timeout", 504, () -> controller.call("ap-4", ApCalls.GET_VAPS, null));
            assertEquals("getVaps", agent.read().get("method").asText());
            // An answer that breaks the protocol.
            CompletableFuture<VapState> created = CompletableFuture.supplyAsync(
                    () -> controller.call("ap-4", ApCalls.CREATE_VAP, ApCodecs.VAP_SPEC.read(vapState())));
            agent.serveOne(r -> Json.object().put("vap", "?"));
            ControllerException e = assertCode("internal", 502, () -> created.join());
            assertTrue(e.getMessage(), e.getMessage().startsWith("agent sent an invalid VapState: vap: object"));
        }
        waitFor(() -> !connected("ap-4"));
        assertCode("agent_unreachable", 502, () -> controller.call("ap-4", ApCalls.GET_VAPS, null));
    }

    @Test
    public void callOrUndoTakesTheDesiredStateBackUnlessKept() throws Exception {
        List<String> undone = new CopyOnWriteArrayList<>();
        try (TestAgentClient agent = connect("ap-5")) {
            waitFor(() -> connected("ap-5"));
            CompletableFuture<Void> refused = CompletableFuture.runAsync(() -> controller.callOrUndo(
                    "ap-5", ApCalls.DEL_VAP, "v1", code -> false, () -> undone.add("refused")));
            agent.serveOne(r -> {
                throw new IllegalStateException("refused");
            });
            assertCode("not_found", 404, refused::join);
            CompletableFuture<Void> kept = CompletableFuture.runAsync(() -> controller.callOrUndo(
                    "ap-5", ApCalls.DEL_VAP, "v1", "not_found"::equals, () -> undone.add("kept")));
            agent.serveOne(r -> {
                throw new IllegalStateException("refused");
            });
            assertCode("not_found", 404, kept::join);
            // removeIfConnected: not_found is "already gone".
            CompletableFuture<Void> removed = CompletableFuture.runAsync(
                    () -> controller.removeIfConnected("ap-5", ApCalls.DEL_VAP, "v1"));
            agent.serveOne(r -> {
                throw new IllegalStateException("no vAP v1");
            });
            removed.get(5, TimeUnit.SECONDS);
        }
        waitFor(() -> !connected("ap-5"));
        controller.removeIfConnected("ap-5", ApCalls.DEL_VAP, "v1"); // away: nothing asked, nothing thrown
        assertCode("agent_unreachable", 502, () -> controller.callOrUndo(
                "ap-5", ApCalls.GET_VAPS, null, code -> false, () -> undone.add("away")));
        assertEquals(List.of("refused", "away"), undone);
    }

    @Test
    public void aNewConfigurationRestartsTheServerAndEndsTheSessions() throws Exception {
        int before = app.sessionsEnded;
        controller.configure(new Hashtable<>(Map.of(AgentServerConfig.REQUEST_TIMEOUT_MS, 700)));
        assertEquals(before + 1, app.sessionsEnded);
        controller.configure(new Hashtable<>(Map.of(AgentServerConfig.REQUEST_TIMEOUT_MS, 700)));
        assertEquals("the same settings again: no restart", before + 1, app.sessionsEnded);
        try (TestAgentClient agent = connect("ap-6")) {
            waitFor(() -> connected("ap-6"));
        }
        assertFalse(controller.metrics().get("event_p50_ms").isNumber());
        controller.recordEventLatency(System.currentTimeMillis() - 5);
        assertEquals(1, controller.metrics().get("events").asLong());
        controller.resetMetrics();
        assertEquals(0, controller.metrics().get("events").asLong());
    }

    @Test
    public void aCallOnAnotherNodeOfTheClusterIsForwardedToTheNodeTheAgentIsConnectedTo() throws Exception {
        // node 2 shares node 1's agent records (the distributed store); the forwarder hands node 2's calls to
        // node 1 as ClusterAgentForwarder does over the cluster, JSON both ways.
        AgentServerConfig defaults = new AgentServerConfig("ap", "127.0.0.1", 0, "y", SECRET, 500, 5, 30);
        AgentController<ApCapabilities> node2 = new AgentController<>(defaults, ApCodecs.CAPABILITIES, app);
        node2.activate("node 2", new Hashtable<>());
        List<String> hops = new CopyOnWriteArrayList<>();
        node2.forwardThrough((nodeId, agentId, method, params) -> {
            hops.add(nodeId + " " + agentId + " " + method);
            ObjectNode request = Json.object().put("agent_id", agentId).put("method", method);
            request.set("params", params);
            ObjectNode wire;
            try {
                wire = Json.parseLine(Json.write(controller.answerForwarded(request)));
            } catch (ProtocolException e) {
                throw new AssertionError(e);
            }
            return AgentController.unwrapForwarded(wire);
        });
        try (TestAgentClient agent = connect("ap-5")) {
            waitFor(() -> connected("ap-5"));
            CompletableFuture<List<VapState>> vaps = CompletableFuture.supplyAsync(
                    () -> node2.call("ap-5", ApCalls.GET_VAPS, null));
            agent.serveOne(r -> Json.object().set("vaps", Json.MAPPER.createArrayNode().add(vapState())));
            assertEquals("v1", vaps.join().get(0).vapId());
            assertEquals(List.of("node 1 ap-5 getVaps"), hops);
            // The agent's error reply reaches node 2's caller as the code it would get on node 1.
            CompletableFuture<Void> refused = CompletableFuture.runAsync(
                    () -> node2.call("ap-5", ApCalls.DEL_VAP, "v1"));
            agent.serveOne(r -> {
                throw new IllegalStateException("no vAP v1");
            });
            assertCode("not_found", 404, () -> refused.join());
        } finally {
            node2.deactivate();
        }
        waitFor(() -> !connected("ap-5"));
        assertCode("agent_unreachable", 502, () -> node2.call("ap-5", ApCalls.GET_VAPS, null));
        assertEquals(2, hops.size()); // an agent connected nowhere is not forwarded
    }

    @Test
    public void aNodeTakesItsOwnAgentPortFromItsEnvironment() throws Exception {
        int free;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            free = probe.getLocalPort();
        }
        AgentServerConfig defaults = new AgentServerConfig("ap", "127.0.0.1", 0, "z", SECRET, 500, 5, 30);
        assertEquals("WISLICE_AP_AGENT_PORT", defaults.nodePortVariable());
        Hashtable<String, Object> clusterWide = new Hashtable<>(Map.of(AgentServerConfig.AGENT_PORT, "0"));
        AgentController<ApCapabilities> node = new AgentController<>(defaults, ApCodecs.CAPABILITIES, new MapApp(),
                Map.of("WISLICE_AP_AGENT_PORT", String.valueOf(free))::get);
        node.activate("node 3", clusterWide);
        try {
            assertEquals(free, node.port()); // the node's own port wins over the cluster-wide one
        } finally {
            node.deactivate();
        }
        // A value that is no port is refused (logged) and the configured port kept.
        AgentController<ApCapabilities> bad = new AgentController<>(defaults, ApCodecs.CAPABILITIES, new MapApp(),
                Map.of("WISLICE_AP_AGENT_PORT", "66000")::get);
        bad.activate("node 4", clusterWide);
        try {
            assertTrue(bad.port() > 0 && bad.port() != 66000);
        } finally {
            bad.deactivate();
        }
    }

    interface Call {
        void run() throws Exception;
    }

    private static ControllerException assertCode(String code, int status, Call call) {
        try {
            call.run();
        } catch (ControllerException e) {
            assertEquals(code, e.code());
            assertEquals(status, e.httpStatus());
            return e;
        } catch (java.util.concurrent.CompletionException e) {
            ControllerException c = (ControllerException) e.getCause();
            assertEquals(code, c.code());
            assertEquals(status, c.httpStatus());
            return c;
        } catch (Exception e) {
            fail("expected " + code + ", got " + e);
        }
        fail("expected " + code);
        return null;
    }
}
