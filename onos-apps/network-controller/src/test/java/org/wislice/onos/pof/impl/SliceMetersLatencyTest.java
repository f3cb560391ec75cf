package org.wislice.onos.pof.impl;

import org.junit.Test;
import org.onosproject.TestApplicationId;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DeviceId;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.DefaultBand;
import org.onosproject.net.meter.DefaultMeter;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterOperation;
import org.wislice.onos.pof.api.SliceRates;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofCodec;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;

import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

/** A meter annotated with the latency class becomes a METER_MOD with the LATENCY flag (spec/pof). */
public class SliceMetersLatencyTest {
    private static final DeviceId DEV = DeviceId.deviceId("pof:00000001");

    private static Meter meter(long id, String cls, List<Band> bands) {
        Meter.Builder b = DefaultMeter.builder().forDevice(DEV)
                .withId(MeterId.meterId(id)).fromApp(TestApplicationId.create("t"))
                .withUnit(Meter.Unit.KB_PER_SEC).withBands(bands);
        if (cls != null) {
            b.withAnnotations(DefaultAnnotations.builder().set(SliceMeters.CLASS_ANNOTATION, cls).build());
        }
        return b.build();
    }

    private static PofBody.MeterMod add(Meter m) {
        return PofMeterProvider.toMeterMod(new MeterOperation(m, MeterOperation.Type.ADD));
    }

    @Test
    public void latencyClassSetsTheFlagInPadByteOne() {
        PofBody.MeterMod mod = add(meter(4, SliceMeters.CLASS_LATENCY, SliceMeters.bands(new SliceRates(0, 2000))));
        assertEquals(PofBody.MeterMod.LATENCY, mod.flags);
        assertEquals(2000, mod.rate);
        assertEquals(0, mod.committedRate);
        byte[] wire = PofCodec.encode(new PofMessage(PofType.METER_MOD, 1, mod));
        assertEquals(PofBody.MeterMod.LATENCY, wire[8 + 1]);
        // MODIFY carries it too; DELETE needs none.
        assertEquals(PofBody.MeterMod.LATENCY, PofMeterProvider.toMeterMod(new MeterOperation(
                meter(4, SliceMeters.CLASS_LATENCY, SliceMeters.bands(new SliceRates(0, 3000))),
                MeterOperation.Type.MODIFY)).flags);
        assertEquals(0, PofMeterProvider.toMeterMod(new MeterOperation(
                meter(4, SliceMeters.CLASS_LATENCY, SliceMeters.bands(new SliceRates(0, 3000))),
                MeterOperation.Type.REMOVE)).flags);
    }

    @Test
    public void noClassIsFlagsZeroAsAReferenceControllerSends() {
        PofBody.MeterMod mod = add(meter(5, null, SliceMeters.bands(new SliceRates(1000, 2000))));
        assertEquals(0, mod.flags);
        assertEquals(1000, mod.committedRate);
        assertEquals(0, add(meter(6, "", SliceMeters.bands(new SliceRates(0, 2000)))).flags);
    }

    @Test
    public void uncappedLatencyAndUnknownClassesAreRefused() {
        Band uncapped = DefaultBand.builder().ofType(Band.Type.DROP).withRate(PofBody.MeterMod.MAX_RATE_KBPS)
                .burstSize(0).build();
        for (Meter m : List.of(meter(7, SliceMeters.CLASS_LATENCY, List.of(uncapped)),
                meter(8, "bulk", SliceMeters.bands(new SliceRates(0, 2000))))) {
            try {
                add(m);
                fail("not refused: " + m.annotations());
            } catch (IllegalArgumentException expected) {
                // refused before anything is sent
            }
        }
    }
}
