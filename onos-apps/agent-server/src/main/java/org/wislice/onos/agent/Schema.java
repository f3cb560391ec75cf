package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Iterator;
import java.util.Map;
import java.util.Set;

import static org.wislice.onos.agent.Fields.CONTAINER_ID;
import static org.wislice.onos.agent.Fields.CPU_LIST;
import static org.wislice.onos.agent.Fields.IDENT;
import static org.wislice.onos.agent.Fields.IFNAME;
import static org.wislice.onos.agent.Fields.IPV4;
import static org.wislice.onos.agent.Fields.MAC;
import static org.wislice.onos.agent.Fields.PARAM_NAME;
import static org.wislice.onos.agent.Fields.PASSPHRASE;

/**
 * The protocol's object types (the $defs of spec/agent/schema/message.schema.json), checked by hand so the
 * controllers need no schema library inside ONOS. Each method throws ProtocolException naming the bad field.
 */
public final class Schema {

    static final Set<String> SECURITY_MODES = Set.of("open", "wpa2-psk", "wpa3-sae", "wpa2-wpa3");
    public static final long U32 = 4294967295L;
    /** A slice's latency classes (the orchestrator's), as a VnfSpec may carry them. */
    public static final Set<String> LATENCY_CLASSES = Set.of("ultra_low", "low", "best_effort");
    /** Rates of a rate_limit (kbit/s). */
    public static final long MAX_RATE_KBPS = 10_000_000L;
    static final Set<String> CAPACITY_SOURCES = Set.of("operator", "measured", "default");
    private static final Set<String> RATE_LIMIT_FIELDS = Set.of("down_kbps", "up_kbps", "down_guaranteed_kbps",
            "up_guaranteed_kbps");

    private static final Set<String> VAP_SPEC_FIELDS = Set.of("vap_id", "radio", "ssid", "security", "hidden",
            "tenant_id", "slice_id", "rate_limit", "max_clients", "wmm_ac", "probe");
    /** A vAP's WMM access categories (802.11 names: best effort, video, voice). */
    public static final Set<String> WMM_ACS = Set.of("be", "vi", "vo");
    private static final Set<String> VAP_SPEC_REQUIRED = Set.of("vap_id", "radio", "ssid", "security", "tenant_id",
            "slice_id", "rate_limit");
    private static final Set<String> VAP_STATE_FIELDS = union(VAP_SPEC_FIELDS,
            Set.of("ifname", "bssid", "state", "clients", "pof_port"));
    private static final Set<String> VAP_STATE_REQUIRED = union(VAP_SPEC_REQUIRED,
            Set.of("ifname", "bssid", "state", "clients"));
    /** A VapLatency's counters (all required integers >= 0, besides vap_id). */
    public static final java.util.List<String> VAP_LATENCY_COUNTERS = java.util.List.of("sent", "received", "lost",
            "p50_us", "p90_us", "p99_us", "max_us", "samples");
    private static final Set<String> VAP_LATENCY_FIELDS = union(Set.of("vap_id"),
            Set.copyOf(VAP_LATENCY_COUNTERS));
    /** At most this many latency items in a stats event. */
    public static final int MAX_STATS_LATENCY = 256;
    /** At most this many clients in a stats event. */
    public static final int MAX_STATS_CLIENTS = 2048;
    private static final Set<String> STATS_CLIENT_REQUIRED = Set.of("mac", "vap_id", "tx_bytes", "rx_bytes");
    private static final Set<String> STATS_CLIENT_FIELDS = union(STATS_CLIENT_REQUIRED, Set.of("tx_bps", "rx_bps"));
    private static final Set<String> VNF_SPEC_FIELDS = Set.of("tenant_id", "instance_id", "image", "params", "cpu",
            "memory_mib", "chain_position");
    private static final Set<String> VNF_SPEC_REQUIRED = Set.of("tenant_id", "instance_id", "image", "cpu",
            "memory_mib", "chain_position");
    private static final Set<String> VNF_STATE_EXTRA = Set.of("vnf_id", "address", "class", "state",
            "container_id", "ports");
    /** A placed vNF's optional cpuset and how it holds that core (spec/agent PROTOCOL.md, VnfState). */
    private static final Set<String> VNF_PLACEMENT = Set.of("cpus", "cpu_mode");
    private static final Set<String> CPU_MODES = Set.of("exclusive", "shared", "switch");

    private Schema() {
    }

