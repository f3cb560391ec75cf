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
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.driver.PofInstructionTreatment;
import org.wislice.onos.pof.driver.PofMatchSelector;
import org.wislice.onos.pof.wire.PofAction;
import org.wislice.onos.pof.wire.PofInstruction;
import org.wislice.onos.pof.wire.PofMatchX;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The flow entries of a slice path in the slice table (see README "Slicing table layout"). The tag word exists
 * only on links between switches: a hop's in_port is a link when the hop before it is on another switch, its
 * out_port when the hop after it is; every other port is a host's (a vAP, a vNF, an egress), and hosts see plain
 * Ethernet, so a chain of vNFs on one switch gets untagged frames at every vNF.
 * host -> link (ingress edge): in_port, any tag -> METER, ADD_FIELD tag word after the MACs, OUTPUT (priority 100);
 * link -> link (transit): in_port + tag word -> METER, OUTPUT (priority 200);
 * link -> host (egress edge): in_port + tag word -> METER, DELETE_FIELD the tag word, OUTPUT (priority 200);
 * host -> host (between vNFs, or a one-hop path): in_port, any tag -> METER, OUTPUT (priority 100).
 * The reverse direction mirrors it. METER is there only when the direction has rates (forward = up, reverse =
 * down). A path with branches (other APs' parts, docs/mobility.md) also gets {@link BranchFlows}: its reverse rule
 * at a join goes to the client table instead of out.
 */
public final class SliceFlows {
    public static final String FORWARD = SlicePath.FORWARD;
    public static final String REVERSE = SlicePath.REVERSE;
    public static final int EDGE_PRIORITY = 100;
    public static final int TRANSIT_PRIORITY = 200;

    private SliceFlows() {
    }

    /** Directions of a path with their hops. */
    public static Map<String, List<SlicePath.Hop>> directions(SlicePath path) {
        return path.bidirectional ? Map.of(FORWARD, path.hops, REVERSE, path.reverseHops())
                : Map.of(FORWARD, path.hops);
    }

    /** The key of a main-path hop's meter in the meter map: "device/direction/hop index". */
    public static String meterKey(String direction, int hopIndex, SlicePath.Hop hop) {
        return hop.deviceId + "/" + direction + "/" + hopIndex;
    }

    public static List<FlowRule> build(SlicePath path, ApplicationId appId, Map<String, MeterId> meters) {
        return build(path, appId, meters, directions(path).keySet());
    }

    /** The flows of the given directions only (same ids as {@link #build(SlicePath, ApplicationId, Map)}). */
    public static List<FlowRule> build(SlicePath path, ApplicationId appId, Map<String, MeterId> meters,
                                       Set<String> only) {
        List<FlowRule> rules = new ArrayList<>();
        Set<Integer> joins = BranchFlows.reverseJoins(path);
        directions(path).forEach((direction, hops) -> {
            if (!only.contains(direction)) {
                return;
            }
            for (int i = 0; i < hops.size(); i++) {
                SlicePath.Hop hop = hops.get(i);
                if (REVERSE.equals(direction) && joins.contains(i)) {
                    rules.add(BranchFlows.gotoClientTable(path, appId, hops, i));
                    continue;
                }
                rules.add(rule(path, appId, direction, i, fromLink(hops, i), toLink(hops, i), hop,
                        meters.get(meterKey(direction, i, hop))));
            }
        });
        rules.addAll(BranchFlows.build(path, appId, meters, only));
        return rules;
    }

    /**
     * True when hop i of a direction's hops carries what the slice's clients send or receive: the hops between the
     * AP and the head of the vNF chain (the vNF nearest the AP), the hop into or out of that vNF included. Hops
     * between the chain's vNFs get no meter: a vNF may change the rate (a transcoder takes in several times what
     * its clients get), so the slice's rates hold where its clients' traffic is, not upstream of such a vNF.
     */
    public static boolean clientFacing(List<SlicePath.Hop> hops, String direction, int i) {
        int n = hops.size();
        boolean forward = FORWARD.equals(direction);  // forward = AP towards MEC; reverse lists the hops backwards
        int head = n - 1;  // in forward order: the hop into the chain's head, the first one followed on its switch
        for (int j = 0; j + 1 < n; j++) {
            String here = hops.get(forward ? j : n - 1 - j).deviceId;
            String next = hops.get(forward ? j + 1 : n - 2 - j).deviceId;
            if (here.equals(next)) {
                head = j;
                break;
            }
        }
        return (forward ? i : n - 1 - i) <= head;
    }

    /**
     * The switches that get a meter of this path, in forward hop order without repeats: each hop that is
     * client-facing in a direction with rates (what the slice manager meters).
     */
    public static List<String> meteredDevices(SlicePath path) {
        List<String> out = new ArrayList<>(mainMeteredDevices(path));
        BranchFlows.segments(path).stream().filter(s -> s.number > 0 && path.rates(s.direction).metered())
                .forEach(s -> {
                    for (int i = s.from; i < s.to; i++) {
                        String device = s.hops.get(i).deviceId;
                        if (clientFacing(s.hops, s.direction, i) && !out.contains(device)) {
                            out.add(device);
                        }
                    }
                });
        return out;
    }

    private static List<String> mainMeteredDevices(SlicePath path) {
        Set<String> out = new LinkedHashSet<>();
        List<SlicePath.Hop> reverse = path.reverseHops();
        int n = path.hops.size();
        for (int i = 0; i < n; i++) {
            boolean up = path.up.metered() && clientFacing(path.hops, FORWARD, i);
            boolean down = path.bidirectional && path.down.metered() && clientFacing(reverse, REVERSE, n - 1 - i);
            if (up || down) {
                out.add(path.hops.get(i).deviceId);
            }
        }
        return new ArrayList<>(out);
    }

    /** True when hop i's in_port is a link from another switch (the hop before it is on another switch). */
    public static boolean fromLink(List<SlicePath.Hop> hops, int i) {
        return i > 0 && !hops.get(i - 1).deviceId.equals(hops.get(i).deviceId);
    }

    /** True when hop i's out_port is a link to another switch (the hop after it is on another switch). */
    public static boolean toLink(List<SlicePath.Hop> hops, int i) {
        return i < hops.size() - 1 && !hops.get(i + 1).deviceId.equals(hops.get(i).deviceId);
    }

    static FlowRule rule(SlicePath path, ApplicationId appId, String direction, int i, boolean fromLink,
                         boolean toLink, SlicePath.Hop hop, MeterId meter) {
        return rule(path, appId, 0, direction, i, fromLink, toLink, hop, meter);
    }

    /** A slice-table rule of hop i of a direction of the main path (branch 0) or of branch number {@code branch}. */
    static FlowRule rule(SlicePath path, ApplicationId appId, int branch, String direction, int i, boolean fromLink,
                         boolean toLink, SlicePath.Hop hop, MeterId meter) {
        boolean first = !fromLink;  // an edge: classifies whatever enters on in_port into the slice
        byte[] tagWord = PofTableLayout.tagWord(path.tag);
        PofMatchX inPort = PofMatchX.exact(PofTableLayout.IN_PORT.fieldId, PofTableLayout.IN_PORT.offset,
                PofTableLayout.IN_PORT.length, new byte[] {(byte) hop.inPort});
        PofMatchX tag = first
                ? new PofMatchX(PofTableLayout.TAG_WORD.fieldId, PofTableLayout.TAG_WORD.offset,
                        PofTableLayout.TAG_WORD.length, new byte[0], new byte[0])
                : PofMatchX.exact(PofTableLayout.TAG_WORD.fieldId, PofTableLayout.TAG_WORD.offset,
                        PofTableLayout.TAG_WORD.length, tagWord);
        List<PofAction> actions = new ArrayList<>();
        if (!fromLink && toLink) {
            actions.add(new PofAction.AddField(PofTableLayout.TAG_FIELD_ID, PofTableLayout.TAG_WORD.offset,
                    PofTableLayout.TAG_WORD.length, tagWord));
        }
        if (fromLink && !toLink) {
            actions.add(new PofAction.DeleteField(PofTableLayout.TAG_WORD.offset, PofTableLayout.TAG_WORD.length));
        }
        actions.add(new PofAction.Output(hop.outPort));
        DeviceId deviceId = DeviceId.deviceId(hop.deviceId);
        TrafficTreatment.Builder treatment = DefaultTrafficTreatment.builder();
        if (meter != null) {
            treatment.meter(meter);
        }
        treatment.extension(new PofInstructionTreatment(List.of(new PofInstruction.ApplyActions(actions))),
                deviceId);
        return DefaultFlowRule.builder()
                .forDevice(deviceId)
                .forTable(PofTableLayout.SLICE_TABLE)
                .withCookie(cookie(appId, branch, path.tag, direction, i))
                .withPriority(first ? EDGE_PRIORITY : TRANSIT_PRIORITY)
                .withSelector(DefaultTrafficSelector.builder()
                        .extension(new PofMatchSelector(List.of(inPort, tag)), deviceId).build())
                .withTreatment(treatment.build())
                .makePermanent()
                .build();
    }

    /**
     * Flow id (= POF cookie) of a slice flow: the app id in the top 16 bits, as ONOS reads it back from a
     * cookie, then the tag, the direction and the hop index, so removal can rebuild the same ids.
     */
    static long cookie(ApplicationId appId, int tag, String direction, int hopIndex) {
        return cookie(appId, 0, tag, direction, hopIndex);
    }

    /** The same with the branch number (0 = main path, 1.. = branches in order) in bits 32-39. */
    static long cookie(ApplicationId appId, int branch, int tag, String direction, int hopIndex) {
        return ((long) appId.id() << 48) | ((long) branch << 32) | ((long) tag << 16)
                | ((REVERSE.equals(direction) ? 1L : 0L) << 8) | hopIndex;
    }
}
