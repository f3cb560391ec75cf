package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** The clientDisassociated event's data. */
public final class ClientDisassociated extends AgentValue {

    final String vapId;
    final String mac;
    /** The 802.11 reason code, null when the event has none. */
    final Integer reason;

    public ClientDisassociated(String vapId, String mac, Integer reason) {
        this.vapId = vapId;
        this.mac = mac;
        this.reason = reason;
    }

    public String mac() {
        return mac;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, mac, reason};
    }
}
