package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Field checks of the protocol's objects (Schema, MessageValidator, the calls in ApCalls and MecCalls): each names
 * the offending path in its error.
 */
public final class Fields {

    public static final Pattern IDENT = Pattern.compile("^[A-Za-z0-9_.:-]{1,64}$");
    public static final Pattern MAC = Pattern.compile("^[0-9a-f]{2}(:[0-9a-f]{2}){5}$");
    public static final Pattern HEX32 = Pattern.compile("^[0-9a-f]{32}$");
    public static final Pattern HEX64 = Pattern.compile("^[0-9a-f]{64}$");
    public static final Pattern PASSPHRASE = Pattern.compile("^[\\x20-\\x7e]{8,63}$|^[0-9a-fA-F]{64}$");
    public static final Pattern IFNAME = Pattern.compile("^[A-Za-z0-9_.-]{1,15}$");
    public static final Pattern PARAM_NAME = Pattern.compile("^[A-Za-z0-9_]{1,64}$");
    public static final Pattern CONTAINER_ID = Pattern.compile("^[0-9a-f]{12,64}$");
    /** A CPU list in the kernel's format ("0-3,5"; at most 64 items), as the schema's pattern for VnfState.cpus. */
    public static final Pattern CPU_LIST = Pattern.compile(
            "^[0-9]{1,4}(-[0-9]{1,4})?(,[0-9]{1,4}(-[0-9]{1,4})?){0,63}$");
    public static final Pattern IPV4 = Pattern.compile("^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}"
                                                    + "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$");
    /** A firmware version as an AP's hello and upgradeFirmware carry it (23.05.3-wislice1): one token. */
    public static final Pattern FIRMWARE_VERSION = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9._+~-]{0,63}$");
    public static final long MAX_SAFE_INT = 9007199254740991L;

    private Fields() {
    }

    /** The node must be an object with only the allowed keys and all the required ones. */
    public static JsonNode object(JsonNode node, String path, Set<String> allowed, Set<String> required)
            throws ProtocolException {
        if (node == null || !node.isObject()) {
            throw ProtocolException.badRequest(path + ": object expected");
        }
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw ProtocolException.badRequest(path + ": unknown field '" + truncate(name) + "'");
            }
        }
        for (String name : required) {
            if (!node.has(name)) {
                throw ProtocolException.badRequest(path + ": missing field '" + name + "'");
            }
        }
        return node;
    }

    public static String string(JsonNode obj, String field, String path, Pattern pattern) throws ProtocolException {
        JsonNode v = obj.get(field);
        if (v == null) {
            return null;
        }
        if (!v.isTextual()) {
            throw ProtocolException.badRequest(path + "." + field + ": string expected");
        }
        if (pattern != null && !pattern.matcher(v.asText()).matches()) {
            throw ProtocolException.badRequest(path + "." + field + ": invalid value");
        }
        return v.asText();
    }

    public static String maxLength(JsonNode obj, String field, String path, int max) throws ProtocolException {
        String s = string(obj, field, path, null);
        if (s != null && s.codePointCount(0, s.length()) > max) {
            throw ProtocolException.badRequest(path + "." + field + ": longer than " + max);
        }
        return s;
    }

    public static void ssid(JsonNode obj, String path) throws ProtocolException {
        String s = string(obj, "ssid", path, null);
        if (s == null) {
            return;
        }
        int bytes = s.getBytes(StandardCharsets.UTF_8).length;
        if (bytes < 1 || bytes > 32) {
            throw ProtocolException.badRequest(path + ".ssid: 1-32 bytes expected");
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw ProtocolException.badRequest(path + ".ssid: control character");
            }
        }
    }

    public static void integer(JsonNode obj, String field, String path, long min, long max) throws ProtocolException {
        JsonNode v = obj.get(field);
        if (v == null) {
            return;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw ProtocolException.badRequest(path + "." + field + ": integer expected");
        }
        long n = v.asLong();
        if (n < min || n > max) {
            throw ProtocolException.badRequest(path + "." + field + ": out of range [" + min + ", " + max + "]");
        }
    }

    public static void nullableInteger(JsonNode obj, String field, String path, long min, long max)
            throws ProtocolException {
        JsonNode v = obj.get(field);
        if (v != null && !v.isNull()) {
            integer(obj, field, path, min, max);
        }
    }

    /** A JSON number; exclusiveMin means the bound itself is not allowed. */
    public static void number(JsonNode obj, String field, String path, double min, boolean exclusiveMin, double max)
            throws ProtocolException {
        JsonNode v = obj.get(field);
        if (v == null) {
            return;
        }
        if (!v.isNumber()) {
            throw ProtocolException.badRequest(path + "." + field + ": number expected");
        }
        double d = v.asDouble();
        if (Double.isNaN(d) || d < min || (exclusiveMin && d == min) || d > max) {
            throw ProtocolException.badRequest(path + "." + field + ": out of range");
        }
    }

    public static void bool(JsonNode obj, String field, String path) throws ProtocolException {
        JsonNode v = obj.get(field);
        if (v != null && !v.isBoolean()) {
            throw ProtocolException.badRequest(path + "." + field + ": boolean expected");
        }
    }

    public static void oneOf(JsonNode obj, String field, String path, Set<String> values) throws ProtocolException {
        JsonNode v = obj.get(field);
        if (v != null && (!v.isTextual() || !values.contains(v.asText()))) {
            throw ProtocolException.badRequest(path + "." + field + ": not one of " + values);
        }
    }

    public static JsonNode array(JsonNode obj, String field, String path, int maxItems) throws ProtocolException {
        JsonNode v = obj.get(field);
        if (v == null) {
            return null;
        }
        if (!v.isArray()) {
            throw ProtocolException.badRequest(path + "." + field + ": array expected");
        }
        if (v.size() > maxItems) {
            throw ProtocolException.badRequest(path + "." + field + ": more than " + maxItems + " items");
        }
        return v;
    }

    private static String truncate(String s) {
        return s.length() > 64 ? s.substring(0, 64) + "..." : s;
    }
}
