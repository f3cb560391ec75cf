package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

import java.util.List;
import java.util.Optional;

/**
 * An ap-agent's stats event data: the interval and, each only when the agent sent it, vAP samples, radio
 * capacities, client counters and probed vAPs' latency.
 */
public final class ApStats extends AgentValue {

    final Number intervalS;
    final List<VapSample> vaps;
    final List<RadioCapacity> radios;
    final List<StatsClient> clients;
    final List<VapLatency> latency;

    /** Lists are null when the event has none (an older agent), which is not the same as an empty one. */
    public ApStats(Number intervalS, List<VapSample> vaps, List<RadioCapacity> radios, List<StatsClient> clients) {
        this(intervalS, vaps, radios, clients, null);
    }

    /** With the probed vAPs' latency (null when the event has none). */
    public ApStats(Number intervalS, List<VapSample> vaps, List<RadioCapacity> radios, List<StatsClient> clients,
                   List<VapLatency> latency) {
        this.intervalS = intervalS;
        this.vaps = vaps == null ? null : List.copyOf(vaps);
        this.radios = radios == null ? null : List.copyOf(radios);
        this.clients = clients == null ? null : List.copyOf(clients);
        this.latency = latency == null ? null : List.copyOf(latency);
    }

    public double intervalS() {
        return intervalS.doubleValue();
    }

    public Optional<List<VapSample>> vaps() {
        return Optional.ofNullable(vaps);
    }

    public Optional<List<RadioCapacity>> radios() {
        return Optional.ofNullable(radios);
    }

    public Optional<List<StatsClient>> clients() {
        return Optional.ofNullable(clients);
    }

    public Optional<List<VapLatency>> latency() {
        return Optional.ofNullable(latency);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {intervalS, vaps, radios, clients, latency};
    }
}
