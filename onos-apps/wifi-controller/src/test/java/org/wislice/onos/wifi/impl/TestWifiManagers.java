package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.TestAgentClient;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;
import static org.onosproject.net.NetTestTools.injectEventDispatcher;

/** A WifiManager and its store on onos-api's test adapters, for the WiFi controller's unit tests. */
final class TestWifiManagers {

    private TestWifiManagers() {
    }

    /** A DistributedWifiStore on TestStorageService, activated. */
    static DistributedWifiStore activeStore() {
        DistributedWifiStore store = new DistributedWifiStore();
        store.storageService = new TestStorageService();
        store.activate();
        return store;
    }

    /** A WifiManager on store with onos-api's test adapters, activated: its agent server on a loopback port. */
    static WifiManager activeManager(DistributedWifiStore store) {
        WifiManager manager = new WifiManager();
        manager.store = store;
        manager.passphrases = PassphraseCipher.random();
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
        manager.activate(context(0, WifiManagerTest.SECRET));
        return manager;
    }

    /** tls: optionally tlsCertFile, tlsKeyFile, tlsClientCaFile. */
    static ComponentContextAdapter context(int port, String secret, String... tls) {
        return new ComponentContextAdapter() {
            @Override
            public Dictionary getProperties() {
                Hashtable<String, Object> p = new Hashtable<>();
                p.put(OsgiPropertyConstants.AGENT_PORT, port);
                p.put(OsgiPropertyConstants.BIND_ADDRESS, "127.0.0.1");
                p.put(OsgiPropertyConstants.SHARED_SECRET, secret);
                p.put(OsgiPropertyConstants.REQUEST_TIMEOUT_MS, 2000);
                if (tls.length == 3) {
                    p.put(OsgiPropertyConstants.TLS_CERT_FILE, tls[0]);
                    p.put(OsgiPropertyConstants.TLS_KEY_FILE, tls[1]);
                    p.put(OsgiPropertyConstants.TLS_CLIENT_CA_FILE, tls[2]);
                }
                return p;
            }
        };
    }

    /**
     * Connects a scripted ap-agent to manager and answers its reconnect sequence (syncVaps, getVaps with these
     * vAPs, getClient); returns once the manager shows it connected with those vAPs (its getClient reply may still
     * be in flight: {@link #associate} puts clients after it).
     */
    static TestAgentClient connect(WifiManager manager, String agentId, List<JsonNode> vaps) throws Exception {
        TestAgentClient agent = new TestAgentClient(manager.boundPort());
        JsonNode welcome = agent.hello("ap", agentId, WifiManagerTest.SECRET, WifiManagerTest.apCapabilities());
        assertEquals("welcome", welcome.get("type").asText());
        JsonNode sync = agent.serveOne(r -> {
            ObjectNode result = Json.object();
            for (String list : List.of("created", "removed", "kept", "failed")) {
                result.putArray(list);
            }
            return result;
        });
        assertEquals("syncVaps", sync.get("method").asText());
        agent.serveOne(r -> {
            ObjectNode result = Json.object();
            vaps.forEach(result.putArray("vaps")::add);
            return result;
        });
        agent.serveOne(r -> {
            ObjectNode result = Json.object();
            result.putArray("clients");
            return result;
        });
        waitFor(() -> manager.vaps(agentId).size() == vaps.size()
                && manager.agent(agentId).map(a -> a.get("connected").asBoolean()).orElse(false));
        return agent;
    }

    /**
     * A station associates with vapId on a connected agent, reported as the agent does (a clientAssociated event);
     * returns once the manager stores it. Not store.putClient: connect returns before the manager has applied the
     * getClient reply, and that refresh would drop a client put straight into the store meanwhile. The event runs
     * on the agent's ordered executor after the refresh.
     */
    static void associate(TestAgentClient agent, WifiManager manager, String agentId, String vapId, String mac)
            throws Exception {
        ObjectNode ev = Json.object().put("type", "event").put("event", "clientAssociated")
                .put("ts", System.currentTimeMillis() / 1000.0);
        ev.putObject("data").put("vap_id", vapId).put("mac", mac).put("signal_dbm", -40);
        agent.send(ev);
        waitFor(() -> manager.clients(agentId, vapId).stream().anyMatch(c -> mac.equals(c.get("mac").asText())));
    }

    /** Waits up to 3 s for condition; fails the test if it never holds. */
    static void waitFor(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(10);
        }
        fail("condition not met");
    }
}
