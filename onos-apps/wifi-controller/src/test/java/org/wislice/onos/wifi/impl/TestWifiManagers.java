package org.wislice.onos.wifi.impl;

import org.onlab.osgi.ComponentContextAdapter;
import org.onosproject.TestApplicationId;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.cluster.ClusterServiceAdapter;
import org.onosproject.cluster.ControllerNode;
import org.onosproject.cluster.DefaultControllerNode;
import org.onosproject.cluster.NodeId;
import org.onosproject.common.event.impl.TestEventDispatcher;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.store.service.TestStorageService;

import java.util.Dictionary;
import java.util.Hashtable;

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
}
