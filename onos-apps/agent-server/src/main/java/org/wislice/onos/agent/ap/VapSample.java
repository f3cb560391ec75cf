package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** A stats event's vAP sample: rates (bit/s) over the interval and the client count. */
public final class VapSample extends AgentValue {

    final String vapId;
    final Number txBps;
    final Number rxBps;
    final long clients;

    public VapSample(String vapId, Number txBps, Number rxBps, long clients) {
        this.vapId = vapId;
        this.txBps = txBps;
        this.rxBps = rxBps;
        this.clients = clients;
    }

    public String vapId() {
        return vapId;
    }

    public double txBps() {
        return txBps.doubleValue();
    }

    public double rxBps() {
        return rxBps.doubleValue();
    }

    public long clients() {
        return clients;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, txBps, rxBps, clients};
    }
}
