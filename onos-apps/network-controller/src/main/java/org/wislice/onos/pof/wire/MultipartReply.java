package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * MULTIPART_REPLY (8 + 112 n), the answer to a PORT_STATS {@link MultipartRequest}: mp_type u16 (PORT_STATS 4),
 * flags u16@2 (REPLY_MORE 1: more replies with this xid follow), pad4, then n entries of 112 bytes (OpenFlow
 * 1.3's ofp_port_stats, see {@link PortStats}). The body must be exactly 8 + 112 n bytes (BAD_REQUEST/BAD_LEN
 * otherwise); one message holds at most {@link #MAX_ENTRIES}, longer lists are split over REPLY_MORE replies.
 * With mp_type PORT_LATENCY (0xF001) the entries are {@link PortLatency} of 56 bytes instead (8 + 56 n).
 */
public class MultipartReply extends PofBody {
    public static final int HEAD = 8;
    public static final int REPLY_MORE = 1;
    /** Entries that fit the 16-bit message length: (65535 - 8 - 8) / 112. */
    public static final int MAX_ENTRIES = (PofCodec.MAX_LENGTH - PofCodec.HEADER - HEAD) / PortStats.SIZE;

    public int mpType = MultipartRequest.PORT_STATS;
    public int flags;
    public List<PortStats> stats = new ArrayList<>();
    /** PORT_LATENCY's entries (mpType {@link MultipartRequest#PORT_LATENCY}; stats is then empty), else null. */
    public List<PortLatency> latency;

    /** True when more replies with this xid follow. */
    public boolean more() {
        return (flags & REPLY_MORE) != 0;
    }

    /**
     * One port's counters (112): port_no u32 ((slot_id &lt;&lt; 16) | port_id), pad4, rx_packets u64@8,
     * tx_packets@16, rx_bytes@24, tx_bytes@32, rx_dropped@40, tx_dropped@48, rx_errors@56, tx_errors@64,
     * rx_frame_err@72, rx_over_err@80, rx_crc_err@88, collisions@96, duration_sec u32@104, duration_nsec u32@108.
     * The u64 counters are carried in Java longs (bit for bit).
     */
    public static class PortStats {
        public static final int SIZE = 112;

        public long portNo;
        public long rxPackets;
        public long txPackets;
        public long rxBytes;
        public long txBytes;
        public long rxDropped;
        public long txDropped;
        public long rxErrors;
        public long txErrors;
        public long rxFrameErr;
        public long rxOverErr;
        public long rxCrcErr;
        public long collisions;
        public long durationSec;
        public long durationNsec;

        /** The port id part of port_no (the slot is in the upper 16 bits). */
        public int portId() {
            return (int) (portNo & 0xffff);
        }

        void write(ByteBuffer b, int off) {
            Wire.putU32(b, off, portNo);
            long[] counters = {rxPackets, txPackets, rxBytes, txBytes, rxDropped, txDropped, rxErrors, txErrors,
                    rxFrameErr, rxOverErr, rxCrcErr, collisions};
            for (int i = 0; i < counters.length; i++) {
                b.putLong(off + 8 + 8 * i, counters[i]);
            }
            Wire.putU32(b, off + 104, durationSec);
            Wire.putU32(b, off + 108, durationNsec);
        }

        static PortStats read(ByteBuffer b, int off) {
            PortStats s = new PortStats();
            s.portNo = Wire.u32(b, off);
            s.rxPackets = b.getLong(off + 8);
            s.txPackets = b.getLong(off + 16);
            s.rxBytes = b.getLong(off + 24);
            s.txBytes = b.getLong(off + 32);
            s.rxDropped = b.getLong(off + 40);
            s.txDropped = b.getLong(off + 48);
            s.rxErrors = b.getLong(off + 56);
            s.txErrors = b.getLong(off + 64);
            s.rxFrameErr = b.getLong(off + 72);
            s.rxOverErr = b.getLong(off + 80);
            s.rxCrcErr = b.getLong(off + 88);
            s.collisions = b.getLong(off + 96);
            s.durationSec = Wire.u32(b, off + 104);
            s.durationNsec = Wire.u32(b, off + 108);
            return s;
        }
    }

    /**
     * One port's residence time in the switch per class (56, spec/pof "Port latency"): port_no u32, pad4, then the
     * latency class @8 and the rest @32, each packets u64, p50_ns u32@8, p99_ns u32@12, max_ns u32@16, pad4.
     */
    public static class PortLatency {
        public static final int SIZE = 56;
        public static final int LATENCY = 0;
        public static final int OTHER = 1;

        public long portNo;
        /** Per class (LATENCY, OTHER): packets over the last 1-2 s, then p50, p99 and max in ns. */
        public final long[] packets = new long[2];
        public final long[] p50Ns = new long[2];
        public final long[] p99Ns = new long[2];
        public final long[] maxNs = new long[2];

        public int portId() {
            return (int) (portNo & 0xffff);
        }

        void write(ByteBuffer b, int off) {
            Wire.putU32(b, off, portNo);
            for (int c = 0; c < 2; c++) {
                int at = off + 8 + 24 * c;
                b.putLong(at, packets[c]);
                Wire.putU32(b, at + 8, p50Ns[c]);
                Wire.putU32(b, at + 12, p99Ns[c]);
                Wire.putU32(b, at + 16, maxNs[c]);
            }
        }

        static PortLatency read(ByteBuffer b, int off) {
            PortLatency l = new PortLatency();
            l.portNo = Wire.u32(b, off);
            for (int c = 0; c < 2; c++) {
                int at = off + 8 + 24 * c;
                l.packets[c] = b.getLong(at);
                l.p50Ns[c] = Wire.u32(b, at + 8);
                l.p99Ns[c] = Wire.u32(b, at + 12);
                l.maxNs[c] = Wire.u32(b, at + 16);
            }
            return l;
        }
    }

    private boolean isLatency() {
        return mpType == MultipartRequest.PORT_LATENCY;
    }

    /** The PORT_LATENCY entries, empty when there are none. */
    public List<PortLatency> latencyEntries() {
        return latency == null ? List.of() : latency;
    }

    @Override
    int wireSize() {
        return HEAD + (isLatency() ? PortLatency.SIZE * latencyEntries().size() : PortStats.SIZE * stats.size());
    }

    @Override
    void write(ByteBuffer b, int off) {
        // More than MAX_ENTRIES never gets here: PofCodec.encode refuses a message over the 16-bit length.
        Wire.putU16(b, off, mpType);
        Wire.putU16(b, off + 2, flags);
        if (isLatency()) {
            for (int k = 0; k < latencyEntries().size(); k++) {
                latencyEntries().get(k).write(b, off + HEAD + PortLatency.SIZE * k);
            }
            return;
        }
        for (int k = 0; k < stats.size(); k++) {
            stats.get(k).write(b, off + HEAD + PortStats.SIZE * k);
        }
    }

    static MultipartReply read(ByteBuffer b, int off, int len) {
        need("MULTIPART_REPLY", len, HEAD);
        MultipartReply r = new MultipartReply();
        r.mpType = MultipartRequest.checkType("MULTIPART_REPLY", Wire.u16(b, off));
        r.flags = Wire.u16(b, off + 2);
        int size = r.isLatency() ? PortLatency.SIZE : PortStats.SIZE;
        if ((len - HEAD) % size != 0) {
            throw new PofCodecException("MULTIPART_REPLY: body " + len + " bytes, not 8 + " + size + " n");
        }
        if (r.isLatency()) {
            r.latency = new ArrayList<>();
            for (int k = 0; k < (len - HEAD) / size; k++) {
                r.latency.add(PortLatency.read(b, off + HEAD + size * k));
            }
            return r;
        }
        int n = (len - HEAD) / PortStats.SIZE;
        for (int k = 0; k < n; k++) {
            r.stats.add(PortStats.read(b, off + HEAD + PortStats.SIZE * k));
        }
        return r;
    }
}
