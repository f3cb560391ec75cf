package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** The clientAssociated event's data. */
public final class ClientAssociated extends AgentValue {

    final String vapId;
    final String mac;
    /** Null when the event has none. */
    final Integer signalDbm;

    public ClientAssociated(String vapId, String mac, Integer signalDbm) {
        this.vapId = vapId;
        this.mac = mac;
        this.signalDbm = signalDbm;
    }

    public String mac() {
        return mac;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, mac, signalDbm};
    }
}
