package org.wislice.onos.pof.api;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A slice path's latency class (controller REST contract, the orchestrator's slice latency_class): the latency
 * classes put the path's meters in the switches' strict-priority queue (METER_MOD flag LATENCY, spec/pof
 * "Latency-class meters") where a switch announced it can; best effort is every other slice.
 */
public enum LatencyClass {
    BEST_EFFORT("best_effort"), LOW("low"), ULTRA_LOW("ultra_low");

    private final String jsonName;

    LatencyClass(String jsonName) {
        this.jsonName = jsonName;
    }

    public String jsonName() {
        return jsonName;
    }

    /** True for the classes whose meters carry the LATENCY flag. */
    public boolean prioritized() {
        return this != BEST_EFFORT;
    }

    /** The class a JSON value names; absent or null = best effort; anything else is a 400 naming the field. */
    public static LatencyClass fromJson(JsonNode n) {
        if (n == null || n.isNull()) {
            return BEST_EFFORT;
        }
        for (LatencyClass c : values()) {
            if (n.isTextual() && c.jsonName.equals(n.asText())) {
                return c;
            }
        }
        throw SliceException.badRequest("latency_class must be best_effort, low or ultra_low");
    }
}