    public static void vapSpec(JsonNode v, String path) throws ProtocolException {
        Fields.object(v, path, VAP_SPEC_FIELDS, VAP_SPEC_REQUIRED);
        vapCommon(v, path);
        security(v.get("security"), path + ".security", true);
    }

    public static void vapState(JsonNode v, String path) throws ProtocolException {
        Fields.object(v, path, VAP_STATE_FIELDS, VAP_STATE_REQUIRED);
        vapCommon(v, path);
        security(v.get("security"), path + ".security", false);
        Fields.string(v, "ifname", path, IFNAME);
        Fields.string(v, "bssid", path, MAC);
        Fields.oneOf(v, "state", path, Set.of("up", "down", "failed"));
        Fields.integer(v, "clients", path, 0, Long.MAX_VALUE);
        Fields.nullableInteger(v, "pof_port", path, 1, 65535);
    }

    private static void vapCommon(JsonNode v, String path) throws ProtocolException {
        Fields.string(v, "vap_id", path, IDENT);
        Fields.string(v, "radio", path, IDENT);
        Fields.ssid(v, path);
        Fields.bool(v, "hidden", path);
        Fields.integer(v, "tenant_id", path, 0, 65535);
        Fields.string(v, "slice_id", path, IDENT);
        Fields.integer(v, "max_clients", path, 1, 2007);
        Fields.oneOf(v, "wmm_ac", path, WMM_ACS);
        rateLimit(v.get("rate_limit"), path + ".rate_limit");
        if (v.has("probe")) {
            probe(v.get("probe"), path + ".probe");
        }
    }

    /** Probe: {source_ip, target_ip, interval_ms? (10..10000)}, dotted-decimal IPv4 without leading zeros. */
    public static void probe(JsonNode p, String path) throws ProtocolException {
        Fields.object(p, path, Set.of("source_ip", "target_ip", "interval_ms"), Set.of("source_ip", "target_ip"));
        Fields.string(p, "source_ip", path, IPV4);
        Fields.string(p, "target_ip", path, IPV4);
        Fields.integer(p, "interval_ms", path, 10, 10_000);
    }

    /** VapLatency (getLatency's result, a stats event's latency item): vap_id and eight counters >= 0. */
    public static void vapLatency(JsonNode l, String path) throws ProtocolException {
        Fields.object(l, path, VAP_LATENCY_FIELDS, VAP_LATENCY_FIELDS);
        Fields.string(l, "vap_id", path, IDENT);
        for (String counter : VAP_LATENCY_COUNTERS) {
            Fields.integer(l, counter, path, 0, Long.MAX_VALUE);
        }
    }

    /**
     * RateLimit: caps down_kbps and up_kbps (0 = uncapped) and the optional guarantees down_guaranteed_kbps and
     * up_guaranteed_kbps (default 0), all 0..10 000 000; a guarantee above a non-zero cap is bad_request.
     */
    public static void rateLimit(JsonNode rate, String path) throws ProtocolException {
        Fields.object(rate, path, RATE_LIMIT_FIELDS, Set.of("down_kbps", "up_kbps"));
        for (String field : RATE_LIMIT_FIELDS) {
            Fields.integer(rate, field, path, 0, MAX_RATE_KBPS);
        }
        for (String dir : new String[] {"down", "up"}) {
            long cap = rate.get(dir + "_kbps").asLong();
            long guaranteed = rate.path(dir + "_guaranteed_kbps").asLong(0);
            if (cap != 0 && guaranteed > cap) {
                throw ProtocolException.badRequest(path + "." + dir + "_guaranteed_kbps: above " + dir + "_kbps");
            }
        }
    }

    /** A VapSpec's security carries the passphrase (required unless open); a VapState's never does. */
    public static void security(JsonNode s, String path, boolean withPassphrase) throws ProtocolException {
        Fields.object(s, path, withPassphrase ? Set.of("mode", "passphrase", "fast_transition") : Set.of("mode"),
                      Set.of("mode"));
        Fields.oneOf(s, "mode", path, SECURITY_MODES);
        if (!withPassphrase) {
            return;
        }
        if (s.has("fast_transition")) {
            Fields.bool(s, "fast_transition", path);
            if (s.get("fast_transition").asBoolean() && !"wpa2-psk".equals(s.get("mode").asText())) {
                throw ProtocolException.badRequest(path + ": fast_transition (FT-PSK) needs mode wpa2-psk");
            }
        }
        boolean open = "open".equals(s.get("mode").asText());
        if (open && s.has("passphrase")) {
            throw ProtocolException.badRequest(path + ": passphrase on an open vAP");
        }
        if (!open && !s.has("passphrase")) {
            throw ProtocolException.badRequest(path + ": passphrase required for " + s.get("mode").asText());
        }
        Fields.string(s, "passphrase", path, PASSPHRASE);
    }

