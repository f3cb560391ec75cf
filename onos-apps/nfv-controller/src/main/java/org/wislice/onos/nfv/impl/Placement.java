package org.wislice.onos.nfv.impl;

import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.mec.VnfSpec;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Chooses the MEC node for a new vNF: among connected nodes offering the image with room for its CPU and memory,
 * the lowest score = utilisation after placement (CPU and memory, 0-1 each) + current CPU load (0-1)
 * + distance to the slice's AP (normalised by the largest distance considered). Ties go to the smaller agent_id.
 */
public final class Placement {

    private final Map<String, Integer> distances;
    private final int defaultDistance;

    public Placement(Map<String, Integer> distances, int defaultDistance) {
        this.distances = Map.copyOf(distances);
        this.defaultDistance = defaultDistance;
    }

    /** Parses "ap-1:mec-1=1,ap-1:mec-2=4"; throws IllegalArgumentException naming the bad entry. */
    public static Map<String, Integer> parseDistances(String spec) {
        Map<String, Integer> out = new HashMap<>();
        if (spec == null || spec.isBlank()) {
            return out;
        }
        for (String entry : spec.split(",")) {
            String[] kv = entry.trim().split("=");
            String[] pair = kv[0].split(":");
            if (kv.length != 2 || pair.length != 2) {
                throw new IllegalArgumentException("apDistances entry '" + entry + "': expected ap:mec=N");
            }
            int d;
            try {
                d = Integer.parseInt(kv[1].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("apDistances entry '" + entry + "': distance not a number");
            }
            if (d < 0) {
                throw new IllegalArgumentException("apDistances entry '" + entry + "': negative distance");
            }
            out.put(pair[0].trim() + ":" + pair[1].trim(), d);
        }
        return out;
    }

    int distance(String ap, String node) {
        return ap == null ? 0 : distances.getOrDefault(ap + ":" + node, defaultDistance);
    }

    /** Picks a node among the connected ones that offer the image and have room for the vNF. */
    public String choose(List<Node> nodes, VnfSpec spec, String nearAp) {
        double cpu = spec.cpu();
        long mem = spec.memoryMib();
        String image = spec.image();
        List<Node> fitting = nodes.stream()
                .filter(Node::connected)
                .filter(n -> n.offers(image))
                .filter(n -> fits(n, cpu, mem))
                .collect(Collectors.toList());
        if (fitting.isEmpty()) {
            throw new ControllerException("capacity",
                    "no connected MEC node offers " + image + " with " + cpu + " CPU and " + mem + " MiB free");
        }
        int maxDistance = Math.max(1, fitting.stream()
                .mapToInt(n -> distance(nearAp, n.agentId())).max().orElse(1));
        return fitting.stream().min(Comparator
                .comparingDouble((Node n) -> score(n, cpu, mem, nearAp, maxDistance))
                .thenComparing(Node::agentId)).orElseThrow().agentId();
    }

    static boolean fits(Node node, double cpu, long mem) {
        return node.used().cpu() + cpu <= node.capacity().cpu() + 1e-9
                && node.used().memoryMib() + mem <= node.capacity().memoryMib();
    }

    double score(Node node, double cpu, long mem, String nearAp, int maxDistance) {
        double cpuUtil = (node.used().cpu() + cpu) / node.capacity().cpu();
        double memUtil = (double) (node.used().memoryMib() + mem) / Math.max(1, node.capacity().memoryMib());
        double dist = (double) distance(nearAp, node.agentId()) / maxDistance;
        return Math.max(cpuUtil, memUtil) + node.load() / 100.0 + dist;
    }
}
