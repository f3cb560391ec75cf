package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/**
 * A stats event's client: its association's byte counters and, when the agent has a previous reading of the same
 * association, the rates since then (bit/s; both null otherwise).
 */
public final class StatsClient extends AgentValue {

    final String mac;
    final String vapId;
    final long txBytes;
    final long rxBytes;
    final Number txBps;
    final Number rxBps;

    public StatsClient(String mac, String vapId, long txBytes, long rxBytes, Number txBps, Number rxBps) {
        this.mac = mac;
        this.vapId = vapId;
        this.txBytes = txBytes;
        this.rxBytes = rxBytes;
        this.txBps = txBps;
        this.rxBps = rxBps;
    }

    public String mac() {
        return mac;
    }

    public String vapId() {
        return vapId;
    }

    public long txBytes() {
        return txBytes;
    }

    public long rxBytes() {
        return rxBytes;
    }

    public boolean hasRates() {
        return txBps != null;
    }

    public double txBps() {
        return txBps == null ? Double.NaN : txBps.doubleValue();
    }

    public double rxBps() {
        return rxBps == null ? Double.NaN : rxBps.doubleValue();
    }

    @Override
    protected Object[] fields() {
        return new Object[] {mac, vapId, txBytes, rxBytes, txBps, rxBps};
    }
}
