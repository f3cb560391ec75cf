package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.cluster.NodeId;
import org.onosproject.store.cluster.messaging.ClusterCommunicationService;
import org.onosproject.store.cluster.messaging.MessageSubject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;

/**
 * Agent calls between the nodes of an ONOS cluster: a node whose REST (or app) calls an agent connected to another
 * node sends {agent_id, method, params} to that node over ClusterCommunicationService, which asks its session and
 * answers {result} or {error: {code, message}}. One subject per role, so the WiFi and NFV controllers never take
 * each other's calls. JSON on the wire: both ends are WiSlice apps of the same build.
 */
public final class ClusterAgentForwarder implements AgentForwarder {
    private static final long HOP_MARGIN_MS = 5000;
    private final ClusterCommunicationService cluster;
    private final MessageSubject subject;
    private final LongSupplier requestTimeoutMs;
    private ExecutorService executor;

    /** requestTimeoutMs: the agent's own request timeout; the asking node waits that plus HOP_MARGIN_MS. */
    public ClusterAgentForwarder(ClusterCommunicationService cluster, String role, LongSupplier requestTimeoutMs) {
        this.cluster = cluster;
        this.subject = new MessageSubject("wislice-" + role + "-agent-call");
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /** Starts answering other nodes' calls to the agents connected here, through the controller. */
    public void serve(AgentController<?> controller) {
        executor = Executors.newCachedThreadPool(r -> new Thread(r, subject.value()));
        cluster.<ObjectNode, ObjectNode>addSubscriber(subject, ClusterAgentForwarder::decode,
                                                      controller::answerForwarded, ClusterAgentForwarder::encode,
                                                      executor);
    }

    public void stop() {
        cluster.removeSubscriber(subject);
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    @Override
    public JsonNode ask(String nodeId, String agentId, String method, ObjectNode params) {
        ObjectNode request = Json.object().put("agent_id", agentId).put("method", method);
        request.set("params", params);
        ObjectNode answer;
        try {
            answer = cluster.<ObjectNode, ObjectNode>sendAndReceive(request, subject, ClusterAgentForwarder::encode,
                    ClusterAgentForwarder::decode, NodeId.nodeId(nodeId),
                    Duration.ofMillis(requestTimeoutMs.getAsLong() + HOP_MARGIN_MS)).join();
        } catch (CompletionException e) {
            throw new ControllerException(AgentRequestException.UNREACHABLE,
                                          "controller node " + nodeId + " holding " + agentId + " did not answer: "
                                                  + e.getCause());
        }
        return AgentController.unwrapForwarded(answer);
    }

    private static byte[] encode(ObjectNode node) {
        try {
            return Json.MAPPER.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode decode(byte[] bytes) {
        try {
            return (ObjectNode) Json.MAPPER.readTree(bytes);
        } catch (IOException | ClassCastException e) {
            throw new IllegalArgumentException("a forwarded agent call that is not a JSON object", e);
        }
    }
}
