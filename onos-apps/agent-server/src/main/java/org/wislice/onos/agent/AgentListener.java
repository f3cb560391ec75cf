package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What an app does with its agents' sessions. Called on the app's executor, in order per agent, never on a
 * network thread: implementations may block on requests to the same agent.
 */
public interface AgentListener {

    /** A valid, authenticated hello arrived. Return null to accept the agent, or the reason to refuse it. */
    String onHello(AgentSession session, JsonNode hello);

    /** The agent was welcomed: push its desired state now. */
    void onWelcomed(AgentSession session);

    /** A validated event from a welcomed agent. */
    void onEvent(AgentSession session, JsonNode event);

    /** The connection closed (by either side, or after a protocol violation). */
    void onClosed(AgentSession session, String reason);
}
