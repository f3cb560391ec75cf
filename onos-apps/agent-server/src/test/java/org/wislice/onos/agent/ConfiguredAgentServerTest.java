package org.wislice.onos.agent;

import org.junit.After;
import org.junit.Test;

import java.net.ServerSocket;
import java.util.Dictionary;
import java.util.Hashtable;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/** Component properties onto an agent server's settings, and the server following them. */
public class ConfiguredAgentServerTest {

    private static final AgentServerConfig DEFAULTS =
            new AgentServerConfig("ap", "127.0.0.1", 0, "onos-test", "", 500, 5, 30);
    private final ConfiguredAgentServer server = new ConfiguredAgentServer("test-agents", new NoopAgentListener());

    @After
    public void tearDown() {
        server.stop();
    }

    private static Dictionary<String, Object> props(Object... kv) {
        Dictionary<String, Object> d = new Hashtable<>();
        for (int i = 0; i < kv.length; i += 2) {
            d.put((String) kv[i], kv[i + 1]);
        }
        return d;
    }

    @Test
    public void propertiesOverrideTheDefaultsAndKeepTheRest() {
        AgentServerConfig c = DEFAULTS.withProperties(props(AgentServerConfig.AGENT_PORT, "7001",
                AgentServerConfig.SHARED_SECRET, " s3cret ", AgentServerConfig.STATS_INTERVAL_S, 9,
                AgentServerConfig.TLS_CLIENT_CA_FILE, "/etc/ca.pem"));
        assertEquals(7001, c.port);
        assertEquals("s3cret", c.secret);
        assertEquals(9, c.statsIntervalS);
        assertEquals("/etc/ca.pem", c.tlsClientCaFile);
        assertEquals(DEFAULTS.bindAddress, c.bindAddress);
        assertEquals(DEFAULTS.requestTimeoutMs, c.requestTimeoutMs);
        assertEquals("ap", c.role);
        assertFalse(c.unauthenticated());
        assertTrue(DEFAULTS.unauthenticated());
    }

    @Test
    public void aMalformedNumberKeepsTheDefault() {
        AgentServerConfig c = DEFAULTS.withProperties(props(AgentServerConfig.REQUEST_TIMEOUT_MS, "soon"));
        assertEquals(DEFAULTS.requestTimeoutMs, c.requestTimeoutMs);
        assertEquals(DEFAULTS, DEFAULTS.withProperties(null));
    }

    @Test
    public void equalSettingsAreEqualAndAnyChangeIsNot() {
        assertEquals(DEFAULTS, DEFAULTS.withProperties(props()));
        assertEquals(DEFAULTS.hashCode(), DEFAULTS.withProperties(props()).hashCode());
        assertNotEquals(DEFAULTS, DEFAULTS.withProperties(props(AgentServerConfig.TLS_KEY_FILE, "/k.pem")));
        assertNotEquals(DEFAULTS, DEFAULTS.withProperties(props(AgentServerConfig.BIND_ADDRESS, "0.0.0.0")));
    }

    @Test
    public void restartsOnlyWhenTheSettingsChange() {
        assertTrue(server.apply(DEFAULTS));
        assertTrue(server.listening());
        int port = server.port();
        assertFalse(server.apply(DEFAULTS.withProperties(props())));
        assertEquals(port, server.port());
        assertTrue(server.apply(DEFAULTS.withProperties(props(AgentServerConfig.SHARED_SECRET, "x"))));
        assertTrue(server.listening());
    }

    @Test
    public void staysDownWhenItCannotListenAndComesUpOnACorrectedSetting() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            AgentServerConfig busy = DEFAULTS.withProperties(props(AgentServerConfig.AGENT_PORT,
                                                                   taken.getLocalPort()));
            assertTrue(server.apply(busy));
            assertFalse(server.listening());
            assertEquals(-1, server.port());
            assertEquals(0, server.violations());
        }
        assertTrue(server.apply(DEFAULTS));
        assertTrue(server.listening());
        server.stop();
        assertFalse(server.listening());
        assertTrue("after stop the same settings start it again", server.apply(DEFAULTS));
    }
}
