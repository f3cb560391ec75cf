package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.TestAgentClient;
import org.wislice.onos.agent.ap.ApCodecs;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.wislice.onos.wifi.impl.TestWifiManagers.connect;
import static org.wislice.onos.wifi.impl.TestWifiManagers.waitFor;

/** A probed vAP's latency: getLatency through WifiManager, and the latest VapLatency kept from stats events. */
public class WifiLatencyTest {

    private WifiManager manager;
    private DistributedWifiStore store;

    @Before
    public void setUp() {
        store = TestWifiManagers.activeStore();
        manager = TestWifiManagers.activeManager(store);
    }

    @After
    public void tearDown() {
        manager.deactivate();
        store.deactivate();
    }

    private static ObjectNode probedVap(String vapId) {
        ObjectNode spec = WifiManagerTest.vapSpec(vapId);
        spec.putObject("probe").put("source_ip", "10.8.0.250").put("target_ip", "10.8.0.1").put("interval_ms", 50);
        return WifiManagerTest.vapState(spec);
    }

    private static ObjectNode latency(String vapId, long p99) {
        return Json.object().put("vap_id", vapId).put("sent", 100).put("received", 98).put("lost", 2)
                .put("p50_us", p99 / 2).put("p90_us", p99 - 10).put("p99_us", p99).put("max_us", p99 + 100)
                .put("samples", 98);
    }

    private static ObjectNode stats(double ts, ObjectNode... latency) {
        ObjectNode ev = Json.object().put("type", "event").put("event", "stats").put("ts", ts);
        ObjectNode data = ev.putObject("data").put("interval_s", 5);
        if (latency.length > 0) {
            ArrayNode list = data.putArray("latency");
            for (ObjectNode l : latency) {
                list.add(l);
            }
        }
        return ev;
    }

    @Test
    public void getLatencyIsAskedOfTheVapsAgentAndItsRefusalMapsToRest() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-20", List.of(probedVap("v1")))) {
            CompletableFuture<ObjectNode> answer = CompletableFuture.supplyAsync(() -> manager.latency(null, "v1"));
            JsonNode req = agent.serveOne(r -> latency("v1", 420));
            assertEquals("getLatency", req.get("method").asText());
            assertEquals("v1", req.at("/params/vap_id").asText());
            ObjectNode out = answer.get(5, TimeUnit.SECONDS);
            assertEquals("ap-20", out.get("agent_id").asText());
            assertEquals(420, out.get("p99_us").asLong());
            assertEquals(2, out.get("lost").asLong());

