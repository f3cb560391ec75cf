package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import java.nio.ByteBuffer;

/**
 * PACKET_IN: buffer_id u32, total_len u16@4, reason u8@6, table_id u8@7, cookie u64@8, dev_id u32@16,
 * slot_id u16@20, port_id u16@22, data@24 (total_len bytes).
 */
public class PacketIn extends PofBody {
    public static final int HEAD = 24;

    public long bufferId;
    public int reason;
    public int tableId;
    public long cookie;
    public long devId;
    public int slotId;
    public int portId;
    @JsonSerialize(using = Hex.Serializer.class)
    @JsonDeserialize(using = Hex.Deserializer.class)
    public byte[] data = new byte[0];

    @Override
    int wireSize() {
        return HEAD + data.length;
    }

    @Override
    void write(ByteBuffer b, int off) {
        Wire.putU32(b, off, bufferId);
        Wire.putU16(b, off + 4, data.length);
        Wire.putU8(b, off + 6, reason);
        Wire.putU8(b, off + 7, tableId);
        b.putLong(off + 8, cookie);
        Wire.putU32(b, off + 16, devId);
        Wire.putU16(b, off + 20, slotId);
        Wire.putU16(b, off + 22, portId);
        Wire.putBytes(b, off + HEAD, data, data.length, "packet data");
    }

    static PacketIn read(ByteBuffer b, int off, int len) {
        need("PACKET_IN", len, HEAD);
        PacketIn p = new PacketIn();
        p.bufferId = Wire.u32(b, off);
        int total = Wire.u16(b, off + 4);
        need("PACKET_IN", len, HEAD + total);
        p.reason = Wire.u8(b, off + 6);
        p.tableId = Wire.u8(b, off + 7);
        p.cookie = b.getLong(off + 8);
        p.devId = Wire.u32(b, off + 16);
        p.slotId = Wire.u16(b, off + 20);
        p.portId = Wire.u16(b, off + 22);
        p.data = Wire.bytes(b, off + HEAD, total);
        return p;
    }
}
