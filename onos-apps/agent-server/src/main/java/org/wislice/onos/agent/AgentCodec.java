package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.FloatNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * JSON codec of one protocol value (an object of spec/agent/PROTOCOL.md, a $def of message.schema.json).
 * {@link #encode(Object)} writes it as the protocol spells it; {@link #decode(JsonNode, String)} first checks the
 * JSON against the protocol (the error names the offending field under the given path, e.g. "vap.ssid: ...") and
 * then reads it. Optional fields stay absent when they were, and numbers keep their JSON form (5 stays 5, 5.0
 * stays 5.0), so re-encoding what an agent sent changes nothing on the wire or in REST answers. Also an ONOS
 * JsonCodec, so it can be used through a CodecContext (decode errors are then IllegalArgumentException).
 */
public abstract class AgentCodec<T> extends JsonCodec<T> {

    private final String name;

    protected AgentCodec(String name) {
        this.name = name;
    }

    /** The protocol's name of the value (VapSpec, Radio, ...), for error messages. */
    public final String name() {
        return name;
    }

    /** The value as the protocol writes it. */
    public abstract ObjectNode encode(T value);

    /** Throws ProtocolException (bad_request) naming the field, under path, unless json is a valid value. */
    public abstract void check(JsonNode json, String path) throws ProtocolException;

    /**
     * Reads JSON that {@link #check} accepted, or that was accepted as part of a bigger object (the agent server
     * validates every message it hands on; the stores read back what they wrote).
     */
    public abstract T read(JsonNode json);

    /** Checks, then reads. */
    public final T decode(JsonNode json, String path) throws ProtocolException {
        check(json, path);
        return read(json);
    }

    /** A JSON array of values, each checked as path[i]. */
    public final List<T> decodeAll(JsonNode array, String path) throws ProtocolException {
        if (array == null || !array.isArray()) {
            throw ProtocolException.badRequest(path + ": array expected");
        }
        for (int i = 0; i < array.size(); i++) {
            check(array.get(i), path + "[" + i + "]");
        }
        return readAll(array);
    }

    /** Reads an array of checked values. */
    public final List<T> readAll(JsonNode array) {
        List<T> values = new ArrayList<>(array.size());
        array.forEach(v -> values.add(read(v)));
        return List.copyOf(values);
    }

    public final ArrayNode encodeAll(Collection<? extends T> values) {
        ArrayNode array = Json.MAPPER.createArrayNode();
        values.forEach(v -> array.add(encode(v)));
        return array;
    }

    @Override
    public final ObjectNode encode(T value, CodecContext context) {
        return encode(value);
    }

    @Override
    public final T decode(ObjectNode json, CodecContext context) {
        try {
            return decode(json, name);
        } catch (ProtocolException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    // --- for the codecs -----------------------------------------------------------------------------------------

    /** A JSON number as it came (Integer, Long, Double, ...), or null for an absent or null field. */
    protected static Number number(JsonNode obj, String field) {
        JsonNode v = obj.get(field);
        return v == null || v.isNull() ? null : v.numberValue();
    }

    /** An integer field, or null when absent or null. */
    protected static Long longOrNull(JsonNode obj, String field) {
        JsonNode v = obj.get(field);
        return v == null || v.isNull() ? null : v.asLong();
    }

    protected static Integer intOrNull(JsonNode obj, String field) {
        JsonNode v = obj.get(field);
        return v == null || v.isNull() ? null : v.asInt();
    }

    protected static String text(JsonNode obj, String field) {
        return obj.get(field).asText();
    }

    protected static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>(array.size());
        array.forEach(v -> out.add(v.asText()));
        return List.copyOf(out);
    }

    /** Writes a number in the JSON form it has (see {@link #number}); nothing when it is null. */
    protected static void putNumber(ObjectNode obj, String field, Number n) {
        if (n != null) {
            obj.set(field, numberNode(n));
        }
    }

    /** Writes the field when the value is not null (an optional field that was absent stays absent). */
    protected static void putIfSet(ObjectNode obj, String field, Object value) {
        if (value instanceof Number) {
            putNumber(obj, field, (Number) value);
        } else if (value instanceof Boolean) {
            obj.put(field, (Boolean) value);
        } else if (value != null) {
            obj.put(field, value.toString());
        }
    }

    /** Writes an integer that may be null (a nullable field: written as null then). */
    protected static void putNullable(ObjectNode obj, String field, Number n) {
        if (n == null) {
            obj.putNull(field);
        } else {
            putNumber(obj, field, n);
        }
    }

    protected static ArrayNode textArray(Collection<String> values) {
        ArrayNode array = Json.MAPPER.createArrayNode();
        values.forEach(array::add);
        return array;
    }

    static JsonNode numberNode(Number n) {
        if (n instanceof Integer) {
            return IntNode.valueOf((Integer) n);
        }
        if (n instanceof Long) {
            return LongNode.valueOf((Long) n);
        }
        if (n instanceof BigInteger) {
            return BigIntegerNode.valueOf((BigInteger) n);
        }
        if (n instanceof BigDecimal) {
            return DecimalNode.valueOf((BigDecimal) n);
        }
        if (n instanceof Float) {
            return FloatNode.valueOf((Float) n);
        }
        return DoubleNode.valueOf(n.doubleValue());
    }
}
