package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * FLOW_MOD (2184): command u8, nmatch u8@1, nins u8@2, counter_id u32@4, cookie u64@8, cookie_mask u64@16,
 * table_id u8@24, table_type u8@25, idle u16@26, hard u16@28, priority u16@30, index u32@32, slot_id u16@36,
 * match_x[8]@40, instruction[6]@360.
 */
public class FlowMod extends PofBody {
    public static final int SIZE = 2184;
    public static final int MAX_MATCH = 8;
    public static final int ADD = 0;
    public static final int MODIFY = 1;
    public static final int MODIFY_STRICT = 2;
    public static final int DELETE = 3;
    public static final int DELETE_STRICT = 4;
    /** FLOW_MOD_FAILED / ENTRY_EXIST: an ADD at an index the switch holds an entry at. */
    public static final int FLOW_MOD_FAILED = 5;
    public static final int ENTRY_EXIST = 8;

    public int command;
    public long counterId;
    public long cookie;
    public long cookieMask;
    public int tableId;
    public int tableType;
    public int idleTimeout;
    public int hardTimeout;
    public int priority;
    public long index;
    public int slotId;
    public List<PofMatchX> matches = new ArrayList<>();
    public List<PofInstruction> instructions = new ArrayList<>();

    @Override
    int wireSize() {
        return SIZE;
    }

    @Override
    void write(ByteBuffer b, int off) {
        if (matches.size() > MAX_MATCH || instructions.size() > PofInstruction.MAX_PER_FLOW) {
            throw new PofCodecException("FLOW_MOD with " + matches.size() + " matches and " + instructions.size()
                    + " instructions, at most 8 and 6");
        }
        Wire.putU8(b, off, command);
        Wire.putU8(b, off + 1, matches.size());
        Wire.putU8(b, off + 2, instructions.size());
        Wire.putU32(b, off + 4, counterId);
        b.putLong(off + 8, cookie);
        b.putLong(off + 16, cookieMask);
        Wire.putU8(b, off + 24, tableId);
        Wire.putU8(b, off + 25, tableType);
        Wire.putU16(b, off + 26, idleTimeout);
        Wire.putU16(b, off + 28, hardTimeout);
        Wire.putU16(b, off + 30, priority);
        Wire.putU32(b, off + 32, index);
        Wire.putU16(b, off + 36, slotId);
        for (int k = 0; k < matches.size(); k++) {
            matches.get(k).write(b, off + 40 + PofMatchX.SIZE * k);
        }
        for (int k = 0; k < instructions.size(); k++) {
            instructions.get(k).write(b, off + 360 + PofInstruction.SIZE * k);
        }
    }

    static FlowMod read(ByteBuffer b, int off, int len) {
        need("FLOW_MOD", len, SIZE);
        FlowMod f = new FlowMod();
        f.command = Wire.u8(b, off);
        int nm = Wire.u8(b, off + 1);
        int ni = Wire.u8(b, off + 2);
        if (nm > MAX_MATCH || ni > PofInstruction.MAX_PER_FLOW) {
            throw new PofCodecException("FLOW_MOD with " + nm + " matches and " + ni + " instructions");
        }
        f.counterId = Wire.u32(b, off + 4);
        f.cookie = b.getLong(off + 8);
        f.cookieMask = b.getLong(off + 16);
        f.tableId = Wire.u8(b, off + 24);
        f.tableType = Wire.u8(b, off + 25);
        f.idleTimeout = Wire.u16(b, off + 26);
        f.hardTimeout = Wire.u16(b, off + 28);
        f.priority = Wire.u16(b, off + 30);
        f.index = Wire.u32(b, off + 32);
        f.slotId = Wire.u16(b, off + 36);
        for (int k = 0; k < nm; k++) {
            f.matches.add(PofMatchX.read(b, off + 40 + PofMatchX.SIZE * k));
        }
        for (int k = 0; k < ni; k++) {
            f.instructions.add(PofInstruction.read(b, off + 360 + PofInstruction.SIZE * k));
        }
        return f;
    }
}
