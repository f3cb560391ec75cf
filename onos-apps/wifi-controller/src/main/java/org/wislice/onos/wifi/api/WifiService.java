package org.wislice.onos.wifi.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.event.ListenerService;

import java.util.List;
import java.util.Optional;

/**
 * The ap-agents' state and the Table II operations. Records are the JSON objects of spec/agent/PROTOCOL.md plus
 * "agent_id"; failures throw org.wislice.onos.agent.ControllerException with a protocol error code.
 */
public interface WifiService extends ListenerService<WifiEvent, WifiListener> {

    /** All agents ever seen: {agent_id, connected, address, radios, vaps, clients, last_seen}. */
    List<ObjectNode> agents();

    Optional<ObjectNode> agent(String agentId);

    /**
     * The agents as APs of fleet upgrades: each agent record plus "firmware_version" (its hello's, null when it had
     * none) and, once one was asked, "upgrade": {version, state, reason, updated_ms} of its last firmware upgrade.
     */
    List<ObjectNode> aps();

    Optional<ObjectNode> ap(String agentId);

    /**
     * Asks the AP to upgrade its firmware (request: upgradeFirmware's params); {"state": "requested"} once the agent
     * accepted. not_found: unknown agent; conflict: an upgrade in progress on it; not_connected: the agent is away;
     * bad_request: the request.
     */
    ObjectNode upgradeFirmware(String agentId, JsonNode request);

    /** vAP states, of one agent or (agentId null) of all. */
    List<ObjectNode> vaps(String agentId);

    /** Stores the vAP as desired state, pushes it to the agent and returns its VapState once up. */
    ObjectNode createVap(String agentId, JsonNode vapSpec);

    /** Removes the vAP from the desired state and from the agent. */
    void removeVap(String agentId, String vapId);

    /**
     * Changes a vAP's rate_limit: stores it in the vAP's desired VapSpec (so every later syncVaps carries it), sends
     * updateVap to its agent and returns the VapState the agent answers (plus "agent_id"). The vAP is found by
     * vap_id among the agents' desired vAPs. If the agent refuses, the stored spec keeps its old rate_limit; if it
     * is not connected or does not answer, the new one stays stored for the next (re)connect.
     */
    ObjectNode updateRateLimit(String vapId, JsonNode rateLimit);

    /**
     * Changes a running vAP in place (updateVap): changes is {rate_limit?, wmm_ac?, probe?} (at least one; a null
     * probe stops it), stored and sent as updateRateLimit's rates are.
     */
    ObjectNode updateVap(String vapId, JsonNode changes);

    /** Clients, filtered by agent and/or vAP when given. */
    List<ObjectNode> clients(String agentId, String vapId);

    /** Disassociates a client (removeClient). */
    void kickClient(String agentId, String mac);

    /**
     * Asks a client's serving agent to steer it to another BSS (steerClient, 802.11v BSS Transition Management).
     * The target is a vAP (targetVap, on targetAgent or, when null, on whichever agent has it) or a BSSID; either
     * must be a vAP the controller knows (its channel goes into the request). disassocTimerTbtt, when not null,
     * makes the request say Disassociation Imminent. Returns {agent_id, vap_id, mac, target_agent_id,
     * target_vap_id, target_bssid, accepted, status_code, reason}: accepted is the station's answer; its
     * association at the target follows as a client event.
     */
    ObjectNode steerClient(String mac, String targetAgent, String targetVap, String targetBssid,
                           Integer disassocTimerTbtt);

    /** Moves a radio to a channel; returns the updated Radio. */
    ObjectNode changeChannel(String agentId, String radio, int channel);

    /** Current rates of a vAP: {tx_bps, rx_bps, interval_s}. */
    ObjectNode rates(String agentId, String vapId);

    /**
     * A probed vAP's latency now (getLatency to its agent): VapLatency {vap_id, sent, received, lost, p50_us,
     * p90_us, p99_us, max_us, samples} plus "agent_id". agentId null: the agent holding the vAP. not_found: no
     * such vAP (or agent); conflict: the vAP is on several agents; unsupported: the vAP has no probe (or its AP no
     * pof-switch).
     */
    ObjectNode latency(String agentId, String vapId);

    /**
     * The last stats event of every agent connected to this controller node, in one answer: {"node", "agents":
     * [{agent_id, ts, interval_s, vaps?, radios?, clients?, latency?}]} (the event's own lists, spec/agent/PROTOCOL.md,
     * except latency: the latest VapLatency + "ts" of each vAP the agent's recent stats events reported). An agent
     * appears once it sent stats and leaves when its connection closes.
     */
    ObjectNode stats();

    /** Controller metrics: agents connected, event latency percentiles, heap. */
    ObjectNode metrics();

    /** Clears the event latency samples (between benchmark phases). */
    void resetMetrics();
}
