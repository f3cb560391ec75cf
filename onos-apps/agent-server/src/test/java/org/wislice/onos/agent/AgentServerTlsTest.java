package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** The server with TLS settings (test PKI in src/test/resources/tls), with TLS and plain socket clients. */
public class AgentServerTlsTest {

    private static final String SECRET = "s3cret";
    private AgentServer server;

    @After
    public void tearDown() {
        if (server != null) {
            server.stop();
        }
    }

    private static AgentServerConfig config(String secret) {
        return new AgentServerConfig("ap", "127.0.0.1", 0, "onos-test", secret, 500, 5, 30);
    }

    private static AgentServerConfig tls(String secret, boolean clientCa) {
        return config(secret).withTls(TestTls.file("server.pem"), TestTls.file("server-key.pem"),
                                      clientCa ? TestTls.file("ca.pem") : "");
    }

    private void start(AgentServerConfig cfg) throws Exception {
        server = new AgentServer(cfg, new NoopAgentListener());
        server.start();
    }

    /** A TLS agent presenting tls/CLIENT.pem (none when null); the constructor reads the challenge. */
    private TestAgentClient tlsAgent(String client) throws Exception {
        return new TestAgentClient(TestTls.connect(server.port(), client));
    }

    private static JsonNode certHello(TestAgentClient agent, String agentId) throws Exception {
        ObjectNode hello = Json.object().put("type", "hello").put("version", 1).put("role", "ap")
                .put("agent_id", agentId).put("software", "test-agent");
        hello.putObject("auth").put("scheme", "tls-client-cert");
        hello.set("capabilities", capabilities());
        agent.send(hello);
        return agent.read();
    }

    private static ObjectNode capabilities() {
        ObjectNode caps = Json.object();
        caps.putArray("radios");
        caps.putArray("security").add("open");
        caps.put("pof_switch", false);
        return caps;
    }

    /** True when a TLS client never gets a line: the handshake fails or the server closes without a word. */
    private boolean refusedOverTls(String client) throws Exception {
        try (Socket s = TestTls.connect(server.port(), client)) {
            return s.getInputStream().read() < 0;
        } catch (IOException e) {
            return true; // handshake_failure / bad_certificate alert, or reset
        }
    }

    @Test
    public void clientWithTrustedCertificateGetsChallengeAndWelcome() throws Exception {
        start(tls(SECRET, true));
        try (TestAgentClient agent = tlsAgent("client")) {
            // HMAC still applies on top of client certificates when a secret is set.
            JsonNode welcome = agent.hello("ap", "ap-1", SECRET, capabilities());
            assertEquals("welcome", welcome.get("type").asText());
        }
        try (TestAgentClient agent = tlsAgent("client")) {
            JsonNode bye = agent.hello("ap", "ap-1", "wrong", capabilities());
            assertEquals("bad hmac", bye.get("reason").asText());
        }
        try (TestAgentClient agent = tlsAgent("client")) {
            assertEquals("hmac-sha256 required", certHello(agent, "ap-1").get("reason").asText());
        }
    }

    @Test
    public void clientCertificateSchemeNeedsTheCnToBeTheAgentId() throws Exception {
        start(tls("", true));
        try (TestAgentClient agent = tlsAgent("client")) {
            assertEquals("welcome", certHello(agent, "ap-1").get("type").asText());
        }
        try (TestAgentClient agent = tlsAgent("client")) {
            JsonNode bye = certHello(agent, "ap-2");
            assertEquals("bye", bye.get("type").asText());
            assertEquals("client certificate is not for ap-2", bye.get("reason").asText());
            assertNull(agent.read());
        }
    }

    @Test
    public void clientWithoutOrWithUntrustedCertificateIsRefused() throws Exception {
        start(tls(SECRET, true));
        assertTrue("no client certificate", refusedOverTls(null));
        assertTrue("untrusted client certificate", refusedOverTls("untrusted-client"));
        // The server still serves a good client afterwards.
        try (TestAgentClient agent = tlsAgent("client")) {
            assertEquals("welcome", agent.hello("ap", "ap-1", SECRET, capabilities()).get("type").asText());
        }
    }

    @Test
    public void serverOnlyTlsTakesClientsWithoutCertificates() throws Exception {
        start(tls(SECRET, false));
        try (TestAgentClient agent = tlsAgent(null)) {
            assertEquals("welcome", agent.hello("ap", "ap-1", SECRET, capabilities()).get("type").asText());
        }
        try (TestAgentClient agent = tlsAgent(null)) {
            // No verified certificate to name the agent.
            assertEquals("hmac-sha256 required", certHello(agent, "ap-1").get("reason").asText());
        }
    }

    @Test
    public void plainClientNeverGetsTheChallenge() throws Exception {
        start(tls(SECRET, true));
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(1000);
            InputStream in = s.getInputStream();
            try {
                fail("plain client got " + in.read());
            } catch (SocketTimeoutException expected) {
                // silence: the server waits for a TLS ClientHello
            }
            s.setSoTimeout(5000);
            s.getOutputStream().write("{\"type\":\"hello\"}\n".getBytes(StandardCharsets.UTF_8));
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            try {
                in.transferTo(got);
            } catch (IOException reset) {
                // closed by the server, possibly with a reset
            }
            assertFalse(got.toString(StandardCharsets.ISO_8859_1).contains("challenge"));
        }
    }

    @Test
    public void withoutTlsSettingsPlainClientsAreServed() throws Exception {
        start(config(SECRET).withTls("", "", ""));
        try (TestAgentClient agent = new TestAgentClient(server.port())) {
            assertEquals("welcome", agent.hello("ap", "ap-1", SECRET, capabilities()).get("type").asText());
        }
    }

    @Test
    public void unusableTlsFilesStopTheStart() {
        String cert = TestTls.file("server.pem");
        String key = TestTls.file("server-key.pem");
        assertStartFails(config("").withTls(cert, "", ""), "certificate file and a key file");
        assertStartFails(config("").withTls("", "", TestTls.file("ca.pem")), "certificate file and a key file");
        assertStartFails(config("").withTls("/nonexistent/server.pem", key, ""), "/nonexistent/server.pem");
        assertStartFails(config("").withTls(cert, cert, ""), "private key");
        assertStartFails(config("").withTls(key, key, ""), "certificates");
        assertStartFails(config("").withTls(cert, key, "/nonexistent/ca.pem"), "/nonexistent/ca.pem");
        assertStartFails(config("").withTls(cert, key, key), "certificates");
    }

    private static void assertStartFails(AgentServerConfig cfg, String messagePart) {
        AgentServer s = new AgentServer(cfg, null);
        try {
            s.start();
            s.stop();
            fail("started with " + cfg.tlsCertFile + " / " + cfg.tlsKeyFile + " / " + cfg.tlsClientCaFile);
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(messagePart));
        } catch (Exception e) {
            fail("expected IllegalArgumentException, got " + e);
        }
    }
}
