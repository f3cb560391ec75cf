package org.wislice.onos.compat;

import org.onosproject.store.service.AsyncAtomicCounterMap;
import org.onosproject.store.service.AsyncConsistentMap;
import org.onosproject.store.service.AtomicCounterMap;
import org.onosproject.store.service.AtomicCounterMapBuilder;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.ConsistentMapBuilder;
import org.onosproject.store.service.TestAtomicCounterMap;
import org.onosproject.store.service.TestConsistentMap;
import org.onosproject.store.service.TestStorageService;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * TestStorageService builds a new primitive on every build(); this one hands out the same primitive per name,
 * so two stores over one instance behave like two nodes of a cluster.
 */
class SharedTestStorage extends TestStorageService {

    private final Map<String, Object> primitives = new ConcurrentHashMap<>();

    @Override
    @SuppressWarnings("unchecked")
    public <K, V> ConsistentMapBuilder<K, V> consistentMapBuilder() {
        return new ConsistentMapBuilder<K, V>() {
            @Override
            public ConsistentMap<K, V> build() {
                return (ConsistentMap<K, V>) primitives.computeIfAbsent(name(),
                        n -> {
                            ConsistentMapBuilder<K, V> b = new TestConsistentMap.Builder<>();
                            b.withName(n);
                            b.withSerializer(serializer());
                            return b.build();
                        });
            }

            @Override
            public AsyncConsistentMap<K, V> buildAsyncMap() {
                throw new UnsupportedOperationException();
            }
        };
    }

    @Override
    @SuppressWarnings("unchecked")
    public <K> AtomicCounterMapBuilder<K> atomicCounterMapBuilder() {
        return new AtomicCounterMapBuilder<K>() {
            @Override
            public AtomicCounterMap<K> build() {
                return (AtomicCounterMap<K>) primitives.computeIfAbsent(name(),
                        n -> {
                            AtomicCounterMapBuilder<K> b = new TestAtomicCounterMap.Builder<>();
                            b.withName(n);
                            return b.build();
                        });
            }

            @Override
            public AsyncAtomicCounterMap<K> buildAsyncMap() {
                throw new UnsupportedOperationException();
            }
        };
    }
}
