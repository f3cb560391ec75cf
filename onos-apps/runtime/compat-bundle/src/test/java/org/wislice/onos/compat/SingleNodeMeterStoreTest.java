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
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterKey;
import org.onosproject.net.meter.MeterScope;
import org.onosproject.net.meter.MeterState;
import org.onosproject.net.meter.MeterStoreResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/** The meter life cycle MeterManager drives: add, the provider's reports, delete, purge. */
public class SingleNodeMeterStoreTest {

    private static final DeviceId DEV = DeviceId.deviceId("pof:00000001");
    private static final MeterId ID = MeterId.meterId(2);

    private SingleNodeMeterStore store;
    private final List<MeterEvent.Type> events = new ArrayList<>();

    @Before
    public void setUp() {
        store = new SingleNodeMeterStore();
        store.setDelegate(event -> events.add(event.type()));
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
        SingleNodeMeterStore fresh = new SingleNodeMeterStore();
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
}
