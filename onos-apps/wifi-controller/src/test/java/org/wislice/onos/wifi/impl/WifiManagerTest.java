package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.store.service.TestStorageService;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.TestAgentClient;
import org.wislice.onos.agent.TestTls;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.wifi.api.WifiEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.wislice.onos.wifi.impl.TestWifiManagers.associate;
import static org.wislice.onos.wifi.impl.TestWifiManagers.connect;
import static org.wislice.onos.wifi.impl.TestWifiManagers.waitFor;

/** WifiManager with the real DistributedWifiStore on TestStorageService, and a scripted ap-agent on loopback. */
public class WifiManagerTest {

    static final String SECRET = "unit-secret";
    private WifiManager manager;
    private DistributedWifiStore store;
    private final List<WifiEvent> events = new ArrayList<>();

    static ObjectNode vapSpec(String vapId) {
        ObjectNode spec = Json.object().put("vap_id", vapId).put("radio", "phy0").put("ssid", "Cafe")
                .put("tenant_id", 1).put("slice_id", "s-1");
        spec.putObject("security").put("mode", "wpa2-psk").put("passphrase", "correct horse");
        spec.putObject("rate_limit").put("down_kbps", 5000).put("up_kbps", 1000);
        return spec;
    }

    static ObjectNode vapState(JsonNode spec) {
        ObjectNode state = spec.deepCopy();
        ((ObjectNode) state.get("security")).remove("passphrase");
        state.put("ifname", "wlan0_1").put("bssid", "02:00:00:00:00:01").put("state", "up").put("clients", 0);
        state.putNull("pof_port");
        return state;
    }

    static ObjectNode apCapabilities() {
        ObjectNode caps = Json.object();
        caps.putArray("radios").addObject().put("name", "phy0").put("mac", "02:00:00:00:00:00").put("channel", 6)
                .put("hw_mode", "g").put("max_vaps", 8).put("vaps_used", 0);
        caps.putArray("security").add("open").add("wpa2-psk");
        caps.put("pof_switch", true);
        return caps;
    }

    @Before
    public void setUp() {
        store = TestWifiManagers.activeStore();
        manager = TestWifiManagers.activeManager(store);
        manager.addListener(events::add);
    }

    @After
    public void tearDown() {
        manager.deactivate();
        store.deactivate();
    }

    /** The desired spec the store has for a vAP, as JSON. */
    private ObjectNode desired(String agentId, String vapId) {
        return ApCodecs.VAP_SPEC.encode(store.desiredVap(agentId, vapId).orElseThrow().open(manager.passphrases));
    }

