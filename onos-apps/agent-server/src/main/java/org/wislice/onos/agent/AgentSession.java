package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.Channel;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One agent connection after the handshake started: identity, requests in flight, replies matched by id.
 */
public final class AgentSession {

    private final Channel channel;
    private final String nonce;
    private final long requestTimeoutMs;
    private final AtomicLong nextId = new AtomicLong(1);
    private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private volatile String agentId;
    private volatile JsonNode hello;
    private volatile boolean welcomed;

    AgentSession(Channel channel, String nonce, long requestTimeoutMs) {
        this.channel = channel;
        this.nonce = nonce;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /** The agent_id from its hello, or null before the hello. */
    public String agentId() {
        return agentId;
    }

    /** The validated hello (role, software, capabilities). */
    public JsonNode hello() {
        return hello;
    }

    public boolean isWelcomed() {
        return welcomed;
    }

    public boolean isOpen() {
        return channel.isActive();
    }

    public String remoteAddress() {
        if (channel.remoteAddress() instanceof InetSocketAddress) {
            InetSocketAddress a = (InetSocketAddress) channel.remoteAddress();
            return a.getAddress().getHostAddress() + ":" + a.getPort();
        }
        return String.valueOf(channel.remoteAddress());
    }

    String nonce() {
        return nonce;
    }

    void identify(String id, JsonNode helloMessage) {
        this.agentId = id;
        this.hello = helloMessage;
    }

    void markWelcomed() {
        welcomed = true;
    }

    /**
     * Sends a request; the future completes with the reply's result, or exceptionally with an
     * AgentRequestException (the agent's error, timeout, or agent_unreachable).
     */
    public CompletableFuture<JsonNode> request(String method, ObjectNode params) {
        CompletableFuture<JsonNode> future = new CompletableFuture<>();
        if (!channel.isActive()) {
            future.completeExceptionally(new AgentRequestException(AgentRequestException.UNREACHABLE,
                                                                   "agent " + agentId + " is not connected"));
            return future;
        }
        long id = nextId.getAndIncrement();
        pending.put(id, future);
        ObjectNode msg = Json.object().put("type", "request").put("id", id).put("method", method);
        msg.set("params", params);
        send(msg);
        channel.eventLoop().schedule(() -> {
            CompletableFuture<JsonNode> f = pending.remove(id);
            if (f != null) {
                f.completeExceptionally(new AgentRequestException(AgentRequestException.TIMEOUT,
                        method + " to " + agentId + " timed out after " + requestTimeoutMs + " ms"));
            }
        }, requestTimeoutMs, TimeUnit.MILLISECONDS);
        return future;
    }

    /**
     * Sends a request and waits for its reply (the request timeout bounds the wait). The agent's error reply, a
     * timeout or a lost connection throw ControllerException with the protocol's code (agent_unreachable, timeout
     * beyond them), which the REST layer answers with its HTTP status.
     *
     * @return the reply's result
     */
    public JsonNode ask(String method, ObjectNode params) {
        try {
            return request(method, params).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof AgentRequestException) {
                throw ControllerException.of((AgentRequestException) e.getCause());
            }
            throw new ControllerException("internal", String.valueOf(e.getCause()));
        }
    }

    /** Sends a call (see {@link #ask}) and reads its result; InvalidReplyException when that breaks the protocol. */
    public <R> R call(AgentCall.Request<R> request) {
        return request.result(ask(request.method(), request.params()));
    }

    public <P, R> R call(AgentCall<P, R> call, P params) {
        return call(call.with(params));
    }

    /** Matches a validated reply to its request; a reply nobody waits for (timed out) is dropped. */
    void onReply(JsonNode reply) {
        CompletableFuture<JsonNode> f = pending.remove(reply.get("id").asLong());
        if (f == null) {
            return;
        }
        if (reply.get("ok").asBoolean()) {
            f.complete(reply.get("result"));
        } else {
            JsonNode err = reply.get("error");
            f.completeExceptionally(new AgentRequestException(err.get("code").asText(),
                                                              err.get("message").asText()));
        }
    }

    void send(JsonNode msg) {
        channel.writeAndFlush(Json.write(msg) + "\n");
    }

    /** Sends a bye with the reason, then closes the connection. */
    public void close(String reason) {
        if (channel.isActive()) {
            channel.writeAndFlush(Json.write(Json.object().put("type", "bye").put("reason", reason)) + "\n")
                    .addListener(f -> channel.close());
        }
    }

    void failPending(String reason) {
        pending.values().forEach(f -> f.completeExceptionally(
                new AgentRequestException(AgentRequestException.UNREACHABLE, reason)));
        pending.clear();
    }
}