    /** Radio: capacity_kbps (the radio's usable capacity) and capacity_source are optional, but come together. */
    public static void radio(JsonNode r, String path) throws ProtocolException {
        Set<String> required = Set.of("name", "mac", "channel", "hw_mode", "max_vaps", "vaps_used");
        Fields.object(r, path, union(required, Set.of("capacity_kbps", "capacity_source")), required);
        Fields.string(r, "name", path, IDENT);
        Fields.string(r, "mac", path, MAC);
        Fields.integer(r, "channel", path, 1, 233);
        Fields.oneOf(r, "hw_mode", path, Set.of("a", "b", "g"));
        Fields.integer(r, "max_vaps", path, 1, 64);
        Fields.integer(r, "vaps_used", path, 0, 64);
        if (r.has("capacity_kbps") != r.has("capacity_source")) {
            throw ProtocolException.badRequest(path + ": capacity_kbps and capacity_source come together");
        }
        radioCapacity(r, path);
    }

    /** A stats event's radio entry: {name, capacity_kbps, capacity_source}, all required. */
    public static void radioCapacityEntry(JsonNode r, String path) throws ProtocolException {
        Set<String> fields = Set.of("name", "capacity_kbps", "capacity_source");
        Fields.object(r, path, fields, fields);
        Fields.string(r, "name", path, IDENT);
        radioCapacity(r, path);
    }

    private static void radioCapacity(JsonNode r, String path) throws ProtocolException {
        Fields.integer(r, "capacity_kbps", path, 0, Fields.MAX_SAFE_INT);
        Fields.oneOf(r, "capacity_source", path, CAPACITY_SOURCES);
    }

    public static void client(JsonNode c, String path) throws ProtocolException {
        Set<String> fields = Set.of("mac", "vap_id", "signal_dbm", "connected_s", "tx_bytes", "rx_bytes");
        Fields.object(c, path, fields, fields);
        Fields.string(c, "mac", path, MAC);
        Fields.string(c, "vap_id", path, IDENT);
        Fields.nullableInteger(c, "signal_dbm", path, -127, 0);
        Fields.integer(c, "connected_s", path, 0, Long.MAX_VALUE);
        Fields.integer(c, "tx_bytes", path, 0, Long.MAX_VALUE);
        Fields.integer(c, "rx_bytes", path, 0, Long.MAX_VALUE);
    }

    /**
     * A stats event's client: {mac, vap_id, tx_bytes, rx_bytes} and, together or not at all, tx_bps and rx_bps
     * (the rates since the agent's previous stats event).
     */
    public static void statsClient(JsonNode c, String path) throws ProtocolException {
        Fields.object(c, path, STATS_CLIENT_FIELDS, STATS_CLIENT_REQUIRED);
        Fields.string(c, "mac", path, MAC);
        Fields.string(c, "vap_id", path, IDENT);
        Fields.integer(c, "tx_bytes", path, 0, Long.MAX_VALUE);
        Fields.integer(c, "rx_bytes", path, 0, Long.MAX_VALUE);
        if (c.has("tx_bps") != c.has("rx_bps")) {
            throw ProtocolException.badRequest(path + ": tx_bps and rx_bps come together");
        }
        Fields.number(c, "tx_bps", path, 0, false, Double.MAX_VALUE);
        Fields.number(c, "rx_bps", path, 0, false, Double.MAX_VALUE);
    }

    /** An ap-agent's hello capabilities: radios (at most 16), the security modes it offers, pof_switch. */
    public static void apCapabilities(JsonNode c, String path) throws ProtocolException {
        Set<String> fields = Set.of("radios", "security", "pof_switch");
        Fields.object(c, path, fields, fields);
        JsonNode radios = Fields.array(c, "radios", path, 16);
        for (int i = 0; i < radios.size(); i++) {
            radio(radios.get(i), path + ".radios[" + i + "]");
        }
        JsonNode security = Fields.array(c, "security", path, Integer.MAX_VALUE);
        for (JsonNode mode : security) {
            if (!mode.isTextual() || !SECURITY_MODES.contains(mode.asText())) {
                throw ProtocolException.badRequest(path + ".security: unknown mode");
            }
        }
        Fields.bool(c, "pof_switch", path);
    }

