package org.wislice.onos.pof.impl;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.wislice.onos.pof.api.LatencyClass;
import org.wislice.onos.pof.api.PofTableLayout;
import org.wislice.onos.pof.api.SliceBranch;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofInstruction;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D1;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D2;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D3;
import static org.wislice.onos.pof.impl.SliceManagerHarness.REF;
import static org.wislice.onos.pof.impl.SliceManagerHarness.refused;

/**
 * A slice path with branches through the slice manager: meters per branch, and a client's downlink moved between
 * branches with one client-table FLOW_MOD at the join (D2), stored, repaired and removed with the path.
 */
public class PofSliceBranchTest {
    private static final String MAC = "02:00:00:00:00:0a";
    private SliceManagerHarness h;

    @Before
    public void setUp() {
        h = new SliceManagerHarness();
    }

    @After
    public void tearDown() {
        h.manager.deactivate();
    }

    /**
     * Main: D1 (vAP 1 -> 2) -> D2 (1 -> 2) -> D3 (1 -> vNF 3); ap2: D1 (vAP 3 -> 4) -> D2 (3 -> 2); ap3 (best
     * effort on the reference switch): REF (1 -> 2) -> D2 (4 -> 2).
     */
    private SlicePath install(boolean withAp3) {
        List<SliceBranch> branches = withAp3
                ? List.of(ap2(), new SliceBranch("ap3", List.of(new SlicePath.Hop(REF, 1, 2),
                        new SlicePath.Hop(D2, 4, 2))))
                : List.of(ap2());
        return h.manager.addSlice(new SlicePath("s", 1, 0, new SliceRates(5000, 20000), new SliceRates(0, 10000),
                true, List.of(new SlicePath.Hop(D1, 1, 2), new SlicePath.Hop(D2, 1, 2), new SlicePath.Hop(D3, 1, 3)),
                List.of(), !withAp3, List.of(), LatencyClass.BEST_EFFORT, List.of(), branches, List.of()));
    }

    private static SliceBranch ap2() {
        return new SliceBranch("ap2", List.of(new SlicePath.Hop(D1, 3, 4), new SlicePath.Hop(D2, 3, 2)));
    }

    private static FlowMod flowMod(FlowRule r) {
        return PofFlowTranslator.toFlowMod(r, FlowMod.ADD, null, 0, 0);
    }

    @Test
    public void eachBranchGetsItsOwnMetersAndFlows() {
        SlicePath s = install(false);
        List<SlicePath.MeterRef> branchMeters = s.meters.stream().filter(m -> m.branch.equals("ap2"))
                .collect(Collectors.toList());
        assertEquals("main: 3 hops each way", 6, s.meters.size() - branchMeters.size());
        assertEquals("ap2: D1 and D2 up, D2 (the join's client entry) and D1 down", 4, branchMeters.size());
        assertEquals(10, h.flowOps.size());
        assertTrue(h.flowOps.stream().allMatch(o -> o.type() == FlowRuleOperation.Type.ADD));
        assertEquals("the join's default entry", 1, h.flowOps.stream()
                .filter(o -> o.rule().tableId() == PofTableLayout.CLIENT_TABLE).count());
        assertEquals(List.of("ap2"), h.manager.slice("s").get().branches.stream().map(b -> b.branchId)
                .collect(Collectors.toList()));
    }

    @Test
    public void placingAClientIsOneFlowModAtTheJoin() {
        SlicePath s = install(false);
        h.flowOps.clear();
        long ms = h.manager.placeClient("s", "02:00:00:00:00:0A", "ap2");
        assertTrue(ms >= 0);
        assertEquals(1, h.flowOps.size());
        FlowRuleOperation op = h.flowOps.get(0);
        assertEquals(FlowRuleOperation.Type.ADD, op.type());
        assertEquals(D2, op.rule().deviceId().toString());
        assertEquals(PofTableLayout.CLIENT_TABLE, op.rule().tableId());
        long branchDown = s.meters.stream().filter(m -> m.branch.equals("ap2") && m.deviceId.equals(D2)
                && m.direction.equals(SlicePath.REVERSE)).findFirst().get().meterId;
        assertEquals("the branch's own down meter", branchDown,
                ((PofInstruction.Meter) flowMod(op.rule()).instructions.get(0)).meterId);
        assertEquals(List.of(MAC), h.manager.clients("s").stream().map(c -> c.mac).collect(Collectors.toList()));

        h.flowOps.clear();
        assertEquals("already there: nothing sent", 0, h.manager.placeClient("s", MAC, "ap2"));
        assertTrue(h.flowOps.isEmpty());
        h.manager.placeClient("s", MAC, SliceBranch.MAIN);
        assertEquals(1, h.flowOps.size());
        assertEquals(FlowRuleOperation.Type.REMOVE, h.flowOps.get(0).type());
        assertEquals(op.rule().id(), h.flowOps.get(0).rule().id());
        assertTrue(h.manager.clients("s").isEmpty());
    }

