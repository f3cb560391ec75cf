package org.wislice.onos.pof.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.net.meter.Meter;
import org.wislice.onos.pof.api.LatencyClass;
import org.wislice.onos.pof.api.MeterEnforcement;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;
import org.wislice.onos.pof.wire.FeaturesReply;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.wislice.onos.pof.impl.SliceManagerHarness.refused;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D1;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D2;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D3;

/**
 * A latency-class path: its meters carry the latency class (METER_MOD flag LATENCY) only on switches that announced
 * latency meters (D1, D2; D3 did not), its hops say where, a class change replaces the meters, and a latency class
 * needs caps.
 */
public class PofSliceLatencyTest {
    private static final SliceRates CAPPED = new SliceRates(1000, 4000);
    private final ObjectMapper mapper = new ObjectMapper();
    private SliceManagerHarness h;

    @Before
    public void setUp() {
        h = new SliceManagerHarness();
    }

    /** AP switch D1 -> D3 (no latency meters) -> D2, of the class and rates given. */
    private static SlicePath path(String id, LatencyClass cls, SliceRates rates) {
        return new SlicePath(id, 1, 0, rates, rates, true, List.of(new SlicePath.Hop(D1, 1, 2),
                new SlicePath.Hop(D3, 1, 2), new SlicePath.Hop(D2, 1, 2)), List.of(), true, List.of(), cls,
                List.of());
    }

    /** Per device, the METER_MOD flags of the path's meters as the meter provider would send them. */
    private Map<String, List<Integer>> flagsByDevice(SlicePath p) {
        return p.meters.stream().collect(Collectors.groupingBy(m -> m.deviceId, Collectors.mapping(m -> {
            Meter meter = h.meters.get(m.deviceId + "/" + m.meterId);
            return SliceMeters.pofFlags(meter);
        }, Collectors.toList())));
    }

    @Test
    public void latencyMetersOnlyWhereTheSwitchAnnouncedThem() {
        SlicePath s = h.manager.addSlice(path("lat", LatencyClass.LOW, CAPPED));
        assertEquals(List.of(D3), s.queuelessDevices);
        assertEquals(6, s.meters.size());
        Map<String, List<Integer>> flags = flagsByDevice(s);
        assertEquals(List.of(SliceMeters.LATENCY_FLAG, SliceMeters.LATENCY_FLAG), flags.get(D1));
        assertEquals(List.of(SliceMeters.LATENCY_FLAG, SliceMeters.LATENCY_FLAG), flags.get(D2));
        assertEquals(List.of(0, 0), flags.get(D3));
        JsonNode json = s.toJson(mapper);
        assertEquals("low", json.get("latency_class").asText());
        assertEquals("[true,false,true]", mapper.valueToTree(List.of(json.get("hops").get(0).get("latency_queue"),
                json.get("hops").get(1).get("latency_queue"), json.get("hops").get(2).get("latency_queue")))
                .toString());
        // Stored and read back the same (the repair re-creates lost meters from it).
        SlicePath stored = h.manager.slice("lat").get();
        assertEquals(LatencyClass.LOW, stored.latencyClass);
        assertEquals(List.of(D3), stored.queuelessDevices);
    }

    @Test
    public void bestEffortMetersArePlainAndItsHopsSayNothing() {
        SlicePath s = h.manager.addSlice(path("be", LatencyClass.BEST_EFFORT, CAPPED));
        assertTrue(flagsByDevice(s).values().stream().flatMap(List::stream).allMatch(f -> f == 0));
        JsonNode json = s.toJson(mapper);
        assertEquals("best_effort", json.get("latency_class").asText());
        assertFalse(json.get("hops").get(0).has("latency_queue"));
    }

    @Test
    public void aLatencyClassNeedsACapEachWay() {
        for (SliceRates rates : List.of(SliceRates.NONE, new SliceRates(1000, 0))) {
            SliceException e = refused(() -> h.manager.addSlice(path("nocap", LatencyClass.ULTRA_LOW, rates)));
            assertEquals("bad_request", e.code());
            assertTrue(e.getMessage(), e.getMessage().contains("needs a cap_kbps in each direction"));
        }
        assertTrue(h.meters.isEmpty() && h.flowOps.isEmpty());
    }

