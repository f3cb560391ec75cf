package org.wislice.onos.compat;

import org.onosproject.persistence.PersistenceService;
import org.onosproject.persistence.PersistentMapBuilder;
import org.onosproject.persistence.PersistentSetBuilder;
import org.onosproject.store.service.Serializer;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.slf4j.Logger;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * PersistenceService whose maps and sets live in memory (onos-core-persistence is unpublished for 2.x).
 * Named collections are shared, so a component that rebuilds a map by name sees the same content.
 */
@Component(immediate = true, service = PersistenceService.class)
public class InMemoryPersistenceService implements PersistenceService {

    private final Logger log = getLogger(getClass());
    private final Map<String, Map<?, ?>> maps = new ConcurrentHashMap<>();
    private final Map<String, Set<?>> sets = new ConcurrentHashMap<>();

    @Activate
    protected void activate() {
        log.info("Started in-memory PersistenceService (WiSlice runtime)");
    }

    @Override
    public <K, V> PersistentMapBuilder<K, V> persistentMapBuilder() {
        return new MapBuilder<>();
    }

    @Override
    public <E> PersistentSetBuilder<E> persistentSetBuilder() {
        return new SetBuilder<>();
    }

    private final class MapBuilder<K, V> implements PersistentMapBuilder<K, V> {
        private String name = "";

        @Override
        public PersistentMapBuilder<K, V> withName(String name) {
            this.name = name;
            return this;
        }

        @Override
        public PersistentMapBuilder<K, V> withSerializer(Serializer serializer) {
            return this; // values stay objects in memory: nothing to serialize
        }

        @Override
        @SuppressWarnings("unchecked")
        public Map<K, V> build() {
            return (Map<K, V>) maps.computeIfAbsent(name, n -> new ConcurrentHashMap<K, V>());
        }
    }

    private final class SetBuilder<E> implements PersistentSetBuilder<E> {
        private String name = "";

        @Override
        public PersistentSetBuilder<E> withName(String name) {
            this.name = name;
            return this;
        }

        @Override
        public PersistentSetBuilder<E> withSerializer(Serializer serializer) {
            return this;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Set<E> build() {
            return (Set<E>) sets.computeIfAbsent(name, n -> ConcurrentHashMap.<E>newKeySet());
        }
    }
}
