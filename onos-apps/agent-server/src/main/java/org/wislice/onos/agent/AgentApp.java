package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Optional;

/**
 * What is specific to one agent role, given to its AgentController: where the agents' records are stored, the
 * desired state a (re)connecting agent is sent, what is read back from it, and what its events change. Called on
 * the agent server's ordered executors (per agent, never on network threads): implementations may call the agent.
 *
 * @param <C> the role's hello capabilities
 */
public interface AgentApp<C> {

    /** The stored record of an agent, if it was ever seen (cluster-wide). */
    Optional<AgentRecord<C>> agent(String agentId);

    /** Stores an agent's record: connected on hello, disconnected on close. */
    void putAgent(AgentRecord<C> agent);

    /** The sync call (syncVaps, syncVnfs) with the agent's desired state, pushed right after its welcome. */
    AgentCall.Request<SyncResult> desiredState(String agentId);

    /** After the sync: reads back what the agent now runs (getVaps, getVnfs, ...) into the store. */
    void refresh(AgentSession agent);

    /** A validated event from a welcomed agent. */
    void event(String agentId, JsonNode event);

    /** The agent's session on this controller node ended. */
    default void disconnected(String agentId) {
    }

    /** The agent server stopped or restarted: every session on this node ended. */
    default void sessionsEnded() {
    }
}
