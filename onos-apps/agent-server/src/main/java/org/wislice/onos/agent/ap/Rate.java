package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** getTxRate / getRxRate's result: {vap_id, bps, packets_per_s, interval_s}; the controller reads bps, interval_s. */
public final class Rate extends AgentValue {

    final String vapId;
    final Number bps;
    final Number packetsPerS;
    final Number intervalS;

    public Rate(String vapId, Number bps, Number packetsPerS, Number intervalS) {
        this.vapId = vapId;
        this.bps = bps;
        this.packetsPerS = packetsPerS;
        this.intervalS = intervalS;
    }

    public double bps() {
        return bps.doubleValue();
    }

    public double intervalS() {
        return intervalS.doubleValue();
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, bps, packetsPerS, intervalS};
    }
}
