package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** The server on loopback with socket clients playing agents, well-behaved and hostile. */
public class AgentServerTest {

    private static final String SECRET = "s3cret";
    private AgentServer server;
    private final Map<String, AgentSession> sessions = new ConcurrentHashMap<>();
    private final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> closed = new LinkedBlockingQueue<>();

    @Before
    public void setUp() throws Exception {
        AgentServerConfig cfg = new AgentServerConfig("ap", "127.0.0.1", 0, "onos-test", SECRET, 500, 5, 30);
        server = new AgentServer(cfg, new AgentListener() {
            @Override
            public String onHello(AgentSession session, JsonNode hello) {
                return "refused-agent".equals(session.agentId()) ? "not on the list" : null;
            }

            @Override
            public void onWelcomed(AgentSession session) {
                sessions.put(session.agentId(), session);
            }

            @Override
            public void onEvent(AgentSession session, JsonNode event) {
                events.add(event);
            }

            @Override
            public void onClosed(AgentSession session, String reason) {
                closed.add(session.agentId());
            }
        });
        server.start();
    }

    @After
    public void tearDown() {
        server.stop();
    }

    /** A minimal agent: reads the challenge, answers hello. */
    private final class Agent implements AutoCloseable {
        final Socket socket;
        final BufferedReader in;
        final OutputStream out;
        final JsonNode challenge;

        Agent() throws IOException, ProtocolException {
            socket = new Socket("127.0.0.1", server.port());
            socket.setSoTimeout(5000);
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            out = socket.getOutputStream();
            challenge = read();
            assertEquals("challenge", challenge.get("type").asText());
        }

        JsonNode hello(String agentId, String secret) throws IOException, ProtocolException {
            String mac = Hmac.mac(secret, challenge.get("nonce").asText(), agentId);
            send("{\"type\":\"hello\",\"version\":1,\"role\":\"ap\",\"agent_id\":\"" + agentId + "\","
                         + "\"software\":\"test\",\"auth\":{\"scheme\":\"hmac-sha256\",\"mac\":\"" + mac + "\"},"
                         + "\"capabilities\":{\"radios\":[],\"security\":[\"open\"],\"pof_switch\":false}}");
            return read();
        }

