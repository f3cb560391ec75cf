package org.wislice.onos.pof.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.meter.MeterId;
import org.onosproject.store.service.ConsistentMap;
import org.slf4j.Logger;
import org.wislice.onos.pof.api.SliceClient;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Moves a client's downlink between the branches of its slice (docs/mobility.md): its client-table entry at the
 * join, then the placement stored with the path. Called by the slice manager under its lock, the request checked.
 */
final class SliceClientPlacer {
    private final Logger log = getLogger(getClass());
    private final ObjectMapper mapper = new ObjectMapper();
    private final ApplicationId appId;
    private final SliceInstaller installer;
    private final ConsistentMap<String, String> slices;

    SliceClientPlacer(ApplicationId appId, SliceInstaller installer, ConsistentMap<String, String> slices) {
        this.appId = appId;
        this.installer = installer;
        this.slices = slices;
    }

    /**
     * A client's entry at its new branch's join: a MODIFY of its entry when the old branch joins on the same
     * switch (one FLOW_MOD), else the new entry added (new slot) before the old one is removed.
     */
    long place(SlicePath path, SliceClient old, String mac, String branchId) {
        Map<String, MeterId> ids = PofSliceManager.meterIds(path.meters, path);
        SliceClient moved = old == null ? null : new SliceClient(mac, branchId, old.slot);
        boolean sameSwitch = moved != null && BranchFlows.clientEntry(path, appId, moved, ids).deviceId()
                .equals(BranchFlows.clientEntry(path, appId, old, ids).deviceId());
        SliceClient placed = sameSwitch ? moved : new SliceClient(mac, branchId, freeSlot(path));
        List<SliceClient> clients = new ArrayList<>(path.clients);
        clients.removeIf(c -> c.mac.equals(mac));
        clients.add(placed);
        long start = System.nanoTime();
        installer.applyFlows(List.of(BranchFlows.clientEntry(path, appId, placed, ids)),
                sameSwitch ? FlowRuleOperation.Type.MODIFY : FlowRuleOperation.Type.ADD);
        long switchedMs = (System.nanoTime() - start) / 1_000_000;
        slices.put(path.sliceId, path.withClients(clients).toJson(mapper).toString());
        if (old != null && !sameSwitch) {
            // Make before break: the new entry is live (and stored) first. Should this removal fail, the caller
            // gets the error: the old entry would still catch the client's frames where its join comes first.
            removeEntry(path, old, ids);
        }
        log.info("slice {}: client {} on branch {} ({} ms)", path.sliceId, mac, branchId, switchedMs);
        return switchedMs;
    }

    /** The client's entry removed: its downlink follows the join's default entry, the main path. */
    long unplace(SlicePath path, SliceClient old) {
        List<SliceClient> clients = new ArrayList<>(path.clients);
        clients.remove(old);
        long start = System.nanoTime();
        removeEntry(path, old, PofSliceManager.meterIds(path.meters, path));
        long switchedMs = (System.nanoTime() - start) / 1_000_000;
        slices.put(path.sliceId, path.withClients(clients).toJson(mapper).toString());
        log.info("slice {}: client {} back on the main path ({} ms)", path.sliceId, old.mac, switchedMs);
        return switchedMs;
    }

    private void removeEntry(SlicePath path, SliceClient client, Map<String, MeterId> ids) {
        installer.applyFlows(List.of(BranchFlows.clientEntry(path, appId, client, ids)),
                FlowRuleOperation.Type.REMOVE);
    }

    /** The lowest client slot (flow id part) the slice does not use. */
    private static int freeSlot(SlicePath path) {
        Set<Integer> used = path.clients.stream().map(c -> c.slot).collect(Collectors.toSet());
        for (int slot = 1; slot <= SliceClient.MAX_SLOT; slot++) {
            if (!used.contains(slot)) {
                return slot;
            }
        }
        throw new SliceException("capacity", 409, "slice " + path.sliceId + " has " + SliceClient.MAX_SLOT
                + " clients placed on branches");
    }
}
