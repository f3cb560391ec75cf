package org.wislice.onos.pof.impl;

import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.meter.MeterId;
import org.wislice.onos.pof.api.PofTableLayout;
import org.wislice.onos.pof.api.SliceBranch;
import org.wislice.onos.pof.api.SliceClient;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.driver.PofInstructionTreatment;
import org.wislice.onos.pof.driver.PofMatchSelector;
import org.wislice.onos.pof.wire.PofAction;
import org.wislice.onos.pof.wire.PofInstruction;
import org.wislice.onos.pof.wire.PofMatchX;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The flows a slice path's branches add (docs/mobility.md, README "Slicing table layout"). A branch's clients use
 * its hops followed by the main path's hops after the join (its "full" hops): up, each branch hop is a slice-table
 * rule as on the main path, the join's matching the branch's in_port there; down, the main path's rule at the join
 * goes to the client table (GOTO_TABLE, the tag word added first if it came from a host port), where a default
 * entry per join (tag, any MAC) continues the main path and an entry per placed client (tag + MAC) enters its
 * branch, whose hops below the join are slice-table rules again. Meters: the main path's join meter sits on the
 * default entry, a branch's on its clients' entries, so each AP's clients have their own cap and guarantee.
 */
final class BranchFlows {
    /** Direction byte of a default client-table entry's flow id (main path rules use 0 and 1). */
    static final int DEFAULT_ENTRY = 2;
    static final int CLIENT_PRIORITY = 200;
    static final int DEFAULT_PRIORITY = 100;

    private BranchFlows() {
    }

    /**
     * The hops of one direction of the main path or a branch whose rules this path installs: hops[from, to) of
     * that direction's full hops (a branch's reverse starts at the join: index {@code from} is its client-table
     * entry, the rest slice-table rules). number: 0 = main, 1.. = branches.
     */
    static final class Segment {
        final int number;
        final String branchId;
        final String direction;
        final List<SlicePath.Hop> hops;
        final int from;
        final int to;

        Segment(int number, String branchId, String direction, List<SlicePath.Hop> hops, int from, int to) {
            this.number = number;
            this.branchId = branchId;
            this.direction = direction;
            this.hops = hops;
            this.from = from;
            this.to = to;
        }

        /** The key of hop i's meter in the meter map (the main path's as {@link SliceFlows#meterKey}). */
        String meterKey(int i) {
            String key = SliceFlows.meterKey(direction, i, hops.get(i));
            return number == 0 ? key : branchId + ":" + key;
        }
    }

    /** The main path's directions, then each branch's. */
    static List<Segment> segments(SlicePath path) {
        List<Segment> out = new ArrayList<>();
        SliceFlows.directions(path).forEach((d, hops) -> out.add(new Segment(0, SliceBranch.MAIN, d, hops, 0,
                hops.size())));
        for (int b = 0; b < path.branches.size(); b++) {
            SliceBranch branch = path.branches.get(b);
            List<SlicePath.Hop> full = branch.fullHops(path.hops);
            out.add(new Segment(b + 1, branch.branchId, SliceFlows.FORWARD, full, 0, branch.hops.size()));
            if (path.bidirectional) {
                int tail = full.size() - branch.hops.size();  // the main path's hops after the join
                out.add(new Segment(b + 1, branch.branchId, SliceFlows.REVERSE, reversed(full), tail,
                        full.size()));
            }
        }
        return out;
    }

    /** The indexes in the main path's reverse hops where a branch joins (none for a one-way path). */
    static Set<Integer> reverseJoins(SlicePath path) {
        Set<Integer> out = new TreeSet<>();
        if (path.bidirectional) {
            path.branches.forEach(b -> out.add(path.hops.size() - 1 - b.joinIndex(path.hops)));
        }
        return out;
    }

    /** The branches' slice-table rules and the client-table entries, of the given directions. */
    static List<FlowRule> build(SlicePath path, ApplicationId appId, Map<String, MeterId> meters,
                                Set<String> only) {
        List<FlowRule> rules = new ArrayList<>();
        for (Segment s : segments(path)) {
            if (s.number == 0 || !only.contains(s.direction)) {
                continue;
            }
            boolean reverse = SliceFlows.REVERSE.equals(s.direction);
            for (int i = reverse ? s.from + 1 : s.from; i < s.to; i++) {
                rules.add(SliceFlows.rule(path, appId, s.number, s.direction, i, SliceFlows.fromLink(s.hops, i),
                        SliceFlows.toLink(s.hops, i), s.hops.get(i), meters.get(s.meterKey(i))));
            }
        }
        if (!only.contains(SliceFlows.REVERSE)) {
            return rules;
        }
        List<SlicePath.Hop> mainReverse = path.reverseHops();
        for (int r : reverseJoins(path)) {
            rules.add(entry(path, appId, mainReverse, r, null, meters.get(SliceFlows.meterKey(SliceFlows.REVERSE,
                    r, mainReverse.get(r))), defaultCookie(appId, path.tag, r)));
        }
        for (SliceClient c : path.clients) {
            rules.add(clientEntry(path, appId, c, meters));
        }
        return rules;
    }

