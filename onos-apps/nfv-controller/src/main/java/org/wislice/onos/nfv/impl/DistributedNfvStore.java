package org.wislice.onos.nfv.impl;

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
import org.wislice.onos.nfv.api.NfvEvent;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** NfvStore on ONOS ConsistentMaps holding JSON text; map changes become NfvEvents on every node. */
@Component(immediate = true, service = NfvStore.class)
public class DistributedNfvStore extends AbstractStore<NfvEvent, NfvStoreDelegate> implements NfvStore {

    private static final Serializer SERIALIZER = TextSerializer.INSTANCE;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    private ConsistentMap<String, String> nodes;
    private ConsistentMap<Long, String> desired;
    private ConsistentMap<Long, String> vnfs;
    private final MapEventListener<String, String> nodeListener =
            e -> relay(e.type(), e.newValue(), e.oldValue(), NfvEvent.Type.NODE_UPDATED, NfvEvent.Type.NODE_REMOVED);
    private final MapEventListener<Long, String> vnfListener =
            e -> relay(e.type(), e.newValue(), e.oldValue(), NfvEvent.Type.VNF_UPDATED, NfvEvent.Type.VNF_REMOVED);

    @Activate
    protected void activate() {
        nodes = storageService.<String, String>consistentMapBuilder()
                .withName("wislice-nfv-nodes").withSerializer(SERIALIZER).build();
        desired = storageService.<Long, String>consistentMapBuilder()
                .withName("wislice-nfv-desired-vnfs").withSerializer(SERIALIZER).build();
        vnfs = storageService.<Long, String>consistentMapBuilder()
                .withName("wislice-nfv-vnfs").withSerializer(SERIALIZER).build();
        nodes.addListener(nodeListener);
        vnfs.addListener(vnfListener);
    }

    @Deactivate
    protected void deactivate() {
        nodes.removeListener(nodeListener);
        vnfs.removeListener(vnfListener);
    }

    private void relay(MapEvent.Type type, Versioned<String> newValue, Versioned<String> oldValue,
                       NfvEvent.Type update, NfvEvent.Type remove) {
        Versioned<String> value = type == MapEvent.Type.REMOVE ? oldValue : newValue;
        if (value == null) {
            return;
        }
        ObjectNode record = parse(value.value());
        long time = record.has("updated_ts") && type != MapEvent.Type.REMOVE
                ? (long) (record.get("updated_ts").asDouble() * 1000) : System.currentTimeMillis();
        notifyDelegate(new NfvEvent(type == MapEvent.Type.REMOVE ? remove : update, record, time));
    }

    static ObjectNode parse(String json) {
        try {
            return Json.parseLine(json);
        } catch (ProtocolException e) {
            throw new IllegalStateException("corrupt store record", e);
        }
    }

    private static <K> Optional<ObjectNode> value(ConsistentMap<K, String> map, K key) {
        Versioned<String> v = map.get(key);
        return v == null ? Optional.empty() : Optional.of(parse(v.value()));
    }

    private static <K> List<ObjectNode> values(ConsistentMap<K, String> map) {
        return map.asJavaMap().values().stream().map(DistributedNfvStore::parse).collect(Collectors.toList());
    }

    @Override
    public void putNode(ObjectNode node) {
        nodes.put(node.get("agent_id").asText(), Json.write(node));
    }

    @Override
    public Optional<ObjectNode> node(String agentId) {
        return value(nodes, agentId);
    }

    @Override
    public List<ObjectNode> nodes() {
        return values(nodes);
    }

    @Override
    public boolean putDesiredVnfIfAbsent(long vnfId, ObjectNode d) {
        return desired.putIfAbsent(vnfId, Json.write(d)) == null;
    }

    @Override
    public Optional<ObjectNode> desiredVnf(long vnfId) {
        return value(desired, vnfId);
    }

    @Override
    public boolean removeDesiredVnf(long vnfId) {
        return desired.remove(vnfId) != null;
    }

    @Override
    public List<ObjectNode> desiredVnfs() {
        return values(desired);
    }

    @Override
    public void putVnf(long vnfId, ObjectNode state) {
        vnfs.put(vnfId, Json.write(state));
    }

    @Override
    public void removeVnf(long vnfId) {
        vnfs.remove(vnfId);
    }

    @Override
    public Optional<ObjectNode> vnf(long vnfId) {
        return value(vnfs, vnfId);
    }

    @Override
    public List<ObjectNode> vnfs() {
        return values(vnfs);
    }
}
