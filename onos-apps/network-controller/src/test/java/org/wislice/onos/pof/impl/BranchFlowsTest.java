package org.wislice.onos.pof.impl;

import org.junit.Test;
import org.onosproject.TestApplicationId;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.meter.MeterId;
import org.wislice.onos.pof.api.LatencyClass;
import org.wislice.onos.pof.api.PofTableLayout;
import org.wislice.onos.pof.api.SliceBranch;
import org.wislice.onos.pof.api.SliceClient;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofAction;
import org.wislice.onos.pof.wire.PofInstruction;
import org.wislice.onos.pof.wire.PofMatchX;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

/** The flows of a slice path with a branch, in the testbed's shape: the join on the core switch. */
public class BranchFlowsTest {
    private static final String AP1 = "pof:00000001";
    private static final String CORE = "pof:00000002";
    private static final String MEC = "pof:00000003";
    private static final String AP2 = "pof:00000004";
    private static final String MAC = "02:00:00:00:00:0a";
    private static final ApplicationId APP = TestApplicationId.create("t");

    /** AP1 (vAP 1 -> 2) -> core (1 -> 2) -> MEC (1 -> vNF 3); branch ap2: AP2 (vAP 1 -> 2) -> core (3 -> 2). */
    static SlicePath branched(List<SliceClient> clients) {
        SlicePath main = new SlicePath("s", 1, 7, SliceRates.NONE, SliceRates.NONE, true,
                List.of(new SlicePath.Hop(AP1, 1, 2), new SlicePath.Hop(CORE, 1, 2), new SlicePath.Hop(MEC, 1, 3)),
                List.of());
        return new SlicePath(main.sliceId, 1, 7, main.down, main.up, true, main.hops, List.of(), true, List.of(),
                main.latencyClass, List.of(), List.of(new SliceBranch("ap2", List.of(new SlicePath.Hop(AP2, 1, 2),
                        new SlicePath.Hop(CORE, 3, 2)))), clients);
    }

    /** "device table in_port/MAC: what it does, priority" per rule, sorted. */
    static List<String> describe(List<FlowRule> rules) {
        List<String> out = new ArrayList<>();
        for (FlowRule r : rules) {
            FlowMod mod = PofFlowTranslator.toFlowMod(r, FlowMod.ADD, null, 0, 0);
            StringBuilder line = new StringBuilder(r.deviceId() + " t" + r.tableId() + " ");
            PofMatchX first = mod.matches.get(0);
            PofMatchX second = mod.matches.get(1);
            if (r.tableId() == PofTableLayout.SLICE_TABLE) {
                line.append(first.value[0] & 0xff).append(second.mask[0] != 0 ? " tagged" : " any");
            } else {
                line.append(second.mask[0] != 0 ? "mac" + (second.value[5] & 0xff) : "any-mac");
            }
            for (PofInstruction i : mod.instructions) {
                if (i instanceof PofInstruction.Meter) {
                    line.append(" meter");
                } else if (i instanceof PofInstruction.GotoTable) {
                    line.append(" goto").append(((PofInstruction.GotoTable) i).nextTableId);
                } else {
                    for (PofAction a : ((PofInstruction.ApplyActions) i).actions) {
                        line.append(a instanceof PofAction.AddField ? " add" : a instanceof PofAction.DeleteField
                                ? " delete" : " out" + ((PofAction.Output) a).value);
                    }
                }
            }
            out.add(line.append(" ").append(r.priority()).toString());
        }
        Collections.sort(out);
        return out;
    }

    @Test
    public void theJoinSendsTheDownlinkThroughTheClientTable() {
        List<FlowRule> rules = SliceFlows.build(branched(List.of(new SliceClient(MAC, "ap2", 1))), APP, Map.of());
        List<String> expected = new ArrayList<>(List.of(
                // up: each AP's vAP classifies into the slice, both meet on the core's uplink 2
                AP1 + " t0 1 any add out2 100", CORE + " t0 1 tagged out2 200", MEC + " t0 1 tagged delete out3 200",
                AP2 + " t0 1 any add out2 100", CORE + " t0 3 tagged out2 200",
                // down: out of the vNF, to the client table at the join, per client into AP1 or AP2
                MEC + " t0 3 any add out1 100", CORE + " t0 2 tagged goto1 200", AP1 + " t0 2 tagged delete out1 200",
                CORE + " t1 any-mac out1 100", CORE + " t1 mac10 out3 200", AP2 + " t0 2 tagged delete out1 200"));
        Collections.sort(expected);
        assertEquals(expected, describe(rules));
    }

