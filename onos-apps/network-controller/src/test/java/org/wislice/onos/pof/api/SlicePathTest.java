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
