package org.wislice.onos.pof.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A slice's wired path (controller REST contract): slice_id, tenant_id, tag (16-bit, 0 = let the controller
 * pick), the rates of each direction ({@code up} = forward = the hops as given, AP towards MEC; {@code down} =
 * reverse), bidirectional, and the forward hops. A direction with a guarantee or a cap gets a two-rate meter on
 * each of its hops. The legacy {@code rate_kbps} (input only) is a cap in both directions without a guarantee.
 * {@code require_enforcement} (default true) refuses rates on a path whose meters would sit on a switch that does
 * not enforce them; false accepts best effort there. Once installed it also lists its meters and the switches
 * where they are not enforced ({@code unenforced_devices}). A {@code latency_class} other than best_effort puts the
 * path's meters in the switches' priority queue where a switch announced latency meters, and needs a cap in each
 * direction (the queue is served first, so its cap is what keeps the others from starving); each hop then shows
 * {@code latency_queue} (false: its switch has no priority queue, the meter there is plain). {@code branches} are
 * other APs' parts of the slice ({@link SliceBranch}, docs/mobility.md), {@code clients} the clients whose downlink
 * is placed on one of them (output only). Immutable; {@link #fromJson} validates everything a client sends.
 */
public final class SlicePath {
    public static final int MAX_HOPS = 16;
    public static final long MAX_RATE_KBPS = 100_000_000L;
    private static final Pattern SLICE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    /** Meter directions: forward carries the up rates, reverse the down rates. */
    public static final String FORWARD = "forward";
    public static final String REVERSE = "reverse";
    private static final Set<String> INPUT_KEYS = Set.of("slice_id", "tenant_id", "tag", "rate_kbps", "down", "up",
            "bidirectional", "hops", "require_enforcement", "latency_class", "branches", "main_branch_id");
    private static final Set<String> OUTPUT_KEYS = Set.of("meters", "unenforced_devices", "clients");

    /** One switch on the path: packets enter on in_port and leave on out_port (forward direction). */
    public static final class Hop {
        public final String deviceId;
        public final int inPort;
        public final int outPort;

        public Hop(String deviceId, int inPort, int outPort) {
            this.deviceId = deviceId;
            this.inPort = inPort;
            this.outPort = outPort;
        }

        Hop reversed() {
            return new Hop(deviceId, outPort, inPort);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Hop && deviceId.equals(((Hop) o).deviceId) && inPort == ((Hop) o).inPort
                    && outPort == ((Hop) o).outPort;
        }

        @Override
        public int hashCode() {
            return Objects.hash(deviceId, inPort, outPort);
        }
    }

    /**
     * A meter the controller created for one hop in one direction of the main path or a branch; hop is the index
     * within that direction's hops (a branch's: its hops followed by the main path's after the join).
     */
    public static final class MeterRef {
        public final String deviceId;
        public final String direction;
        public final int hop;
        public final long meterId;
        public final String branch;

        public MeterRef(String deviceId, String direction, int hop, long meterId) {
            this(deviceId, direction, hop, meterId, SliceBranch.MAIN);
        }

        public MeterRef(String deviceId, String direction, int hop, long meterId, String branch) {
            this.deviceId = deviceId;
            this.direction = direction;
            this.hop = hop;
            this.meterId = meterId;
            this.branch = branch;
        }
    }

    public final String sliceId;
    public final int tenantId;
    public final int tag;
    public final SliceRates down;
    public final SliceRates up;
    public final boolean bidirectional;
    public final List<Hop> hops;
    public final List<MeterRef> meters;
    /** False: the client accepts best effort where a meter of this path is not enforced. */
    public final boolean requireEnforcement;
    /** The switches holding a meter of this path that do not enforce it (empty unless best effort is accepted). */
    public final List<String> unenforcedDevices;
    public final LatencyClass latencyClass;
    /** The switches of a latency-class path that announced no latency meters (empty for best effort). */
    public final List<String> queuelessDevices;
    /** Other APs' parts of the path (docs/mobility.md); empty: the main path only, as before branches existed. */
    public final List<SliceBranch> branches;
    /** The clients whose downlink goes down a branch (output only, set by the controller). */
    public final List<SliceClient> clients;
    /**
     * What the client names the main path (the vAP whose route it is, as a branch_id names a branch's), so that an
     * association at that vAP's AP places the client on "main"; null when not given.
     */
    public final String mainBranchId;

    public SlicePath(String sliceId, int tenantId, int tag, SliceRates down, SliceRates up, boolean bidirectional,
                     List<Hop> hops, List<MeterRef> meters) {
        this(sliceId, tenantId, tag, down, up, bidirectional, hops, meters, true, List.of());
    }

    public SlicePath(String sliceId, int tenantId, int tag, SliceRates down, SliceRates up, boolean bidirectional,
                     List<Hop> hops, List<MeterRef> meters, boolean requireEnforcement,
                     List<String> unenforcedDevices) {
        this(sliceId, tenantId, tag, down, up, bidirectional, hops, meters, requireEnforcement, unenforcedDevices,
                LatencyClass.BEST_EFFORT, List.of());
    }

    /** A one-way path has no down direction: its down rates must be none; a latency class needs caps. */
    public SlicePath(String sliceId, int tenantId, int tag, SliceRates down, SliceRates up, boolean bidirectional,
                     List<Hop> hops, List<MeterRef> meters, boolean requireEnforcement,
                     List<String> unenforcedDevices, LatencyClass latencyClass, List<String> queuelessDevices) {
        this(sliceId, tenantId, tag, down, up, bidirectional, hops, meters, requireEnforcement, unenforcedDevices,
                latencyClass, queuelessDevices, List.of(), List.of());
    }

    public SlicePath(String sliceId, int tenantId, int tag, SliceRates down, SliceRates up, boolean bidirectional,
                     List<Hop> hops, List<MeterRef> meters, boolean requireEnforcement,
                     List<String> unenforcedDevices, LatencyClass latencyClass, List<String> queuelessDevices,
                     List<SliceBranch> branches, List<SliceClient> clients) {
        this(sliceId, tenantId, tag, down, up, bidirectional, hops, meters, requireEnforcement, unenforcedDevices,
                latencyClass, queuelessDevices, branches, clients, null);
    }

    public SlicePath(String sliceId, int tenantId, int tag, SliceRates down, SliceRates up, boolean bidirectional,
                     List<Hop> hops, List<MeterRef> meters, boolean requireEnforcement,
                     List<String> unenforcedDevices, LatencyClass latencyClass, List<String> queuelessDevices,
                     List<SliceBranch> branches, List<SliceClient> clients, String mainBranchId) {
        if (!bidirectional && down.metered()) {
            throw SliceException.badRequest("a one-way path (bidirectional false) has no down direction to rate");
        }
        if (latencyClass.prioritized() && (up.capKbps == 0 || bidirectional && down.capKbps == 0)) {
            throw SliceException.badRequest("latency_class " + latencyClass.jsonName() + " needs a cap_kbps in "
                    + "each direction: its traffic is queued first, and the cap keeps it from starving the others");
        }
        this.sliceId = sliceId;
        this.tenantId = tenantId;
        this.tag = tag;
        this.down = down;
        this.up = up;
        this.bidirectional = bidirectional;
        this.hops = List.copyOf(hops);
        this.meters = List.copyOf(meters);
        this.requireEnforcement = requireEnforcement;
        this.unenforcedDevices = List.copyOf(unenforcedDevices);
        this.latencyClass = latencyClass;
        this.queuelessDevices = latencyClass.prioritized() ? List.copyOf(queuelessDevices) : List.of();
        this.branches = List.copyOf(branches);
        this.clients = List.copyOf(clients);
        this.mainBranchId = mainBranchId;
    }

    /** The legacy form: rateKbps caps every direction the path has (0 = unmetered), no guarantee. */
    public SlicePath(String sliceId, int tenantId, int tag, long rateKbps, boolean bidirectional, List<Hop> hops,
                     List<MeterRef> meters) {
        this(sliceId, tenantId, tag, bidirectional ? SliceRates.cap(rateKbps) : SliceRates.NONE,
                SliceRates.cap(rateKbps), bidirectional, hops, meters);
    }

    public SlicePath withTag(int newTag) {
        return new SlicePath(sliceId, tenantId, newTag, down, up, bidirectional, hops, meters, requireEnforcement,
                unenforcedDevices, latencyClass, queuelessDevices, branches, clients, mainBranchId);
    }

    public SlicePath withMeters(List<MeterRef> newMeters) {
        return new SlicePath(sliceId, tenantId, tag, down, up, bidirectional, hops, newMeters, requireEnforcement,
                unenforcedDevices, latencyClass, queuelessDevices, branches, clients, mainBranchId);
    }

    public SlicePath withRates(SliceRates newDown, SliceRates newUp) {
        return new SlicePath(sliceId, tenantId, tag, newDown, newUp, bidirectional, hops, meters, requireEnforcement,
                unenforcedDevices, latencyClass, queuelessDevices, branches, clients, mainBranchId);
    }

    public SlicePath withRequireEnforcement(boolean require) {
        return new SlicePath(sliceId, tenantId, tag, down, up, bidirectional, hops, meters, require,
                unenforcedDevices, latencyClass, queuelessDevices, branches, clients, mainBranchId);
    }

    public SlicePath withUnenforcedDevices(List<String> devices) {
        return new SlicePath(sliceId, tenantId, tag, down, up, bidirectional, hops, meters, requireEnforcement,
                devices, latencyClass, queuelessDevices, branches, clients, mainBranchId);
    }

    /** Another class (with the rates it is checked against), and the switches without latency meters. */
    public SlicePath withLatency(LatencyClass cls, SliceRates newDown, SliceRates newUp, List<String> queueless) {
        return new SlicePath(sliceId, tenantId, tag, newDown, newUp, bidirectional, hops, meters, requireEnforcement,
                unenforcedDevices, cls, queueless, branches, clients, mainBranchId);
    }

    /** The same path with these client placements. */
    public SlicePath withClients(List<SliceClient> newClients) {
        return new SlicePath(sliceId, tenantId, tag, down, up, bidirectional, hops, meters, requireEnforcement,
                unenforcedDevices, latencyClass, queuelessDevices, branches, newClients, mainBranchId);
    }

    /** The branch of that id (not the main path); empty when there is none. */
    public java.util.Optional<SliceBranch> branch(String branchId) {
        return branches.stream().filter(b -> b.branchId.equals(branchId)).findFirst();
    }

    /** Whether this path's meter on the device gets the LATENCY flag: a latency class on a switch that has it. */
    public boolean latencyMeterOn(String deviceId) {
        return latencyClass.prioritized() && !queuelessDevices.contains(deviceId);
    }

    /** The rates of a meter direction: forward = up, reverse = down. */
    public SliceRates rates(String direction) {
        return REVERSE.equals(direction) ? down : up;
    }

    /** The hops of the reverse direction: same switches backwards, ports swapped. */
    public List<Hop> reverseHops() {
        List<Hop> out = new ArrayList<>();
        for (int i = hops.size() - 1; i >= 0; i--) {
            out.add(hops.get(i).reversed());
        }
        return out;
    }

    public ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode();
        n.put("slice_id", sliceId);
        n.put("tenant_id", tenantId);
        n.put("tag", tag);
        n.set("down", down.toJson(mapper));
        n.set("up", up.toJson(mapper));
        n.put("bidirectional", bidirectional);
        ArrayNode hs = n.putArray("hops");
        for (Hop h : hops) {
            ObjectNode hop = hs.addObject().put("device_id", h.deviceId).put("in_port", h.inPort)
                    .put("out_port", h.outPort);
            if (latencyClass.prioritized()) {
                hop.put("latency_queue", latencyMeterOn(h.deviceId));
            }
        }
        ArrayNode ms = n.putArray("meters");
        for (MeterRef m : meters) {
            ObjectNode meter = ms.addObject().put("device_id", m.deviceId).put("direction", m.direction)
                    .put("hop", m.hop).put("meter_id", m.meterId);
            if (!SliceBranch.MAIN.equals(m.branch)) {
                meter.put("branch", m.branch);
            }
        }
        n.put("require_enforcement", requireEnforcement);
        ArrayNode unenforced = n.putArray("unenforced_devices");
        unenforcedDevices.forEach(unenforced::add);
        n.put("latency_class", latencyClass.jsonName());
        if (mainBranchId != null) {
            n.put("main_branch_id", mainBranchId);
        }
        // A path without branches keeps the form it had before branches existed.
        if (!branches.isEmpty()) {
            ArrayNode bs = n.putArray("branches");
            branches.forEach(b -> bs.add(b.toJson(mapper)));
            ArrayNode cs = n.putArray("clients");
            clients.forEach(c -> cs.add(c.toJson(mapper)));
        }
        return n;
    }

    /**
     * Parses and validates a client's SlicePath; the output-only "meters" and "unenforced_devices" are read back
     * from storage (the slice manager sets them on what it installs).
     */
    public static SlicePath fromJson(JsonNode n) {
        if (n == null || !n.isObject()) {
            throw SliceException.badRequest("a slice path must be a JSON object");
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext();) {
            String key = it.next();
            if (!INPUT_KEYS.contains(key) && !OUTPUT_KEYS.contains(key)) {
                throw SliceException.badRequest("unknown field '" + key + "'");
            }
        }
        JsonNode id = n.get("slice_id");
        if (id == null || !id.isTextual() || !validId(id.asText())) {
            throw SliceException.badRequest("slice_id must be 1-64 characters of [A-Za-z0-9_.-]");
        }
        int tenant = (int) integer(n, "tenant_id", -1, 0, 0xffff);
        if (tenant < 0) {
            throw SliceException.badRequest("tenant_id is required (0-65535)");
        }
        int tag = (int) integer(n, "tag", 0, 0, 0xffff);
        long rate = integer(n, "rate_kbps", -1, 0, MAX_RATE_KBPS);
        JsonNode bidi = n.get("bidirectional");
        if (bidi != null && !bidi.isBoolean()) {
            throw SliceException.badRequest("bidirectional must be true or false");
        }
        boolean bidirectional = bidi == null || bidi.asBoolean();
        JsonNode require = n.get("require_enforcement");
        if (require != null && !require.isBoolean()) {
            throw SliceException.badRequest("require_enforcement must be true or false");
        }
        boolean requireEnforcement = require == null || require.asBoolean();
        boolean perDirection = present(n, "down") || present(n, "up");
        if (rate >= 0 && perDirection) {
            throw SliceException.badRequest("give either rate_kbps (legacy) or down/up, not both");
        }
        SliceRates down = present(n, "down") ? SliceRates.fromJson(n.get("down"), "down") : SliceRates.NONE;
        SliceRates up = present(n, "up") ? SliceRates.fromJson(n.get("up"), "up") : SliceRates.NONE;
        if (rate > 0) {
            up = SliceRates.cap(rate);
            down = bidirectional ? up : SliceRates.NONE;
        }
        JsonNode hs = n.get("hops");
        if (hs == null || !hs.isArray() || hs.size() == 0 || hs.size() > MAX_HOPS) {
            throw SliceException.badRequest("hops must be a list of 1-" + MAX_HOPS + " hops");
        }
        List<Hop> hops = new ArrayList<>();
        for (JsonNode h : hs) {
            hops.add(hop(h, "hops[" + hops.size() + "]"));
        }
        checkPortsOnce(hops, bidirectional);
        List<SliceBranch> branches = SliceBranch.fromJson(n.get("branches"), hops, bidirectional);
        List<MeterRef> meters = new ArrayList<>();
        JsonNode ms = n.get("meters");
        if (ms != null && ms.isArray()) {
            for (JsonNode m : ms) {
                String direction = m.path("direction").asText();
                // Records without "hop" list each direction's meters in hop order.
                int hop = m.has("hop") ? m.get("hop").asInt()
                        : (int) meters.stream().filter(r -> r.direction.equals(direction)).count();
                meters.add(new MeterRef(m.path("device_id").asText(), direction, hop, m.path("meter_id").asLong(),
                        m.path("branch").asText(SliceBranch.MAIN)));
            }
        }
        List<String> unenforced = new ArrayList<>();
        n.path("unenforced_devices").forEach(d -> unenforced.add(d.asText()));
        // Stored paths say per hop whether its switch had a priority queue (output only: a client's is ignored).
        List<String> queueless = new ArrayList<>();
        hs.forEach(h -> {
            if (h.path("latency_queue").isBoolean() && !h.get("latency_queue").asBoolean()) {
                queueless.add(h.get("device_id").asText());
            }
        });
        List<SliceClient> clients = new ArrayList<>();
        n.path("clients").forEach(c -> clients.add(SliceClient.fromJson(c)));
        return new SlicePath(id.asText(), tenant, tag, down, up, bidirectional, hops, meters, requireEnforcement,
                unenforced, LatencyClass.fromJson(n.get("latency_class")), queueless, branches, clients,
                mainBranchId(n.get("main_branch_id"), branches));
    }

    /** main_branch_id: optional, an id like a branch's, not "main" and not one of the branches'. */
    private static String mainBranchId(JsonNode v, List<SliceBranch> branches) {
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual() || !validId(v.asText()) || SliceBranch.MAIN.equals(v.asText())) {
            throw SliceException.badRequest("main_branch_id must be 1-64 characters of [A-Za-z0-9_.-], not 'main'");
        }
        if (branches.stream().anyMatch(b -> b.branchId.equals(v.asText()))) {
            throw SliceException.badRequest("main_branch_id '" + v.asText() + "' is also a branch's id");
        }
        return v.asText();
    }

    /**
     * A packet's hop is chosen by the switch and the port it enters on, so each may appear once in the path (both
     * directions counted): a vNF with a single port can only end the path, since its port would otherwise carry
     * both directions of the traffic through it.
     */
    private static void checkPortsOnce(List<Hop> hops, boolean bidirectional) {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < hops.size(); i++) {
            Hop h = hops.get(i);
            List<String> entries = bidirectional ? List.of(h.deviceId + "/" + h.inPort, h.deviceId + "/" + h.outPort)
                    : List.of(h.deviceId + "/" + h.inPort);
            for (String port : entries) {
                if (!seen.add(port)) {
                    throw SliceException.badRequest("hops[" + i + "]: port " + port + " enters the path twice (a "
                            + "vNF with one port can only end a path: give a vNF in the middle an in and an out port)");
                }
            }
        }
    }

    private static boolean present(JsonNode n, String key) {
        return n.has(key) && !n.get(key).isNull();
    }

    /** Whether s is a valid slice or branch id: 1-64 characters of [A-Za-z0-9_.-], starting alphanumeric. */
    public static boolean validId(String s) {
        return SLICE_ID.matcher(s).matches();
    }

    /** One hop of the request; where names it in errors ("hops[2]", "branches[0].hops[1]"). */
    static Hop hop(JsonNode h, String where) {
        if (!h.isObject()) {
            throw SliceException.badRequest(where + " must be an object");
        }
        JsonNode dev = h.get("device_id");
        if (dev == null || !dev.isTextual() || !dev.asText().matches("pof:[0-9a-f]{8}")) {
            throw SliceException.badRequest(where + ".device_id must be a POF device id like pof:00000001");
        }
        int in = (int) integer(h, "in_port", -1, 1, 0xffff);
        int out = (int) integer(h, "out_port", -1, 1, 0xffff);
        if (in < 0 || out < 0) {
            throw SliceException.badRequest(where + " needs in_port and out_port (1-65535)");
        }
        if (in == out) {
            throw SliceException.badRequest(where + ": in_port and out_port are the same");
        }
        return new Hop(dev.asText(), in, out);
    }

    /** An optional integer field within [min, max]; {@code absent} when missing. */
    private static long integer(JsonNode n, String key, long absent, long min, long max) {
        JsonNode v = n.get(key);
        if (v == null || v.isNull()) {
            return absent;
        }
        if (!v.isIntegralNumber() || v.asLong() < min || v.asLong() > max) {
            throw SliceException.badRequest(key + " must be an integer in " + min + ".." + max);
        }
        return v.asLong();
    }
}
