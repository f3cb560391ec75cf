package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * MULTIPART_REQUEST / MULTIPART_REPLY (port statistics) against hex laid out by hand from the spec/pof table, so
 * the offsets are checked independently of the vectors (which come from the switch side's generator).
 */
public class PofMultipartTest {

    /** One 112-byte ofp_port_stats entry: counter k (rx_packets = 1 ... collisions = 12) holds base + k. */
    private static String entry(int portNo, long base) {
        StringBuilder hex = new StringBuilder(String.format("%08x", portNo)).append("00000000");
        for (int k = 1; k <= 12; k++) {
            hex.append(String.format("%016x", base + k));
        }
        return hex.append(String.format("%08x%08x", base + 13, base + 14)).toString();
    }

    @Test
    public void portStatsRequestForEveryPort() {
        String hex = "04130018000000210004000000000000ffffffff00000000";
        PofMessage msg = new PofMessage(PofType.MULTIPART_REQUEST, 0x21,
                MultipartRequest.portStats(MultipartRequest.ALL_PORTS));
        assertEquals(hex, Hex.encode(PofCodec.encode(msg)));
        MultipartRequest r = PofCodec.decode(Hex.decode(hex)).body(MultipartRequest.class);
        assertEquals(MultipartRequest.PORT_STATS, r.mpType);
        assertEquals(0, r.flags);
        assertEquals(0xFFFFFFFFL, r.portNo);
        JsonNode json = PofJson.toJson(msg);
        assertEquals(4, json.at("/body/mp_type").asInt());
        assertEquals(0xFFFFFFFFL, json.at("/body/port_no").asLong());
        assertArrayEquals(Hex.decode(hex), PofCodec.encode(PofJson.fromJson(json)));
    }

    @Test
    public void portStatsReplyEntriesAtTheirOffsets() {
        String hex = "041400f000000021" + "00040001" + "00000000" + entry(0x00000001, 100) + entry(0x00000002, 200);
        assertEquals(8 + 8 + 2 * 112, hex.length() / 2);
        PofMessage msg = PofCodec.decode(Hex.decode(hex));
        assertEquals(PofType.MULTIPART_REPLY, msg.type());
        MultipartReply r = msg.body(MultipartReply.class);
        assertEquals(MultipartRequest.PORT_STATS, r.mpType);
        assertTrue("REPLY_MORE", r.more());
        assertEquals(2, r.stats.size());
        MultipartReply.PortStats s = r.stats.get(1);
        assertEquals(2, s.portNo);
        assertEquals(2, s.portId());
        long[] counters = {s.rxPackets, s.txPackets, s.rxBytes, s.txBytes, s.rxDropped, s.txDropped, s.rxErrors,
                s.txErrors, s.rxFrameErr, s.rxOverErr, s.rxCrcErr, s.collisions, s.durationSec, s.durationNsec};
        for (int k = 0; k < counters.length; k++) {
            assertEquals("field " + k, 200 + k + 1, counters[k]);
        }
        assertEquals(hex, Hex.encode(PofCodec.encode(msg)));

        JsonNode json = PofJson.toJson(msg);
        assertEquals(1, json.at("/body/flags").asInt());
        assertEquals(201, json.at("/body/stats/1/rx_packets").asLong());
        assertEquals(209, json.at("/body/stats/1/rx_frame_err").asLong());
        assertEquals(214, json.at("/body/stats/1/duration_nsec").asLong());
        assertEquals(hex, Hex.encode(PofCodec.encode(PofJson.fromJson(json))));
    }

    @Test
    public void emptyReplyAndSlotInPortNo() {
        MultipartReply empty = PofCodec.decode(Hex.decode("0414001000000005" + "0004000000000000"))
                .body(MultipartReply.class);
        assertTrue(empty.stats.isEmpty());
        assertFalse(empty.more());
        MultipartReply.PortStats s = new MultipartReply.PortStats();
        s.portNo = (3 << 16) | 7;
        assertEquals(7, s.portId());
    }

    @Test
    public void malformedBodiesAreRefusedWithTheirError() {
        // request: short body (BAD_LEN), another mp_type (BAD_MULTIPART)
        expectError("0413001000000001" + "0004000000000000", PofCodecException.BAD_LEN);
        expectError("04130018000000010000000000000000ffffffff00000000", PofCodecException.BAD_MULTIPART);
        // reply: shorter than its head, entries not a multiple of 112, another mp_type
        expectError("0414000c00000001" + "00040000", PofCodecException.BAD_LEN);
        expectError("0414001800000001" + "0004000000000000" + "0000000200000000", PofCodecException.BAD_LEN);
        expectError("0414008000000001" + "0001000000000000" + entry(1, 0), PofCodecException.BAD_MULTIPART);
    }

    private static void expectError(String hex, int code) {
        try {
            PofCodec.decode(Hex.decode(hex));
            fail(hex + " decoded but should be refused");
        } catch (PofCodecException e) {
            assertEquals(hex, PofCodecException.BAD_REQUEST, e.errorType());
            assertEquals(hex, code, e.errorCode());
        }
    }

    @Test
    public void oneReplyHoldsAtMost584Entries() {
        assertEquals(584, MultipartReply.MAX_ENTRIES);
        MultipartReply r = new MultipartReply();
        List<MultipartReply.PortStats> stats = new ArrayList<>();
        for (int k = 0; k < 584; k++) {
            MultipartReply.PortStats s = new MultipartReply.PortStats();
            s.portNo = k + 1;
            stats.add(s);
        }
        r.stats = stats;
        byte[] wire = PofCodec.encode(new PofMessage(PofType.MULTIPART_REPLY, 1, r));
        assertEquals(8 + 8 + 584 * 112, wire.length);
        assertEquals(584, PofCodec.decode(wire).body(MultipartReply.class).stats.size());
        stats.add(new MultipartReply.PortStats());
        try {
            PofCodec.encode(new PofMessage(PofType.MULTIPART_REPLY, 1, r));
            fail("585 entries do not fit one reply");
        } catch (PofCodecException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("16-bit length"));
        }
    }

    /** PORT_LATENCY (spec/pof vectors/port_latency): requests and a reply decode to their fields and encode back. */
    @Test
    public void portLatencyVectors() throws Exception {
        java.io.File dir = new java.io.File(PofVectorTest.vectorDir(), "port_latency");
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        String request = json.readTree(new java.io.File(dir, "multipart_request_port_latency.json")).get("hex").asText();
        MultipartRequest q = PofCodec.decode(Hex.decode(request)).body(MultipartRequest.class);
        assertEquals(MultipartRequest.PORT_LATENCY, q.mpType);
        assertEquals(3, q.portNo);
        assertEquals(request, Hex.encode(PofCodec.encode(new PofMessage(PofType.MULTIPART_REQUEST, 30,
                MultipartRequest.portLatency(3)))));

        String reply = json.readTree(new java.io.File(dir, "multipart_reply_port_latency.json")).get("hex").asText();
        MultipartReply r = PofCodec.decode(Hex.decode(reply)).body(MultipartReply.class);
        assertEquals(MultipartRequest.PORT_LATENCY, r.mpType);
        assertTrue(r.stats.isEmpty());
        assertEquals(2, r.latency.size());
        MultipartReply.PortLatency p1 = r.latency.get(0);
        assertEquals(1, p1.portId());
        assertEquals(600, p1.packets[MultipartReply.PortLatency.LATENCY]);
        assertEquals(100_000, p1.p99Ns[MultipartReply.PortLatency.LATENCY]);
        assertEquals(218_400_000, p1.p99Ns[MultipartReply.PortLatency.OTHER]);
        assertEquals(5, r.latency.get(1).packets[MultipartReply.PortLatency.OTHER]);
        assertEquals(reply, Hex.encode(PofCodec.encode(new PofMessage(PofType.MULTIPART_REPLY, 31, r))));

        String cut = json.readTree(new java.io.File(dir, "invalid_reply_short_entry.json")).get("hex").asText();
        try {
            PofCodec.decode(Hex.decode(cut));
            fail("a reply of 8 + 55 bytes decoded");
        } catch (PofCodecException e) {
            assertEquals(1, e.errorType());
            assertEquals(6, e.errorCode());
        }
    }
}
