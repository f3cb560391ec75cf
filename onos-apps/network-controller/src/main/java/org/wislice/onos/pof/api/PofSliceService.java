package org.wislice.onos.pof.api;

import java.util.List;
import java.util.Optional;

/** Slice paths across POF switches: a tag on the wire, a meter per hop, flows installed and removed as one. */
public interface PofSliceService {

    List<SlicePath> slices();

    Optional<SlicePath> slice(String sliceId);

    /**
     * Installs meters and flows on every hop (both directions unless bidirectional is false) and stores the
     * slice; on any failure removes what it installed and throws {@link SliceException}.
     */
    SlicePath addSlice(SlicePath path);

    /** Removes the slice's flows and meters; throws {@link SliceException} not_found if there is none. */
    void removeSlice(String sliceId);
}
