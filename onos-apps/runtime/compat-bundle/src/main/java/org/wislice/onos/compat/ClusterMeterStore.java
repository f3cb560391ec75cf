package org.wislice.onos.compat;

import org.onlab.util.KryoNamespace;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.DefaultBand;
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
import org.onosproject.store.serializers.KryoNamespaces;
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
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * MeterStore with the ONOS 2.5 API, shared by the cluster. Registered above the 2.4.0 DistributedMeterStore
 * (which lacks 11 of these methods, so MeterManager would fail with AbstractMethodError).
 * Life cycle as in ONOS: add -> PENDING_ADD + METER_ADD_REQ; the provider's report -> updateMeterState -> ADDED
 * completes the add future; delete -> PENDING_REMOVE + METER_REM_REQ; purgeMeter removes and completes it.
 * Meters, features and ids live in Atomix primitives; the events and the futures come from the meter map's
 * events on every node, so a request made on one node is completed by a report or purge handled on another.
 */
@Component(immediate = true, service = MeterStore.class, property = {"service.ranking:Integer=1000"})
public class ClusterMeterStore extends AbstractStore<MeterEvent, MeterStoreDelegate> implements MeterStore {

    static final Serializer SERIALIZER = Serializer.using(KryoNamespace.newBuilder()
            .register(KryoNamespaces.API)
            .register(MeterEntry.class, MeterKey.class, MeterScope.class, MeterState.class, DefaultMeter.class,
                      DefaultBand.class, Band.Type.class, Meter.Unit.class, MeterIdAllocator.FeaturesKey.class,
                      MeterIdAllocator.IdRange.class)
            .build("WiSliceMeterStore"));

    private final Logger log = getLogger(getClass());
    // Futures stay on the node that made the request; the shared map's events complete them.
    private final Map<MeterKey, CompletableFuture<MeterStoreResult>> futures = new ConcurrentHashMap<>();
    private final MapEventListener<MeterKey, MeterEntry> listener = this::onMeterEvent;
    private ConsistentMap<MeterKey, MeterEntry> meters;
    private MeterIdAllocator ids;
    private volatile boolean userDefinedIndex = false;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    @Activate
    protected void activate() {
        meters = storageService.<MeterKey, MeterEntry>consistentMapBuilder()
                .withName("wislice-meters").withSerializer(SERIALIZER).build();
        meters.addListener(listener);
        ids = new MeterIdAllocator(storageService, SERIALIZER);
        log.info("Started cluster MeterStore (2.5 API, WiSlice runtime)");
    }

    @Deactivate
    protected void deactivate() {
        meters.removeListener(listener);
        log.info("Stopped cluster MeterStore");
    }

    @Override
    public CompletableFuture<MeterStoreResult> addOrUpdateMeter(Meter meter) {
        MeterKey key = MeterKey.key(meter.deviceId(), meter.meterCellId());
        CompletableFuture<MeterStoreResult> future = new CompletableFuture<>();
        futures.put(key, future);
        MeterEntry[] previous = new MeterEntry[1];
        meters.compute(key, (k, old) -> {
            previous[0] = old;
            long life = old == null ? 0 : old.meter.life();
            return new MeterEntry(withState(meter, MeterState.PENDING_ADD, life), nextRequest(old));
        });
        if (previous[0] != null && previous[0].meter.state() == MeterState.ADDED) {
            // An update of an installed meter: the device keeps it, nothing more to wait for.
            complete(key, MeterStoreResult.success());
        }
        return future;
    }

    @Override
    public CompletableFuture<MeterStoreResult> deleteMeter(Meter meter) {
        MeterKey key = MeterKey.key(meter.deviceId(), meter.meterCellId());
        CompletableFuture<MeterStoreResult> future = new CompletableFuture<>();
        futures.put(key, future);
        Versioned<MeterEntry> pending = meters.computeIfPresent(key, (k, old) -> new MeterEntry(
                withState(old.meter, MeterState.PENDING_REMOVE, old.meter.life()), nextRequest(old)));
        if (pending == null) {
            complete(key, MeterStoreResult.fail(MeterFailReason.INVALID_METER));
        }
        return future;
    }

    @Override
    public MeterStoreResult storeMeterFeatures(MeterFeatures meterFeatures) {
        ids.storeFeatures(meterFeatures);
        return MeterStoreResult.success();
    }

    @Override
    public MeterStoreResult storeMeterFeatures(Collection<MeterFeatures> meterFeatures) {
        meterFeatures.forEach(this::storeMeterFeatures);
        return MeterStoreResult.success();
    }

    @Override
    public MeterStoreResult deleteMeterFeatures(DeviceId deviceId) {
        ids.deleteDevice(deviceId);
        return MeterStoreResult.success();
    }

    @Override
    public MeterStoreResult deleteMeterFeatures(Collection<MeterFeatures> meterFeatures) {
        meterFeatures.forEach(ids::deleteFeatures);
        return MeterStoreResult.success();
    }