    @Test
    public void agentAppearsWithItsRadios() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-1", List.of())) {
            ObjectNode a = manager.agent("ap-1").orElseThrow();
            assertEquals("phy0", a.get("radios").get(0).get("name").asText());
            assertTrue(events.stream().anyMatch(e -> e.type() == WifiEvent.Type.AGENT_UPDATED));
        }
        waitFor(() -> !manager.agent("ap-1").orElseThrow().get("connected").asBoolean());
    }

    /** A latency slice's vAP (wmm_ac vo, set by the orchestrator) keeps its access category to the agent, in the
     * stored VapState and in the desired state syncVaps resends. */
    @Test
    public void voiceAccessCategoryReachesTheAgentAndSurvivesAReconnect() throws Exception {
        ObjectNode spec = vapSpec("v1").put("wmm_ac", "vo");
        try (TestAgentClient agent = connect(manager, "ap-wmm", List.of())) {
            CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(
                    () -> manager.createVap("ap-wmm", spec));
            JsonNode req = agent.serveOne(r -> {
                ObjectNode result = Json.object();
                result.set("vap", vapState(r.get("params").get("vap")));
                return result;
            });
            assertEquals("vo", req.get("params").get("vap").get("wmm_ac").asText());
            assertEquals("vo", created.get(5, TimeUnit.SECONDS).get("wmm_ac").asText());
        }
        TestAgentClient again = new TestAgentClient(manager.boundPort());
        again.hello("ap", "ap-wmm", SECRET, apCapabilities());
        JsonNode sync = again.read();
        assertEquals("syncVaps", sync.get("method").asText());
        assertEquals("vo", sync.get("params").get("vaps").get(0).get("wmm_ac").asText());
        again.close();
    }

    @Test
    public void createVapStoresDesiredStateAndPushesItOnReconnect() throws Exception {
        ObjectNode spec = vapSpec("v1");
        try (TestAgentClient agent = connect(manager, "ap-2", List.of())) {
            CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(
                    () -> manager.createVap("ap-2", spec));
            JsonNode req = agent.serveOne(r -> {
                ObjectNode result = Json.object();
                result.set("vap", vapState(r.get("params").get("vap")));
                return result;
            });
            assertEquals("createVap", req.get("method").asText());
            assertEquals("correct horse", req.get("params").get("vap").get("security").get("passphrase").asText());
            ObjectNode state = created.get(5, TimeUnit.SECONDS);
            assertEquals("up", state.get("state").asText());
            assertEquals(1, manager.vaps("ap-2").size());
        }
        // Reconnect: syncVaps carries the desired vAP.
        TestAgentClient again = new TestAgentClient(manager.boundPort());
        again.hello("ap", "ap-2", SECRET, apCapabilities());
        JsonNode sync = again.read();
        assertEquals("syncVaps", sync.get("method").asText());
        assertEquals("v1", sync.get("params").get("vaps").get(0).get("vap_id").asText());
        again.close();
    }

    @Test
    public void agentRefusalDropsTheDesiredVap() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-3", List.of())) {
            CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(
                    () -> manager.createVap("ap-3", vapSpec("v9")));
            agent.serveOne(r -> {
                throw new IllegalStateException("no radio");
            });
            try {
                created.join();
                fail("agent error not reported");
            } catch (java.util.concurrent.CompletionException e) {
                assertEquals("not_found", ((ControllerException) e.getCause()).code());
            }
            assertTrue(store.desiredVaps("ap-3").isEmpty());
        }
    }

    @Test
    public void invalidSpecIsRejectedBeforeAnythingIsStored() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-4", List.of())) {
            ObjectNode bad = vapSpec("v1").put("ssid", "x\nctrl_interface=/tmp");
            try {
                manager.createVap("ap-4", bad);
                fail("bad spec accepted");
            } catch (ControllerException e) {
                assertEquals("bad_request", e.code());
                assertEquals(400, e.httpStatus());
            }
            assertTrue(store.desiredVaps("ap-4").isEmpty());
        }
    }

    @Test
    public void unknownAgentIsNotFoundAndDisconnectedAgentUnreachable() throws Exception {
        try {
            manager.createVap("nobody", vapSpec("v1"));
            fail();
        } catch (ControllerException e) {
            assertEquals(404, e.httpStatus());
        }
        connect(manager, "ap-5", List.of()).close();
        waitFor(() -> !manager.agent("ap-5").orElseThrow().get("connected").asBoolean());
        try {
            manager.createVap("ap-5", vapSpec("v1"));
            fail();
        } catch (ControllerException e) {
            assertEquals("agent_unreachable", e.code());
        }
        // Kept as desired state, for the next connection.
        assertFalse(store.desiredVaps("ap-5").isEmpty());
    }

    @Test
    public void clientEventsUpdateTheStoreAndPostEvents() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-6", List.of(vapState(vapSpec("v1"))))) {
            ObjectNode ev = Json.object().put("type", "event").put("event", "clientAssociated")
                    .put("ts", System.currentTimeMillis() / 1000.0);
            ev.putObject("data").put("vap_id", "v1").put("mac", "02:00:00:00:01:00").put("signal_dbm", -40);
            agent.send(ev);
            waitFor(() -> manager.clients("ap-6", "v1").size() == 1);
            waitFor(() -> events.stream().anyMatch(e -> e.type() == WifiEvent.Type.CLIENT_ASSOCIATED));
            assertEquals(1L, manager.metrics().get("events").asLong());

            ObjectNode gone = Json.object().put("type", "event").put("event", "clientDisassociated").put("ts", 1);
            gone.putObject("data").put("vap_id", "v1").put("mac", "02:00:00:00:01:00");
            agent.send(gone);
            waitFor(() -> manager.clients("ap-6", null).isEmpty());
        }
    }

    /** Creates vAP vapId on a connected agent (the agent answers createVap with its VapState). */
    private void createVap(TestAgentClient agent, String agentId, String vapId) throws Exception {
        CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(
                () -> manager.createVap(agentId, vapSpec(vapId)));
        agent.serveOne(r -> {
            ObjectNode result = Json.object();
            result.set("vap", vapState(r.get("params").get("vap")));
            return result;
        });
        created.get(5, TimeUnit.SECONDS);
    }

    private static ObjectNode rateLimit(int down, int up, int downGuaranteed) {
        return Json.object().put("down_kbps", down).put("up_kbps", up).put("down_guaranteed_kbps", downGuaranteed);
    }

    @Test
    public void rateLimitChangeIsStoredAndSentAsUpdateVap() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-10", List.of())) {
            createVap(agent, "ap-10", "v1");
            CompletableFuture<ObjectNode> updated = CompletableFuture.supplyAsync(
                    () -> manager.updateRateLimit("v1", rateLimit(8000, 0, 3000)));
            JsonNode req = agent.serveOne(r -> {
                ObjectNode state = vapState(desired("ap-10", "v1"));
                state.set("rate_limit", r.get("params").get("rate_limit"));
                ObjectNode result = Json.object();
                result.set("vap", state);
                return result;
            });
            assertEquals("updateVap", req.get("method").asText());
            assertEquals("v1", req.at("/params/vap_id").asText());
            assertEquals(3000, req.at("/params/rate_limit/down_guaranteed_kbps").asInt());
            ObjectNode state = updated.get(5, TimeUnit.SECONDS);
            assertEquals("ap-10", state.get("agent_id").asText());
            assertEquals(8000, state.at("/rate_limit/down_kbps").asInt());
            assertEquals(3000, manager.vaps("ap-10").get(0).at("/rate_limit/down_guaranteed_kbps").asInt());
            JsonNode desired = desired("ap-10", "v1");
            assertEquals(3000, desired.at("/rate_limit/down_guaranteed_kbps").asInt());
            assertEquals("the passphrase stays in the desired spec", "correct horse",
                    desired.at("/security/passphrase").asText());

            // The agent refuses: the desired spec keeps the rates it had.
            CompletableFuture<ObjectNode> refused = CompletableFuture.supplyAsync(
                    () -> manager.updateRateLimit("v1", rateLimit(100, 100, 0)));
            agent.serveOne(r -> {
                throw new IllegalStateException("no such vAP");
            });
            try {
                refused.join();
                fail("agent error not reported");
            } catch (java.util.concurrent.CompletionException e) {
                assertEquals("not_found", ((ControllerException) e.getCause()).code());
            }
            assertEquals(8000, desired("ap-10", "v1").at("/rate_limit/down_kbps").asInt());
        }
        waitFor(() -> !manager.agent("ap-10").orElseThrow().get("connected").asBoolean());
        // Not connected: 502, and the new rates are what the next syncVaps carries.
        try {
            manager.updateRateLimit("v1", rateLimit(6000, 500, 0));
            fail("disconnected agent reached");
        } catch (ControllerException e) {
            assertEquals("agent_unreachable", e.code());
            assertEquals(502, e.httpStatus());
        }
        TestAgentClient again = new TestAgentClient(manager.boundPort());
        again.hello("ap", "ap-10", SECRET, apCapabilities());
        JsonNode sync = again.read();
        assertEquals("syncVaps", sync.get("method").asText());
        assertEquals(6000, sync.at("/params/vaps/0/rate_limit/down_kbps").asInt());
        again.close();
    }

    @Test
    public void badOrUnknownRateLimitChangesNothing() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-11", List.of())) {
            createVap(agent, "ap-11", "v1");
            for (ObjectNode bad : List.of(rateLimit(1000, 0, 1001), Json.object().put("down_kbps", 1),
                    rateLimit(1000, 0, 0).put("burst", 1))) {
                try {
                    manager.updateRateLimit("v1", bad);
                    fail("accepted " + bad);
                } catch (ControllerException e) {
                    assertEquals("bad_request", e.code());
                }
            }
            assertEquals(5000, desired("ap-11", "v1").at("/rate_limit/down_kbps").asInt());
            try {
                manager.updateRateLimit("v9", rateLimit(1, 1, 0));
                fail("unknown vAP updated");
            } catch (ControllerException e) {
                assertEquals(404, e.httpStatus());
            }
        }
    }

    @Test
    public void statsCarryTheRadiosCapacity() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-12", List.of())) {
            assertFalse(manager.agent("ap-12").orElseThrow().at("/radios/0").has("capacity_kbps"));
            ObjectNode ev = Json.object().put("type", "event").put("event", "stats").put("ts", 1);
            ObjectNode data = ev.putObject("data").put("interval_s", 5);
            data.putArray("radios").addObject().put("name", "phy0").put("capacity_kbps", 54000)
                    .put("capacity_source", "measured");
            agent.send(ev);
            waitFor(() -> manager.agent("ap-12").orElseThrow().at("/radios/0/capacity_kbps").asLong() == 54000);
            assertEquals("measured", manager.agent("ap-12").orElseThrow().at("/radios/0/capacity_source").asText());
            assertEquals("the rest of the radio is kept", 6,
                    manager.agent("ap-12").orElseThrow().at("/radios/0/channel").asInt());
            long updates = events.stream().filter(e -> e.type() == WifiEvent.Type.AGENT_UPDATED).count();
            // The same capacity again does not rewrite the agent.
            agent.send(ev);
            ((ObjectNode) data.get("radios").get(0)).put("capacity_kbps", 30000);
            agent.send(ev);
            waitFor(() -> manager.agent("ap-12").orElseThrow().at("/radios/0/capacity_kbps").asLong() == 30000);
            assertEquals(updates + 1, events.stream().filter(e -> e.type() == WifiEvent.Type.AGENT_UPDATED).count());
        }
    }

    @Test
    public void statsReachTheAggregateAndTheStoredClients() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-13", List.of(vapState(vapSpec("v1"))))) {
            ObjectNode assoc = Json.object().put("type", "event").put("event", "clientAssociated").put("ts", 1);
            assoc.putObject("data").put("vap_id", "v1").put("mac", "02:00:00:00:01:00");
            agent.send(assoc);
            ObjectNode ev = Json.object().put("type", "event").put("event", "stats").put("ts", 2);
            ObjectNode data = ev.putObject("data").put("interval_s", 5);
            data.putArray("vaps").addObject().put("vap_id", "v1").put("tx_bps", 8e6).put("rx_bps", 1e5)
                    .put("clients", 1);
            data.putArray("clients").addObject().put("mac", "02:00:00:00:01:00").put("vap_id", "v1")
                    .put("tx_bytes", 5_000_000).put("rx_bytes", 62_500).put("tx_bps", 8e6).put("rx_bps", 1e5);
            agent.send(ev);
            waitFor(() -> manager.clients("ap-13", "v1").stream().anyMatch(c -> c.has("tx_bps")));
            assertEquals(5_000_000, manager.clients("ap-13", "v1").get(0).get("tx_bytes").asLong());
            ObjectNode stats = manager.stats();
            assertEquals("node-1", stats.get("node").asText());
            assertEquals("ap-13", stats.at("/agents/0/agent_id").asText());
            assertEquals(8e6, stats.at("/agents/0/vaps/0/tx_bps").asDouble(), 0);
            assertEquals(1e5, stats.at("/agents/0/clients/0/rx_bps").asDouble(), 0);
        }
        waitFor(() -> manager.stats().get("agents").size() == 0); // gone with its connection
    }

    @Test
    public void wrongSecretIsRefused() throws Exception {
        try (TestAgentClient agent = new TestAgentClient(manager.boundPort())) {
            JsonNode bye = agent.hello("ap", "ap-7", "wrong", apCapabilities());
            assertEquals("bye", bye.get("type").asText());
        }
        assertTrue(manager.agent("ap-7").isEmpty());
    }

    @Test
    public void steerAsksTheServingAgentWithTheTargetsBssidAndChannel() throws Exception {
        String sta = "02:00:00:00:01:00";
        ObjectNode target = vapState(vapSpec("v2")).put("bssid", "02:00:00:00:00:02");
        try (TestAgentClient serving = connect(manager, "ap-s", List.of(vapState(vapSpec("v1"))));
             TestAgentClient other = connect(manager, "ap-t", List.of(target))) {
            associate(serving, manager, "ap-s", "v1", sta);
            CompletableFuture<ObjectNode> steered = CompletableFuture.supplyAsync(
                    () -> manager.steerClient(sta, null, "v2", null, 10));
            JsonNode req = serving.serveOne(r -> Json.object().put("accepted", true).put("status_code", 0)
                    .put("reason", "the station accepted the transition"));
            assertEquals("steerClient", req.get("method").asText());
            assertEquals(Json.object().put("vap_id", "v1").put("mac", sta).put("target_bssid", "02:00:00:00:00:02")
                    .put("target_channel", 6).put("disassoc_timer_tbtt", 10), req.get("params"));
            ObjectNode out = steered.get(5, TimeUnit.SECONDS);
            assertEquals("ap-t v2 true 0", out.get("target_agent_id").asText() + " "
                    + out.get("target_vap_id").asText() + " " + out.get("accepted") + " " + out.get("status_code"));
            // Unknown client, unknown BSS, the serving vAP itself, no target: errors before any agent call.
            String[][] bad = {{"02:00:00:00:09:09", "v2", null, "not_found"}, {sta, null, "02:00:00:00:00:99",
                "not_found"}, {sta, "v1", null, "bad_request"}, {sta, null, null, "bad_request"}};
            for (String[] b : bad) {
                try {
                    manager.steerClient(b[0], null, b[1], b[2], null);
                    fail("steer accepted " + String.join(" ", java.util.Arrays.asList(b)));
                } catch (ControllerException e) {
                    assertEquals(b[3], e.code());
                }
            }
        }
    }

    @Test
    public void steerStaysWithinTheClientsSsid() throws Exception {
        String sta = "02:00:00:00:01:00";
        ObjectNode same = vapState(vapSpec("v2")).put("bssid", "02:00:00:00:00:02");
        ObjectNode other = vapState(vapSpec("v3").put("ssid", "Other")).put("bssid", "02:00:00:00:00:03");
        try (TestAgentClient serving = connect(manager, "ap-s", List.of(vapState(vapSpec("v1"))));
             TestAgentClient t = connect(manager, "ap-t", List.of(same, other));
             TestAgentClient u = connect(manager, "ap-u", List.of(vapState(vapSpec("v4").put("ssid", "Other"))))) {
            associate(serving, manager, "ap-s", "v1", sta);
            // Another SSID, by vAP or by BSSID: another slice's network, refused before any agent call.
            for (String[] target : new String[][] {{"v3", null}, {null, "02:00:00:00:00:03"}}) {
                try {
                    manager.steerClient(sta, null, target[0], target[1], null);
                    fail("steer to another SSID accepted");
                } catch (ControllerException e) {
                    assertEquals("bad_request", e.code());
                    assertTrue(e.getMessage(), e.getMessage().contains("SSID 'Other'"));
                }
            }
            // An AP where the client's slice has no vAP (not admitted there): a conflict naming the SSID.
            try {
                manager.steerClient(sta, "ap-u", null, null, null);
                fail("steer to an AP without the client's SSID accepted");
            } catch (ControllerException e) {
                assertEquals("conflict", e.code());
                assertTrue(e.getMessage(), e.getMessage().contains("no vAP of SSID 'Cafe' on ap-u"));
            }
            // The AP alone: its vAP of the client's SSID.
            CompletableFuture<ObjectNode> steered = CompletableFuture.supplyAsync(
                    () -> manager.steerClient(sta, "ap-t", null, null, null));
            JsonNode req = serving.serveOne(r -> Json.object().put("accepted", true).put("status_code", 0)
                    .put("reason", "the station accepted the transition"));
            assertEquals("02:00:00:00:00:02", req.at("/params/target_bssid").asText());
            assertEquals("v2", steered.get(5, TimeUnit.SECONDS).get("target_vap_id").asText());
        }
    }

    @Test
    public void tlsPropertiesRestartTheAgentServer() throws Exception {
        String cert = TestTls.file("server.pem");
        String key = TestTls.file("server-key.pem");
        // Unusable files: the manager stays active without a server, and a good setting starts it again.
        manager.modified(TestWifiManagers.context(0, SECRET, "/nonexistent/server.pem", key, ""));
        manager.modified(TestWifiManagers.context(0, SECRET, cert, key, TestTls.file("ca.pem")));
        try (TestAgentClient agent = new TestAgentClient(TestTls.connect(manager.boundPort(), "client"))) {
            assertEquals("welcome", agent.hello("ap", "ap-8", SECRET, apCapabilities()).get("type").asText());
        }
        manager.modified(TestWifiManagers.context(0, SECRET));
        try (TestAgentClient agent = new TestAgentClient(manager.boundPort())) {
            assertEquals("welcome", agent.hello("ap", "ap-8", SECRET, apCapabilities()).get("type").asText());
        }
    }
}
