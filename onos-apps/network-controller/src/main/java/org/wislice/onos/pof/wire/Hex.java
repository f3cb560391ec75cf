package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;

import java.io.IOException;

/** Hex strings for byte fields, the notation of spec/pof/vectors and of the REST API. */
public final class Hex {

    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {
    }

    public static String encode(byte[] raw) {
        StringBuilder sb = new StringBuilder(raw.length * 2);
        for (byte x : raw) {
            sb.append(DIGITS[(x >> 4) & 0xf]).append(DIGITS[x & 0xf]);
        }
        return sb.toString();
    }

    public static byte[] decode(String hex) {
        if (hex == null || hex.length() % 2 != 0) {
            throw new IllegalArgumentException("hex string of odd length or missing: " + hex);
        }
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = Character.digit(hex.charAt(2 * i), 16);
            int lo = Character.digit(hex.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("not a hex string: " + hex);
            }
            out[i] = (byte) ((hi << 4) | lo);
        }
        return out;
    }

    /** Jackson: byte[] as lower-case hex. */
    public static class Serializer extends StdSerializer<byte[]> {
        public Serializer() {
            super(byte[].class);
        }

        @Override
        public void serialize(byte[] value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeString(encode(value));
        }
    }

    /** Jackson: lower- or upper-case hex to byte[]. */
    public static class Deserializer extends StdDeserializer<byte[]> {
        public Deserializer() {
            super(byte[].class);
        }

        @Override
        public byte[] deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            try {
                return decode(p.getValueAsString());
            } catch (IllegalArgumentException e) {
                throw ctxt.weirdStringException(p.getValueAsString(), byte[].class, e.getMessage());
            }
        }
    }
}
