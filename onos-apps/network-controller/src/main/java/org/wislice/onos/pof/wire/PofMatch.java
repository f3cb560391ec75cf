package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A POF field (8 bytes): field_id u16 (0xFFFF metadata, 0x8xxx parameter, else packet), offset u16 and
 * length u16 in bits, pad2.
 */
public class PofMatch {
    public static final int SIZE = 8;
    public static final int METADATA = 0xffff;

    public int fieldId;
    public int offset;
    public int length;

    public PofMatch() {
    }

    public PofMatch(int fieldId, int offset, int length) {
        this.fieldId = fieldId;
        this.offset = offset;
        this.length = length;
    }

    void write(ByteBuffer b, int off) {
        Wire.putU16(b, off, fieldId);
        Wire.putU16(b, off + 2, offset);
        Wire.putU16(b, off + 4, length);
    }

    static PofMatch read(ByteBuffer b, int off) {
        return new PofMatch(Wire.u16(b, off), Wire.u16(b, off + 2), Wire.u16(b, off + 4));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PofMatch) || o.getClass() != getClass()) {
            return false;
        }
        PofMatch m = (PofMatch) o;
        return fieldId == m.fieldId && offset == m.offset && length == m.length;
    }

    @Override
    public int hashCode() {
        return Objects.hash(fieldId, offset, length);
    }

    @Override
    public String toString() {
        return "field(" + fieldId + "@" + offset + "/" + length + ")";
    }
}
