package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.store.Store;
import org.wislice.onos.agent.AgentRecord;
import org.wislice.onos.agent.Placed;
import org.wislice.onos.agent.ap.ApCapabilities;
import org.wislice.onos.agent.ap.Client;
import org.wislice.onos.agent.ap.VapState;
import org.wislice.onos.wifi.api.WifiEvent;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Cluster-wide state of the WiFi controller: agents, desired vAP specs, vAP states, clients, firmware upgrades. A client record is
 * the REST view of a station (Client + the rates of the last stats event + updated_ts): it merges getClient,
 * association events and stats, so it stays JSON.
 */
public interface WifiStore extends Store<WifiEvent, WifiStoreDelegate> {

    void putAgent(AgentRecord<ApCapabilities> agent);

    Optional<AgentRecord<ApCapabilities>> agent(String agentId);

    List<AgentRecord<ApCapabilities>> agents();

    /** Desired vAP specs (passphrases sealed): what is pushed to the agent on (re)connect. */
    void putDesiredVap(String agentId, DesiredVap vap);

    Optional<DesiredVap> desiredVap(String agentId, String vapId);

    boolean removeDesiredVap(String agentId, String vapId);

    List<DesiredVap> desiredVaps(String agentId);

    /** vAP states as the agent reports them (never with a passphrase). */
    void putVap(String agentId, VapState vap);

    /** A vapState event: the stored vAP takes the state and the event's time (updated_ts); an unknown one is left. */
    void updateVapState(String agentId, String vapId, String state, double ts);

    void removeVap(String agentId, String vapId);

    Optional<VapState> vap(String agentId, String vapId);

    /** vAP states, of one agent or (agentId null) of all. */
    List<Placed<VapState>> vaps(String agentId);

    /** A client as getClient reports it. */
    void putClient(String agentId, Client client);

    /** A client as an event at ts (agent clock, s) reports it. */
    void putClient(String agentId, Client client, double ts);

    void removeClient(String agentId, String mac);

    /**
     * Replaces a stored client by change(client) in one atomic step, if the store has that client (a client removed
     * meanwhile stays removed; nothing is created). change returns null to leave the record as it is.
     */
    void updateClient(String agentId, String mac, UnaryOperator<ObjectNode> change);

    /** Client records, of one agent or (agentId null) of all. */
    List<ObjectNode> clients(String agentId);

    /** The AP's last firmware upgrade (FirmwareUpgrades): {version, state, reason, updated_ms, timeout_s}. */
    void putUpgrade(String agentId, ObjectNode upgrade);

    Optional<ObjectNode> upgrade(String agentId);

    void removeUpgrade(String agentId);
}