        void send(String line) throws IOException {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        JsonNode read() throws IOException, ProtocolException {
            String line = in.readLine();
            return line == null ? null : Json.parseLine(line);
        }

        /** True when the server closed the connection (after an optional bye). */
        boolean closedByServer() throws IOException, ProtocolException {
            JsonNode msg = read();
            if (msg != null && "bye".equals(msg.get("type").asText())) {
                msg = read();
            }
            return msg == null;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    public void handshakeRequestReplyAndEvents() throws Exception {
        try (Agent a = new Agent()) {
            JsonNode welcome = a.hello("ap-1", SECRET);
            assertEquals("welcome", welcome.get("type").asText());
            AgentSession s = waitForSession("ap-1");
            CompletableFuture<JsonNode> result = s.request("getVaps", Json.object());
            JsonNode req = a.read();
            assertEquals("getVaps", req.get("method").asText());
            a.send("{\"type\":\"reply\",\"id\":" + req.get("id") + ",\"ok\":true,\"result\":{\"vaps\":[]}}");
            assertEquals(0, result.get(2, TimeUnit.SECONDS).get("vaps").size());

            a.send("{\"type\":\"event\",\"event\":\"clientAssociated\",\"ts\":1,"
                           + "\"data\":{\"vap_id\":\"v1\",\"mac\":\"02:00:00:00:00:01\"}}");
            assertEquals("clientAssociated", events.poll(2, TimeUnit.SECONDS).get("event").asText());

            a.send("{\"type\":\"ping\",\"id\":9}");
            assertEquals("pong", a.read().get("type").asText());
        }
        assertEquals("ap-1", closed.poll(2, TimeUnit.SECONDS));
    }

    @Test
    public void agentErrorsAndTimeoutsReachTheCaller() throws Exception {
        try (Agent a = new Agent()) {
            a.hello("ap-2", SECRET);
            AgentSession s = waitForSession("ap-2");
            CompletableFuture<JsonNode> failing = s.request("delVap", Json.object().put("vap_id", "x"));
            JsonNode req = a.read();
            a.send("{\"type\":\"reply\",\"id\":" + req.get("id") + ",\"ok\":false,"
                           + "\"error\":{\"code\":\"not_found\",\"message\":\"no vAP x\"}}");
            assertEquals("not_found", failure(failing).code());
            CompletableFuture<JsonNode> silent = s.request("getVaps", Json.object());
            assertEquals(AgentRequestException.TIMEOUT, failure(silent).code());
        }
    }

    @Test
    public void badHmacIsRefused() throws Exception {
        try (Agent a = new Agent()) {
            JsonNode bye = a.hello("ap-3", "wrong");
            assertEquals("bye", bye.get("type").asText());
            assertEquals("bad hmac", bye.get("reason").asText());
            assertNull(a.read());
        }
    }

    @Test
    public void listenerRefusalSendsBye() throws Exception {
        try (Agent a = new Agent()) {
            JsonNode bye = a.hello("refused-agent", SECRET);
            assertEquals("not on the list", bye.get("reason").asText());
        }
    }

    @Test
    public void hostileInputClosesOnlyThatConnection() throws Exception {
        try (Agent good = new Agent()) {
            good.hello("ap-good", SECRET);
            AgentSession s = waitForSession("ap-good");
            String[] hostile = {
                "not json",
                "{\"type\":\"shell\",\"cmd\":\"id\"}",
                "[" .repeat(50_000),
                "x".repeat(AgentServer.MAX_LINE + 10),
            };
            for (String line : hostile) {
                try (Agent bad = new Agent()) {
                    bad.hello("ap-bad", SECRET);
                    bad.send(line);
                    assertTrue("connection not closed after: " + line.substring(0, Math.min(20, line.length())),
                               bad.closedByServer());
                }
            }
            // Before any hello, an event is a violation too.
            try (Agent early = new Agent()) {
                early.send("{\"type\":\"event\",\"event\":\"vapState\",\"ts\":1,"
                                   + "\"data\":{\"vap_id\":\"v\",\"state\":\"up\"}}");
                assertTrue(early.closedByServer());
            }
            // The well-behaved agent is still served.
            CompletableFuture<JsonNode> r = s.request("getStatus", Json.object());
            JsonNode req = good.read();
            good.send("{\"type\":\"reply\",\"id\":" + req.get("id") + ",\"ok\":true,\"result\":{}}");
            r.get(2, TimeUnit.SECONDS);
            assertTrue(server.violations() >= hostile.length);
        }
    }

    @Test
    public void malformedRequestFromAgentGetsAnErrorReply() throws Exception {
        try (Agent a = new Agent()) {
            a.hello("ap-4", SECRET);
            waitForSession("ap-4");
            a.send("{\"type\":\"request\",\"id\":5,\"method\":\"reboot\",\"params\":{}}");
            JsonNode reply = a.read();
            assertEquals(5, reply.get("id").asInt());
            assertEquals("unknown_method", reply.get("error").get("code").asText());
            ObjectNode ok = Json.object().put("type", "request").put("id", 6).put("method", "getVaps");
            ok.putObject("params");
            a.send(Json.write(ok));
            assertEquals("unknown_method", a.read().get("error").get("code").asText());
        }
    }

    private AgentSession waitForSession(String id) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            AgentSession s = sessions.get(id);
            if (s != null) {
                return s;
            }
            Thread.sleep(10);
        }
        fail("agent " + id + " never welcomed");
        return null;
    }

    private static AgentRequestException failure(CompletableFuture<JsonNode> f) throws InterruptedException {
        try {
            f.get(3, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return (AgentRequestException) e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            fail("request neither answered nor timed out");
        }
        fail("request succeeded");
        return null;
    }
}
