package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.TestAgentClient;
import org.wislice.onos.agent.ap.FirmwareProgress;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** Fleet upgrades through WifiManager (issue 18): the AP view, the request to the agent, its progress events. */
public class FirmwareUpgradesTest {

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

    static ObjectNode upgrade(String version) {
        return Json.object().put("version", version).put("kind", "packages")
                .put("url", "http://10.0.0.1:8000/api/v1/firmware/1/download?token=t")
                .put("sha256", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
                .put("signature", "untrusted comment: x\nRWQ=\n").put("timeout_s", 600);
    }

    /** Connects an agent on firmware 1.0 and answers the reconnect sequence (syncVaps, getVaps, getClient). */
    private TestAgentClient connect(String agentId) throws Exception {
        TestAgentClient agent = new TestAgentClient(manager.boundPort());
        agent.hello("ap", agentId, WifiManagerTest.SECRET, WifiManagerTest.apCapabilities(), "1.0");
        agent.serveOne(r -> {
            ObjectNode result = Json.object();
            result.putArray("created");
            result.putArray("removed");
            result.putArray("kept");
            result.putArray("failed");
            return result;
        });
        agent.serveOne(r -> Json.object().set("vaps", Json.MAPPER.createArrayNode()));
        agent.serveOne(r -> Json.object().set("clients", Json.MAPPER.createArrayNode()));
        waitFor(() -> manager.ap(agentId).map(a -> a.get("connected").asBoolean()).orElse(false));
        return agent;
    }

    private static void progress(TestAgentClient agent, String version, String state, String reason)
            throws Exception {
        ObjectNode event = Json.object().put("type", "event").put("event", "firmwareProgress").put("ts", 1.0);
        ObjectNode data = event.putObject("data").put("version", version).put("state", state);
        if (reason != null) {
            data.put("reason", reason);
        }
        agent.send(event);
    }

    private String state(String agentId) {
        return manager.ap(agentId).orElseThrow().path("upgrade").path("state").asText();
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(10);
        }
        fail("condition not met");
    }

    private static void assertRefused(String code, Runnable call) {
        try {
            call.run();
            fail("not refused");
        } catch (ControllerException e) {
            assertEquals(e.getMessage(), code, e.code());
        }
    }

    @Test
    public void anUpgradeIsRequestedFollowedAndEnded() throws Exception {
        try (TestAgentClient agent = connect("ap-1")) {
            ObjectNode ap = manager.ap("ap-1").orElseThrow();
            assertEquals("1.0", ap.get("firmware_version").asText());
            assertFalse(ap.has("upgrade"));
            CompletableFuture<ObjectNode> asked = CompletableFuture.supplyAsync(
                    () -> manager.upgradeFirmware("ap-1", upgrade("1.1")));
            JsonNode req = agent.serveOne(r -> Json.object().put("accepted", true));
            assertEquals("upgradeFirmware", req.get("method").asText());
            assertEquals(upgrade("1.1"), req.get("params"));
            assertEquals("requested", asked.get(5, TimeUnit.SECONDS).get("state").asText());
            ObjectNode up = (ObjectNode) manager.ap("ap-1").orElseThrow().get("upgrade");
            assertEquals("1.1", up.get("version").asText());
            assertEquals("requested", up.get("state").asText());
            assertTrue(up.get("updated_ms").asLong() > 1_700_000_000_000L);
            assertFalse(up.has("timeout_s"));
            assertRefused("conflict", () -> manager.upgradeFirmware("ap-1", upgrade("1.2")));

            progress(agent, "1.1", "downloading", null);
            waitFor(() -> "downloading".equals(state("ap-1")));
            progress(agent, "1.1", "rolled_back", "not back on 1.1 within 600 s; reinstalled the kept packages");
            waitFor(() -> "rolled_back".equals(state("ap-1")));
            assertEquals("1.1", manager.ap("ap-1").orElseThrow().at("/upgrade/version").asText());
            assertTrue(manager.aps().get(0).at("/upgrade/reason").asText().startsWith("not back on 1.1"));

            // Ended: another may be asked; the agent refusing it leaves the last record as it was.
            CompletableFuture<ObjectNode> again = CompletableFuture.supplyAsync(
                    () -> manager.upgradeFirmware("ap-1", upgrade("1.2")));
            JsonNode second = agent.read();
            ObjectNode reply = Json.object().put("type", "reply").put("id", second.get("id").asLong()).put("ok", false);
            reply.putObject("error").put("code", "conflict").put("message", "an upgrade to 1.1 is in progress");
            agent.send(reply);
            try {
                again.get(5, TimeUnit.SECONDS);
                fail("the agent's refusal was not passed on");
            } catch (ExecutionException e) {
                assertEquals("conflict", ((ControllerException) e.getCause()).code());
            }
            assertEquals("rolled_back", state("ap-1"));
        }
        waitFor(() -> !manager.ap("ap-1").orElseThrow().get("connected").asBoolean());
        assertRefused("not_connected", () -> manager.upgradeFirmware("ap-1", upgrade("1.2")));
        assertEquals(503, new ControllerException("not_connected", "x").httpStatus());
    }

    /** An agent repeating an older upgrade's end (after a reconnect) does not overwrite the one in progress, until
     * that one has been quiet for longer than its timeout_s plus STALE_MS. */
    @Test
    public void progressOfAnotherVersionWaitsForTheOneInProgress() {
        long[] now = {1_800_000_000_000L};
        FirmwareUpgrades upgrades = new FirmwareUpgrades(store, null, () -> now[0]);
        store.putUpgrade("ap-3", Json.object().put("version", "1.1").put("state", "requested").put("reason", "")
                .put("updated_ms", now[0]).put("timeout_s", 600));
        upgrades.progress("ap-3", new FirmwareProgress("0.9", "done", "running 0.9"));
        assertEquals("requested", store.upgrade("ap-3").orElseThrow().get("state").asText());
        now[0] += 1000;
        upgrades.progress("ap-3", new FirmwareProgress("1.1", "installing", null));
        ObjectNode installing = store.upgrade("ap-3").orElseThrow();
        assertEquals("installing", installing.get("state").asText());
        assertEquals(600, installing.get("timeout_s").asInt());
        now[0] += 1000;
        upgrades.progress("ap-3", new FirmwareProgress("1.1", "installing", null)); // a repeat: unchanged
        assertEquals(now[0] - 1000, store.upgrade("ap-3").orElseThrow().get("updated_ms").asLong());
        now[0] += 600_000 + FirmwareUpgrades.STALE_MS;
        upgrades.progress("ap-3", new FirmwareProgress("0.9", "done", "running 0.9"));
        assertEquals("0.9", store.upgrade("ap-3").orElseThrow().get("version").asText());
    }

    @Test
    public void badRequestsAndUnknownAgents() throws Exception {
        assertRefused("not_found", () -> manager.upgradeFirmware("ap-9", upgrade("1.1")));
        assertRefused("bad_request", () -> manager.upgradeFirmware("ap-9", upgrade("1.1").put("kind", "deb")));
        assertRefused("bad_request", () -> manager.upgradeFirmware("ap-9", upgrade("1.1").put("url", "ftp://x/y")));
        assertTrue(manager.ap("ap-9").isEmpty());
        try (TestAgentClient agent = connect("ap-2")) {
            assertEquals(1, manager.aps().size());
            assertEquals("1.0", manager.aps().get(0).get("firmware_version").asText());
        }
    }
}
