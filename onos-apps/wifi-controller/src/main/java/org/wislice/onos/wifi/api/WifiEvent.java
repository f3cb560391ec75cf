package org.wislice.onos.wifi.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.event.AbstractEvent;

/**
 * Something changed on an ap-agent. The subject is the record as REST shows it (agent, vAP state, client, or
 * a stats sample), always with "agent_id".
 */
public class WifiEvent extends AbstractEvent<WifiEvent.Type, ObjectNode> {

    public enum Type {
        AGENT_UPDATED, AGENT_REMOVED, VAP_UPDATED, VAP_REMOVED, CLIENT_ASSOCIATED, CLIENT_UPDATED,
        CLIENT_DISASSOCIATED, STATS
    }

    public WifiEvent(Type type, ObjectNode subject) {
        super(type, subject);
    }

    /** An event whose time is when the agent reported it (ms since the epoch), for latency accounting. */
    public WifiEvent(Type type, ObjectNode subject, long timeMs) {
        super(type, subject, timeMs);
    }
}
