package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * RESOURCE_REPORT (80): resource_type u8, slot_id u16@2, counter_num u32@4, meter_num u32@8, group_num u32@12,
 * then 4 table descriptors of 16 bytes {dev_id u32, type u8, tbl_num u8, key_len u16, total_size u32, pad4},
 * one per table type (MM, LPM, EM, LINEAR).
 */
public class ResourceReport extends PofBody {
    public static final int SIZE = 80;
    public static final int TABLE_TYPES = 4;

    public int resourceType;
    public int slotId;
    public long counterNum;
    public long meterNum;
    public long groupNum;
    public List<TableResource> tables = new ArrayList<>();

    /** What the switch offers for one table type. */
    public static class TableResource {
        public long devId;
        public int type;
        public int tblNum;
        public int keyLen;
        public long totalSize;
    }

    @Override
    int wireSize() {
        return SIZE;
    }

    @Override
    void write(ByteBuffer b, int off) {
        if (tables.size() > TABLE_TYPES) {
            throw new PofCodecException("RESOURCE_REPORT with " + tables.size() + " table descriptors, at most 4");
        }
        Wire.putU8(b, off, resourceType);
        Wire.putU16(b, off + 2, slotId);
        Wire.putU32(b, off + 4, counterNum);
        Wire.putU32(b, off + 8, meterNum);
        Wire.putU32(b, off + 12, groupNum);
        for (int k = 0; k < tables.size(); k++) {
            TableResource t = tables.get(k);
            int o = off + 16 + 16 * k;
            Wire.putU32(b, o, t.devId);
            Wire.putU8(b, o + 4, t.type);
            Wire.putU8(b, o + 5, t.tblNum);
            Wire.putU16(b, o + 6, t.keyLen);
            Wire.putU32(b, o + 8, t.totalSize);
        }
    }

    static ResourceReport read(ByteBuffer b, int off, int len) {
        need("RESOURCE_REPORT", len, SIZE);
        ResourceReport r = new ResourceReport();
        r.resourceType = Wire.u8(b, off);
        r.slotId = Wire.u16(b, off + 2);
        r.counterNum = Wire.u32(b, off + 4);
        r.meterNum = Wire.u32(b, off + 8);
        r.groupNum = Wire.u32(b, off + 12);
        for (int k = 0; k < TABLE_TYPES; k++) {
            int o = off + 16 + 16 * k;
            TableResource t = new TableResource();
            t.devId = Wire.u32(b, o);
            t.type = Wire.u8(b, o + 4);
            t.tblNum = Wire.u8(b, o + 5);
            t.keyLen = Wire.u16(b, o + 6);
            t.totalSize = Wire.u32(b, o + 8);
            r.tables.add(t);
        }
        return r;
    }
}
