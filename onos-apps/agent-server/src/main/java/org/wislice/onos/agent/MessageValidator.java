package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;
import java.util.Set;

import static org.wislice.onos.agent.Fields.HEX32;
import static org.wislice.onos.agent.Fields.HEX64;
import static org.wislice.onos.agent.Fields.IDENT;
import static org.wislice.onos.agent.Fields.MAC;
import static org.wislice.onos.agent.Fields.MAX_SAFE_INT;

/**
 * Validates one agent-protocol message against spec/agent (the same rules as message.schema.json; the test
 * vectors in spec/agent/vectors are run against this class). Dispatch is by tables keyed on type, method, event.
 */
public final class MessageValidator {

    /** One check of an object node. */
    @FunctionalInterface
    interface Check {
        void check(JsonNode node, String path) throws ProtocolException;
    }

    static final Set<String> ERROR_CODES = Set.of("bad_request", "unknown_method", "not_found", "conflict",
            "capacity", "unsupported", "internal");

    private static final Map<String, Check> TYPES = Map.of(
            "challenge", MessageValidator::challenge,
            "hello", MessageValidator::hello,
            "welcome", MessageValidator::welcome,
            "bye", MessageValidator::bye,
            "ping", MessageValidator::pingPong,
            "pong", MessageValidator::pingPong,
            "request", MessageValidator::request,
            "reply", MessageValidator::reply,
            "event", MessageValidator::event);

    private static final Map<String, Check> PARAMS = Map.ofEntries(
            Map.entry("createVap", (p, at) -> {
                Fields.object(p, at, Set.of("vap"), Set.of("vap"));
                Schema.vapSpec(p.get("vap"), at + ".vap");
            }),
            Map.entry("delVap", MessageValidator::vapIdOnly),
            Map.entry("updateVap", (p, at) -> {
                Fields.object(p, at, Set.of("vap_id", "rate_limit"), Set.of("vap_id", "rate_limit"));
                Fields.string(p, "vap_id", at, IDENT);
                Schema.rateLimit(p.get("rate_limit"), at + ".rate_limit");
            }),
            Map.entry("getVaps", MessageValidator::empty),
            Map.entry("syncVaps", (p, at) -> {
                Fields.object(p, at, Set.of("vaps"), Set.of("vaps"));
                JsonNode vaps = Fields.array(p, "vaps", at, 256);
                for (int i = 0; i < vaps.size(); i++) {
                    Schema.vapSpec(vaps.get(i), at + ".vaps[" + i + "]");
                }
            }),
            Map.entry("getStatus", MessageValidator::empty),
            Map.entry("changeChannel", (p, at) -> {
                Fields.object(p, at, Set.of("radio", "channel", "cs_count"), Set.of("radio", "channel"));
                Fields.string(p, "radio", at, IDENT);
                Fields.integer(p, "channel", at, 1, 233);
                Fields.integer(p, "cs_count", at, 1, 255);
            }),
            Map.entry("getClient", (p, at) -> {
                Fields.object(p, at, Set.of("mac", "vap_id"), Set.of());
                Fields.string(p, "mac", at, MAC);
                Fields.string(p, "vap_id", at, IDENT);
            }),
            Map.entry("removeClient", (p, at) -> {
                Fields.object(p, at, Set.of("mac", "vap_id", "reason"), Set.of("mac"));
                Fields.string(p, "mac", at, MAC);
                Fields.string(p, "vap_id", at, IDENT);
                Fields.integer(p, "reason", at, 1, 65535);
            }),
            Map.entry("getTxRate", MessageValidator::vapIdOnly),
            Map.entry("getRxRate", MessageValidator::vapIdOnly),
            Map.entry("createVnf", (p, at) -> {
                Fields.object(p, at, Set.of("vnf"), Set.of("vnf"));
                Schema.vnfSpec(p.get("vnf"), at + ".vnf");
            }),
            Map.entry("delVnf", (p, at) -> {
                Fields.object(p, at, Set.of("vnf_id"), Set.of("vnf_id"));
                Fields.integer(p, "vnf_id", at, 0, Schema.U32);
            }),
            Map.entry("getVnfs", MessageValidator::empty),
            Map.entry("syncVnfs", (p, at) -> {
                Fields.object(p, at, Set.of("vnfs"), Set.of("vnfs"));
                JsonNode vnfs = Fields.array(p, "vnfs", at, 1024);
                for (int i = 0; i < vnfs.size(); i++) {
                    Schema.vnfSpec(vnfs.get(i), at + ".vnfs[" + i + "]");
                }
            }),
            Map.entry("getStatistics", (p, at) -> {
                Fields.object(p, at, Set.of("vnf_id"), Set.of());
                Fields.integer(p, "vnf_id", at, 0, Schema.U32);
            }));

    private static final Map<String, Check> EVENTS = Map.of(
            "clientAssociated", (d, at) -> {
                Fields.object(d, at, Set.of("vap_id", "mac", "signal_dbm"), Set.of("vap_id", "mac"));
                Fields.string(d, "vap_id", at, IDENT);
                Fields.string(d, "mac", at, MAC);
                Fields.nullableInteger(d, "signal_dbm", at, -127, 0);
            },
            "clientDisassociated", (d, at) -> {
                Fields.object(d, at, Set.of("vap_id", "mac", "reason"), Set.of("vap_id", "mac"));
                Fields.string(d, "vap_id", at, IDENT);
                Fields.string(d, "mac", at, MAC);
                Fields.integer(d, "reason", at, 0, 65535);
            },
            "vapState", (d, at) -> {
                Fields.object(d, at, Set.of("vap_id", "state"), Set.of("vap_id", "state"));
                Fields.string(d, "vap_id", at, IDENT);
                Fields.oneOf(d, "state", at, Set.of("up", "down", "failed", "removed"));
            },
            "vnfState", (d, at) -> {
                Fields.object(d, at, Set.of("vnf_id", "state"), Set.of("vnf_id", "state"));
                Fields.integer(d, "vnf_id", at, 0, Schema.U32);
                Fields.oneOf(d, "state", at, Set.of("creating", "running", "stopped", "failed", "removed"));
            },
            "stats", MessageValidator::stats);

