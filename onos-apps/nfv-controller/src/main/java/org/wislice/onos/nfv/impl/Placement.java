package org.wislice.onos.nfv.impl;

import com.fasterxml.jackson.databind.JsonNode;
import org.wislice.onos.agent.ControllerException;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

    /**
     * Picks a node. Each node record: agent_id, connected, catalog, capacity{cpu, memory_mib},
     * used{cpu, memory_mib} (what the controller has placed there), load (cpu_pct 0-100, optional).
     */
    public String choose(List<? extends JsonNode> nodes, JsonNode spec, String nearAp) {
        double cpu = spec.get("cpu").asDouble();
        long mem = spec.get("memory_mib").asLong();
        String image = spec.get("image").asText();
        List<? extends JsonNode> fitting = nodes.stream()
                .filter(n -> n.path("connected").asBoolean())
                .filter(n -> offers(n, image))
                .filter(n -> fits(n, cpu, mem))
                .collect(java.util.stream.Collectors.toList());
        if (fitting.isEmpty()) {
            throw new ControllerException("capacity",
                    "no connected MEC node offers " + image + " with " + cpu + " CPU and " + mem + " MiB free");
        }
        int maxDistance = Math.max(1, fitting.stream()
                .mapToInt(n -> distance(nearAp, n.get("agent_id").asText())).max().orElse(1));
        Optional<? extends JsonNode> best = fitting.stream().min(Comparator
                .comparingDouble((JsonNode n) -> score(n, cpu, mem, nearAp, maxDistance))
                .thenComparing(n -> n.get("agent_id").asText()));
        return best.orElseThrow().get("agent_id").asText();
    }

    static boolean offers(JsonNode node, String image) {
        for (JsonNode i : node.path("catalog")) {
            if (image.equals(i.asText())) {
                return true;
            }
        }
        return false;
    }

    static boolean fits(JsonNode node, double cpu, long mem) {
        JsonNode cap = node.path("capacity");
        JsonNode used = node.path("used");
        return used.path("cpu").asDouble() + cpu <= cap.path("cpu").asDouble() + 1e-9
                && used.path("memory_mib").asLong() + mem <= cap.path("memory_mib").asLong();
    }

    double score(JsonNode node, double cpu, long mem, String nearAp, int maxDistance) {
        JsonNode cap = node.path("capacity");
        JsonNode used = node.path("used");
        double cpuUtil = (used.path("cpu").asDouble() + cpu) / cap.path("cpu").asDouble();
        double memUtil = (double) (used.path("memory_mib").asLong() + mem) / Math.max(1, cap.path("memory_mib").asLong());
        double load = node.path("load").asDouble(0) / 100.0;
        double dist = (double) distance(nearAp, node.get("agent_id").asText()) / maxDistance;
        return Math.max(cpuUtil, memUtil) + load + dist;
    }
}
