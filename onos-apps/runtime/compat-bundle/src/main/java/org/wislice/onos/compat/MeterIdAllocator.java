package org.wislice.onos.compat;

import org.onosproject.net.DeviceId;
import org.onosproject.net.meter.MeterFeatures;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterKey;
import org.onosproject.net.meter.MeterScope;
import org.onosproject.store.service.AtomicCounterMap;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Cluster-wide meter id allocation per (device, scope): the index range from the device's features, freed ids
 * in a shared map (claimed by an atomic remove) and the next never-used id from an atomic counter, so two nodes
 * never hand out the same id.
 */
final class MeterIdAllocator {

    private final ConsistentMap<FeaturesKey, IdRange> ranges;
    private final ConsistentMap<MeterKey, Boolean> freeIds;
    private final AtomicCounterMap<FeaturesKey> used;

    MeterIdAllocator(StorageService storage, Serializer serializer) {
        ranges = storage.<FeaturesKey, IdRange>consistentMapBuilder()
                .withName("wislice-meter-features").withSerializer(serializer).build();
        freeIds = storage.<MeterKey, Boolean>consistentMapBuilder()
                .withName("wislice-meter-free-ids").withSerializer(serializer).build();
        used = storage.<FeaturesKey>atomicCounterMapBuilder()
                .withName("wislice-meter-next-ids").withSerializer(serializer).build();
    }

    void storeFeatures(MeterFeatures f) {
        // Only the index range is needed to allocate; a small value also avoids serializing the features' sets.
        long start = Math.max(1, f.startIndex());
        long end = f.endIndex() > 0 ? f.endIndex() : f.startIndex() + f.maxMeter() - 1;
        ranges.put(new FeaturesKey(f.deviceId(), f.scope()), new IdRange(start, end));
    }

    void deleteFeatures(MeterFeatures f) {
        ranges.remove(new FeaturesKey(f.deviceId(), f.scope()));
    }

    void deleteDevice(DeviceId deviceId) {
        // The counters go with the ranges (a counter map cannot list its keys).
        List<FeaturesKey> keys = ranges.keySet().stream().filter(k -> k.deviceId.equals(deviceId))
                .collect(Collectors.toList());
        keys.forEach(k -> {
            ranges.remove(k);
            used.remove(k);
        });
        freeIds.keySet().stream().filter(k -> k.deviceId().equals(deviceId)).collect(Collectors.toList())
                .forEach(freeIds::remove);
    }

    MeterId allocate(DeviceId deviceId, MeterScope scope) {
        FeaturesKey key = new FeaturesKey(deviceId, scope);
        Versioned<IdRange> range = ranges.get(key);
        if (range == null) {
            return null;
        }
        if (scope.isGlobal()) {
            // Lowest free id first; the atomic remove decides which node gets it.
            MeterId reused = freeIds.keySet().stream()
                    .filter(k -> k.deviceId().equals(deviceId) && k.meterCellId() instanceof MeterId)
                    .map(k -> (MeterId) k.meterCellId())
                    .sorted((a, b) -> Long.compare(a.id(), b.id()))
                    .filter(id -> freeIds.remove(MeterKey.key(deviceId, id)) != null)
                    .findFirst().orElse(null);
            if (reused != null) {
                return reused;
            }
        }
        long candidate = range.value().start + used.getAndIncrement(key);
        if (candidate > range.value().end) {
            used.decrementAndGet(key); // keep the counter bounded; the range is exhausted
            return null;
        }
        return MeterId.meterId(candidate);
    }

    void free(DeviceId deviceId, MeterId meterId) {
        freeIds.put(MeterKey.key(deviceId, meterId), Boolean.TRUE);
    }

    /** Meter features and ids are kept per device and scope. */
    static final class FeaturesKey {
        private final DeviceId deviceId;
        private final MeterScope scope;

        FeaturesKey(DeviceId deviceId, MeterScope scope) {
            this.deviceId = deviceId;
            this.scope = scope;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof FeaturesKey && ((FeaturesKey) o).deviceId.equals(deviceId)
                    && ((FeaturesKey) o).scope.equals(scope);
        }

        @Override
        public int hashCode() {
            return Objects.hash(deviceId, scope);
        }
    }

    /** The meter indexes a device offers in one scope, both ends included. */
    static final class IdRange {
        private final long start;
        private final long end;

        IdRange(long start, long end) {
            this.start = start;
            this.end = end;
        }
    }
}
