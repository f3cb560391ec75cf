package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import java.nio.ByteBuffer;

/**
 * A switch port (120 bytes): slot_id u16, port_id u16@2, dev_id u32@4, hw_addr[6]@8, name[64]@16, config@80,
 * state@84, curr@88, advertised@92, supported@96, peer@100, curr_speed@104, max_speed@108, of_enable u8@112.
 */
public class PofPort {
    public static final int SIZE = 120;

    public int slotId;
    public int portId;
    public long devId;
    @JsonSerialize(using = Hex.Serializer.class)
    @JsonDeserialize(using = Hex.Deserializer.class)
    public byte[] hwAddr = new byte[6];
    public String name = "";
    public long config;
    public long state;
    public long curr;
    public long advertised;
    public long supported;
    public long peer;
    public long currSpeed;
    public long maxSpeed;
    public int ofEnable;

    void write(ByteBuffer b, int off) {
        Wire.putU16(b, off, slotId);
        Wire.putU16(b, off + 2, portId);
        Wire.putU32(b, off + 4, devId);
        Wire.putBytes(b, off + 8, hwAddr, 6, "hw_addr");
        Wire.putCstr(b, off + 16, name, 64, "port name");
        long[] words = {config, state, curr, advertised, supported, peer, currSpeed, maxSpeed};
        for (int i = 0; i < words.length; i++) {
            Wire.putU32(b, off + 80 + 4 * i, words[i]);
        }
        Wire.putU8(b, off + 112, ofEnable);
    }

    static PofPort read(ByteBuffer b, int off) {
        PofPort p = new PofPort();
        p.slotId = Wire.u16(b, off);
        p.portId = Wire.u16(b, off + 2);
        p.devId = Wire.u32(b, off + 4);
        p.hwAddr = Wire.bytes(b, off + 8, 6);
        p.name = Wire.cstr(b, off + 16, 64);
        p.config = Wire.u32(b, off + 80);
        p.state = Wire.u32(b, off + 84);
        p.curr = Wire.u32(b, off + 88);
        p.advertised = Wire.u32(b, off + 92);
        p.supported = Wire.u32(b, off + 96);
        p.peer = Wire.u32(b, off + 100);
        p.currSpeed = Wire.u32(b, off + 104);
        p.maxSpeed = Wire.u32(b, off + 108);
        p.ofEnable = Wire.u8(b, off + 112);
        return p;
    }

    /** A copy, so a PORT_MOD can be built from a reported port without touching the original. */
    public PofPort copy() {
        PofPort p = new PofPort();
        p.slotId = slotId;
        p.portId = portId;
        p.devId = devId;
        p.hwAddr = hwAddr.clone();
        p.name = name;
        p.config = config;
        p.state = state;
        p.curr = curr;
        p.advertised = advertised;
        p.supported = supported;
        p.peer = peer;
        p.currSpeed = currSpeed;
        p.maxSpeed = maxSpeed;
        p.ofEnable = ofEnable;
        return p;
    }
}