    private MessageValidator() {
    }

    /** Throws ProtocolException unless the message is a valid protocol message. */
    public static void validate(JsonNode msg) throws ProtocolException {
        if (msg == null || !msg.isObject()) {
            throw ProtocolException.badRequest("message: object expected");
        }
        JsonNode type = msg.get("type");
        Check check = type != null && type.isTextual() ? TYPES.get(type.asText()) : null;
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
        Set<String> fields = Set.of("type", "version", "role", "agent_id", "software", "auth", "capabilities");
        Fields.object(m, at, fields, fields);
        version(m, at);
        Fields.oneOf(m, "role", at, Set.of("ap", "mec"));
        Fields.string(m, "agent_id", at, IDENT);
        Fields.maxLength(m, "software", at, 128);
        JsonNode auth = Fields.object(m.get("auth"), at + ".auth", Set.of("scheme", "mac"), Set.of("scheme"));
        Fields.oneOf(auth, "scheme", at + ".auth", Set.of("none", "hmac-sha256", "tls-client-cert"));
        Fields.string(auth, "mac", at + ".auth", HEX64);
        if ("hmac-sha256".equals(auth.get("scheme").asText()) && !auth.has("mac")) {
            throw ProtocolException.badRequest(at + ".auth: hmac-sha256 without mac");
        }
        String caps = at + ".capabilities";
        JsonNode c = m.get("capabilities");
        if ("ap".equals(m.get("role").asText())) {
            Set<String> capFields = Set.of("radios", "security", "pof_switch");
            Fields.object(c, caps, capFields, capFields);
            JsonNode radios = Fields.array(c, "radios", caps, 16);
            for (int i = 0; i < radios.size(); i++) {
                Schema.radio(radios.get(i), caps + ".radios[" + i + "]");
            }
            JsonNode security = Fields.array(c, "security", caps, Integer.MAX_VALUE);
            for (JsonNode mode : security) {
                if (!mode.isTextual() || !Schema.SECURITY_MODES.contains(mode.asText())) {
                    throw ProtocolException.badRequest(caps + ".security: unknown mode");
                }
            }
        } else {
            Set<String> capFields = Set.of("capacity", "catalog", "dpdk", "pof_switch");
            Fields.object(c, caps, capFields, capFields);
            Schema.capacity(c.get("capacity"), caps + ".capacity", false);
            for (JsonNode image : Fields.array(c, "catalog", caps, Integer.MAX_VALUE)) {
                if (!image.isTextual() || !IDENT.matcher(image.asText()).matches()) {
                    throw ProtocolException.badRequest(caps + ".catalog: invalid image name");
                }
            }
            Fields.bool(c, "dpdk", caps);
        }
        Fields.bool(c, "pof_switch", caps);
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
        Check params = method.isTextual() ? PARAMS.get(method.asText()) : null;
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
        Check data = event.isTextual() ? EVENTS.get(event.asText()) : null;
        if (data == null) {
            throw ProtocolException.badRequest(at + ".event: unknown event");
        }
        data.check(m.get("data"), at + ".data");
    }

    private static void stats(JsonNode d, String at) throws ProtocolException {
        Fields.object(d, at, Set.of("interval_s", "vaps", "vnfs", "node", "radios", "clients"), Set.of("interval_s"));
        Fields.number(d, "interval_s", at, 0, true, Double.MAX_VALUE);
        JsonNode vaps = Fields.array(d, "vaps", at, Integer.MAX_VALUE);
        Set<String> vapFields = Set.of("vap_id", "tx_bps", "rx_bps", "clients");
        for (int i = 0; vaps != null && i < vaps.size(); i++) {
            String p = at + ".vaps[" + i + "]";
            JsonNode v = Fields.object(vaps.get(i), p, vapFields, vapFields);
            Fields.string(v, "vap_id", p, IDENT);
            Fields.number(v, "tx_bps", p, 0, false, Double.MAX_VALUE);
            Fields.number(v, "rx_bps", p, 0, false, Double.MAX_VALUE);
            Fields.integer(v, "clients", p, 0, Long.MAX_VALUE);
        }
        JsonNode vnfs = Fields.array(d, "vnfs", at, Integer.MAX_VALUE);
        for (int i = 0; vnfs != null && i < vnfs.size(); i++) {
            Schema.vnfStats(vnfs.get(i), at + ".vnfs[" + i + "]");
        }
        if (d.has("node")) {
            Schema.nodeStats(d.get("node"), at + ".node");
        }
        JsonNode radios = Fields.array(d, "radios", at, 16);
        for (int i = 0; radios != null && i < radios.size(); i++) {
            Schema.radioCapacityEntry(radios.get(i), at + ".radios[" + i + "]");
        }
        JsonNode clients = Fields.array(d, "clients", at, Schema.MAX_STATS_CLIENTS);
        for (int i = 0; clients != null && i < clients.size(); i++) {
            Schema.statsClient(clients.get(i), at + ".clients[" + i + "]");
        }
    }

    private static void vapIdOnly(JsonNode p, String at) throws ProtocolException {
        Fields.object(p, at, Set.of("vap_id"), Set.of("vap_id"));
        Fields.string(p, "vap_id", at, IDENT);
    }

    private static void empty(JsonNode p, String at) throws ProtocolException {
        Fields.object(p, at, Set.of(), Set.of());
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
