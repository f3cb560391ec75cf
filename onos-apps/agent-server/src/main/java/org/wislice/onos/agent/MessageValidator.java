package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;

import org.wislice.onos.agent.ap.ApCalls;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.mec.MecCalls;
import org.wislice.onos.agent.mec.MecCodecs;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.wislice.onos.agent.Fields.HEX32;
import static org.wislice.onos.agent.Fields.HEX64;
import static org.wislice.onos.agent.Fields.IDENT;
import static org.wislice.onos.agent.Fields.MAX_SAFE_INT;

/**
 * Validates one agent-protocol message against spec/agent (the same rules as message.schema.json; the test
 * vectors in spec/agent/vectors are run against this class). Dispatch is by tables keyed on type, method, event.
 */
public final class MessageValidator {

    static final Set<String> ERROR_CODES = Set.of("bad_request", "unknown_method", "not_found", "conflict",
            "capacity", "unsupported", "internal");

    private static final Map<String, JsonCheck> TYPES = Map.of(
            "challenge", MessageValidator::challenge,
            "hello", MessageValidator::hello,
            "welcome", MessageValidator::welcome,
            "bye", MessageValidator::bye,
            "ping", MessageValidator::pingPong,
            "pong", MessageValidator::pingPong,
            "request", MessageValidator::request,
            "reply", MessageValidator::reply,
            "event", MessageValidator::event);

    /** Each method's params check, from its AgentCall (getStatus is the same {} for both roles). */
    private static final Map<String, JsonCheck> PARAMS = paramsChecks();

    /** Each event's data check: its codec's (stats is the same check for both roles). */
    private static final Map<String, JsonCheck> EVENTS = eventChecks();

    private MessageValidator() {
    }

    private static Map<String, JsonCheck> paramsChecks() {
        Map<String, JsonCheck> checks = new HashMap<>();
        for (List<AgentCall<?, ?>> calls : List.of(ApCalls.ALL, MecCalls.ALL)) {
            calls.forEach(c -> checks.putIfAbsent(c.method(), c::checkParams));
        }
        return Map.copyOf(checks);
    }

    private static Map<String, JsonCheck> eventChecks() {
        Map<String, JsonCheck> checks = new HashMap<>();
        for (Map<String, AgentCodec<?>> codecs : List.of(ApCodecs.EVENTS, MecCodecs.EVENTS)) {
            codecs.forEach((event, codec) -> checks.putIfAbsent(event, codec::check));
        }
        return Map.copyOf(checks);
    }

    /** Throws ProtocolException unless the message is a valid protocol message. */
    public static void validate(JsonNode msg) throws ProtocolException {
        if (msg == null || !msg.isObject()) {
            throw ProtocolException.badRequest("message: object expected");
        }
        JsonNode type = msg.get("type");
        JsonCheck check = type != null && type.isTextual() ? TYPES.get(type.asText()) : null;
        if (check == null) {
            throw ProtocolException.badRequest("message: unknown type");
        }
        check.check(msg, type.asText());
    }

    private static void challenge(JsonNode m, String at) throws ProtocolException {
        Set<String> fields = Set.of("type", "version", "nonce", "controller_id");
        Fields.object(m, at, fields, fields);
        version(m, at);
        Fields.string(m, "nonce", at, HEX32);
        Fields.string(m, "controller_id", at, IDENT);
    }

    private static void hello(JsonNode m, String at) throws ProtocolException {
        Set<String> required = Set.of("type", "version", "role", "agent_id", "software", "auth", "capabilities");
        Set<String> fields = Set.of("type", "version", "role", "agent_id", "software", "auth", "capabilities",
                                    "firmware_version");
        Fields.object(m, at, fields, required);
        version(m, at);
        Fields.oneOf(m, "role", at, Set.of("ap", "mec"));
        Fields.string(m, "agent_id", at, IDENT);
        Fields.maxLength(m, "software", at, 128);
        Fields.string(m, "firmware_version", at, Fields.FIRMWARE_VERSION);
        JsonNode auth = Fields.object(m.get("auth"), at + ".auth", Set.of("scheme", "mac"), Set.of("scheme"));
        Fields.oneOf(auth, "scheme", at + ".auth", Set.of("none", "hmac-sha256", "tls-client-cert"));
        Fields.string(auth, "mac", at + ".auth", HEX64);
        if ("hmac-sha256".equals(auth.get("scheme").asText()) && !auth.has("mac")) {
            throw ProtocolException.badRequest(at + ".auth: hmac-sha256 without mac");
        }
        String caps = at + ".capabilities";
        if ("ap".equals(m.get("role").asText())) {
            Schema.apCapabilities(m.get("capabilities"), caps);
        } else {
            Schema.mecCapabilities(m.get("capabilities"), caps);
        }
    }