    /** A mec-agent's hello capabilities: capacity, the images of its catalog, dpdk, pof_switch. */
    public static void mecCapabilities(JsonNode c, String path) throws ProtocolException {
        Set<String> fields = Set.of("capacity", "catalog", "dpdk", "pof_switch");
        Fields.object(c, path, fields, fields);
        capacity(c.get("capacity"), path + ".capacity", false);
        for (JsonNode image : Fields.array(c, "catalog", path, Integer.MAX_VALUE)) {
            if (!image.isTextual() || !IDENT.matcher(image.asText()).matches()) {
                throw ProtocolException.badRequest(path + ".catalog: invalid image name");
            }
        }
        Fields.bool(c, "dpdk", path);
        Fields.bool(c, "pof_switch", path);
    }

    /**
     * A stats event's data: interval_s and, each optional, vaps (samples), radios (capacities), clients (at most
     * MAX_STATS_CLIENTS), vnfs (VnfStats), node (NodeStats)
     * and latency (VapLatency, at most MAX_STATS_LATENCY).
     */
    public static void stats(JsonNode d, String path) throws ProtocolException {
        Fields.object(d, path, Set.of("interval_s", "vaps", "vnfs", "node", "radios", "clients", "latency"),
                      Set.of("interval_s"));
        Fields.number(d, "interval_s", path, 0, true, Double.MAX_VALUE);
        JsonNode vaps = Fields.array(d, "vaps", path, Integer.MAX_VALUE);
        for (int i = 0; vaps != null && i < vaps.size(); i++) {
            vapSample(vaps.get(i), path + ".vaps[" + i + "]");
        }
        JsonNode vnfs = Fields.array(d, "vnfs", path, Integer.MAX_VALUE);
        for (int i = 0; vnfs != null && i < vnfs.size(); i++) {
            vnfStats(vnfs.get(i), path + ".vnfs[" + i + "]");
        }
        if (d.has("node")) {
            nodeStats(d.get("node"), path + ".node");
        }
        JsonNode radios = Fields.array(d, "radios", path, 16);
        for (int i = 0; radios != null && i < radios.size(); i++) {
            radioCapacityEntry(radios.get(i), path + ".radios[" + i + "]");
        }
        JsonNode clients = Fields.array(d, "clients", path, MAX_STATS_CLIENTS);
        for (int i = 0; clients != null && i < clients.size(); i++) {
            statsClient(clients.get(i), path + ".clients[" + i + "]");
        }
        JsonNode latency = Fields.array(d, "latency", path, MAX_STATS_LATENCY);
        for (int i = 0; latency != null && i < latency.size(); i++) {
            vapLatency(latency.get(i), path + ".latency[" + i + "]");
        }
    }

    /** A stats event's vAP sample: {vap_id, tx_bps, rx_bps, clients}. */
    public static void vapSample(JsonNode v, String path) throws ProtocolException {
        Set<String> fields = Set.of("vap_id", "tx_bps", "rx_bps", "clients");
        Fields.object(v, path, fields, fields);
        Fields.string(v, "vap_id", path, IDENT);
        Fields.number(v, "tx_bps", path, 0, false, Double.MAX_VALUE);
        Fields.number(v, "rx_bps", path, 0, false, Double.MAX_VALUE);
        Fields.integer(v, "clients", path, 0, Long.MAX_VALUE);
    }

    /** Capacity: cpu > 0 (offered) or >= 0 (used), memory_mib >= 0. */
    public static void capacity(JsonNode c, String path, boolean used) throws ProtocolException {
        Set<String> fields = Set.of("cpu", "memory_mib");
        Fields.object(c, path, fields, fields);
        Fields.number(c, "cpu", path, 0, !used, Double.MAX_VALUE);
        Fields.integer(c, "memory_mib", path, 0, Long.MAX_VALUE);
    }

    public static void vnfSpec(JsonNode v, String path) throws ProtocolException {
        Fields.object(v, path, union(VNF_SPEC_FIELDS, Set.of("chain_id", "latency_class")), VNF_SPEC_REQUIRED);
        vnfCommon(v, path);
        Fields.integer(v, "chain_id", path, 1, U32); // a VnfSpec's own: VnfState does not echo it
        Fields.oneOf(v, "latency_class", path, LATENCY_CLASSES); // as chain_id
    }

