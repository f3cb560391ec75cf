package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * A blocking, scriptable agent for unit tests of the controllers: connects, says hello, and answers requests
 * with a caller-supplied function (method, params) -> result, or an error reply when the function throws.
 */
public final class TestAgentClient implements AutoCloseable {

    private final Socket socket;
    private final BufferedReader in;
    private final OutputStream out;
    private final JsonNode challenge;

    public TestAgentClient(int port) throws IOException, ProtocolException {
        this(new Socket("127.0.0.1", port));
    }

    /** Over an already connected socket, e.g. a TLS one from TestTls. */
    public TestAgentClient(Socket socket) throws IOException, ProtocolException {
        this.socket = socket;
        socket.setSoTimeout(5000);
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = socket.getOutputStream();
        challenge = read();
    }

    /** Sends a hello for the role with the given capabilities, authenticated when secret is non-empty. */
    public JsonNode hello(String role, String agentId, String secret, ObjectNode capabilities)
            throws IOException, ProtocolException {
        return hello(role, agentId, secret, capabilities, null);
    }

    /** The same with the hello's firmware_version (null: none, as agents from before it). */
    public JsonNode hello(String role, String agentId, String secret, ObjectNode capabilities,
                          String firmwareVersion) throws IOException, ProtocolException {
        ObjectNode hello = Json.object().put("type", "hello").put("version", 1).put("role", role)
                .put("agent_id", agentId).put("software", "test-agent");
        ObjectNode auth = hello.putObject("auth");
        if (secret.isEmpty()) {
            auth.put("scheme", "none");
        } else {
            auth.put("scheme", "hmac-sha256").put("mac", Hmac.mac(secret, challenge.get("nonce").asText(), agentId));
        }
        hello.set("capabilities", capabilities);
        if (firmwareVersion != null) {
            hello.put("firmware_version", firmwareVersion);
        }
        send(hello);
        return read();
    }

    public void send(JsonNode msg) throws IOException {
        sendLine(Json.write(msg));
    }

    public void sendLine(String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** The raw stream, for tests that write faster than line by line. */
    public OutputStream outputStream() {
        return out;
    }

    public JsonNode read() throws IOException, ProtocolException {
        String line = in.readLine();
        return line == null ? null : Json.parseLine(line);
    }

    /** Reads the next request and answers it with handler(request); returns the request. */
    public JsonNode serveOne(Function<JsonNode, JsonNode> handler) throws IOException, ProtocolException {
        JsonNode req = read();
        while (req != null && "ping".equals(req.get("type").asText())) {
            req = read();
        }
        if (req == null) {
            return null;
        }
        ObjectNode reply = Json.object().put("type", "reply").put("id", req.get("id").asLong());
        try {
            reply.put("ok", true).set("result", handler.apply(req));
        } catch (RuntimeException e) {
            reply.remove("result");
            reply.put("ok", false).putObject("error").put("code", "not_found").put("message", e.getMessage());
        }
        send(reply);
        return req;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
