package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.store.AbstractStore;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.MapEvent;
import org.onosproject.store.service.MapEventListener;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.TextSerializer;
import org.wislice.onos.wifi.api.WifiEvent;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * WifiStore on ONOS ConsistentMaps. Values are JSON text (the protocol's own objects), so the store needs no
 * Kryo registrations and stays readable across versions. Map changes become WifiEvents on every node.
 */
@Component(immediate = true, service = WifiStore.class)
public class DistributedWifiStore extends AbstractStore<WifiEvent, WifiStoreDelegate> implements WifiStore {

    private static final Serializer SERIALIZER = TextSerializer.INSTANCE;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    private ConsistentMap<String, String> agents;
    private ConsistentMap<String, String> desired;
    private ConsistentMap<String, String> vaps;
    private ConsistentMap<String, String> clients;
    private final MapEventListener<String, String> agentListener =
            e -> relay(e, WifiEvent.Type.AGENT_UPDATED, WifiEvent.Type.AGENT_UPDATED, WifiEvent.Type.AGENT_REMOVED);
    private final MapEventListener<String, String> vapListener =
            e -> relay(e, WifiEvent.Type.VAP_UPDATED, WifiEvent.Type.VAP_UPDATED, WifiEvent.Type.VAP_REMOVED);
    private final MapEventListener<String, String> clientListener =
            e -> relay(e, WifiEvent.Type.CLIENT_ASSOCIATED, WifiEvent.Type.CLIENT_UPDATED,
                       WifiEvent.Type.CLIENT_DISASSOCIATED);

    @Activate
    protected void activate() {
        agents = map("wislice-wifi-agents");
        desired = map("wislice-wifi-desired-vaps");
        vaps = map("wislice-wifi-vaps");
        clients = map("wislice-wifi-clients");
        agents.addListener(agentListener);
        vaps.addListener(vapListener);
        clients.addListener(clientListener);
    }

    @Deactivate
    protected void deactivate() {
        agents.removeListener(agentListener);
        vaps.removeListener(vapListener);
        clients.removeListener(clientListener);
    }

    private ConsistentMap<String, String> map(String name) {
        return storageService.<String, String>consistentMapBuilder()
                .withName(name).withSerializer(SERIALIZER).build();
    }

    /** Relays a map change; the event time is the record's "updated_ts" (agent clock, ms) when it has one. */
    private void relay(MapEvent<String, String> e, WifiEvent.Type insert, WifiEvent.Type update,
                       WifiEvent.Type remove) {
        Versioned<String> value = e.type() == MapEvent.Type.REMOVE ? e.oldValue() : e.newValue();
        if (value == null) {
            return;
        }
        ObjectNode record = parse(value.value());
        WifiEvent.Type type = e.type() == MapEvent.Type.INSERT ? insert
                : e.type() == MapEvent.Type.UPDATE ? update : remove;
        long time = record.has("updated_ts") && e.type() != MapEvent.Type.REMOVE
                ? (long) (record.get("updated_ts").asDouble() * 1000) : System.currentTimeMillis();
        notifyDelegate(new WifiEvent(type, record, time));
    }

    static ObjectNode parse(String json) {
        try {
            return Json.parseLine(json);
        } catch (ProtocolException e) {
            throw new IllegalStateException("corrupt store record", e);
        }
    }

    private static String key(String agentId, String id) {
        return agentId + "/" + id;
    }

    private static List<ObjectNode> values(ConsistentMap<String, String> map, String agentId) {
        String prefix = agentId == null ? "" : agentId + "/";
        return map.asJavaMap().entrySet().stream()
                .filter(e -> e.getKey().startsWith(prefix))
                .map(e -> parse(e.getValue()))
                .collect(Collectors.toList());
    }

    private static Optional<ObjectNode> value(ConsistentMap<String, String> map, String key) {
        Versioned<String> v = map.get(key);
        return v == null ? Optional.empty() : Optional.of(parse(v.value()));
    }

    @Override
    public void putAgent(ObjectNode agent) {
        agents.put(agent.get("agent_id").asText(), Json.write(agent));
    }

    @Override
    public Optional<ObjectNode> agent(String agentId) {
        return value(agents, agentId);
    }

    @Override
    public List<ObjectNode> agents() {
        return agents.asJavaMap().values().stream().map(DistributedWifiStore::parse).collect(Collectors.toList());
    }

    @Override
    public void putDesiredVap(String agentId, ObjectNode spec) {
        desired.put(key(agentId, spec.get("vap_id").asText()), Json.write(spec));
    }

    @Override
    public Optional<ObjectNode> desiredVap(String agentId, String vapId) {
        return value(desired, key(agentId, vapId));
    }

    @Override
    public boolean removeDesiredVap(String agentId, String vapId) {
        return desired.remove(key(agentId, vapId)) != null;
    }

    @Override
    public List<ObjectNode> desiredVaps(String agentId) {
        return values(desired, agentId);
    }

    @Override
    public void putVap(String agentId, ObjectNode vapState) {
        vapState.put("agent_id", agentId);
        vaps.put(key(agentId, vapState.get("vap_id").asText()), Json.write(vapState));
    }

    @Override
    public void removeVap(String agentId, String vapId) {
        vaps.remove(key(agentId, vapId));
    }

    @Override
    public Optional<ObjectNode> vap(String agentId, String vapId) {
        return value(vaps, key(agentId, vapId));
    }

    @Override
    public List<ObjectNode> vaps(String agentId) {
        return values(vaps, agentId);
    }

    @Override
    public void putClient(String agentId, ObjectNode client) {
        client.put("agent_id", agentId);
        clients.put(key(agentId, client.get("mac").asText()), Json.write(client));
    }

    @Override
    public void removeClient(String agentId, String mac) {
        clients.remove(key(agentId, mac));
    }

    @Override
    public void updateClient(String agentId, String mac, UnaryOperator<ObjectNode> change) {
        // Compare-and-set on the record's version: a concurrent write (an association, a removal) wins, and the
        // change is applied again to what it wrote, a few times at most. No record: nothing is written.
        String key = key(agentId, mac);
        for (int attempt = 0; attempt < 3; attempt++) {
            Versioned<String> current = clients.get(key);
            ObjectNode updated = current == null ? null : change.apply(parse(current.value()));
            if (updated == null || clients.replace(key, current.version(), Json.write(updated))) {
                return;
            }
        }
    }

    @Override
    public List<ObjectNode> clients(String agentId) {
        return values(clients, agentId);
    }
}
