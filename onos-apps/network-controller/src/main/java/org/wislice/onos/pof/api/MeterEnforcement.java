package org.wislice.onos.pof.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.pof.wire.FeaturesReply;

/**
 * Whether a POF switch enforces the rates of the meters the controller puts on it, and where the controller has it
 * from (spec/pof "Capabilities the controller reads"): the switch's own FEATURES_REPLY, or an operator's override.
 * The reference switch takes METER_MOD and keeps the rate but forwards without applying it, so a slice's
 * guarantee and cap hold only on switches that enforce. Immutable.
 */
public final class MeterEnforcement {
    /** The vendor_id pof-switch sends in FEATURES_REPLY; the reference switch sends its own. */
    public static final String WISLICE_VENDOR = "WiSlice";
    /** ONOS device annotation: what the switch's FEATURES_REPLY says, "true" or "false". */
    public static final String ANNOTATION = "metersEnforced";
    /** ONOS device annotation: whether the switch's FEATURES_REPLY announced latency-class meters, "true"/"false". */
    public static final String LATENCY_ANNOTATION = "latencyMeters";

    /** Where the answer comes from; JSON names "features" and "override". */
    public enum Source {
        FEATURES, OVERRIDE;

        public String jsonName() {
            return name().toLowerCase();
        }
    }

    public final boolean enforced;
    public final Source source;

    public MeterEnforcement(boolean enforced, Source source) {
        this.enforced = enforced;
        this.source = source;
    }

    /**
     * What the handshake tells: pof-switch, which implements the two-rate meter extension, names itself
     * {@link #WISLICE_VENDOR}. No field announces meters (both switches report 256 and capabilities bits that
     * say nothing about them), and probing with a METER_MOD would leave a meter on a switch that ignores rates.
     */
    public static boolean learnedFrom(FeaturesReply features) {
        return features != null && WISLICE_VENDOR.equals(features.vendorId);
    }

    /**
     * Whether the switch applies METER_MOD's LATENCY flag (a strict-priority queue for the meter's traffic):
     * pof-switch sets capabilities bit 31 ({@link FeaturesReply#CAP_LATENCY_METERS}) for it; another vendor's bit
     * 31 is not ours to read.
     */
    public static boolean latencyFrom(FeaturesReply features) {
        return learnedFrom(features) && (features.capabilities & FeaturesReply.CAP_LATENCY_METERS) != 0;
    }

    /** Adds "meters_enforced" and "meters_enforced_source" to a switch's JSON. */
    public ObjectNode addTo(ObjectNode node) {
        return node.put("meters_enforced", enforced).put("meters_enforced_source", source.jsonName());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MeterEnforcement && ((MeterEnforcement) o).enforced == enforced
                && ((MeterEnforcement) o).source == source;
    }

    @Override
    public int hashCode() {
        return Boolean.hashCode(enforced) * 31 + source.hashCode();
    }

    @Override
    public String toString() {
        return (enforced ? "enforced" : "not enforced") + " (" + source.jsonName() + ")";
    }
}
