package org.wislice.onos.mobility.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.wifi.api.WifiListener;
import org.wislice.onos.wifi.api.WifiService;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A WifiService holding agents and client records; kickClient removes the record and is remembered. */
class FakeWifi implements WifiService {
    static final ObjectMapper JSON = new ObjectMapper();

    final Map<String, ObjectNode> agents = new HashMap<>();
    final List<ObjectNode> clients = new ArrayList<>();
    final List<String> kicks = new ArrayList<>();
    final List<WifiListener> listeners = new ArrayList<>();

    ObjectNode associate(String agent, String vap, String mac) {
        ObjectNode c = JSON.createObjectNode().put("agent_id", agent).put("vap_id", vap).put("mac", mac);
        clients.add(c);
        return c;
    }

    void agentOn(String agent, String node) {
        agents.put(agent, JSON.createObjectNode().put("agent_id", agent).put("connected", true).put("node", node));
    }

    @Override
    public List<ObjectNode> clients(String agentId, String vapId) {
        return List.copyOf(clients);
    }

    @Override
    public void kickClient(String agentId, String mac) {
        kicks.add(agentId + "/" + mac);
        clients.removeIf(c -> c.get("agent_id").asText().equals(agentId) && c.get("mac").asText().equals(mac));
    }

    @Override
    public Optional<ObjectNode> agent(String agentId) {
        return Optional.ofNullable(agents.get(agentId));
    }

    @Override
    public void addListener(WifiListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(WifiListener listener) {
        listeners.remove(listener);
    }

    // Not used by the mobility app.

    @Override
    public List<ObjectNode> agents() {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<ObjectNode> aps() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<ObjectNode> ap(String agentId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode upgradeFirmware(String agentId, JsonNode request) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<ObjectNode> vaps(String agentId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode createVap(String agentId, JsonNode vapSpec) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void removeVap(String agentId, String vapId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode updateRateLimit(String vapId, JsonNode rateLimit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode updateVap(String vapId, JsonNode changes) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode steerClient(String mac, String targetAgent, String targetVap, String targetBssid,
                                  Integer disassocTimerTbtt) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode changeChannel(String agentId, String radio, int channel) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode rates(String agentId, String vapId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode latency(String agentId, String vapId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode stats() {
        throw new UnsupportedOperationException();
    }

    @Override
    public ObjectNode metrics() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void resetMetrics() {
        throw new UnsupportedOperationException();
    }
}
