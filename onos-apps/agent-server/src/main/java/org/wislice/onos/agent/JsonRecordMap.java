package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.MapEvent;
import org.onosproject.store.service.MapEventListener;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;

import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * A ConsistentMap of JSON records kept as text (TextSerializer: no Kryo registrations, readable across app and
 * ONOS versions), for the apps' stores, which turn records into typed values with the codecs. Every change on
 * any cluster node is relayed to one listener with the record and its time: the record's "updated_ts" (the
 * agent's clock, s) when it has one and was not removed, else now.
 *
 * @param <K> the key (String or Long)
 */
public final class JsonRecordMap<K> {

    /** Receives the map's changes. */
    @FunctionalInterface
    public interface RecordListener {
        void changed(MapEvent.Type type, ObjectNode record, long timeMs);
    }

    /** How many times update re-applies a change that lost a race with a concurrent write. */
    private static final int UPDATE_ATTEMPTS = 3;

    private final ConsistentMap<K, String> map;
    private MapEventListener<K, String> relay;

    public JsonRecordMap(StorageService storage, String name) {
        map = storage.<K, String>consistentMapBuilder().withName(name).withSerializer(TextSerializer.INSTANCE).build();
    }

    /** Relays every change to listener until {@link #unlisten}. */
    public void listen(RecordListener listener) {
        relay = e -> {
            Versioned<String> value = e.type() == MapEvent.Type.REMOVE ? e.oldValue() : e.newValue();
            if (value == null) {
                return;
            }
            ObjectNode record = parse(value.value());
            long time = record.has("updated_ts") && e.type() != MapEvent.Type.REMOVE
                    ? (long) (record.get("updated_ts").asDouble() * 1000) : System.currentTimeMillis();
            listener.changed(e.type(), record, time);
        };
        map.addListener(relay);
    }

    public void unlisten() {
        if (relay != null) {
            map.removeListener(relay);
            relay = null;
        }
    }

    static ObjectNode parse(String json) {
        try {
            return Json.parseLine(json);
        } catch (ProtocolException e) {
            throw new IllegalStateException("corrupt store record", e);
        }
    }

    public void put(K key, ObjectNode record) {
        map.put(key, Json.write(record));
    }

    /** Puts the record unless the key has one; true if it was put. */
    public boolean putIfAbsent(K key, ObjectNode record) {
        return map.putIfAbsent(key, Json.write(record)) == null;
    }

    public Optional<ObjectNode> get(K key) {
        Versioned<String> v = map.get(key);
        return v == null ? Optional.empty() : Optional.of(parse(v.value()));
    }

    /** True if the key had a record. */
    public boolean remove(K key) {
        return map.remove(key) != null;
    }

    /** The records whose keys pass the filter. */
    public List<ObjectNode> values(Predicate<K> keys) {
        return map.asJavaMap().entrySet().stream().filter(e -> keys.test(e.getKey()))
                .map(e -> parse(e.getValue())).collect(Collectors.toList());
    }

    public List<ObjectNode> values() {
        return values(k -> true);
    }

    /**
     * Replaces the key's record by change(record) in one atomic step, if there is one (a record removed meanwhile
     * stays removed; nothing is created); change returns null to leave it as it is. A concurrent write wins, and
     * the change is applied again to what it wrote, a few times at most.
     */
    public void update(K key, UnaryOperator<ObjectNode> change) {
        for (int attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
            Versioned<String> current = map.get(key);
            ObjectNode updated = current == null ? null : change.apply(parse(current.value()));
            if (updated == null || map.replace(key, current.version(), Json.write(updated))) {
                return;
            }
        }
    }
}
