package org.wislice.onos.pof.api;

import java.util.List;
import java.util.Optional;

/**
 * Slice paths across POF switches: a tag on the wire, a two-rate meter per hop and rated direction, flows installed
 * and removed as one.
 */
public interface PofSliceService {

    List<SlicePath> slices();

    Optional<SlicePath> slice(String sliceId);

    /**
     * Installs meters and flows on every hop (both directions unless bidirectional is false) and stores the
     * slice; on any failure removes what it installed and throws {@link SliceException}. Rates that would be
     * metered on a switch that does not enforce meter rates are refused (meters_not_enforced) unless the path
     * does not require enforcement; the installed path lists such switches in unenforcedDevices.
     */
    SlicePath addSlice(SlicePath path);

    /** Removes the slice's flows and meters; throws {@link SliceException} not_found if there is none. */
    void removeSlice(String sliceId);

    /**
     * Changes a live slice's rates (null = that direction unchanged) without interrupting it: new meters for each
     * changed direction (none when it loses its rates), its flows re-pointed with a flow modify, then the old
     * meters removed. Returns the stored path; on failure the path keeps its old rates and meters. The new rates
     * are admitted as in {@link #addSlice} under the path's own requireEnforcement.
     */
    default SlicePath updateRates(String sliceId, SliceRates down, SliceRates up) {
        return updatePath(sliceId, down, up, null);
    }

    /**
     * {@link #updateRates} and/or a new latency class (null = unchanged): a class change replaces the meters of
     * every rated direction the same way, with or without the LATENCY flag (only on switches that announced
     * latency meters; the path's hops say where). A latency class needs a cap in each direction (400).
     */
    SlicePath updatePath(String sliceId, SliceRates down, SliceRates up, LatencyClass latencyClass);

    /**
     * Puts a client's downlink on a branch of its slice ({@link SliceBranch#MAIN}: back on the main path): one
     * client-table entry at the branch's join added, modified or removed (docs/mobility.md), confirmed by the
     * switch before it returns, and stored with the path. Returns the milliseconds from sending the change to the
     * switch's confirmation (0 when the client was already there). 404 for an unknown slice, 400 for a bad MAC,
     * an unknown branch or a one-way slice; nothing changes then.
     */
    long placeClient(String sliceId, String mac, String branchId);

    /** Puts a placed client back on the main path (its entry removed); 404 when the slice or placement is not. */
    void removeClient(String sliceId, String mac);

    /** The slice's placed clients (404 for an unknown slice); a client not listed follows the main path. */
    List<SliceClient> clients(String sliceId);
}
