package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;

/**
 * MULTIPART_REQUEST (16), the WiSlice port-statistics extension (OpenFlow 1.3's ofp_multipart_request with an
 * ofp_port_stats_request body): mp_type u16 (PORT_STATS 4), flags u16@2 (0), pad4, port_no u32@8
 * ((slot_id &lt;&lt; 16) | port_id; 0xFFFFFFFF asks for every port), pad4. PORT_STATS and WiSlice's PORT_LATENCY
 * (0xF001, spec/pof "Port latency") are defined; another mp_type is refused with BAD_REQUEST/BAD_MULTIPART, a body
 * shorter than 16 bytes with BAD_REQUEST/BAD_LEN.
 */
public class MultipartRequest extends PofBody {
    public static final int SIZE = 16;
    public static final int PORT_STATS = 4;
    /** Residence time per output port and class (pof-switch only: ask switches whose vendor_id is WiSlice). */
    public static final int PORT_LATENCY = 0xF001;
    /** port_no asking for every port of the switch. */
    public static final long ALL_PORTS = 0xFFFFFFFFL;

    public int mpType = PORT_STATS;
    public int flags;
    public long portNo = ALL_PORTS;

    public MultipartRequest() {
    }

    /** A PORT_STATS request for one port ((slot_id &lt;&lt; 16) | port_id) or {@link #ALL_PORTS}. */
    public static MultipartRequest portStats(long portNo) {
        MultipartRequest r = new MultipartRequest();
        r.portNo = portNo;
        return r;
    }

    /** A PORT_LATENCY request for one port or {@link #ALL_PORTS}. */
    public static MultipartRequest portLatency(long portNo) {
        MultipartRequest r = portStats(portNo);
        r.mpType = PORT_LATENCY;
        return r;
    }

    @Override
    int wireSize() {
        return SIZE;
    }

    @Override
    void write(ByteBuffer b, int off) {
        Wire.putU16(b, off, mpType);
        Wire.putU16(b, off + 2, flags);
        Wire.putU32(b, off + 8, portNo);
    }

    static MultipartRequest read(ByteBuffer b, int off, int len) {
        need("MULTIPART_REQUEST", len, SIZE);
        MultipartRequest r = new MultipartRequest();
        r.mpType = checkType("MULTIPART_REQUEST", Wire.u16(b, off));
        r.flags = Wire.u16(b, off + 2);
        r.portNo = Wire.u32(b, off + 8);
        return r;
    }

    /** The mp_type, if this codec knows it (PORT_STATS, PORT_LATENCY); otherwise BAD_REQUEST/BAD_MULTIPART. */
    static int checkType(String what, int mpType) {
        if (mpType != PORT_STATS && mpType != PORT_LATENCY) {
            throw new PofCodecException(what + ": mp_type " + mpType
                    + ", only PORT_STATS (4) and PORT_LATENCY (0xF001) are supported",
                    PofCodecException.BAD_REQUEST, PofCodecException.BAD_MULTIPART);
        }
        return mpType;
    }
}