    @Test
    public void aClassChangeReplacesTheMetersWithOrWithoutTheFlag() {
        SlicePath s = h.manager.addSlice(path("c", LatencyClass.BEST_EFFORT, CAPPED));
        int flowsBefore = h.flowOps.size();
        SlicePath low = h.manager.updatePath("c", null, null, LatencyClass.LOW);
        assertEquals(6, low.meters.size());
        assertEquals(6, h.withdrawn.size()); // the plain meters went
        assertEquals(List.of(SliceMeters.LATENCY_FLAG, SliceMeters.LATENCY_FLAG), flagsByDevice(low).get(D1));
        assertEquals(List.of(0, 0), flagsByDevice(low).get(D3));
        assertEquals(6, h.flowOps.size() - flowsBefore); // every flow re-pointed in place
        assertTrue(h.flowOps.subList(flowsBefore, h.flowOps.size()).stream()
                .allMatch(o -> o.type() == org.onosproject.net.flow.FlowRuleOperation.Type.MODIFY));
        // low -> ultra_low: the same meters, only the class stored.
        SlicePath ultra = h.manager.updatePath("c", null, null, LatencyClass.ULTRA_LOW);
        assertEquals(low.meters.stream().map(m -> m.meterId).collect(Collectors.toList()),
                ultra.meters.stream().map(m -> m.meterId).collect(Collectors.toList()));
        assertEquals(LatencyClass.ULTRA_LOW, h.manager.slice("c").get().latencyClass);
        SlicePath back = h.manager.updatePath("c", null, null, LatencyClass.BEST_EFFORT);
        assertTrue(flagsByDevice(back).values().stream().flatMap(List::stream).allMatch(f -> f == 0));
        assertTrue(back.queuelessDevices.isEmpty());
        // Taking the cap away from a latency path is refused, and it keeps what it had.
        h.manager.updatePath("c", null, null, LatencyClass.LOW);
        assertEquals("bad_request", refused(() -> h.manager.updateRates("c", SliceRates.NONE, null)).code());
        assertEquals(CAPPED, h.manager.slice("c").get().down);
        assertEquals(s.hops, h.manager.slice("c").get().hops);
    }

    @Test
    public void theClassIsValidatedOnTheWire() throws Exception {
        String body = "{\"slice_id\":\"w\",\"tenant_id\":1,\"up\":{\"cap_kbps\":10},\"down\":{\"cap_kbps\":10},"
                + "\"hops\":[{\"device_id\":\"pof:00000001\",\"in_port\":1,\"out_port\":2}],\"latency_class\":";
        assertEquals(LatencyClass.ULTRA_LOW, SlicePath.fromJson(mapper.readTree(body + "\"ultra_low\"}")).latencyClass);
        assertEquals(LatencyClass.BEST_EFFORT, SlicePath.fromJson(mapper.readTree(body + "null}")).latencyClass);
        for (String bad : List.of("\"warp\"", "1", "\"LOW\"", "[\"low\"]")) {
            SliceException e = refused(() -> {
                try {
                    SlicePath.fromJson(mapper.readTree(body + bad + "}"));
                } catch (java.io.IOException io) {
                    throw new AssertionError(io);
                }
            });
            assertEquals(400, e.status());
            assertTrue(e.getMessage(), e.getMessage().startsWith("latency_class must be"));
        }
    }

    @Test
    public void onlyAWisliceSwitchsBit31AnnouncesLatencyMeters() {
        FeaturesReply f = new FeaturesReply();
        f.vendorId = MeterEnforcement.WISLICE_VENDOR;
        f.capabilities = FeaturesReply.CAP_LATENCY_METERS | 0x7;
        assertTrue(MeterEnforcement.latencyFrom(f));
        f.capabilities = 0x7;
        assertFalse(MeterEnforcement.latencyFrom(f));
        f.vendorId = "POF reference";
        f.capabilities = FeaturesReply.CAP_LATENCY_METERS;
        assertFalse(MeterEnforcement.latencyFrom(f));
        assertFalse(MeterEnforcement.latencyFrom(null));
        assertTrue(h.capabilities.latencyMeters(org.onosproject.net.DeviceId.deviceId(D1)));
        assertFalse(h.capabilities.latencyMeters(org.onosproject.net.DeviceId.deviceId(D3)));
        assertFalse(h.capabilities.latencyMeters(org.onosproject.net.DeviceId.deviceId("pof:000000ff")));
    }
}
