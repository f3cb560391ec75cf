package org.wislice.onos.compat;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.meter.DefaultMeter;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterCellId;
import org.onosproject.net.meter.MeterEvent;
import org.onosproject.net.meter.MeterFailReason;
import org.onosproject.net.meter.MeterFeatures;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterKey;
import org.onosproject.net.meter.MeterOperation;
import org.onosproject.net.meter.MeterScope;
import org.onosproject.net.meter.MeterState;
import org.onosproject.net.meter.MeterStore;
import org.onosproject.net.meter.MeterStoreDelegate;
import org.onosproject.net.meter.MeterStoreResult;
import org.onosproject.store.AbstractStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.slf4j.Logger;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * MeterStore with the ONOS 2.5 API for one node. Registered above the 2.4.0 DistributedMeterStore (which lacks
 * 11 of these methods, so MeterManager would fail with AbstractMethodError).
 * Life cycle as in ONOS: add -> PENDING_ADD + METER_ADD_REQ; the provider's report -> updateMeterState -> ADDED
 * completes the add future; delete -> PENDING_REMOVE + METER_REM_REQ; purgeMeter removes and completes it.
 */
@Component(immediate = true, service = MeterStore.class, property = {"service.ranking:Integer=1000"})
public class SingleNodeMeterStore extends AbstractStore<MeterEvent, MeterStoreDelegate> implements MeterStore {

    private final Logger log = getLogger(getClass());
    private final Map<MeterKey, Meter> meters = new ConcurrentHashMap<>();
    private final Map<MeterKey, CompletableFuture<MeterStoreResult>> futures = new ConcurrentHashMap<>();
    private final Map<FeaturesKey, MeterFeatures> features = new ConcurrentHashMap<>();
    private final Map<FeaturesKey, NavigableSet<Long>> freeIds = new ConcurrentHashMap<>();
    private final Map<FeaturesKey, Long> nextId = new ConcurrentHashMap<>();
    private volatile boolean userDefinedIndex = false;

    @Activate
    protected void activate() {
        log.info("Started single-node MeterStore (2.5 API, WiSlice runtime)");
    }

    @Override
    public CompletableFuture<MeterStoreResult> addOrUpdateMeter(Meter meter) {
        MeterKey key = MeterKey.key(meter.deviceId(), meter.meterCellId());
        CompletableFuture<MeterStoreResult> future = new CompletableFuture<>();
        futures.put(key, future);
        Meter previous = meters.put(key, withState(meter, MeterState.PENDING_ADD, existingLife(key)));
        notifyDelegate(new MeterEvent(MeterEvent.Type.METER_ADD_REQ, meters.get(key)));
        if (previous != null && previous.state() == MeterState.ADDED) {
            // An update of an installed meter: the device keeps it, nothing more to wait for.
            future.complete(MeterStoreResult.success());
        }
        return future;
    }

    @Override
    public CompletableFuture<MeterStoreResult> deleteMeter(Meter meter) {
        MeterKey key = MeterKey.key(meter.deviceId(), meter.meterCellId());
        CompletableFuture<MeterStoreResult> future = new CompletableFuture<>();
        Meter stored = meters.get(key);
        if (stored == null) {
            future.complete(MeterStoreResult.fail(MeterFailReason.INVALID_METER));
            return future;
        }
        futures.put(key, future);
        Meter pending = withState(stored, MeterState.PENDING_REMOVE, stored.life());
        meters.put(key, pending);
        notifyDelegate(new MeterEvent(MeterEvent.Type.METER_REM_REQ, pending));
        return future;
    }

    @Override
    public MeterStoreResult storeMeterFeatures(MeterFeatures meterFeatures) {
        features.put(new FeaturesKey(meterFeatures.deviceId(), meterFeatures.scope()), meterFeatures);
        return MeterStoreResult.success();
    }

    @Override
    public MeterStoreResult storeMeterFeatures(Collection<MeterFeatures> meterFeatures) {
        meterFeatures.forEach(this::storeMeterFeatures);
        return MeterStoreResult.success();
    }

    @Override
    public MeterStoreResult deleteMeterFeatures(DeviceId deviceId) {
        features.keySet().removeIf(k -> k.deviceId.equals(deviceId));
        freeIds.keySet().removeIf(k -> k.deviceId.equals(deviceId));
        nextId.keySet().removeIf(k -> k.deviceId.equals(deviceId));
        return MeterStoreResult.success();
    }

    @Override
    public MeterStoreResult deleteMeterFeatures(Collection<MeterFeatures> meterFeatures) {
        meterFeatures.forEach(f -> features.remove(new FeaturesKey(f.deviceId(), f.scope())));
        return MeterStoreResult.success();
    }

    @Override
    public Meter updateMeterState(Meter meter) {
        MeterKey key = MeterKey.key(meter.deviceId(), meter.meterCellId());
        Meter[] before = new Meter[1];
        Meter updated = meters.computeIfPresent(key, (k, stored) -> {
            before[0] = stored;
            // As ONOS's own store: a report settles only a pending add. A stale report that still lists a meter
            // being removed must not make it ADDED again (MeterManager would then re-install it).
            MeterState state = stored.state() == MeterState.PENDING_ADD ? meter.state() : stored.state();
            DefaultMeter m = (DefaultMeter) withState(stored, state, meter.life());
            m.setProcessedBytes(meter.bytesSeen());
            m.setProcessedPackets(meter.packetsSeen());
            m.setReferenceCount(meter.referenceCount());
            return m;
        });
        if (updated != null && before[0].state() == MeterState.PENDING_ADD && updated.state() == MeterState.ADDED) {
            complete(key, MeterStoreResult.success());
            notifyDelegate(new MeterEvent(MeterEvent.Type.METER_ADDED, updated));
        }
        return updated;
    }

