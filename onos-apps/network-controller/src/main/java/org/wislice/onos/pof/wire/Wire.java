package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Absolute-offset accessors for the POF structs: every field is read and written at the byte offset
 * given in spec/pof/README.md (natural C alignment, big-endian), so the code reads like the struct table.
 */
final class Wire {

    private Wire() {
    }

    static int u8(ByteBuffer b, int off) {
        return b.get(off) & 0xff;
    }

    static int u16(ByteBuffer b, int off) {
        return b.getShort(off) & 0xffff;
    }

    static long u32(ByteBuffer b, int off) {
        return b.getInt(off) & 0xffffffffL;
    }

    static void putU8(ByteBuffer b, int off, int v) {
        check(v, 0xff, off);
        b.put(off, (byte) v);
    }

    static void putU16(ByteBuffer b, int off, int v) {
        check(v, 0xffff, off);
        b.putShort(off, (short) v);
    }

    static void putU32(ByteBuffer b, int off, long v) {
        check(v, 0xffffffffL, off);
        b.putInt(off, (int) v);
    }

    static byte[] bytes(ByteBuffer b, int off, int n) {
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            out[i] = b.get(off + i);
        }
        return out;
    }

    /** Writes a byte array left-aligned into a field of {@code size} bytes (the rest stays zero). */
    static void putBytes(ByteBuffer b, int off, byte[] v, int size, String what) {
        byte[] src = v == null ? new byte[0] : v;
        if (src.length > size) {
            throw new PofCodecException(what + ": " + src.length + " bytes, at most " + size);
        }
        for (int i = 0; i < src.length; i++) {
            b.put(off + i, src[i]);
        }
    }

    /** A NUL-terminated C string inside a fixed char[size]. */
    static String cstr(ByteBuffer b, int off, int size) {
        byte[] raw = bytes(b, off, size);
        int end = 0;
        while (end < size && raw[end] != 0) {
            end++;
        }
        return new String(raw, 0, end, StandardCharsets.UTF_8);
    }

    static void putCstr(ByteBuffer b, int off, String s, int size, String what) {
        byte[] raw = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        if (raw.length >= size) {
            throw new PofCodecException(what + ": longer than " + (size - 1) + " bytes");
        }
        putBytes(b, off, raw, size, what);
    }

    /** Pads or copies a value to exactly {@code size} bytes (values are left-aligned, MSB first). */
    static byte[] fixed(byte[] v, int size) {
        return Arrays.copyOf(v == null ? new byte[0] : v, size);
    }

    private static void check(long v, long max, int off) {
        if (v < 0 || v > max) {
            throw new PofCodecException("value " + v + " out of range 0.." + max + " at offset " + off);
        }
    }
}
