package org.wislice.onos.pof.driver;

import com.fasterxml.jackson.core.type.TypeReference;
import org.onosproject.net.flow.AbstractExtension;
import org.onosproject.net.flow.criteria.ExtensionSelector;
import org.onosproject.net.flow.criteria.ExtensionSelectorType;
import org.wislice.onos.pof.wire.PofJson;
import org.wislice.onos.pof.wire.PofMatchX;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The POF match of a flow entry as an ONOS extension selector: the match_x list of FLOW_MOD, in order.
 * Serialized (cluster stores, REST) as the spec/pof JSON of that list.
 */
public final class PofMatchSelector extends AbstractExtension implements ExtensionSelector {
    /** "PO" in ASCII: a type number no ONOS extension uses. */
    public static final ExtensionSelectorType TYPE = new ExtensionSelectorType(0x504f);

    private List<PofMatchX> matches = new ArrayList<>();

    public PofMatchSelector() {
    }

    public PofMatchSelector(List<PofMatchX> matches) {
        this.matches = new ArrayList<>(matches);
    }

    public List<PofMatchX> matches() {
        return List.copyOf(matches);
    }

    @Override
    public ExtensionSelectorType type() {
        return TYPE;
    }

    @Override
    public byte[] serialize() {
        try {
            return PofJson.mapper().writeValueAsBytes(matches);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void deserialize(byte[] data) {
        try {
            matches = PofJson.mapper().readValue(data, new TypeReference<List<PofMatchX>>() { });
        } catch (IOException e) {
            throw new IllegalArgumentException("bad POF match extension: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PofMatchSelector && matches.equals(((PofMatchSelector) o).matches);
    }

    @Override
    public int hashCode() {
        return matches.hashCode();
    }

    @Override
    public String toString() {
        return "POF" + matches;
    }
}