    @Override
    public Meter getMeter(MeterKey key) {
        return meters.get(key);
    }

    @Override
    public Collection<Meter> getAllMeters() {
        return List.copyOf(meters.values());
    }

    @Override
    public Collection<Meter> getAllMeters(DeviceId deviceId) {
        return meters.values().stream().filter(m -> m.deviceId().equals(deviceId)).collect(Collectors.toList());
    }

    @Override
    public Collection<Meter> getAllMeters(DeviceId deviceId, MeterScope scope) {
        // Only the global (MeterId) scope exists on this runtime's devices.
        return scope.isGlobal() ? getAllMeters(deviceId) : List.of();
    }

    @Override
    public void failedMeter(MeterOperation op, MeterFailReason reason) {
        MeterKey key = MeterKey.key(op.meter().deviceId(), op.meter().meterCellId());
        if (op.type() == MeterOperation.Type.ADD) {
            meters.remove(key);
        }
        complete(key, MeterStoreResult.fail(reason));
    }

    @Override
    public void purgeMeter(Meter meter) {
        MeterKey key = MeterKey.key(meter.deviceId(), meter.meterCellId());
        Meter removed = meters.remove(key);
        complete(key, MeterStoreResult.success());
        if (removed != null) {
            // The id is free again, as ONOS's distributed store frees it here: without this a device ran out of
            // meter ids after as many slices as it has meters (the soak failed at its 128th slice).
            if (removed.meterCellId() instanceof MeterId) {
                freeMeterId(removed.deviceId(), (MeterId) removed.meterCellId());
            }
            notifyDelegate(new MeterEvent(MeterEvent.Type.METER_REMOVED, removed));
        }
    }

    @Override
    public MeterCellId allocateMeterId(DeviceId deviceId, MeterScope scope) {
        if (userDefinedIndex) {
            return null; // the application picks indexes itself in this mode
        }
        FeaturesKey key = new FeaturesKey(deviceId, scope);
        MeterFeatures feats = features.get(key);
        if (feats == null) {
            return null;
        }
        Long reused = freeIds.computeIfAbsent(key, k -> new ConcurrentSkipListSet<>()).pollFirst();
        if (reused != null) {
            return MeterId.meterId(reused);
        }
        long end = feats.endIndex() > 0 ? feats.endIndex() : feats.startIndex() + feats.maxMeter() - 1;
        synchronized (nextId) {
            long candidate = nextId.getOrDefault(key, Math.max(1, feats.startIndex()));
            if (candidate > end) {
                return null;
            }
            nextId.put(key, candidate + 1);
            return MeterId.meterId(candidate);
        }
    }

    @Override
    public void freeMeterId(DeviceId deviceId, MeterId meterId) {
        freeIds.computeIfAbsent(new FeaturesKey(deviceId, MeterScope.globalScope()),
                                k -> new ConcurrentSkipListSet<>()).add(meterId.id());
    }

    @Override
    public void purgeMeters(DeviceId deviceId) {
        getAllMeters(deviceId).forEach(this::purgeMeter);
    }

    @Override
    public void purgeMeters(DeviceId deviceId, ApplicationId appId) {
        getAllMeters(deviceId).stream().filter(m -> m.appId().equals(appId)).forEach(this::purgeMeter);
    }

    @Override
    public boolean userDefinedIndexMode(boolean enable) {
        userDefinedIndex = enable;
        return userDefinedIndex;
    }

    private long existingLife(MeterKey key) {
        Meter existing = meters.get(key);
        return existing == null ? 0 : existing.life();
    }

    private void complete(MeterKey key, MeterStoreResult result) {
        CompletableFuture<MeterStoreResult> future = futures.remove(key);
        if (future != null) {
            future.complete(result);
        }
    }

    private static Meter withState(Meter meter, MeterState state, long life) {
        Meter.Builder builder = DefaultMeter.builder()
                .forDevice(meter.deviceId())
                .withCellId(meter.meterCellId())
                .withUnit(meter.unit())
                .withBands(meter.bands())
                .fromApp(meter.appId());
        if (meter.isBurst()) {
            builder.burst();
        }
        // The provider gets the stored copy: a request's annotations (e.g. a slice meter's latency class) must
        // reach it, as ONOS's distributed store keeps them.
        if (meter.annotations() != null && !meter.annotations().keys().isEmpty()) {
            builder.withAnnotations(meter.annotations());
        }
        DefaultMeter copy = (DefaultMeter) builder.build();
        copy.setState(state);
        copy.setLife(life);
        copy.setReferenceCount(meter.referenceCount());
        copy.setProcessedBytes(meter.bytesSeen());
        copy.setProcessedPackets(meter.packetsSeen());
        return copy;
    }

    /** Meter features are kept per device and scope. */
    private static final class FeaturesKey {
        private final DeviceId deviceId;
        private final MeterScope scope;

        private FeaturesKey(DeviceId deviceId, MeterScope scope) {
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
}
