package org.wislice.onos.compat;

import org.junit.Before;
import org.junit.Test;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DeviceId;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.DefaultBand;
import org.onosproject.net.meter.DefaultMeter;
import org.onosproject.net.meter.DefaultMeterFeatures;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterEvent;
import org.onosproject.net.meter.MeterFailReason;
import org.onosproject.net.meter.MeterOperation;
import org.onosproject.net.meter.MeterFeatures;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterKey;
import org.onosproject.net.meter.MeterScope;
import org.onosproject.net.meter.MeterState;
import org.onosproject.net.meter.MeterStoreResult;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/** The meter life cycle MeterManager drives: add, the provider's reports, delete, purge. */
public class ClusterMeterStoreTest {

    private static final DeviceId DEV = DeviceId.deviceId("pof:00000001");
    private static final MeterId ID = MeterId.meterId(2);

    private SharedTestStorage storage;
    private ClusterMeterStore store;
    private final List<MeterEvent.Type> events = new ArrayList<>();

    @Before
    public void setUp() {
        storage = new SharedTestStorage();
        store = node(storage);
        store.setDelegate(event -> events.add(event.type()));
    }

    /** A store as one node of a cluster whose shared state is the given storage. */
    private static ClusterMeterStore node(SharedTestStorage shared) {
        ClusterMeterStore node = new ClusterMeterStore();
        node.storageService = shared;
        node.activate();
        return node;
    }

    private static MeterFeatures features(long start, long end) {
        return DefaultMeterFeatures.builder().forDevice(DEV).withMaxMeters(end - start + 1).withStartIndex(start)
                .withEndIndex(end).withBandTypes(Set.of(Band.Type.DROP)).withUnits(Set.of(Meter.Unit.KB_PER_SEC))
                .withMaxBands((short) 1).withMaxColors((short) 1).build();
    }

    private static Meter meter(MeterState state) {
        DefaultMeter m = (DefaultMeter) DefaultMeter.builder().forDevice(DEV).withId(ID)
                .fromApp(new DefaultApplicationId(1, "test")).withUnit(Meter.Unit.KB_PER_SEC)
                .withBands(List.of(DefaultBand.builder().ofType(Band.Type.DROP).withRate(1000).build())).build();
        m.setState(state);
        return m;
    }

    private MeterState stored() {
        return store.getMeter(MeterKey.key(DEV, ID)).state();
    }

    @Test
    public void annotationsReachTheProviderAndStay() {
        Meter annotated = DefaultMeter.builder().forDevice(DEV).withId(ID)
                .fromApp(new DefaultApplicationId(1, "test")).withUnit(Meter.Unit.KB_PER_SEC)
                .withBands(List.of(DefaultBand.builder().ofType(Band.Type.DROP).withRate(1000).build()))
                .withAnnotations(DefaultAnnotations.builder().set("wislice.class", "latency").build()).build();
        List<Meter> requested = new ArrayList<>();
        ClusterMeterStore fresh = node(new SharedTestStorage());
        fresh.setDelegate(event -> requested.add(event.subject()));
        fresh.addOrUpdateMeter(annotated);
        assertEquals("latency", requested.get(0).annotations().value("wislice.class"));
        fresh.updateMeterState(meter(MeterState.ADDED));
        assertEquals("latency", fresh.getMeter(MeterKey.key(DEV, ID)).annotations().value("wislice.class"));
    }

    @Test
    public void reportSettlesPendingAdd() {
        CompletableFuture<MeterStoreResult> added = store.addOrUpdateMeter(meter(MeterState.PENDING_ADD));
        assertEquals(MeterState.PENDING_ADD, stored());
        store.updateMeterState(meter(MeterState.ADDED));
        assertEquals(MeterState.ADDED, stored());
        assertTrue(added.isDone() && added.join().type() == MeterStoreResult.Type.SUCCESS);
        assertEquals(List.of(MeterEvent.Type.METER_ADD_REQ, MeterEvent.Type.METER_ADDED), events);
    }

    @Test
    public void staleReportDoesNotUndoPendingRemove() {
        store.addOrUpdateMeter(meter(MeterState.PENDING_ADD));
        store.updateMeterState(meter(MeterState.ADDED));
        CompletableFuture<MeterStoreResult> removed = store.deleteMeter(meter(MeterState.ADDED));
        assertEquals(MeterState.PENDING_REMOVE, stored());

        // A report computed before the switch dropped the meter still lists it as ADDED.
        store.updateMeterState(meter(MeterState.ADDED));
        assertEquals(MeterState.PENDING_REMOVE, stored());
        assertTrue(!removed.isDone());

        store.purgeMeter(meter(MeterState.PENDING_REMOVE));
        assertNull(store.getMeter(MeterKey.key(DEV, ID)));
        assertTrue(removed.isDone() && removed.join().type() == MeterStoreResult.Type.SUCCESS);
        assertEquals(MeterEvent.Type.METER_REMOVED, events.get(events.size() - 1));
    }

