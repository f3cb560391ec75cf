package org.wislice.onos.pof.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.Objects;
import java.util.Set;

/**
 * The rates of one direction of a slice path (REST contract {@code {guaranteed_kbps, cap_kbps}}): a guaranteed
 * (committed) rate and a cap (peak rate, 0 = uncapped), both 0..{@link SlicePath#MAX_RATE_KBPS}; a guarantee above
 * a non-zero cap is refused. A direction is metered when it has a guarantee or a cap. Immutable.
 */
public final class SliceRates {
    public static final SliceRates NONE = new SliceRates(0, 0);
    private static final Set<String> KEYS = Set.of("guaranteed_kbps", "cap_kbps");

    public final long guaranteedKbps;
    public final long capKbps;

    public SliceRates(long guaranteedKbps, long capKbps) {
        if (guaranteedKbps < 0 || guaranteedKbps > SlicePath.MAX_RATE_KBPS || capKbps < 0
                || capKbps > SlicePath.MAX_RATE_KBPS) {
            throw SliceException.badRequest("rates must be in 0.." + SlicePath.MAX_RATE_KBPS + " kbps");
        }
        if (capKbps != 0 && guaranteedKbps > capKbps) {
            throw SliceException.badRequest("guaranteed_kbps " + guaranteedKbps + " is above cap_kbps " + capKbps);
        }
        this.guaranteedKbps = guaranteedKbps;
        this.capKbps = capKbps;
    }

    /** A cap only (the legacy rate_kbps). */
    public static SliceRates cap(long capKbps) {
        return new SliceRates(0, capKbps);
    }

    /** True when the direction needs meters: it has a guarantee or a cap. */
    public boolean metered() {
        return guaranteedKbps > 0 || capKbps > 0;
    }

    /** The meter's peak rate: the cap, or {@link SlicePath#MAX_RATE_KBPS} for an uncapped direction. */
    public long peakKbps() {
        return capKbps == 0 ? SlicePath.MAX_RATE_KBPS : capKbps;
    }

    public ObjectNode toJson(ObjectMapper mapper) {
        return mapper.createObjectNode().put("guaranteed_kbps", guaranteedKbps).put("cap_kbps", capKbps);
    }

    /** Parses {@code {guaranteed_kbps?, cap_kbps?}} (missing = 0); {@code where} names the field in errors. */
    public static SliceRates fromJson(JsonNode n, String where) {
        if (n == null || !n.isObject()) {
            throw SliceException.badRequest(where + " must be an object {guaranteed_kbps, cap_kbps}");
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext();) {
            String key = it.next();
            if (!KEYS.contains(key)) {
                throw SliceException.badRequest(where + ": unknown field '" + key + "'");
            }
        }
        long guaranteed = integer(n, "guaranteed_kbps", where);
        long cap = integer(n, "cap_kbps", where);
        if (cap != 0 && guaranteed > cap) {
            throw SliceException.badRequest(where + ".guaranteed_kbps " + guaranteed + " is above its cap_kbps "
                    + cap);
        }
        return new SliceRates(guaranteed, cap);
    }

    private static long integer(JsonNode n, String key, String where) {
        JsonNode v = n.get(key);
        if (v == null || v.isNull()) {
            return 0;
        }
        if (!v.isIntegralNumber() || v.asLong() < 0 || v.asLong() > SlicePath.MAX_RATE_KBPS) {
            throw SliceException.badRequest(where + "." + key + " must be an integer in 0.."
                    + SlicePath.MAX_RATE_KBPS);
        }
        return v.asLong();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SliceRates && ((SliceRates) o).guaranteedKbps == guaranteedKbps
                && ((SliceRates) o).capKbps == capKbps;
    }

    @Override
    public int hashCode() {
        return Objects.hash(guaranteedKbps, capKbps);
    }

    @Override
    public String toString() {
        return "guaranteed " + guaranteedKbps + " kbps, cap " + (capKbps == 0 ? "none" : capKbps + " kbps");
    }
}
