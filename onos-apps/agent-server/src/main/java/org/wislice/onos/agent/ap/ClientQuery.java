package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** getClient's params: the clients of one MAC and/or vAP, or (both null) every client. */
public final class ClientQuery extends AgentValue {

    /** Every client of the agent ({}). */
    public static final ClientQuery ALL = new ClientQuery(null, null);

    final String mac;
    final String vapId;

    public ClientQuery(String mac, String vapId) {
        this.mac = mac;
        this.vapId = vapId;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {mac, vapId};
    }
}
