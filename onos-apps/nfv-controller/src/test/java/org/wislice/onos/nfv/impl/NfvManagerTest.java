package org.wislice.onos.nfv.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.ComponentContextAdapter;
import org.onosproject.TestApplicationId;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.cluster.ClusterServiceAdapter;
import org.onosproject.store.cluster.messaging.ClusterCommunicationServiceAdapter;
import org.onosproject.cluster.ControllerNode;
import org.onosproject.cluster.DefaultControllerNode;
import org.onosproject.cluster.NodeId;
import org.onosproject.common.event.impl.TestEventDispatcher;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.store.service.TestStorageService;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.TestAgentClient;

import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/** NfvManager with the real DistributedNfvStore on TestStorageService and scripted mec-agents on loopback. */
public class NfvManagerTest {

    static final String SECRET = "unit-secret";
    private NfvManager manager;
    private DistributedNfvStore store;

    @Before
    public void setUp() {
        store = new DistributedNfvStore();
        store.storageService = new TestStorageService();
        store.activate();
        manager = new NfvManager();
        manager.store = store;
        manager.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return new TestApplicationId(name);
            }
        };
        manager.clusterCommunicator = new ClusterCommunicationServiceAdapter();
        manager.clusterService = new ClusterServiceAdapter() {
            @Override
            public ControllerNode getLocalNode() {
                return new DefaultControllerNode(new NodeId("node-1"), "127.0.0.1");
            }
        };
        manager.cfgService = new ComponentConfigAdapter();
        injectEventDispatcher(manager, new TestEventDispatcher());
        manager.activate(new ComponentContextAdapter() {
            @Override
            public Dictionary getProperties() {
                Hashtable<String, Object> p = new Hashtable<>();
                p.put(OsgiPropertyConstants.AGENT_PORT, 0);
                p.put(OsgiPropertyConstants.BIND_ADDRESS, "127.0.0.1");
                p.put(OsgiPropertyConstants.SHARED_SECRET, SECRET);
                p.put(OsgiPropertyConstants.REQUEST_TIMEOUT_MS, 2000);
                p.put(OsgiPropertyConstants.AP_DISTANCES, "ap-1:mec-1=1,ap-1:mec-2=9");
                return p;
            }
        });
    }

    @After
    public void tearDown() {
        manager.deactivate();
        store.deactivate();
    }

    static ObjectNode caps(double cpu) {
        ObjectNode caps = Json.object();
        caps.putObject("capacity").put("cpu", cpu).put("memory_mib", 4096);
        caps.putArray("catalog").add("firewall");
        caps.put("dpdk", false).put("pof_switch", true);
        return caps;
    }

    static ObjectNode vnfState(JsonNode spec) {
        ObjectNode s = spec.deepCopy();
        s.remove("chain_id"); // the node keeps it; VnfState has none
        s.remove("latency_class"); // the same
        long id = spec.get("tenant_id").asLong() << 16 | spec.get("instance_id").asLong();
        s.put("vnf_id", id).put("address", "0.1.0." + spec.get("instance_id").asInt()).put("class", "kernel")
                .put("state", "running").put("container_id", "0123456789ab");
        s.putArray("ports");
        return s;
    }

    private TestAgentClient connect(String id, double cpu) throws Exception {
        return connect(id, cpu, Json.MAPPER.createArrayNode());
    }

    /** A mec-agent that answers the controller's getVnfs with these VnfStates. */
    private TestAgentClient connect(String id, double cpu, ArrayNode vnfs) throws Exception {
        TestAgentClient a = new TestAgentClient(manager.boundPort());
        assertEquals("welcome", a.hello("mec", id, SECRET, caps(cpu)).get("type").asText());
        assertEquals("syncVnfs", a.serveOne(r -> {
            ObjectNode res = Json.object();
            res.putArray("created");
            res.putArray("removed");
            res.putArray("kept");
            res.putArray("failed");
            return res;
        }).get("method").asText());
        assertEquals("getVnfs", a.serveOne(r -> {
            ObjectNode res = Json.object();
            res.set("vnfs", vnfs);
            return res;
        }).get("method").asText());
        for (int i = 0; i < 300 && manager.nodes().stream().noneMatch(
                n -> id.equals(n.get("agent_id").asText()) && n.get("connected").asBoolean()); i++) {
            Thread.sleep(10);
        }
        return a;
    }

    static ObjectNode request(int instance) {
        return Json.object().put("tenant_id", 1).put("instance_id", instance).put("image", "firewall")
                .put("cpu", 1).put("memory_mib", 128).put("chain_position", 0);
    }

    @Test
    public void placesNearTheApAndRecordsTheVnf() throws Exception {
        try (TestAgentClient mec1 = connect("mec-1", 4); TestAgentClient mec2 = connect("mec-2", 4)) {
            CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(
                    () -> manager.createVnf(request(2).put("near_ap", "ap-1")));
            JsonNode req = mec1.serveOne(r -> {
                ObjectNode res = Json.object();
                res.set("vnf", vnfState(r.get("params").get("vnf")));
                return res;
            });
            assertEquals("createVnf", req.get("method").asText());
            assertTrue("controller fields leaked to the agent", !req.get("params").get("vnf").has("near_ap"));
            ObjectNode out = created.get(5, TimeUnit.SECONDS);
            assertEquals("mec-1", out.get("node").asText());
            assertEquals(65538, out.get("vnf").get("vnf_id").asLong());
            assertEquals(1, manager.vnfs().size());
            assertEquals(1.0, manager.nodes().stream().filter(n -> n.get("agent_id").asText().equals("mec-1"))
                    .findFirst().orElseThrow().get("used").get("cpu").asDouble(), 1e-9);

            // Duplicate vnf_id: conflict, and nothing sent to any agent.
            try {
                manager.createVnf(request(2));
                fail("duplicate accepted");
            } catch (ControllerException e) {
                assertEquals("conflict", e.code());
            }

            CompletableFuture<Void> removed = CompletableFuture.runAsync(() -> manager.removeVnf(65538));
            assertEquals("delVnf", mec1.serveOne(r -> Json.object()).get("method").asText());
            removed.get(5, TimeUnit.SECONDS);
            assertTrue(manager.vnfs().isEmpty());
        }
    }

    /**
     * A removal while the refresh after a reconnect waits for getVnfs: the report (which still lists the vNF)
     * must not put back what the removal took away. The scripted node answers a delVnf, if one comes while
     * getVnfs is pending, before getVnfs; the controller must not send one then.
     */
    @Test
    public void aRemovalDuringTheRefreshAfterAReconnectStaysRemoved() throws Exception {
        ObjectNode running;
        try (TestAgentClient mec = connect("mec-1", 4)) {
            CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(() -> manager.createVnf(request(2)));
            running = vnfState(mec.serveOne(r -> Json.object().set("vnf", vnfState(r.get("params").get("vnf"))))
                                       .get("params").get("vnf"));
            created.get(5, TimeUnit.SECONDS);
        }
        Socket socket = new Socket("127.0.0.1", manager.boundPort());
        try (TestAgentClient mec = new TestAgentClient(socket)) {
            assertEquals("welcome", mec.hello("mec", "mec-1", SECRET, caps(4)).get("type").asText());
            assertEquals("syncVnfs", mec.serveOne(r -> {
                ObjectNode res = Json.object();
                res.putArray("created");
                res.putArray("removed");
                res.putArray("kept").add(65538);
                res.putArray("failed");
                return res;
            }).get("method").asText());
            JsonNode getVnfs = mec.read();
            assertEquals("getVnfs", getVnfs.get("method").asText());

            CompletableFuture<Void> removed = CompletableFuture.runAsync(() -> manager.removeVnf(65538));
            socket.setSoTimeout(500);
            boolean delVnfServed = false;
            try {
                JsonNode early = mec.read();
                mec.send(Json.object().put("type", "reply").put("id", early.get("id").asLong()).put("ok", true)
                                 .set("result", Json.object()));
                delVnfServed = true;
                removed.get(5, TimeUnit.SECONDS);
            } catch (SocketTimeoutException expected) {
                // the removal waits for the refresh
            }
            socket.setSoTimeout(5000);
            ObjectNode result = Json.object();
            result.putArray("vnfs").add(running);
            mec.send(Json.object().put("type", "reply").put("id", getVnfs.get("id").asLong()).put("ok", true)
                             .set("result", result));
            if (!delVnfServed) {
                assertEquals("delVnf", mec.serveOne(r -> Json.object()).get("method").asText());
            }
            removed.get(5, TimeUnit.SECONDS);
            // Events run on the agent's ordered executor after the refresh: once this one shows, it is done.
            ObjectNode stats = Json.object().put("type", "event").put("event", "stats").put("ts", 1763762410);
            stats.putObject("data").put("interval_s", 5).putObject("node").put("cpu_pct", 41.5)
                    .put("memory_used_mib", 812.3);
            mec.send(stats);
            for (int i = 0; i < 500 && node("mec-1").get("load").asDouble() != 41.5; i++) {
                Thread.sleep(10);
            }
            assertEquals(41.5, node("mec-1").get("load").asDouble(), 1e-9);
            assertTrue("a stale report put the removed vNF back: " + manager.vnfs(), manager.vnfs().isEmpty());
            assertTrue(store.desiredVnfs().isEmpty());
        }
    }

    /** A DPDK vNF as a node that placed it on a core reports it. */
    static ObjectNode placed(JsonNode spec, String cpus, String mode) {
        return vnfState(spec).put("class", "dpdk").put("cpus", cpus).put("cpu_mode", mode);
    }

    private ObjectNode node(String id) {
        return manager.nodes().stream().filter(n -> id.equals(n.get("agent_id").asText())).findFirst().orElseThrow();
    }

    private JsonNode vnf(long vnfId) {
        return manager.vnfs().stream().filter(v -> v.get("vnf_id").asLong() == vnfId).findFirst().orElseThrow();
    }

    @Test
    public void placementOfTheVnfsAndTheSwitchCoreCountAreShown() throws Exception {
        // A one-core node: what it already runs is on its switch's core.
        ArrayNode running = Json.MAPPER.createArrayNode().add(placed(request(7), "0", "switch"));
        try (TestAgentClient mec = connect("mec-1", 4, running)) {
            for (int i = 0; i < 300 && manager.vnfs().isEmpty(); i++) {
                Thread.sleep(10);
            }
            assertEquals("switch", vnf(65543).get("cpu_mode").asText());
            assertEquals("0", vnf(65543).get("cpus").asText());
            assertEquals(1, node("mec-1").get("switch_core_vnfs").asInt());

            CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(() -> manager.createVnf(request(2)));
            mec.serveOne(r -> Json.object().set("vnf", placed(r.get("params").get("vnf"), "0", "switch")));
            ObjectNode out = created.get(5, TimeUnit.SECONDS);
            assertEquals("switch", out.at("/vnf/cpu_mode").asText());
            assertEquals(2, node("mec-1").get("switch_core_vnfs").asInt());

            created = CompletableFuture.supplyAsync(() -> manager.createVnf(request(3)));
            mec.serveOne(r -> Json.object().set("vnf", vnfState(r.get("params").get("vnf"))));
            created.get(5, TimeUnit.SECONDS);
            assertTrue("a kernel vNF has no core", !vnf(65539).has("cpus") && !vnf(65539).has("cpu_mode"));
            assertEquals(2, node("mec-1").get("switch_core_vnfs").asInt());

            CompletableFuture<Void> removed = CompletableFuture.runAsync(() -> manager.removeVnf(65538));
            assertEquals("delVnf", mec.serveOne(r -> Json.object()).get("method").asText());
            removed.get(5, TimeUnit.SECONDS);
            assertEquals(1, node("mec-1").get("switch_core_vnfs").asInt());
        }
    }

    @Test
    public void pinnedAndOverCapacityRequests() throws Exception {
        try (TestAgentClient mec = connect("mec-1", 1)) {
            try {
                manager.createVnf(request(3).put("cpu", 2));
                fail("over capacity placed");
            } catch (ControllerException e) {
                assertEquals("capacity", e.code());
            }
            try {
                manager.createVnf(request(3).put("node", "mec-9"));
                fail("unknown pinned node accepted");
            } catch (ControllerException e) {
                assertEquals("not_found", e.code());
            }
            try {
                manager.createVnf(request(3).put("cpu", 0));
                fail("zero cpu accepted");
            } catch (ControllerException e) {
                assertEquals("bad_request", e.code());
            }
            try {
                manager.createVnf(request(3).put("rogue", 1));
                fail("unknown field accepted");
            } catch (ControllerException e) {
                assertEquals("bad_request", e.code());
            }
            assertTrue(store.desiredVnfs().isEmpty());
        }
    }

    @Test
    public void agentFailureLeavesNothingPlaced() throws Exception {
        try (TestAgentClient mec = connect("mec-1", 4)) {
            CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(() -> manager.createVnf(request(4)));
            mec.serveOne(r -> {
                throw new IllegalStateException("image pull failed");
            });
            try {
                created.join();
                fail("agent failure not reported");
            } catch (java.util.concurrent.CompletionException e) {
                assertTrue(e.getCause() instanceof ControllerException);
            }
            assertTrue(store.desiredVnfs().isEmpty());
        }
    }

    @Test
    public void theChainIdGoesToTheAgentAndShowsInTheVnf() throws Exception {
        try (TestAgentClient mec = connect("mec-1", 4)) {
            CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(
                    () -> manager.createVnf(request(2).put("chain_id", 5)));
            JsonNode req = mec.serveOne(r -> Json.object().set("vnf", vnfState(r.get("params").get("vnf"))));
            assertEquals(5, req.at("/params/vnf/chain_id").asLong());
            assertEquals(5, created.get(5, TimeUnit.SECONDS).at("/vnf/chain_id").asLong());
            assertEquals(5, vnfOf(65538).get("chain_id").asLong());

            created = CompletableFuture.supplyAsync(() -> manager.createVnf(request(3)));
            req = mec.serveOne(r -> Json.object().set("vnf", vnfState(r.get("params").get("vnf"))));
            created.get(5, TimeUnit.SECONDS);
            assertTrue("no chain_id asked, none sent or shown",
                       !req.at("/params/vnf").has("chain_id") && !vnfOf(65539).has("chain_id"));
            try {
                manager.createVnf(request(4).put("chain_id", 0));
                fail("chain_id 0 accepted");
            } catch (ControllerException e) {
                assertEquals("bad_request", e.code());
            }
            assertEquals(2, manager.vnfs().size());
        }
    }

    @Test
    public void theLatencyClassGoesToTheAgentAndShowsInTheVnf() throws Exception {
        try (TestAgentClient mec = connect("mec-1", 4)) {
            CompletableFuture<ObjectNode> created = CompletableFuture.supplyAsync(
                    () -> manager.createVnf(request(2).put("latency_class", "ultra_low")));
            JsonNode req = mec.serveOne(r -> Json.object().set("vnf", vnfState(r.get("params").get("vnf"))));
            assertEquals("ultra_low", req.at("/params/vnf/latency_class").asText());
            assertEquals("ultra_low", created.get(5, TimeUnit.SECONDS).at("/vnf/latency_class").asText());
            assertEquals("ultra_low", vnfOf(65538).get("latency_class").asText());
            try {
                manager.createVnf(request(4).put("latency_class", "urllc"));
                fail("latency_class urllc accepted");
            } catch (ControllerException e) {
                assertEquals("bad_request", e.code());
            }
            assertEquals(1, manager.vnfs().size());
        }
    }

    private JsonNode vnfOf(long vnfId) {
        return manager.vnfs().stream().filter(v -> v.get("vnf_id").asLong() == vnfId).findFirst().orElseThrow();
    }
}