            CompletableFuture<ObjectNode> refused = CompletableFuture.supplyAsync(
                    () -> manager.latency("ap-20", "v1"));
            JsonNode ask = agent.read();
            while ("ping".equals(ask.get("type").asText())) {
                ask = agent.read();
            }
            ObjectNode reply = Json.object().put("type", "reply").put("id", ask.get("id").asLong()).put("ok", false);
            reply.putObject("error").put("code", "unsupported").put("message", "vAP v1 has no probe");
            agent.send(reply);
            try {
                refused.get(5, TimeUnit.SECONDS);
                fail();
            } catch (ExecutionException e) {
                assertEquals(501, ((ControllerException) e.getCause()).httpStatus());
            }
        }
        try {
            manager.latency("ap-20", "v9"); // no such vAP: refused before any call
            fail();
        } catch (ControllerException e) {
            assertEquals("not_found", e.code());
        }
    }

    @Test
    public void statsKeepTheLatestLatencyOfEachProbedVapForAFewIntervals() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-21", List.of(probedVap("v1"), probedVap("v2")))) {
            agent.send(stats(100));
            waitFor(() -> manager.stats().get("agents").size() == 1);
            assertFalse("no probe, no latency list", manager.stats().at("/agents/0").has("latency"));

            agent.send(stats(110, latency("v2", 900), latency("v1", 400)));
            waitFor(() -> manager.stats().at("/agents/0/ts").asDouble() == 110);
            JsonNode kept = manager.stats().at("/agents/0/latency");
            assertEquals(2, kept.size());
            assertEquals("v1", kept.at("/0/vap_id").asText()); // by vap_id
            assertEquals(400, kept.at("/0/p99_us").asLong());
            assertEquals(110, kept.at("/0/ts").asDouble(), 0);

            // v2's probe could not be read this time: its last numbers stay, with their own time.
            agent.send(stats(115, latency("v1", 450)));
            waitFor(() -> manager.stats().at("/agents/0/ts").asDouble() == 115);
            kept = manager.stats().at("/agents/0/latency");
            assertEquals(2, kept.size());
            assertEquals(450, kept.at("/0/p99_us").asLong());
            assertEquals(115, kept.at("/0/ts").asDouble(), 0);
            assertEquals(900, kept.at("/1/p99_us").asLong());
            assertEquals(110, kept.at("/1/ts").asDouble(), 0);

            // More than 3 intervals (15 s) without v2: it is gone.
            agent.send(stats(126, latency("v1", 460)));
            waitFor(() -> manager.stats().at("/agents/0/ts").asDouble() == 126);
            kept = manager.stats().at("/agents/0/latency");
            assertEquals(1, kept.size());
            assertEquals("v1", kept.at("/0/vap_id").asText());
        }
        waitFor(() -> manager.stats().get("agents").size() == 0);
        assertTrue(manager.stats().get("agents").isEmpty());
    }

    private JsonNode desired(String vapId) {
        return ApCodecs.VAP_SPEC.encode(store.desiredVap("ap-22", vapId).orElseThrow().spec());
    }

    /** A latency class given to a running vAP: wmm_ac and probe reach the agent in one updateVap, the desired spec
     *  keeps them (and its rates), a null probe stops it; nothing to change and a bad probe are refused first. */
    @Test
    public void classChangeIsOneUpdateVap() throws Exception {
        try (TestAgentClient agent = connect(manager, "ap-22", List.of())) {
            CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(
                    () -> manager.createVap("ap-22", WifiManagerTest.vapSpec("v1")));
            agent.serveOne(r -> Json.object().set("vap", WifiManagerTest.vapState(r.get("params").get("vap"))));
            created.get(5, TimeUnit.SECONDS);
            ObjectNode change = Json.object().put("wmm_ac", "vo");
            change.putObject("probe").put("source_ip", "10.61.1.250").put("target_ip", "10.61.1.1");
            CompletableFuture<ObjectNode> updated =
                    CompletableFuture.supplyAsync(() -> manager.updateVap("v1", change));
            JsonNode req = agent.serveOne(r -> {
                ObjectNode state = WifiManagerTest.vapState(desired("v1"));
                ObjectNode result = Json.object();
                result.set("vap", state);
                return result;
            });
            assertEquals("updateVap", req.get("method").asText());
            assertEquals("vo", req.at("/params/wmm_ac").asText());
            assertEquals("10.61.1.1", req.at("/params/probe/target_ip").asText());
            assertFalse("rates are not resent", req.get("params").has("rate_limit"));
            updated.get(5, TimeUnit.SECONDS);
            JsonNode desired = desired("v1");
            assertEquals("vo", desired.get("wmm_ac").asText());
            assertEquals("10.61.1.250", desired.at("/probe/source_ip").asText());
            assertEquals(5000, desired.at("/rate_limit/down_kbps").asInt());

            CompletableFuture<ObjectNode> dropped = CompletableFuture.supplyAsync(
                    () -> manager.updateVap("v1", Json.object().put("wmm_ac", "be").putNull("probe")));
            req = agent.serveOne(r -> Json.object().set("vap",
                    WifiManagerTest.vapState(desired("v1"))));
            assertTrue(req.at("/params/probe").isNull());
            dropped.get(5, TimeUnit.SECONDS);
            assertFalse(desired("v1").has("probe"));

            for (ObjectNode bad : List.of(Json.object(), Json.object().put("wmm_ac", "voice"),
                                          Json.object().put("rogue", 1))) {
                try {
                    manager.updateVap("v1", bad);
                    fail("accepted " + bad);
                } catch (ControllerException e) {
                    assertEquals("bad_request", e.code());
                }
            }
            assertEquals("be", desired("v1").get("wmm_ac").asText());
        }
    }
}