    @Test
    public void aJoinOnTheMecSwitchTagsTheVnfsOutputBeforeTheClientTable() {
        // AP1 -> MEC (link 1 -> vNF 3); AP2 -> MEC (link 2 -> vNF 3): the join is the hop into the vNF.
        SlicePath p = new SlicePath("m", 1, 7, SliceRates.NONE, SliceRates.NONE, true,
                List.of(new SlicePath.Hop(AP1, 1, 2), new SlicePath.Hop(MEC, 1, 3)), List.of(), true, List.of(),
                LatencyClass.BEST_EFFORT, List.of(), List.of(new SliceBranch("ap2",
                        List.of(new SlicePath.Hop(AP2, 1, 2), new SlicePath.Hop(MEC, 2, 3)))),
                List.of(new SliceClient(MAC, "ap2", 1)));
        List<String> rules = describe(SliceFlows.build(p, APP, Map.of()));
        // Untagged from the vNF: the tag word is added, then the client table decides; both outputs are links.
        assertTrue(rules.toString(), rules.contains(MEC + " t0 3 any add goto1 100"));
        assertTrue(rules.toString(), rules.contains(MEC + " t1 any-mac out1 100"));
        assertTrue(rules.toString(), rules.contains(MEC + " t1 mac10 out2 200"));
        assertTrue(rules.toString(), rules.contains(MEC + " t0 2 tagged delete out3 200"));
        assertEquals(9, rules.size());
    }

    @Test
    public void idsAreUniqueRebuildableAndTheMainPathsAreUnchanged() {
        SlicePath placed = branched(List.of(new SliceClient(MAC, "ap2", 5)));
        List<Long> ids = SliceFlows.build(placed, APP, Map.of()).stream().map(r -> r.id().value())
                .collect(Collectors.toList());
        assertEquals("unique", ids.size(), new HashSet<>(ids).size());
        assertEquals("rebuilt from the stored path", ids, SliceFlows.build(placed, APP, Map.of()).stream()
                .map(r -> r.id().value()).collect(Collectors.toList()));
        SlicePath plain = new SlicePath("s", 1, 7, SliceRates.NONE, SliceRates.NONE, true, placed.hops, List.of());
        Set<Long> mainIds = SliceFlows.build(plain, APP, Map.of()).stream().map(r -> r.id().value())
                .collect(Collectors.toSet());
        assertTrue("the main path's rules keep their ids", ids.containsAll(mainIds));
        long client = BranchFlows.clientCookie(APP, 7, 5);
        assertTrue(ids.contains(client));
        assertEquals("bit 47 marks a client entry", 1L, (client >> 47) & 1);
        assertEquals(5, (client >> 32) & 0x7fff);
        // The branch's own rules carry branch number 1 in bits 32-39.
        long branchIds = ids.stream().filter(id -> !mainIds.contains(id) && ((id >> 47) & 1) == 0
                && ((id >> 8) & 0xff) != BranchFlows.DEFAULT_ENTRY).filter(id -> ((id >> 32) & 0xff) == 1).count();
        assertEquals(3, branchIds);
        // Another slot, another entry id; no placement, no entry.
        assertNotEquals(client, BranchFlows.clientCookie(APP, 7, 6));
        assertEquals(ids.size() - 1, SliceFlows.build(branched(List.of()), APP, Map.of()).size());
    }

    @Test
    public void eachApsClientsHaveTheirOwnMeters() {
        SlicePath p = branched(List.of(new SliceClient(MAC, "ap2", 1)));
        Map<String, MeterId> meters = new HashMap<>();
        long next = 1;
        for (BranchFlows.Segment s : BranchFlows.segments(p)) {
            for (int i = s.from; i < s.to; i++) {
                meters.put(s.meterKey(i), MeterId.meterId(next++));
            }
        }
        assertEquals("3 main hops each way, the branch's 2 up and 2 down (join included)", 10, meters.size());
        Map<String, Long> meterOf = new HashMap<>();
        for (FlowRule r : SliceFlows.build(p, APP, meters)) {
            FlowMod mod = PofFlowTranslator.toFlowMod(r, FlowMod.ADD, null, 0, 0);
            long meter = mod.instructions.get(0) instanceof PofInstruction.Meter
                    ? ((PofInstruction.Meter) mod.instructions.get(0)).meterId : 0;
            meterOf.put(describe(List.of(r)).get(0), meter);
        }
        // The join's GOTO has none: the default entry carries the main path's, the client's entry the branch's.
        assertEquals(0L, (long) meterOf.get(CORE + " t0 2 tagged goto1 200"));
        long mainJoin = meterOf.get(CORE + " t1 any-mac meter out1 100");
        long branchJoin = meterOf.get(CORE + " t1 mac10 meter out3 200");
        assertTrue(mainJoin > 0 && branchJoin > 0);
        assertNotEquals(mainJoin, branchJoin);
        assertNotEquals(meterOf.get(AP1 + " t0 1 any meter add out2 100"),
                meterOf.get(AP2 + " t0 1 any meter add out2 100"));
        assertEquals(11, meterOf.size());
        assertTrue(meterOf.values().stream().filter(m -> m > 0).count() == 10);
    }
}
