package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/**
 * A probed vAP's latency (getLatency's result, a stats event's latency item): probes sent, received and lost,
 * RTT percentiles and maximum in microseconds over the latest samples (0 without samples).
 */
public final class VapLatency extends AgentValue {

    final String vapId;
    final long sent;
    final long received;
    final long lost;
    final long p50Us;
    final long p90Us;
    final long p99Us;
    final long maxUs;
    final long samples;

    public VapLatency(String vapId, long sent, long received, long lost, long p50Us, long p90Us, long p99Us,
                      long maxUs, long samples) {
        this.vapId = vapId;
        this.sent = sent;
        this.received = received;
        this.lost = lost;
        this.p50Us = p50Us;
        this.p90Us = p90Us;
        this.p99Us = p99Us;
        this.maxUs = maxUs;
        this.samples = samples;
    }

    public String vapId() {
        return vapId;
    }

    public long sent() {
        return sent;
    }

    public long received() {
        return received;
    }

    public long lost() {
        return lost;
    }

    public long p50Us() {
        return p50Us;
    }

    public long p90Us() {
        return p90Us;
    }

    public long p99Us() {
        return p99Us;
    }

    public long maxUs() {
        return maxUs;
    }

    public long samples() {
        return samples;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, sent, received, lost, p50Us, p90Us, p99Us, maxUs, samples};
    }
}
