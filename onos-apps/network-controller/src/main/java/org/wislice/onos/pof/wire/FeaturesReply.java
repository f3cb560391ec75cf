package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;

/**
 * FEATURES_REPLY (208): dev_id u32, slot_id u16@4, port_num u16@6, table_num u16@8, capabilities u32@12,
 * vendor_id[64]@16, dev_fw_id[64]@80, dev_lkup_id[64]@144.
 */
public class FeaturesReply extends PofBody {
    public static final int SIZE = 208;
    /**
     * capabilities bit a WiSlice switch (vendor_id "WiSlice") sets when it applies METER_MOD's LATENCY flag; above
     * every OpenFlow statistics flag a reference switch may set (spec/pof "Capabilities the controller reads").
     */
    public static final long CAP_LATENCY_METERS = 0x80000000L;

    public long devId;
    public int slotId;
    public int portNum;
    public int tableNum;
    public long capabilities;
    public String vendorId = "";
    public String devFwId = "";
    public String devLkupId = "";

    @Override
    int wireSize() {
        return SIZE;
    }

    @Override
    void write(ByteBuffer b, int off) {
        Wire.putU32(b, off, devId);
        Wire.putU16(b, off + 4, slotId);
        Wire.putU16(b, off + 6, portNum);
        Wire.putU16(b, off + 8, tableNum);
        Wire.putU32(b, off + 12, capabilities);
        Wire.putCstr(b, off + 16, vendorId, 64, "vendor_id");
        Wire.putCstr(b, off + 80, devFwId, 64, "dev_fw_id");
        Wire.putCstr(b, off + 144, devLkupId, 64, "dev_lkup_id");
    }

    static FeaturesReply read(ByteBuffer b, int off, int len) {
        need("FEATURES_REPLY", len, SIZE);
        FeaturesReply f = new FeaturesReply();
        f.devId = Wire.u32(b, off);
        f.slotId = Wire.u16(b, off + 4);
        f.portNum = Wire.u16(b, off + 6);
        f.tableNum = Wire.u16(b, off + 8);
        f.capabilities = Wire.u32(b, off + 12);
        f.vendorId = Wire.cstr(b, off + 16, 64);
        f.devFwId = Wire.cstr(b, off + 80, 64);
        f.devLkupId = Wire.cstr(b, off + 144, 64);
        return f;
    }
}
