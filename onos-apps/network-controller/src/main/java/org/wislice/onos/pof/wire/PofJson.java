package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategy;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * POF messages as JSON in the notation of spec/pof/vectors ({"type", "xid", "version", "body"}, snake_case
 * fields, byte fields in hex). Used by the vector tests and to show flow entries in REST and CLI.
 */
public final class PofJson {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategy.SNAKE_CASE)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL)
            .setVisibility(PropertyAccessor.GETTER, JsonAutoDetect.Visibility.NONE)
            .setVisibility(PropertyAccessor.IS_GETTER, JsonAutoDetect.Visibility.NONE)
            .setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.PUBLIC_ONLY)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private PofJson() {
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static ObjectNode toJson(PofMessage msg) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("type", msg.type().name());
        node.put("xid", msg.xid());
        node.put("version", msg.version());
        node.set("body", MAPPER.valueToTree(msg.body()));
        return node;
    }

    public static PofMessage fromJson(JsonNode node) {
        String typeName = node.path("type").asText();
        PofType type;
        try {
            type = PofType.valueOf(typeName);
        } catch (IllegalArgumentException e) {
            throw new PofCodecException("unknown message type " + typeName, PofCodecException.BAD_REQUEST,
                    PofCodecException.BAD_TYPE);
        }
        if (type.bodyClass() == null) {
            throw new PofCodecException("unsupported message type " + typeName, PofCodecException.BAD_REQUEST,
                    PofCodecException.BAD_TYPE);
        }
        JsonNode body = node.has("body") ? node.get("body") : MAPPER.createObjectNode();
        try {
            PofBody decoded = MAPPER.treeToValue(body, type.bodyClass());
            return new PofMessage(node.path("version").asInt(PofMessage.VERSION), type, node.path("xid").asLong(),
                    decoded);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new PofCodecException(typeName + " body: " + e.getOriginalMessage());
        }
    }

    /** A flow entry's match fields and instructions as JSON (for REST and CLI views). */
    public static JsonNode toTree(Object value) {
        return MAPPER.valueToTree(value);
    }

    public static <T> T fromTree(JsonNode node, Class<T> cls) {
        try {
            return MAPPER.treeToValue(node, cls);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(cls.getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
    }
}
