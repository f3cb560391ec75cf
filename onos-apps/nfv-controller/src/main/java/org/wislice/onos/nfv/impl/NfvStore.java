package org.wislice.onos.nfv.impl;

import org.onosproject.store.Store;
import org.wislice.onos.agent.AgentRecord;
import org.wislice.onos.agent.Placed;
import org.wislice.onos.agent.mec.MecCapabilities;
import org.wislice.onos.agent.mec.VnfSpec;
import org.wislice.onos.agent.mec.VnfState;
import org.wislice.onos.nfv.api.NfvEvent;

import java.util.List;
import java.util.Optional;

/** Cluster-wide state of the NFV controller: MEC nodes, desired vNFs (spec on a node), vNF states. */
public interface NfvStore extends Store<NfvEvent, NfvStoreDelegate> {

    void putNode(AgentRecord<MecCapabilities> node);

    Optional<AgentRecord<MecCapabilities>> node(String agentId);

    List<AgentRecord<MecCapabilities>> nodes();

    /** A desired vNF (its spec on its node), keyed by vnf_id; false when that vnf_id is taken. */
    boolean putDesiredVnfIfAbsent(Placed<VnfSpec> desired);

    Optional<Placed<VnfSpec>> desiredVnf(long vnfId);

    boolean removeDesiredVnf(long vnfId);

    List<Placed<VnfSpec>> desiredVnfs();

    void putVnf(Placed<VnfState> vnf);

    /** A vnfState event from node: its stored vNF takes the state and the event's time (updated_ts). */
    void updateVnfState(String node, long vnfId, String state, double ts);

    void removeVnf(long vnfId);

    Optional<Placed<VnfState>> vnf(long vnfId);

    List<Placed<VnfState>> vnfs();
}