    private static void welcome(JsonNode m, String at) throws ProtocolException {
        Fields.object(m, at, Set.of("type", "controller_id", "stats_interval_s"), Set.of("type", "controller_id"));
        Fields.string(m, "controller_id", at, IDENT);
        Fields.number(m, "stats_interval_s", at, 1, false, 3600);
    }

    private static void bye(JsonNode m, String at) throws ProtocolException {
        Fields.object(m, at, Set.of("type", "reason"), Set.of("type", "reason"));
        Fields.maxLength(m, "reason", at, 1024);
    }

    private static void pingPong(JsonNode m, String at) throws ProtocolException {
        Fields.object(m, at, Set.of("type", "id"), Set.of("type", "id"));
        Fields.integer(m, "id", at, 1, MAX_SAFE_INT);
    }

    private static void request(JsonNode m, String at) throws ProtocolException {
        Set<String> fields = Set.of("type", "id", "method", "params");
        Fields.object(m, at, fields, fields);
        Fields.integer(m, "id", at, 1, MAX_SAFE_INT);
        JsonNode method = m.get("method");
        JsonCheck params = method.isTextual() ? PARAMS.get(method.asText()) : null;
        if (params == null) {
            throw new ProtocolException("unknown_method", at + ".method: unknown method");
        }
        params.check(m.get("params"), at + ".params");
    }

    private static void reply(JsonNode m, String at) throws ProtocolException {
        Fields.object(m, at, Set.of("type", "id", "ok", "result", "error"), Set.of("type", "id", "ok"));
        Fields.integer(m, "id", at, 1, MAX_SAFE_INT);
        Fields.bool(m, "ok", at);
        boolean ok = m.get("ok").asBoolean();
        if (ok && (!m.has("result") || m.has("error"))) {
            throw ProtocolException.badRequest(at + ": ok reply needs result and no error");
        }
        if (!ok && (!m.has("error") || m.has("result"))) {
            throw ProtocolException.badRequest(at + ": failed reply needs error and no result");
        }
        if (ok) {
            Fields.object(m.get("result"), at + ".result", AnyKeys.INSTANCE, Set.of());
        } else {
            JsonNode err = Fields.object(m.get("error"), at + ".error", Set.of("code", "message"),
                                         Set.of("code", "message"));
            Fields.oneOf(err, "code", at + ".error", ERROR_CODES);
            Fields.maxLength(err, "message", at + ".error", 4096);
        }
    }

    private static void event(JsonNode m, String at) throws ProtocolException {
        Set<String> fields = Set.of("type", "event", "ts", "data");
        Fields.object(m, at, fields, fields);
        Fields.number(m, "ts", at, 0, false, Double.MAX_VALUE);
        JsonNode event = m.get("event");
        JsonCheck data = event.isTextual() ? EVENTS.get(event.asText()) : null;
        if (data == null) {
            throw ProtocolException.badRequest(at + ".event: unknown event");
        }
        data.check(m.get("data"), at + ".data");
    }

    private static void version(JsonNode m, String at) throws ProtocolException {
        JsonNode v = m.get("version");
        if (!v.isIntegralNumber() || v.asLong() != 1) {
            throw new ProtocolException("unsupported", at + ".version: only version 1 is supported");
        }
    }

    /** A key set that contains every key: for objects whose content the schema leaves open. */
    private static final class AnyKeys extends java.util.AbstractSet<String> {
        static final AnyKeys INSTANCE = new AnyKeys();

        @Override
        public boolean contains(Object o) {
            return true;
        }

        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.Collections.emptyIterator();
        }

        @Override
        public int size() {
            return 0;
        }
    }
}
