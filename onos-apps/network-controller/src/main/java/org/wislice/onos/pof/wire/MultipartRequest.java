package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;

/**
 * MULTIPART_REQUEST (16), the WiSlice port-statistics extension (OpenFlow 1.3's ofp_multipart_request with an
 * ofp_port_stats_request body): mp_type u16 (PORT_STATS 4), flags u16@2 (0), pad4, port_no u32@8
 * ((slot_id &lt;&lt; 16) | port_id; 0xFFFFFFFF asks for every port), pad4. Only PORT_STATS is defined; another
 * mp_type is refused with BAD_REQUEST/BAD_MULTIPART, a body shorter than 16 bytes with BAD_REQUEST/BAD_LEN.
 */
public class MultipartRequest extends PofBody {
    public static final int SIZE = 16;
    public static final int PORT_STATS = 4;
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

    /** The mp_type, if this codec knows it (PORT_STATS); otherwise BAD_REQUEST/BAD_MULTIPART. */
    static int checkType(String what, int mpType) {
        if (mpType != PORT_STATS) {
            throw new PofCodecException(what + ": mp_type " + mpType + ", only PORT_STATS (4) is supported",
                    PofCodecException.BAD_REQUEST, PofCodecException.BAD_MULTIPART);
        }
        return mpType;
    }
}
