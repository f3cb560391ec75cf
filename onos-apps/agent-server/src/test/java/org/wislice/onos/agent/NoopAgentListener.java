package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;

/** An app that accepts every agent and ignores what it says: for tests about the server, not the app. */
class NoopAgentListener implements AgentListener {
    @Override
    public String onHello(AgentSession session, JsonNode hello) {
        return null;
    }

    @Override
    public void onWelcomed(AgentSession session) {
    }

    @Override
    public void onEvent(AgentSession session, JsonNode event) {
    }

    @Override
    public void onClosed(AgentSession session, String reason) {
    }
}