    @Test
    public void movingBetweenBranchesOfOneJoinIsAModify() {
        install(true);
        h.manager.placeClient("s", MAC, "ap2");
        FlowId entry = h.flowOps.get(h.flowOps.size() - 1).rule().id();
        h.flowOps.clear();
        h.manager.placeClient("s", MAC, "ap3");
        assertEquals(1, h.flowOps.size());
        assertEquals(FlowRuleOperation.Type.MODIFY, h.flowOps.get(0).type());
        assertEquals(entry, h.flowOps.get(0).rule().id());
        assertEquals("ap3", h.manager.clients("s").get(0).branch);
        h.manager.removeClient("s", MAC);
        assertTrue(h.manager.clients("s").isEmpty());
    }

    @Test
    public void aRateChangeReplacesTheBranchesMetersAndRepointsThePlacedClient() {
        SlicePath s = install(false);
        h.manager.placeClient("s", MAC, "ap2");
        h.flowOps.clear();
        SlicePath updated = h.manager.updateRates("s", new SliceRates(1000, 8000), null);
        List<SlicePath.MeterRef> down = updated.meters.stream().filter(m -> m.direction.equals(SlicePath.REVERSE))
                .collect(Collectors.toList());
        assertEquals("main 3 + ap2 2 down meters, all new", 5, down.size());
        assertTrue(down.stream().noneMatch(m -> s.meters.stream().anyMatch(o -> o.meterId == m.meterId)));
        assertTrue(h.flowOps.stream().allMatch(o -> o.type() == FlowRuleOperation.Type.MODIFY));
        long branchDown = down.stream().filter(m -> m.branch.equals("ap2") && m.deviceId.equals(D2)).findFirst()
                .get().meterId;
        FlowRule entry = h.flowOps.stream().map(FlowRuleOperation::rule).filter(r -> r.tableId()
                == PofTableLayout.CLIENT_TABLE && r.priority() == BranchFlows.CLIENT_PRIORITY).findFirst().get();
        assertEquals(branchDown, ((PofInstruction.Meter) flowMod(entry).instructions.get(0)).meterId);
        assertEquals("up kept its meters", s.meters.stream().filter(m -> m.direction.equals(SlicePath.FORWARD))
                .count(), updated.meters.stream().filter(m -> m.direction.equals(SlicePath.FORWARD)).count());
    }

    @Test
    public void badPlacementsChangeNothing() {
        install(false);
        h.flowOps.clear();
        assertEquals(400, refused(() -> h.manager.placeClient("s", "02:00:00:00:0a", "ap2")).status());
        assertTrue(refused(() -> h.manager.placeClient("s", MAC, "ap9")).getMessage().contains("no branch 'ap9'"));
        assertEquals(404, refused(() -> h.manager.placeClient("nope", MAC, "ap2")).status());
        assertEquals(404, refused(() -> h.manager.removeClient("s", MAC)).status());
        assertEquals(404, refused(() -> h.manager.clients("nope")).status());
        assertTrue(h.flowOps.isEmpty());
        assertTrue(h.manager.clients("s").isEmpty());
        h.manager.addSlice(new SlicePath("oneway", 1, 0, 0, false, List.of(new SlicePath.Hop(D3, 2, 4)),
                List.of()));
        SliceException e = refused(() -> h.manager.placeClient("oneway", MAC, SliceBranch.MAIN));
        assertEquals(400, e.status());
        assertTrue(e.getMessage().contains("one-way"));
    }

    @Test
    public void placementsAreRepairedAndRemovedWithTheSlice() {
        install(false);
        h.manager.placeClient("s", MAC, "ap2");
        int flows = h.installed.size();
        assertEquals(11, flows);
        h.installed.clear();  // ONOS lost its flows: the stored placement brings the client's entry back
        assertTrue(h.manager.repair("s"));
        assertEquals(flows, h.installed.size());
        int slot = h.manager.clients("s").get(0).slot;
        assertTrue(h.installed.values().stream().anyMatch(r -> r.tableId() == PofTableLayout.CLIENT_TABLE
                && r.priority() == BranchFlows.CLIENT_PRIORITY && ((r.id().value() >> 32) & 0x7fff) == slot));
        h.manager.removeSlice("s");
        assertTrue("the client's entry went with the slice", h.installed.isEmpty());
        assertTrue(h.meters.isEmpty());
    }
}
