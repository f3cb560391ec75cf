package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** removeClient's params: the station to disassociate, optionally of one vAP and with an 802.11 reason code. */
public final class ClientRemoval extends AgentValue {

    final String mac;
    final String vapId;
    final Integer reason;

    public ClientRemoval(String mac, String vapId, Integer reason) {
        this.mac = mac;
        this.vapId = vapId;
        this.reason = reason;
    }

    /** The station of that MAC, on whichever vAP, with the agent's default reason. */
    public static ClientRemoval of(String mac) {
        return new ClientRemoval(mac, null, null);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {mac, vapId, reason};
    }
}
