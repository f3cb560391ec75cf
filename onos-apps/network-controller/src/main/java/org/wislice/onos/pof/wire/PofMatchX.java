package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/** A match with value and mask (40 bytes): match, value[16]@8, mask[16]@24, left-aligned, MSB first. */
public class PofMatchX {
    public static final int SIZE = 40;
    public static final int VALUE_SIZE = 16;

    public int fieldId;
    public int offset;
    public int length;
    @JsonSerialize(using = Hex.Serializer.class)
    @JsonDeserialize(using = Hex.Deserializer.class)
    public byte[] value = new byte[VALUE_SIZE];
    @JsonSerialize(using = Hex.Serializer.class)
    @JsonDeserialize(using = Hex.Deserializer.class)
    public byte[] mask = new byte[VALUE_SIZE];

    public PofMatchX() {
    }

    public PofMatchX(int fieldId, int offset, int length, byte[] value, byte[] mask) {
        this.fieldId = fieldId;
        this.offset = offset;
        this.length = length;
        this.value = Wire.fixed(value, VALUE_SIZE);
        this.mask = Wire.fixed(mask, VALUE_SIZE);
    }

    /** An exact match on {@code length} bits: the mask covers exactly those bits. */
    public static PofMatchX exact(int fieldId, int offset, int length, byte[] value) {
        byte[] mask = new byte[VALUE_SIZE];
        for (int bit = 0; bit < length && bit < VALUE_SIZE * 8; bit++) {
            mask[bit / 8] |= (byte) (0x80 >>> (bit % 8));
        }
        return new PofMatchX(fieldId, offset, length, value, mask);
    }

    public PofMatch field() {
        return new PofMatch(fieldId, offset, length);
    }

    void write(ByteBuffer b, int off) {
        field().write(b, off);
        Wire.putBytes(b, off + 8, value, VALUE_SIZE, "match value");
        Wire.putBytes(b, off + 24, mask, VALUE_SIZE, "match mask");
    }

    static PofMatchX read(ByteBuffer b, int off) {
        PofMatch m = PofMatch.read(b, off);
        return new PofMatchX(m.fieldId, m.offset, m.length, Wire.bytes(b, off + 8, VALUE_SIZE),
                Wire.bytes(b, off + 24, VALUE_SIZE));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PofMatchX)) {
            return false;
        }
        PofMatchX m = (PofMatchX) o;
        return fieldId == m.fieldId && offset == m.offset && length == m.length
                && Arrays.equals(value, m.value) && Arrays.equals(mask, m.mask);
    }

    @Override
    public int hashCode() {
        return Objects.hash(fieldId, offset, length, Arrays.hashCode(value), Arrays.hashCode(mask));
    }

    @Override
    public String toString() {
        return "match(" + fieldId + "@" + offset + "/" + length + "=" + Hex.encode(value) + "&"
                + Hex.encode(mask) + ")";
    }
}
