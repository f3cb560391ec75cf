package org.wislice.onos.nfv.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.store.Store;
import org.wislice.onos.nfv.api.NfvEvent;

import java.util.List;
import java.util.Optional;

/** Cluster-wide state of the NFV controller: MEC nodes, desired vNFs (spec + node), vNF states. */
public interface NfvStore extends Store<NfvEvent, NfvStoreDelegate> {

    void putNode(ObjectNode node);

    Optional<ObjectNode> node(String agentId);

    List<ObjectNode> nodes();

    /** Desired vNF: {"spec": VnfSpec, "node": agent_id}, keyed by vnf_id. */
    boolean putDesiredVnfIfAbsent(long vnfId, ObjectNode desired);

    Optional<ObjectNode> desiredVnf(long vnfId);

    boolean removeDesiredVnf(long vnfId);

    List<ObjectNode> desiredVnfs();

    void putVnf(long vnfId, ObjectNode state);

    void removeVnf(long vnfId);

    Optional<ObjectNode> vnf(long vnfId);

    List<ObjectNode> vnfs();
}
