package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

import java.util.List;
import java.util.Optional;

/** getStatistics's result: the node's load (when given) and the stats of its vNFs (or of the one asked for). */
public final class Statistics extends AgentValue {

    final NodeStats node;
    final List<VnfStats> vnfs;

    public Statistics(NodeStats node, List<VnfStats> vnfs) {
        this.node = node;
        this.vnfs = List.copyOf(vnfs);
    }

    public Optional<VnfStats> vnf(long vnfId) {
        return vnfs.stream().filter(s -> s.vnfId == vnfId).findFirst();
    }

    @Override
    protected Object[] fields() {
        return new Object[] {node, vnfs};
    }
}