    @Override
    public Meter updateMeterState(Meter meter) {
        MeterKey key = MeterKey.key(meter.deviceId(), meter.meterCellId());
        Versioned<MeterEntry> updated = meters.computeIfPresent(key, (k, stored) -> {
            // As ONOS's own store: a report settles only a pending add. A stale report that still lists a meter
            // being removed must not make it ADDED again (MeterManager would then re-install it).
            MeterState state = stored.meter.state() == MeterState.PENDING_ADD ? meter.state() : stored.meter.state();
            DefaultMeter m = (DefaultMeter) withState(stored.meter, state, meter.life());
            m.setProcessedBytes(meter.bytesSeen());
            m.setProcessedPackets(meter.packetsSeen());
            m.setReferenceCount(meter.referenceCount());
            return new MeterEntry(m, stored.request);
        });
        return updated == null ? null : updated.value().meter;
    }

    @Override
    public Meter getMeter(MeterKey key) {
        Versioned<MeterEntry> entry = meters.get(key);
        return entry == null ? null : entry.value().meter;
    }

    @Override
    public Collection<Meter> getAllMeters() {
        return meters.values().stream().map(v -> v.value().meter).collect(Collectors.toList());
    }

    @Override
    public Collection<Meter> getAllMeters(DeviceId deviceId) {
        return getAllMeters().stream().filter(m -> m.deviceId().equals(deviceId)).collect(Collectors.toList());
    }

    @Override
    public Collection<Meter> getAllMeters(DeviceId deviceId, MeterScope scope) {
        // Only the global (MeterId) scope exists on this runtime's devices.
        return scope.isGlobal() ? getAllMeters(deviceId) : List.of();
    }

    @Override
    public void failedMeter(MeterOperation op, MeterFailReason reason) {
        MeterKey key = MeterKey.key(op.meter().deviceId(), op.meter().meterCellId());
        // The reason goes through the map so that the node holding the request's future completes it.
        meters.computeIfPresent(key, (k, old) -> new MeterEntry(old.meter, old.request, reason));
        if (op.type() == MeterOperation.Type.ADD) {
            meters.remove(key);
        }
        complete(key, MeterStoreResult.fail(reason));
    }

    @Override
    public void purgeMeter(Meter meter) {
        MeterKey key = MeterKey.key(meter.deviceId(), meter.meterCellId());
        Versioned<MeterEntry> removed = meters.remove(key);
        complete(key, MeterStoreResult.success());
        if (removed != null && removed.value().meter.meterCellId() instanceof MeterId) {
            // The id is free again, as ONOS's distributed store frees it here: without this a device ran out of
            // meter ids after as many slices as it has meters (the soak failed at its 128th slice).
            freeMeterId(meter.deviceId(), (MeterId) removed.value().meter.meterCellId());
        }
    }

    @Override
    public MeterCellId allocateMeterId(DeviceId deviceId, MeterScope scope) {
        // In user-defined index mode the application picks indexes itself.
        return userDefinedIndex ? null : ids.allocate(deviceId, scope);
    }

    @Override
    public void freeMeterId(DeviceId deviceId, MeterId meterId) {
        ids.free(deviceId, meterId);
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

    /** Runs on every node for every change of the shared meter map. */
    private void onMeterEvent(MapEvent<MeterKey, MeterEntry> event) {
        MeterEntry now = event.newValue() == null ? null : event.newValue().value();
        MeterEntry before = event.oldValue() == null ? null : event.oldValue().value();
        if (now == null) {
            if (before != null && before.reason == null) {
                complete(event.key(), MeterStoreResult.success());
                notifyDelegate(new MeterEvent(MeterEvent.Type.METER_REMOVED, before.meter));
            }
            return;
        }
        if (now.reason != null) {
            complete(event.key(), MeterStoreResult.fail(now.reason));
            return;
        }
        MeterState state = now.meter.state();
        if (before == null || before.request != now.request) {
            // A new add or delete request (a report only refreshes state and counters).
            if (state == MeterState.PENDING_ADD) {
                notifyDelegate(new MeterEvent(MeterEvent.Type.METER_ADD_REQ, now.meter));
            } else if (state == MeterState.PENDING_REMOVE) {
                notifyDelegate(new MeterEvent(MeterEvent.Type.METER_REM_REQ, now.meter));
            }
        } else if (before.meter.state() == MeterState.PENDING_ADD && state == MeterState.ADDED) {
            complete(event.key(), MeterStoreResult.success());
            notifyDelegate(new MeterEvent(MeterEvent.Type.METER_ADDED, now.meter));
        }
    }

    private void complete(MeterKey key, MeterStoreResult result) {
        CompletableFuture<MeterStoreResult> future = futures.remove(key);
        if (future != null) {
            future.complete(result);
        }
    }

    private static long nextRequest(MeterEntry old) {
        return old == null ? 1 : old.request + 1;
    }

    private static Meter withState(Meter meter, MeterState state, long life) {
        Meter.Builder builder = DefaultMeter.builder()
                .forDevice(meter.deviceId())
                .withCellId(meter.meterCellId())
                .withUnit(meter.unit())
                // A plain list: the serializer knows ArrayList, not the caller's immutable list classes.
                .withBands(new ArrayList<>(meter.bands()))
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

    /** A stored meter with its request number (bumped by each add or delete) and the failure reason, if any. */
    static final class MeterEntry {
        private final Meter meter;
        private final long request;
        private final MeterFailReason reason;

        MeterEntry(Meter meter, long request) {
            this(meter, request, null);
        }

        MeterEntry(Meter meter, long request, MeterFailReason reason) {
            this.meter = meter;
            this.request = request;
            this.reason = reason;
        }
    }
}
