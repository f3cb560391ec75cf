package org.wislice.onos.agent;

import org.onosproject.store.service.Serializer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Store serializer for String and Long keys and values (the apps keep JSON text in ConsistentMaps). No Kryo:
 * nothing to register, and records stay readable across app and ONOS versions.
 */
public final class TextSerializer implements Serializer {

    public static final TextSerializer INSTANCE = new TextSerializer();
    private static final byte STRING = 's';
    private static final byte LONG = 'l';

    private TextSerializer() {
    }

    @Override
    public <T> byte[] encode(T object) {
        if (object instanceof String) {
            byte[] text = ((String) object).getBytes(StandardCharsets.UTF_8);
            return ByteBuffer.allocate(1 + text.length).put(STRING).put(text).array();
        }
        if (object instanceof Long) {
            return ByteBuffer.allocate(9).put(LONG).putLong((Long) object).array();
        }
        throw new IllegalArgumentException("TextSerializer stores String and Long only, not " + object);
    }

    @Override
    public <T> T copy(T object) {
        return object; // String and Long are immutable
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T decode(byte[] bytes) {
        if (bytes.length > 0 && bytes[0] == STRING) {
            return (T) new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8);
        }
        if (bytes.length == 9 && bytes[0] == LONG) {
            return (T) Long.valueOf(ByteBuffer.wrap(bytes, 1, 8).getLong());
        }
        throw new IllegalArgumentException("not a TextSerializer record");
    }
}
