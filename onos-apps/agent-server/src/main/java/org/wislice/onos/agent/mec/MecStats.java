package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

import java.util.List;
import java.util.Optional;

/** A mec-agent's stats event data: the interval and, when sent, the node's load and its vNFs' stats. */
public final class MecStats extends AgentValue {

    final Number intervalS;
    final NodeStats node;
    final List<VnfStats> vnfs;

    /** node and vnfs are null when the event has none. */
    public MecStats(Number intervalS, NodeStats node, List<VnfStats> vnfs) {
        this.intervalS = intervalS;
        this.node = node;
        this.vnfs = vnfs == null ? null : List.copyOf(vnfs);
    }

    public Optional<NodeStats> node() {
        return Optional.ofNullable(node);
    }

    public Optional<List<VnfStats>> vnfs() {
        return Optional.ofNullable(vnfs);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {intervalS, node, vnfs};
    }
}
