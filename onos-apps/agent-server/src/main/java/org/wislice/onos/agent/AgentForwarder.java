package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Carries a call to the controller node an agent is connected to, when that is another node of the cluster
 * (docs/onos-cluster.md): ClusterAgentForwarder over ONOS's ClusterCommunicationService, a direct hand-over between
 * two AgentControllers in tests.
 */
public interface AgentForwarder {
    /**
     * The agent's answer (the reply's result) to method(params), asked on node nodeId; ControllerException as the
     * call on that node would throw it (agent_unreachable when the node cannot be reached).
     */
    JsonNode ask(String nodeId, String agentId, String method, ObjectNode params);
}
