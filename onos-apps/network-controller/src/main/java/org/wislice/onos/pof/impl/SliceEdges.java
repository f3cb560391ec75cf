package org.wislice.onos.pof.impl;

import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** What a new slice path may take beside the stored ones: a tag of its own, edge ports of its own. */
final class SliceEdges {
    private SliceEdges() {
    }

    /** The requested tag if free, else (when 0) the lowest free one. */
    static int pickTag(int wanted, List<SlicePath> existing) {
        Set<Integer> used = existing.stream().map(s -> s.tag).collect(Collectors.toSet());
        if (wanted != 0) {
            if (used.contains(wanted)) {
                throw SliceException.conflict("tag " + wanted + " is used by another slice");
            }
            return wanted;
        }
        for (int t = 1; t <= 0xffff; t++) {
            if (!used.contains(t)) {
                return t;
            }
        }
        throw new SliceException("capacity", 409, "all 65535 slice tags are in use");
    }

    /**
     * An edge port (a host's: vAP, vNF, egress) classifies traffic into exactly one slice: no two slices may enter
     * on the same one.
     */
    static void checkEdges(SlicePath path, List<SlicePath> existing) {
        Set<String> taken = new HashSet<>();
        for (SlicePath s : existing) {
            taken.addAll(edges(s));
        }
        for (String edge : edges(path)) {
            if (taken.contains(edge)) {
                throw SliceException.conflict("port " + edge + " already classifies another slice");
            }
        }
    }

    /** "device/in_port" of every hop of the path and its branches (both directions) that enters from a host port. */
    private static Set<String> edges(SlicePath path) {
        Set<String> edges = new HashSet<>();
        for (BranchFlows.Segment s : BranchFlows.segments(path)) {
            for (int i = s.from; i < s.to; i++) {
                if (!SliceFlows.fromLink(s.hops, i)) {
                    edges.add(s.hops.get(i).deviceId + "/" + s.hops.get(i).inPort);
                }
            }
        }
        return edges;
    }
}
