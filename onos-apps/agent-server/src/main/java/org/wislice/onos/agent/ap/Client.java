package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** Client: a station associated to a vAP (getClient), with its byte counters (tx = towards the station). */
public final class Client extends AgentValue {

    final String mac;
    final String vapId;
    /** Null when the agent has no reading. */
    final Integer signalDbm;
    final long connectedS;
    final long txBytes;
    final long rxBytes;

    public Client(String mac, String vapId, Integer signalDbm, long connectedS, long txBytes, long rxBytes) {
        this.mac = mac;
        this.vapId = vapId;
        this.signalDbm = signalDbm;
        this.connectedS = connectedS;
        this.txBytes = txBytes;
        this.rxBytes = rxBytes;
    }

    /** A station that just associated: no time connected, no bytes yet. */
    public static Client associated(ClientAssociated event) {
        return new Client(event.mac, event.vapId, event.signalDbm, 0, 0, 0);
    }

    public String mac() {
        return mac;
    }

    public String vapId() {
        return vapId;
    }

    public Integer signalDbm() {
        return signalDbm;
    }

    public long txBytes() {
        return txBytes;
    }

    public long rxBytes() {
        return rxBytes;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {mac, vapId, signalDbm, connectedS, txBytes, rxBytes};
    }
}