    public static void vnfState(JsonNode v, String path) throws ProtocolException {
        Fields.object(v, path, union(union(VNF_SPEC_FIELDS, VNF_STATE_EXTRA), VNF_PLACEMENT),
                      union(VNF_SPEC_REQUIRED, VNF_STATE_EXTRA));
        vnfCommon(v, path);
        Fields.integer(v, "vnf_id", path, 0, U32);
        Fields.string(v, "address", path, IPV4);
        Fields.oneOf(v, "class", path, Set.of("kernel", "dpdk"));
        Fields.oneOf(v, "state", path, Set.of("creating", "running", "stopped", "failed"));
        Fields.string(v, "container_id", path, CONTAINER_ID);
        JsonNode ports = Fields.array(v, "ports", path, Integer.MAX_VALUE);
        for (int i = 0; i < ports.size(); i++) {
            String p = path + ".ports[" + i + "]";
            Fields.object(ports.get(i), p, Set.of("name", "pof_port"), Set.of("name", "pof_port"));
            String name = Fields.maxLength(ports.get(i), "name", p, 64);
            if (name.isEmpty()) {
                throw ProtocolException.badRequest(p + ".name: empty");
            }
            Fields.nullableInteger(ports.get(i), "pof_port", p, 1, 65535);
        }
        Fields.string(v, "cpus", path, CPU_LIST);
        Fields.oneOf(v, "cpu_mode", path, CPU_MODES);
    }

    private static void vnfCommon(JsonNode v, String path) throws ProtocolException {
        Fields.integer(v, "tenant_id", path, 0, 65535);
        Fields.integer(v, "instance_id", path, 0, 65535);
        Fields.string(v, "image", path, IDENT);
        Fields.number(v, "cpu", path, 0, true, 1024);
        Fields.integer(v, "memory_mib", path, 1, 1_048_576);
        Fields.integer(v, "chain_position", path, 0, 255);
        JsonNode params = v.get("params");
        if (params == null) {
            return;
        }
        if (!params.isObject() || params.size() > 64) {
            throw ProtocolException.badRequest(path + ".params: object of at most 64 entries expected");
        }
        Iterator<Map.Entry<String, JsonNode>> it = params.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!PARAM_NAME.matcher(e.getKey()).matches()) {
                throw ProtocolException.badRequest(path + ".params: invalid name");
            }
            JsonNode value = e.getValue();
            if (!(value.isTextual() || value.isNumber() || value.isBoolean())) {
                throw ProtocolException.badRequest(path + ".params." + e.getKey() + ": string, number or boolean");
            }
        }
    }

    public static void nodeStats(JsonNode n, String path) throws ProtocolException {
        Set<String> fields = Set.of("cpu_pct", "memory_used_mib");
        Fields.object(n, path, fields, fields);
        Fields.number(n, "cpu_pct", path, 0, false, Double.MAX_VALUE);
        Fields.number(n, "memory_used_mib", path, 0, false, Double.MAX_VALUE);
    }

    public static void vnfStats(JsonNode s, String path) throws ProtocolException {
        Set<String> fields = Set.of("vnf_id", "cpu_pct", "memory_mib", "ports");
        Fields.object(s, path, union(fields, Set.of("queue_bytes", "throttled", "backpressure_drops", "proc_p99_us")),
                      fields);
        if (s.has("proc_p99_us")) {
            Fields.number(s, "proc_p99_us", path, 0, false, Double.MAX_VALUE);
        }
        if (s.has("queue_bytes")) {
            Fields.integer(s, "queue_bytes", path, 0, Long.MAX_VALUE);
        }
        if (s.has("throttled")) {
            Fields.bool(s, "throttled", path);
        }
        if (s.has("backpressure_drops")) {
            Fields.integer(s, "backpressure_drops", path, 0, Long.MAX_VALUE);
        }
        Fields.integer(s, "vnf_id", path, 0, U32);
        Fields.number(s, "cpu_pct", path, 0, false, Double.MAX_VALUE);
        Fields.number(s, "memory_mib", path, 0, false, Double.MAX_VALUE);
        JsonNode ports = Fields.array(s, "ports", path, Integer.MAX_VALUE);
        Set<String> portFields = Set.of("name", "rx_packets", "rx_bytes", "tx_packets", "tx_bytes");
        for (int i = 0; i < ports.size(); i++) {
            String p = path + ".ports[" + i + "]";
            JsonNode port = Fields.object(ports.get(i), p, portFields, portFields);
            Fields.string(port, "name", p, null);
            for (String counter : Set.of("rx_packets", "rx_bytes", "tx_packets", "tx_bytes")) {
                Fields.integer(port, counter, p, 0, Long.MAX_VALUE);
            }
        }
    }

    static <T> Set<T> union(Set<T> a, Set<T> b) {
        java.util.HashSet<T> all = new java.util.HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }
}
