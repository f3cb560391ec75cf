package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * PACKET_OUT: buffer_id u32, in_port u32@4, n u8@8, pad3, packet_len u32@12, 6 action slots @16, data@304
 * (packet_len bytes, at most 2048; only the used part is sent).
 */
public class PacketOut extends PofBody {
    public static final int HEAD = 304;
    public static final int MAX_DATA = 2048;

    public long bufferId = 0xffffffffL;
    public long inPort;
    public List<PofAction> actions = new ArrayList<>();
    @JsonSerialize(using = Hex.Serializer.class)
    @JsonDeserialize(using = Hex.Deserializer.class)
    public byte[] data = new byte[0];

    @Override
    int wireSize() {
        return HEAD + data.length;
    }

    @Override
    void write(ByteBuffer b, int off) {
        if (data.length > MAX_DATA) {
            throw new PofCodecException("PACKET_OUT data of " + data.length + " bytes, at most " + MAX_DATA);
        }
        Wire.putU32(b, off, bufferId);
        Wire.putU32(b, off + 4, inPort);
        Wire.putU8(b, off + 8, actions.size());
        Wire.putU32(b, off + 12, data.length);
        PofAction.writeList(b, off + 16, actions);
        Wire.putBytes(b, off + HEAD, data, data.length, "packet data");
    }

    static PacketOut read(ByteBuffer b, int off, int len) {
        need("PACKET_OUT", len, HEAD);
        PacketOut p = new PacketOut();
        p.bufferId = Wire.u32(b, off);
        p.inPort = Wire.u32(b, off + 4);
        int n = Wire.u8(b, off + 8);
        long plen = Wire.u32(b, off + 12);
        if (plen > MAX_DATA) {
            throw new PofCodecException("PACKET_OUT with " + plen + " bytes of data");
        }
        need("PACKET_OUT", len, HEAD + (int) plen);
        p.actions = PofAction.readList(b, off + 16, n);
        p.data = Wire.bytes(b, off + HEAD, (int) plen);
        return p;
    }
}
