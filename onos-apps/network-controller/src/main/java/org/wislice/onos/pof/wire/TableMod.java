package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * TABLE_MOD (144): command u8 (ADD 0, MOD 1, DEL 2), table_id u8 (index within its type), table_type u8
 * (MM 0, LPM 1, EM 2, LINEAR 3), nmatch u8, size u32@4, key_len u16@8 (bits), slot_id u16@10, name[64]@16,
 * match[8]@80.
 */
public class TableMod extends PofBody {
    public static final int SIZE = 144;
    public static final int ADD = 0;
    public static final int MODIFY = 1;
    public static final int DELETE = 2;
    public static final int MM = 0;
    public static final int LPM = 1;
    public static final int EM = 2;
    public static final int LINEAR = 3;

    public int command;
    public int tableId;
    public int tableType;
    public long size;
    /** Key length in bits; 0 means "the sum of the match lengths". */
    public int keyLen;
    public int slotId;
    public String name = "";
    public List<PofMatch> matches = new ArrayList<>();

    @Override
    int wireSize() {
        return SIZE;
    }

    @Override
    void write(ByteBuffer b, int off) {
        if (matches.size() > 8) {
            throw new PofCodecException(matches.size() + " matches, at most 8");
        }
        int sum = matches.stream().mapToInt(m -> m.length).sum();
        Wire.putU8(b, off, command);
        Wire.putU8(b, off + 1, tableId);
        Wire.putU8(b, off + 2, tableType);
        Wire.putU8(b, off + 3, matches.size());
        Wire.putU32(b, off + 4, size);
        Wire.putU16(b, off + 8, keyLen != 0 ? keyLen : sum);
        Wire.putU16(b, off + 10, slotId);
        Wire.putCstr(b, off + 16, name, 64, "table name");
        for (int k = 0; k < matches.size(); k++) {
            matches.get(k).write(b, off + 80 + PofMatch.SIZE * k);
        }
    }

    static TableMod read(ByteBuffer b, int off, int len) {
        need("TABLE_MOD", len, SIZE);
        TableMod t = new TableMod();
        t.command = Wire.u8(b, off);
        t.tableId = Wire.u8(b, off + 1);
        t.tableType = Wire.u8(b, off + 2);
        int n = Wire.u8(b, off + 3);
        if (n > 8) {
            throw new PofCodecException("TABLE_MOD with " + n + " matches");
        }
        t.size = Wire.u32(b, off + 4);
        t.keyLen = Wire.u16(b, off + 8);
        t.slotId = Wire.u16(b, off + 10);
        t.name = Wire.cstr(b, off + 16, 64);
        for (int k = 0; k < n; k++) {
            t.matches.add(PofMatch.read(b, off + 80 + PofMatch.SIZE * k));
        }
        return t;
    }
}
