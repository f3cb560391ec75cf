package org.wislice.onos.agent;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** JSON for the wire: one object per line, duplicate keys and deep nesting refused before parsing. */
public final class Json {

    /** Deeper nesting than any protocol message needs; bounds the parser's recursion on hostile input. */
    static final int MAX_DEPTH = 32;

    public static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {
    }

    /** Parses one protocol line into an object node, or throws ProtocolException. */
    public static ObjectNode parseLine(String line) throws ProtocolException {
        if (depth(line) > MAX_DEPTH) {
            throw ProtocolException.badRequest("message nested deeper than " + MAX_DEPTH);
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            throw ProtocolException.badRequest("invalid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw ProtocolException.badRequest("message: JSON object expected");
        }
        return (ObjectNode) node;
    }

    public static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize a tree node", e);
        }
    }

    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** Maximum bracket depth outside strings. */
    static int depth(String s) {
        int depth = 0;
        int max = 0;
        boolean inString = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                max = Math.max(max, ++depth);
            } else if (c == '}' || c == ']') {
                depth--;
            }
        }
        return max;
    }
}
