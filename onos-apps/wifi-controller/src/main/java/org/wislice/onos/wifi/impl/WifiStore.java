package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.store.Store;
import org.wislice.onos.wifi.api.WifiEvent;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Cluster-wide state of the WiFi controller: agents, desired vAP specs, vAP states, clients. */
public interface WifiStore extends Store<WifiEvent, WifiStoreDelegate> {

    void putAgent(ObjectNode agent);

    Optional<ObjectNode> agent(String agentId);

    List<ObjectNode> agents();

    /** Desired vAP specs (with passphrases): what is pushed to the agent on (re)connect. */
    void putDesiredVap(String agentId, ObjectNode spec);

    Optional<ObjectNode> desiredVap(String agentId, String vapId);

    boolean removeDesiredVap(String agentId, String vapId);

    List<ObjectNode> desiredVaps(String agentId);

    /** vAP states as the agent reports them (never with a passphrase). */
    void putVap(String agentId, ObjectNode vapState);

    void removeVap(String agentId, String vapId);

    Optional<ObjectNode> vap(String agentId, String vapId);

    List<ObjectNode> vaps(String agentId);

    void putClient(String agentId, ObjectNode client);

    void removeClient(String agentId, String mac);

    /**
     * Replaces a stored client by change(client) in one atomic step, if the store has that client (a client removed
     * meanwhile stays removed; nothing is created). change returns null to leave the record as it is.
     */
    void updateClient(String agentId, String mac, UnaryOperator<ObjectNode> change);

    List<ObjectNode> clients(String agentId);
}
