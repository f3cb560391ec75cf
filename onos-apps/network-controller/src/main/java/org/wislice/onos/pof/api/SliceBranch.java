package org.wislice.onos.pof.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Another AP's part of a slice path (docs/mobility.md): its hops run from that AP's vAP port to the join, a hop on
 * a switch of the main path that leaves by the main path's out_port there (forward direction). Up, the branch's
 * traffic joins the main path; down, the join switch's client table sends a placed client's frames into it.
 * Branch number 0 is the main path ({@link #MAIN}), branches are 1.. in the order given (flow ids carry it).
 */
public final class SliceBranch {
    public static final String MAIN = "main";
    public static final int MAX_BRANCHES = 8;
    private static final Set<String> KEYS = Set.of("branch_id", "hops");

    public final String branchId;
    public final List<SlicePath.Hop> hops;

    public SliceBranch(String branchId, List<SlicePath.Hop> hops) {
        this.branchId = branchId;
        this.hops = List.copyOf(hops);
    }

    /** The index of the main path's hop this branch joins (the first on its last hop's switch and out_port). */
    public int joinIndex(List<SlicePath.Hop> main) {
        SlicePath.Hop last = hops.get(hops.size() - 1);
        for (int j = 0; j < main.size(); j++) {
            if (main.get(j).deviceId.equals(last.deviceId) && main.get(j).outPort == last.outPort) {
                return j;
            }
        }
        return -1;
    }

    /** The branch's forward hops followed by the main path's hops after the join: what its clients' uplink takes. */
    public List<SlicePath.Hop> fullHops(List<SlicePath.Hop> main) {
        List<SlicePath.Hop> full = new ArrayList<>(hops);
        full.addAll(main.subList(joinIndex(main) + 1, main.size()));
        return full;
    }

    public ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode().put("branch_id", branchId);
        hops.forEach(h -> n.withArray("hops").addObject().put("device_id", h.deviceId).put("in_port", h.inPort)
                .put("out_port", h.outPort));
        return n;
    }

    /**
     * Parses and validates a path's "branches" (null or absent: none) against its main hops: ids unique and not
     * "main", 1-{@link SlicePath#MAX_HOPS} hops each, each joins the main path, and no port enters the whole path
     * twice (both directions counted when bidirectional), except the join's out_port, which is the main path's.
     */
    static List<SliceBranch> fromJson(JsonNode n, List<SlicePath.Hop> main, boolean bidirectional) {
        if (n == null || n.isNull()) {
            return List.of();
        }
        if (!n.isArray() || n.size() > MAX_BRANCHES) {
            throw SliceException.badRequest("branches must be a list of at most " + MAX_BRANCHES + " branches");
        }
        Set<String> ports = new HashSet<>();
        for (SlicePath.Hop h : main) {
            ports.add(h.deviceId + "/" + h.inPort);
            if (bidirectional) {
                ports.add(h.deviceId + "/" + h.outPort);
            }
        }
        Set<String> ids = new HashSet<>();
        List<SliceBranch> out = new ArrayList<>();
        for (JsonNode b : n) {
            String where = "branches[" + out.size() + "]";
            if (!b.isObject()) {
                throw SliceException.badRequest(where + " must be an object");
            }
            for (Iterator<String> it = b.fieldNames(); it.hasNext();) {
                String key = it.next();
                if (!KEYS.contains(key)) {
                    throw SliceException.badRequest(where + ": unknown field '" + key + "'");
                }
            }
            JsonNode id = b.get("branch_id");
            if (id == null || !id.isTextual() || !SlicePath.validId(id.asText()) || MAIN.equals(id.asText())) {
                throw SliceException.badRequest(where + ".branch_id must be 1-64 characters of [A-Za-z0-9_.-], "
                        + "not \"main\" (the main path's name)");
            }
            if (!ids.add(id.asText())) {
                throw SliceException.badRequest(where + ": branch_id " + id.asText() + " is given twice");
            }
            JsonNode hs = b.get("hops");
            if (hs == null || !hs.isArray() || hs.size() == 0 || hs.size() > SlicePath.MAX_HOPS) {
                throw SliceException.badRequest(where + ".hops must be a list of 1-" + SlicePath.MAX_HOPS + " hops");
            }
            List<SlicePath.Hop> hops = new ArrayList<>();
            for (JsonNode h : hs) {
                hops.add(SlicePath.hop(h, where + ".hops[" + hops.size() + "]"));
            }
            SliceBranch branch = new SliceBranch(id.asText(), hops);
            SlicePath.Hop last = hops.get(hops.size() - 1);
            if (branch.joinIndex(main) < 0) {
                throw SliceException.badRequest(where + ": its last hop must join the main path (leave a switch of "
                        + "the main path by the main path's out_port there); no main hop leaves " + last.deviceId
                        + " by port " + last.outPort);
            }
            for (int i = 0; i < hops.size(); i++) {
                SlicePath.Hop h = hops.get(i);
                List<String> entries = new ArrayList<>(List.of(h.deviceId + "/" + h.inPort));
                if (bidirectional && i < hops.size() - 1) {
                    entries.add(h.deviceId + "/" + h.outPort);
                }
                for (String port : entries) {
                    if (!ports.add(port)) {
                        throw SliceException.badRequest(where + ".hops[" + i + "]: port " + port + " is already "
                                + "on the main path or another branch (only the join's out_port is shared)");
                    }
                }
            }
            out.add(branch);
        }
        return out;
    }
}
