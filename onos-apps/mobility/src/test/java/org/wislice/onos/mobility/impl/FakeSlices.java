package org.wislice.onos.mobility.impl;

import org.wislice.onos.pof.api.LatencyClass;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.pof.api.SliceClient;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A PofSliceService holding paths; placeClient records "slice/mac->branch" (or fails when told to). */
class FakeSlices implements PofSliceService {
    final List<SlicePath> paths = new ArrayList<>();
    final List<String> placed = new ArrayList<>();
    SliceException failure;

    @Override
    public List<SlicePath> slices() {
        return List.copyOf(paths);
    }

    @Override
    public long placeClient(String sliceId, String mac, String branchId) {
        if (failure != null) {
            throw failure;
        }
        placed.add(sliceId + "/" + mac + "->" + branchId);
        return 7;
    }

    @Override
    public Optional<SlicePath> slice(String sliceId) {
        return paths.stream().filter(p -> p.sliceId.equals(sliceId)).findFirst();
    }

    // Not used by the mobility app.

    @Override
    public SlicePath addSlice(SlicePath path) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void removeSlice(String sliceId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public SlicePath updatePath(String sliceId, SliceRates down, SliceRates up, LatencyClass latencyClass) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void removeClient(String sliceId, String mac) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<SliceClient> clients(String sliceId) {
        throw new UnsupportedOperationException();
    }
}
