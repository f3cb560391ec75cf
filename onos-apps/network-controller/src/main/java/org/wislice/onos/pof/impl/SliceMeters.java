package org.wislice.onos.pof.impl;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DeviceId;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.DefaultBand;
import org.onosproject.net.meter.DefaultMeterRequest;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterRequest;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;
import org.wislice.onos.pof.wire.PofBody;

import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * How a slice direction's rates are an ONOS meter, and how the POF meter provider reads one back (kbps, unit
 * KB_PER_SEC):
 * <ul>
 * <li>a cap only: one DROP band at the cap (a single-rate POF meter, committed_rate 0);</li>
 * <li>a guarantee: a DROP band at the peak rate (the cap, or {@link org.wislice.onos.pof.api.SlicePath#MAX_RATE_KBPS}
 * when uncapped) and a MARK_YELLOW band at the committed rate (the guarantee): traffic above the committed rate
 * is yellow, above the peak it waits in the meter's queue and is dropped beyond it.</li>
 * </ul>
 */
final class SliceMeters {
    /** Band types that carry a two-rate meter's committed rate. */
    static final Set<Band.Type> COMMITTED_BANDS = Set.of(Band.Type.MARK_YELLOW, Band.Type.REMARK);
    /**
     * The meter annotation that gives a slice direction its class: {@link #CLASS_LATENCY} makes the POF meter a
     * latency-class meter (METER_MOD flag LATENCY). ONOS bands have no notion of a priority class, and ONOS copies
     * a meter request's annotations onto the meter the provider gets.
     */
    static final String CLASS_ANNOTATION = "wislice.class";
    static final String CLASS_LATENCY = "latency";
    /** The METER_MOD flags of a latency-class meter. */
    static final int LATENCY_FLAG = PofBody.MeterMod.LATENCY;

    private SliceMeters() {
    }

    static List<Band> bands(SliceRates rates) {
        Band peak = DefaultBand.builder().ofType(Band.Type.DROP).withRate(rates.peakKbps()).burstSize(0).build();
        if (rates.guaranteedKbps == 0) {
            return List.of(peak);
        }
        Band committed = DefaultBand.builder().ofType(Band.Type.MARK_YELLOW).withRate(rates.guaranteedKbps)
                .burstSize(0).build();
        return List.of(peak, committed);
    }

    static MeterRequest.Builder request(ApplicationId appId, String deviceId, SliceRates rates) {
        return request(appId, deviceId, rates, false);
    }

    /** A meter of the rates; latency: annotated {@link #CLASS_ANNOTATION}={@link #CLASS_LATENCY}. */
    static MeterRequest.Builder request(ApplicationId appId, String deviceId, SliceRates rates, boolean latency) {
        MeterRequest.Builder b = DefaultMeterRequest.builder()
                .forDevice(DeviceId.deviceId(deviceId))
                .fromApp(appId)
                .withUnit(Meter.Unit.KB_PER_SEC)
                .withBands(bands(rates));
        if (latency) {
            b.withAnnotations(DefaultAnnotations.builder().set(CLASS_ANNOTATION, CLASS_LATENCY).build());
        }
        return b;
    }

    /** The meter of a path's direction on one device: its rates, with the LATENCY class where the path has it. */
    static MeterRequest.Builder request(ApplicationId appId, SlicePath path, String direction, String deviceId) {
        return request(appId, deviceId, path.rates(direction), path.latencyMeterOn(deviceId));
    }

    /**
     * The POF rates of a meter's bands: {peak, committed} (committed 0 = single-rate). One band is the peak;
     * two are a DROP band (peak) and a MARK_YELLOW or REMARK band (committed, at most the peak).
     */
    static long[] pofRates(Collection<Band> bands) {
        if (bands.size() == 1) {
            Band band = bands.iterator().next();
            if (COMMITTED_BANDS.contains(band.type())) {
                throw new IllegalArgumentException("a lone " + band.type() + " band has no peak rate");
            }
            return new long[] {u32(band.rate()), 0};
        }
        if (bands.size() != 2) {
            throw new IllegalArgumentException("POF meters have one or two bands, not " + bands.size());
        }
        Band peak = bands.stream().filter(b -> b.type() == Band.Type.DROP).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("a two-rate meter needs a DROP band (peak)"));
        Band committed = bands.stream().filter(b -> COMMITTED_BANDS.contains(b.type())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "a two-rate meter needs a MARK_YELLOW or REMARK band (committed rate)"));
        if (committed.rate() > peak.rate()) {
            throw new IllegalArgumentException("committed rate " + committed.rate() + " above the peak rate "
                    + peak.rate());
        }
        return new long[] {u32(peak.rate()), u32(committed.rate())};
    }

    /** The METER_MOD flags of an ONOS meter: LATENCY when annotated {@link #CLASS_ANNOTATION}=latency. */
    static int pofFlags(Meter meter) {
        String cls = meter.annotations() == null ? null : meter.annotations().value(CLASS_ANNOTATION);
        if (cls == null || cls.isEmpty()) {
            return 0;
        }
        if (!CLASS_LATENCY.equals(cls)) {
            throw new IllegalArgumentException("unknown meter class " + cls);
        }
        return PofBody.MeterMod.LATENCY;
    }

    private static long u32(long rate) {
        if (rate < 0 || rate > 0xffffffffL) {
            throw new IllegalArgumentException("rate " + rate + " kbps does not fit a POF meter");
        }
        return rate;
    }
}
