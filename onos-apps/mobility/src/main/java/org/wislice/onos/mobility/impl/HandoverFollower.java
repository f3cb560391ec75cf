package org.wislice.onos.mobility.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.pof.api.SliceBranch;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.wifi.api.WifiService;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What one association at an AP of a multi-AP slice changes (docs/mobility.md): the client's downlink is placed on
 * that AP's part of the slice's path (the branch named by the vAP's id, or the main path for the main vAP), then
 * the association the previous AP still holds on one of the slice's vAPs is removed. The old AP is not told by the
 * station (an FT or BTM move reassociates at the new AP only) and keeps it until its inactivity timeout, minutes
 * later; meanwhile the controllers would list the client twice.
 */
final class HandoverFollower {

    private final WifiService wifi;
    private final PofSliceService slices;
    private final String localNode;
    private final LongSupplier clockMs;

    /** localNode: this controller node's id; null acts on every association (single node, tests). */
    HandoverFollower(WifiService wifi, PofSliceService slices, String localNode, LongSupplier clockMs) {
        this.wifi = wifi;
        this.slices = slices;
        this.localNode = localNode;
        this.clockMs = clockMs;
    }

    /**
     * Follows a CLIENT_ASSOCIATED record ({agent_id, vap_id, mac, ...}) received at receivedMs; empty when the vAP
     * is in no slice path, or when the agent is connected to another controller node (that node follows it: the
     * event reaches every node, the placement must be made once).
     */
    Optional<Handover> follow(ObjectNode client, long receivedMs) {
        String agentId = text(client, "agent_id");
        String vapId = text(client, "vap_id");
        String mac = text(client, "mac");
        if (agentId == null || vapId == null || mac == null || !servedHere(agentId)) {
            return Optional.empty();
        }
        for (SlicePath path : slices.slices()) {
            Set<String> vaps = vapIds(path);
            if (!vaps.contains(vapId)) {
                continue;
            }
            String branch = vapId.equals(path.mainBranchId) ? SliceBranch.MAIN : vapId;
            long confirmMs;
            try {
                confirmMs = slices.placeClient(path.sliceId, mac, branch);
            } catch (RuntimeException e) {
                return Optional.of(new Handover(mac, path.sliceId, agentId, vapId, branch, -1, -1, List.of(),
                                                String.valueOf(e.getMessage()), clockMs.getAsLong()));
            }
            long now = clockMs.getAsLong();
            List<String> kicked = kickStale(mac, agentId, vaps);
            return Optional.of(new Handover(mac, path.sliceId, agentId, vapId, branch,
                                            Math.max(0, now - receivedMs), confirmMs, kicked, null, now));
        }
        return Optional.empty();
    }

    private boolean servedHere(String agentId) {
        if (localNode == null) {
            return true;
        }
        Optional<ObjectNode> agent = wifi.agent(agentId);
        String node = agent.map(a -> text(a, "node")).orElse(null);
        return node == null || localNode.equals(node);
    }

    /** The slice's vAP ids: the main path's and each branch's (the orchestrator names them by its vAPs). */
    private static Set<String> vapIds(SlicePath path) {
        Set<String> ids = new HashSet<>();
        if (path.mainBranchId != null) {
            ids.add(path.mainBranchId);
        }
        path.branches.forEach(b -> ids.add(b.branchId));
        return ids;
    }

    /** Removes the client's association at every other agent, on one of the slice's vAPs. */
    private List<String> kickStale(String mac, String agentId, Set<String> vaps) {
        List<String> kicked = new ArrayList<>();
        for (ObjectNode c : wifi.clients(null, null)) {
            String other = text(c, "agent_id");
            if (mac.equalsIgnoreCase(text(c, "mac")) && other != null && !other.equals(agentId)
                    && vaps.contains(text(c, "vap_id"))) {
                try {
                    wifi.kickClient(other, mac);
                    kicked.add(other);
                } catch (RuntimeException e) {
                    // Gone meanwhile (it disassociated or its agent went away): nothing left to remove.
                }
            }
        }
        return kicked;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