    /** The client-table entry of a placed client: at its branch's join, its MAC -> into the branch. */
    static FlowRule clientEntry(SlicePath path, ApplicationId appId, SliceClient client, Map<String, MeterId> meters) {
        Segment s = segments(path).stream().filter(x -> x.branchId.equals(client.branch)
                && SliceFlows.REVERSE.equals(x.direction)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no branch " + client.branch));
        return entry(path, appId, s.hops, s.from, client, meters.get(s.meterKey(s.from)),
                clientCookie(appId, path.tag, client.slot));
    }

    /** Flow id of the default client-table entry at the main path's reverse hop r: direction byte 2. */
    static long defaultCookie(ApplicationId appId, int tag, int r) {
        return ((long) appId.id() << 48) | ((long) tag << 16) | ((long) DEFAULT_ENTRY << 8) | r;
    }

    /**
     * Flow id of a placed client's entry: bit 47 set (no slice-table rule has it), the client's slot in bits
     * 32-46, the tag in bits 16-31; rebuilt from the stored placement.
     */
    static long clientCookie(ApplicationId appId, int tag, int slot) {
        return ((long) appId.id() << 48) | (1L << 47) | ((long) slot << 32) | ((long) tag << 16);
    }

    /**
     * The slice-table rule of the main path's reverse hop i at a join: in_port (+ tag word when from a link) ->
     * the tag word added when it came from a host (the client table matches on it), GOTO_TABLE the client table.
     * No meter: the client table's entries carry the meter of where they send the packet.
     */
    static FlowRule gotoClientTable(SlicePath path, ApplicationId appId, List<SlicePath.Hop> hops, int i) {
        boolean fromLink = SliceFlows.fromLink(hops, i);
        byte[] tagWord = PofTableLayout.tagWord(path.tag);
        List<PofInstruction> instructions = new ArrayList<>();
        if (!fromLink) {
            instructions.add(new PofInstruction.ApplyActions(List.of(new PofAction.AddField(
                    PofTableLayout.TAG_FIELD_ID, PofTableLayout.TAG_WORD.offset, PofTableLayout.TAG_WORD.length,
                    tagWord))));
        }
        instructions.add(new PofInstruction.GotoTable(PofTableLayout.CLIENT_TABLE));
        PofMatchX inPort = PofMatchX.exact(PofTableLayout.IN_PORT.fieldId, PofTableLayout.IN_PORT.offset,
                PofTableLayout.IN_PORT.length, new byte[] {(byte) hops.get(i).inPort});
        return flow(hops.get(i).deviceId, PofTableLayout.SLICE_TABLE,
                SliceFlows.cookie(appId, 0, path.tag, SliceFlows.REVERSE, i),
                fromLink ? SliceFlows.TRANSIT_PRIORITY : SliceFlows.EDGE_PRIORITY,
                List.of(inPort, tagMatch(path.tag, fromLink)), null, instructions);
    }

    /**
     * A client-table entry sending hop i of the hops out: the tag word kept onto a link, deleted before a host
     * port. client null: the join's default entry (any MAC, low priority).
     */
    private static FlowRule entry(SlicePath path, ApplicationId appId, List<SlicePath.Hop> hops, int i,
                                  SliceClient client, MeterId meter, long cookie) {
        List<PofAction> actions = new ArrayList<>();
        if (!SliceFlows.toLink(hops, i)) {
            actions.add(new PofAction.DeleteField(PofTableLayout.TAG_WORD.offset, PofTableLayout.TAG_WORD.length));
        }
        actions.add(new PofAction.Output(hops.get(i).outPort));
        PofMatchX mac = client == null
                ? new PofMatchX(PofTableLayout.DST_MAC.fieldId, PofTableLayout.DST_MAC.offset,
                        PofTableLayout.DST_MAC.length, new byte[0], new byte[0])
                : PofMatchX.exact(PofTableLayout.DST_MAC.fieldId, PofTableLayout.DST_MAC.offset,
                        PofTableLayout.DST_MAC.length, client.macBytes());
        return flow(hops.get(i).deviceId, PofTableLayout.CLIENT_TABLE, cookie,
                client == null ? DEFAULT_PRIORITY : CLIENT_PRIORITY, List.of(tagMatch(path.tag, true), mac), meter,
                List.of(new PofInstruction.ApplyActions(actions)));
    }

    private static PofMatchX tagMatch(int tag, boolean exact) {
        return exact ? PofMatchX.exact(PofTableLayout.TAG_WORD.fieldId, PofTableLayout.TAG_WORD.offset,
                PofTableLayout.TAG_WORD.length, PofTableLayout.tagWord(tag))
                : new PofMatchX(PofTableLayout.TAG_WORD.fieldId, PofTableLayout.TAG_WORD.offset,
                        PofTableLayout.TAG_WORD.length, new byte[0], new byte[0]);
    }

    private static FlowRule flow(String device, int table, long cookie, int priority, List<PofMatchX> matches,
                                 MeterId meter, List<PofInstruction> instructions) {
        DeviceId deviceId = DeviceId.deviceId(device);
        TrafficTreatment.Builder treatment = DefaultTrafficTreatment.builder();
        if (meter != null) {
            treatment.meter(meter);
        }
        treatment.extension(new PofInstructionTreatment(instructions), deviceId);
        return DefaultFlowRule.builder()
                .forDevice(deviceId)
                .forTable(table)
                .withCookie(cookie)
                .withPriority(priority)
                .withSelector(DefaultTrafficSelector.builder()
                        .extension(new PofMatchSelector(matches), deviceId).build())
                .withTreatment(treatment.build())
                .makePermanent()
                .build();
    }

    private static List<SlicePath.Hop> reversed(List<SlicePath.Hop> hops) {
        List<SlicePath.Hop> out = new ArrayList<>();
        for (SlicePath.Hop h : hops) {
            out.add(new SlicePath.Hop(h.deviceId, h.outPort, h.inPort));
        }
        Collections.reverse(out);
        return out;
    }
}