    @Test
    public void purgedMetersIdIsAllocatedAgain() {
        store.storeMeterFeatures(DefaultMeterFeatures.builder().forDevice(DEV).withMaxMeters(2).withStartIndex(1)
                .withEndIndex(2).withBandTypes(Set.of(Band.Type.DROP)).withUnits(Set.of(Meter.Unit.KB_PER_SEC))
                .withMaxBands((short) 1).withMaxColors((short) 1).build());
        assertEquals(MeterId.meterId(1), store.allocateMeterId(DEV, MeterScope.globalScope()));
        assertEquals(ID, store.allocateMeterId(DEV, MeterScope.globalScope()));
        assertNull("every id taken", store.allocateMeterId(DEV, MeterScope.globalScope()));
        store.addOrUpdateMeter(meter(MeterState.PENDING_ADD));
        store.updateMeterState(meter(MeterState.ADDED));
        store.deleteMeter(meter(MeterState.ADDED));
        store.purgeMeter(meter(MeterState.PENDING_REMOVE));
        assertEquals("the purged meter's id", ID, store.allocateMeterId(DEV, MeterScope.globalScope()));
    }

    @Test
    public void reportOfUnknownMeterIsIgnored() {
        assertNull(store.updateMeterState(meter(MeterState.ADDED)));
        assertTrue(store.getAllMeters(DEV).isEmpty());
    }

    @Test
    public void storedMeterSurvivesTheSerializer() {
        store.addOrUpdateMeter(meter(MeterState.PENDING_ADD));
        Meter stored = store.getMeter(MeterKey.key(DEV, ID));
        Object entry = new ClusterMeterStore.MeterEntry(stored, 1);
        ClusterMeterStore.MeterEntry copy = ClusterMeterStore.SERIALIZER.decode(
                ClusterMeterStore.SERIALIZER.encode(entry));
        assertNotNull(copy);
        assertEquals(stored, ClusterMeterStore.SERIALIZER.decode(ClusterMeterStore.SERIALIZER.encode(stored)));
        assertEquals(MeterKey.key(DEV, ID),
                ClusterMeterStore.SERIALIZER.decode(ClusterMeterStore.SERIALIZER.encode(MeterKey.key(DEV, ID))));
    }

    @Test
    public void meterAddedOnOneNodeIsListedByTheOther() {
        ClusterMeterStore other = node(storage);
        List<MeterEvent.Type> otherEvents = new ArrayList<>();
        other.setDelegate(event -> otherEvents.add(event.type()));
        CompletableFuture<MeterStoreResult> added = store.addOrUpdateMeter(meter(MeterState.PENDING_ADD));
        assertEquals(MeterState.PENDING_ADD, other.getMeter(MeterKey.key(DEV, ID)).state());
        assertEquals(1, other.getAllMeters(DEV).size());
        // The report reaches the other node (say the device's master); the requesting node's future completes.
        other.updateMeterState(meter(MeterState.ADDED));
        assertEquals(MeterState.ADDED, stored());
        assertTrue(added.isDone() && added.join().type() == MeterStoreResult.Type.SUCCESS);
        assertEquals(List.of(MeterEvent.Type.METER_ADD_REQ, MeterEvent.Type.METER_ADDED), otherEvents);
    }

    @Test
    public void featuresStoredByOneNodeLetTheOtherAllocate() {
        ClusterMeterStore other = node(storage);
        assertNull(other.allocateMeterId(DEV, MeterScope.globalScope()));
        store.storeMeterFeatures(features(1, 4));
        assertNotNull(other.allocateMeterId(DEV, MeterScope.globalScope()));
    }

    @Test
    public void twoNodesNeverAllocateTheSameId() {
        ClusterMeterStore other = node(storage);
        store.storeMeterFeatures(features(1, 6));
        Set<Object> seen = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            assertTrue(seen.add(store.allocateMeterId(DEV, MeterScope.globalScope())));
            assertTrue(seen.add(other.allocateMeterId(DEV, MeterScope.globalScope())));
        }
        assertNull(store.allocateMeterId(DEV, MeterScope.globalScope()));
        // A freed id goes to one node only.
        other.freeMeterId(DEV, ID);
        assertEquals(ID, store.allocateMeterId(DEV, MeterScope.globalScope()));
        assertNull(other.allocateMeterId(DEV, MeterScope.globalScope()));
    }

    @Test
    public void deleteOnOneNodeCompletesWhenTheOtherPurges() {
        ClusterMeterStore other = node(storage);
        store.addOrUpdateMeter(meter(MeterState.PENDING_ADD));
        other.updateMeterState(meter(MeterState.ADDED));
        CompletableFuture<MeterStoreResult> removed = store.deleteMeter(meter(MeterState.ADDED));
        assertFalse(removed.isDone());
        other.purgeMeter(meter(MeterState.PENDING_REMOVE));
        assertTrue(removed.isDone() && removed.join().type() == MeterStoreResult.Type.SUCCESS);
        assertNull(store.getMeter(MeterKey.key(DEV, ID)));
    }

    @Test
    public void failureOnOneNodeFailsTheOthersRequest() {
        ClusterMeterStore other = node(storage);
        CompletableFuture<MeterStoreResult> added = store.addOrUpdateMeter(meter(MeterState.PENDING_ADD));
        other.failedMeter(new MeterOperation(meter(MeterState.PENDING_ADD), MeterOperation.Type.ADD),
                          MeterFailReason.TIMEOUT);
        assertTrue(added.isDone() && added.join().type() == MeterStoreResult.Type.FAIL);
        assertNull(store.getMeter(MeterKey.key(DEV, ID)));
    }
}
