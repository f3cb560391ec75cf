package org.wislice.onos.pof.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Test;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** Boundary validation of the REST contract's SlicePath. */
public class SlicePathTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOP = "{\"device_id\":\"pof:00000001\",\"in_port\":1,\"out_port\":2}";

    private static JsonNode json(String s) throws Exception {
        return JSON.readTree(s);
    }

    @Test
    public void validPathRoundTrips() throws Exception {
        SlicePath p = SlicePath.fromJson(json("{\"slice_id\":\"s-1\",\"tenant_id\":3,\"rate_kbps\":1000,"
                + "\"hops\":[" + HOP + "]}"));
        assertEquals("s-1", p.sliceId);
        assertEquals(0, p.tag);
        assertTrue(p.bidirectional);
        assertEquals(1, p.reverseHops().size());
        assertEquals(2, p.reverseHops().get(0).inPort);
        SlicePath back = SlicePath.fromJson(p.withTag(9).toJson(JSON));
        assertEquals(9, back.tag);
        assertEquals(p.hops, back.hops);
        assertFalse(SlicePath.fromJson(json("{\"slice_id\":\"s\",\"tenant_id\":0,\"bidirectional\":false,"
                + "\"hops\":[" + HOP + "]}")).bidirectional);
    }

    @Test
    public void enforcementIsRequiredUnlessTheClientAcceptsBestEffort() throws Exception {
        SlicePath p = SlicePath.fromJson(json("{\"slice_id\":\"s\",\"tenant_id\":1,\"hops\":[" + HOP + "]}"));
        assertTrue("required by default", p.requireEnforcement);
        assertTrue(p.unenforcedDevices.isEmpty());
        assertTrue(p.toJson(JSON).get("require_enforcement").asBoolean());
        assertEquals("[]", p.toJson(JSON).get("unenforced_devices").toString());
        SlicePath best = SlicePath.fromJson(json("{\"slice_id\":\"s\",\"tenant_id\":1,\"require_enforcement\":"
                + "false,\"up\":{\"cap_kbps\":5},\"hops\":[" + HOP + "]}"));
        assertFalse(best.requireEnforcement);
        // Stored with the switches where it is best effort, read back as it was.
        SlicePath back = SlicePath.fromJson(best.withUnenforcedDevices(java.util.List.of("pof:00000001"))
                .withTag(3).toJson(JSON));
        assertFalse(back.requireEnforcement);
        assertEquals(java.util.List.of("pof:00000001"), back.unenforcedDevices);
        assertEquals(3, back.tag);
        assertFalse(back.withRates(SliceRates.NONE, SliceRates.NONE).withMeters(java.util.List.of())
                .requireEnforcement);
    }

    @Test
    public void perDirectionRatesAndTheLegacyRate() throws Exception {
        SlicePath p = SlicePath.fromJson(json("{\"slice_id\":\"s\",\"tenant_id\":1,\"down\":{\"guaranteed_kbps\":"
                + "5000,\"cap_kbps\":20000},\"up\":{\"guaranteed_kbps\":1000},\"hops\":[" + HOP + "]}"));
        assertEquals(new SliceRates(5000, 20000), p.down);
        assertEquals(new SliceRates(1000, 0), p.up);
        assertEquals(SlicePath.MAX_RATE_KBPS, p.up.peakKbps());
        assertEquals(p.up, p.rates(SlicePath.FORWARD));
        assertEquals(p.down, p.rates(SlicePath.REVERSE));
        SlicePath back = SlicePath.fromJson(p.toJson(JSON));
        assertEquals(p.down, back.down);
        assertEquals(p.up, back.up);
        assertEquals(5000, p.toJson(JSON).at("/down/guaranteed_kbps").asLong());
        assertFalse("rate_kbps is input only", p.toJson(JSON).has("rate_kbps"));

        // Only one direction given: the other is unrated.
        SlicePath onlyUp = SlicePath.fromJson(json("{\"slice_id\":\"s\",\"tenant_id\":1,\"up\":{\"cap_kbps\":"
                + "300},\"hops\":[" + HOP + "]}"));
        assertEquals(SliceRates.NONE, onlyUp.down);
        assertFalse(onlyUp.down.metered());
        assertTrue(onlyUp.up.metered());

        // Legacy: rate_kbps caps both directions without a guarantee (only up on a one-way path).
        SlicePath legacy = SlicePath.fromJson(json("{\"slice_id\":\"s\",\"tenant_id\":1,\"rate_kbps\":700,"
                + "\"hops\":[" + HOP + "]}"));
        assertEquals(SliceRates.cap(700), legacy.down);
        assertEquals(SliceRates.cap(700), legacy.up);
        SlicePath oneWay = SlicePath.fromJson(json("{\"slice_id\":\"s\",\"tenant_id\":1,\"rate_kbps\":700,"
                + "\"bidirectional\":false,\"hops\":[" + HOP + "]}"));
        assertEquals(SliceRates.NONE, oneWay.down);
        assertEquals(SliceRates.cap(700), oneWay.up);
        assertEquals(SliceRates.NONE, SlicePath.fromJson(json("{\"slice_id\":\"s\",\"tenant_id\":1,"
                + "\"rate_kbps\":0,\"hops\":[" + HOP + "]}")).up);

        // Stored meters keep their hop index (and records without it get one in order).
        SlicePath stored = SlicePath.fromJson(json("{\"slice_id\":\"s\",\"tenant_id\":1,\"hops\":[" + HOP
                + "],\"meters\":[{\"device_id\":\"pof:00000001\",\"direction\":\"forward\",\"meter_id\":4},"
                + "{\"device_id\":\"pof:00000002\",\"direction\":\"forward\",\"meter_id\":5}]}"));
        assertEquals(1, stored.meters.get(1).hop);
        assertEquals(1, SlicePath.fromJson(stored.toJson(JSON)).meters.get(1).hop);
    }

    @Test
    public void badInputIsRefusedWithAReason() throws Exception {
        String[] bad = {
            "[]",
            "{\"tenant_id\":1,\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"a b\",\"tenant_id\":1,\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":70000,\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"tag\":65536,\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"rate_kbps\":-1,\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"rate_kbps\":\"fast\",\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"hops\":[]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"hops\":[{\"device_id\":\"of:1\",\"in_port\":1,\"out_port\":2}]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"hops\":[{\"device_id\":\"pof:00000001\",\"in_port\":1,"
                    + "\"out_port\":1}]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"hops\":[{\"device_id\":\"pof:00000001\",\"in_port\":0,"
                    + "\"out_port\":1}]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"bidirectional\":\"yes\",\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"colour\":\"red\",\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"require_enforcement\":\"no\",\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"require_enforcement\":0,\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"require_enforcement\":null,\"hops\":[" + HOP + "]}",
            // Rates per direction.
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"rate_kbps\":5,\"up\":{\"cap_kbps\":5},\"hops\":[" + HOP
                    + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"rate_kbps\":0,\"down\":{},\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"down\":{\"guaranteed_kbps\":6,\"cap_kbps\":5},\"hops\":["
                    + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"up\":{\"cap_kbps\":100000001},\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"up\":{\"guaranteed_kbps\":-1},\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"up\":{\"cap_kbps\":1.5},\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"up\":{\"burst_kb\":1},\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"up\":5,\"hops\":[" + HOP + "]}",
            "{\"slice_id\":\"s\",\"tenant_id\":1,\"bidirectional\":false,\"down\":{\"cap_kbps\":5},"
                    + "\"hops\":[" + HOP + "]}",
        };
        for (String b : bad) {
            try {
                SlicePath.fromJson(json(b));
                fail("accepted " + b);
            } catch (SliceException e) {
                assertEquals(b, "bad_request", e.code());
                assertEquals(400, e.status());
                assertFalse(e.getMessage().isEmpty());
            }
        }
    }
}
