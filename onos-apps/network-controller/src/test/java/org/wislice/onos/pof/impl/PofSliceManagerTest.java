package org.wislice.onos.pof.impl;

import org.junit.Before;
import org.junit.Test;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.criteria.ExtensionCriterion;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterId;
import org.wislice.onos.pof.api.PofTableLayout;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;
import org.wislice.onos.pof.driver.PofInstructionTreatment;
import org.wislice.onos.pof.driver.PofMatchSelector;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofAction;
import org.wislice.onos.pof.wire.PofCodec;
import org.wislice.onos.pof.wire.PofInstruction;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** The slice manager on ONOS service adapters and the real distributed-map code (see SliceManagerHarness). */
public class PofSliceManagerTest {
    private static final String D1 = SliceManagerHarness.D1;
    private static final String D2 = SliceManagerHarness.D2;
    private static final String D3 = SliceManagerHarness.D3;
    private static final String REF = SliceManagerHarness.REF;

    private SliceManagerHarness harness;
    private List<FlowRuleOperation> flowOps;
    private Map<String, Meter> meters;
    private List<MeterId> withdrawn;
    private PofSliceManager manager;

    @Before
    public void setUp() {
        harness = new SliceManagerHarness();
        flowOps = harness.flowOps;
        meters = harness.meters;
        withdrawn = harness.withdrawn;
        manager = harness.manager;
    }

    private static SlicePath path(String id, int tag, long rate, boolean bidi, SlicePath.Hop... hops) {
        return new SlicePath(id, 1, tag, rate, bidi, List.of(hops), List.of());
    }

    @Test
    public void threeHopSliceGetsTagMetersAndSixFlowsEachWay() {
        SlicePath s = manager.addSlice(path("s1", 0, 20000, true, new SlicePath.Hop(D1, 1, 2),
                new SlicePath.Hop(D2, 1, 2), new SlicePath.Hop(D3, 1, 2)));
        assertEquals(1, s.tag);
        assertEquals(6, s.meters.size());
        assertEquals(6, flowOps.size());
        assertTrue(flowOps.stream().allMatch(o -> o.type() == FlowRuleOperation.Type.ADD));
        assertEquals(1, manager.slices().size());
        assertEquals(s.tag, manager.slice("s1").get().tag);

        // Forward first hop: any tag on port 1 -> meter, push the tag word after the MACs, out port 2.
        FlowMod first = flowMod(flowOps.stream().map(FlowRuleOperation::rule)
                .filter(r -> r.deviceId().toString().equals(D1) && r.priority() == SliceFlows.EDGE_PRIORITY)
                .findFirst().get());
        assertEquals(2, first.instructions.size());
        assertTrue(first.instructions.get(0) instanceof PofInstruction.Meter);
        List<PofAction> actions = ((PofInstruction.ApplyActions) first.instructions.get(1)).actions;
        PofAction.AddField add = (PofAction.AddField) actions.get(0);
        assertEquals(96, add.tagPos);
        assertEquals(32, add.tagLen);
        assertArrayEquals(new byte[] {(byte) 0x88, (byte) 0xb5, 0, 1}, java.util.Arrays.copyOf(add.tagValue, 4));
        assertEquals(0, first.matches.get(1).mask[0]);

        // Forward last hop: port 1 and the exact tag word -> meter, pop the tag word, out port 2.
        FlowMod last = flowMod(flowOps.stream().map(FlowRuleOperation::rule)
                .filter(r -> r.deviceId().toString().equals(D3) && r.priority() == SliceFlows.TRANSIT_PRIORITY
                        && matchesInPort(r, 1)).findFirst().get());
        List<PofAction> lastActions = ((PofInstruction.ApplyActions) last.instructions.get(1)).actions;
        assertTrue(lastActions.get(0) instanceof PofAction.DeleteField);
        assertEquals(2L, (long) ((PofAction.Output) lastActions.get(1)).value);
        assertArrayEquals(PofTableLayout.tagWord(1), java.util.Arrays.copyOf(last.matches.get(1).value, 4));
    }

    private static boolean matchesInPort(FlowRule r, int port) {
        PofMatchSelector sel = (PofMatchSelector) ((ExtensionCriterion) r.selector().criteria().iterator().next())
                .extensionSelector();
        return sel.matches().get(0).value[0] == port;
    }

    /** The rule as the flow provider puts it on the wire (and back, through the codec). */
    private static FlowMod flowMod(FlowRule rule) {
        FlowMod mod = PofFlowTranslator.toFlowMod(rule, FlowMod.ADD, null, 0, 0);
        byte[] wire = PofCodec.encode(new PofMessage(PofType.FLOW_MOD, 1, mod));
        return PofCodec.decode(wire).body(FlowMod.class);
    }

    @Test
    public void oneWayUnmeteredSliceHasNoMetersAndNoTagActionsOnOneHop() {
        SlicePath s = manager.addSlice(path("s2", 42, 0, false, new SlicePath.Hop(D1, 1, 3)));
        assertEquals(42, s.tag);
        assertTrue(s.meters.isEmpty());
        assertEquals(1, flowOps.size());
        FlowRule rule = flowOps.get(0).rule();
        assertTrue(rule.treatment().meters().isEmpty());
        PofInstructionTreatment t = (PofInstructionTreatment) ((Instructions.ExtensionInstructionWrapper)
                rule.treatment().allInstructions().get(0)).extensionInstruction();
        List<PofAction> actions = ((PofInstruction.ApplyActions) t.instructions().get(0)).actions;
        assertEquals(1, actions.size());
        assertTrue(actions.get(0) instanceof PofAction.Output);
    }

    @Test
    public void conflictsAreRefusedAndChangeNothing() {
        manager.addSlice(path("a", 5, 1000, true, new SlicePath.Hop(D1, 1, 2), new SlicePath.Hop(D2, 1, 2)));
        int ops = flowOps.size();
        expect("conflict", () -> manager.addSlice(path("a", 0, 0, true, new SlicePath.Hop(D1, 3, 2))));
        expect("conflict", () -> manager.addSlice(path("b", 5, 0, true, new SlicePath.Hop(D3, 1, 2))));
        expect("conflict", () -> manager.addSlice(path("c", 0, 0, false, new SlicePath.Hop(D1, 1, 3))));
        expect("conflict", () -> manager.addSlice(path("d", 0, 0, true, new SlicePath.Hop(D2, 3, 2))));
        expect("bad_request", () -> manager.addSlice(path("e", 0, 0, true, new SlicePath.Hop("pof:00000009",
                1, 2))));
        expect("bad_request", () -> manager.addSlice(path("f", 0, 0, true, new SlicePath.Hop(D3, 1, 7))));
        expect("meters_not_enforced", () -> manager.addSlice(path("g", 0, 100, true,
                new SlicePath.Hop(REF, 1, 2))));
        assertEquals(ops, flowOps.size());
        assertEquals(1, manager.slices().size());
    }

    @Test
    public void refusedFlowsRollBackTheMeters() {
        harness.refuseFlows = true;
        expect("internal", () -> manager.addSlice(path("x", 0, 500, true, new SlicePath.Hop(D1, 1, 2))));
        assertEquals(2, withdrawn.size());
        assertTrue(meters.isEmpty());
        assertTrue(manager.slices().isEmpty());
    }

    @Test
    public void removeTakesFlowsAndMetersAway() {
        manager.addSlice(path("r", 0, 700, true, new SlicePath.Hop(D1, 1, 2), new SlicePath.Hop(D2, 1, 2)));
        List<Long> ids = new ArrayList<>();
        flowOps.forEach(o -> ids.add(o.rule().id().value()));
        flowOps.clear();
        manager.removeSlice("r");
        assertEquals(4, flowOps.size());
        assertTrue(flowOps.stream().allMatch(o -> o.type() == FlowRuleOperation.Type.REMOVE));
        List<Long> removed = new ArrayList<>();
        flowOps.forEach(o -> removed.add(o.rule().id().value()));
        assertTrue("removal rebuilds the installed flow ids", removed.containsAll(ids));
        assertEquals(4, withdrawn.size());
        assertTrue(manager.slices().isEmpty());
        expect("not_found", () -> manager.removeSlice("r"));
        assertFalse(manager.slice("r").isPresent());
    }

    private static SlicePath ratedPath(String id, SliceRates down, SliceRates up, SlicePath.Hop... hops) {
        return new SlicePath(id, 1, 0, down, up, true, List.of(hops), List.of());
    }

    private List<FlowRule> rulesOf(FlowRuleOperation.Type type) {
        List<FlowRule> out = new ArrayList<>();
        flowOps.stream().filter(o -> o.type() == type).forEach(o -> out.add(o.rule()));
        return out;
    }

    private static MeterId meterOf(FlowRule rule) {
        return rule.treatment().meters().stream().map(Instructions.MeterInstruction::meterId).findFirst()
                .orElse(null);
    }

    private static boolean forward(FlowRule rule) {
        return ((rule.id().value() >> 8) & 1) == 0;
    }

    @Test
    public void guaranteedDirectionGetsTwoRateMetersAndUnratedDirectionNone() {
        SlicePath s = manager.addSlice(ratedPath("g", SliceRates.NONE, new SliceRates(5000, 0),
                new SlicePath.Hop(D1, 1, 2), new SlicePath.Hop(D2, 1, 2)));
        assertEquals(2, s.meters.size());
        assertTrue(s.meters.stream().allMatch(m -> m.direction.equals(SlicePath.FORWARD)));
        assertEquals(List.of(0, 1), List.of(s.meters.get(0).hop, s.meters.get(1).hop));
        for (SlicePath.MeterRef ref : s.meters) {
            Meter m = meters.get(ref.deviceId + "/" + ref.meterId);
            Map<Band.Type, Long> bands = new HashMap<>();
            m.bands().forEach(b -> bands.put(b.type(), b.rate()));
            // Uncapped: the peak is the largest rate a path may have; the guarantee is the committed rate.
            assertEquals(Map.of(Band.Type.DROP, SlicePath.MAX_RATE_KBPS, Band.Type.MARK_YELLOW, 5000L), bands);
        }
        List<FlowRule> added = rulesOf(FlowRuleOperation.Type.ADD);
        assertEquals(4, added.size());
        assertTrue(added.stream().allMatch(r -> forward(r) == (meterOf(r) != null)));
        // Capped without a guarantee: one DROP band, as a legacy rate_kbps meter.
        SlicePath c = manager.addSlice(ratedPath("c", SliceRates.cap(700), SliceRates.NONE,
                new SlicePath.Hop(D3, 1, 2)));
        Meter m = meters.get(D3 + "/" + c.meters.get(0).meterId);
        assertEquals(SlicePath.REVERSE, c.meters.get(0).direction);
        assertEquals(1, m.bands().size());
        assertEquals(Band.Type.DROP, m.bands().iterator().next().type());
        assertEquals(700, m.bands().iterator().next().rate());
    }

    @Test
    public void rateChangeReplacesMetersAndModifiesFlowsInPlace() {
        SlicePath s = manager.addSlice(ratedPath("u", SliceRates.cap(8000), SliceRates.cap(2000),
                new SlicePath.Hop(D1, 1, 2), new SlicePath.Hop(D2, 1, 2)));
        List<Long> downMeters = new ArrayList<>();
        List<Long> upMeters = new ArrayList<>();
        s.meters.forEach(m -> (m.direction.equals(SlicePath.REVERSE) ? downMeters : upMeters).add(m.meterId));
        flowOps.clear();

        SlicePath u = manager.updateRates("u", null, new SliceRates(1000, 3000));
        assertEquals(SliceRates.cap(8000), u.down);
        assertEquals(new SliceRates(1000, 3000), u.up);
        // Only the up (forward) flows change, by MODIFY onto the new meters; nothing is removed or added.
        assertEquals(2, flowOps.size());
        List<FlowRule> modified = rulesOf(FlowRuleOperation.Type.MODIFY);
        assertEquals(2, modified.size());
        assertTrue(modified.stream().allMatch(PofSliceManagerTest::forward));
        List<Long> newUp = new ArrayList<>();
        u.meters.stream().filter(m -> m.direction.equals(SlicePath.FORWARD)).forEach(m -> newUp.add(m.meterId));
        assertEquals(2, newUp.size());
        assertTrue(modified.stream().allMatch(r -> newUp.contains(meterOf(r).id())));
        assertTrue("old up meters withdrawn after the flows moved",
                withdrawn.stream().map(MeterId::id).collect(java.util.stream.Collectors.toList())
                        .containsAll(upMeters));
        assertEquals(2, withdrawn.size());
        assertTrue(u.meters.stream().filter(m -> m.direction.equals(SlicePath.REVERSE))
                .allMatch(m -> downMeters.contains(m.meterId)));
        // The stored path is the updated one.
        assertEquals(new SliceRates(1000, 3000), manager.slice("u").get().up);
        assertEquals(4, manager.slice("u").get().meters.size());
        // Flows are still found by id for removal.
        Meter committed = meters.get(D1 + "/" + newUp.get(0));
        assertEquals(2, committed.bands().size());

        // Down loses its rates: its flows lose their meter, its meters go.
        flowOps.clear();
        withdrawn.clear();
        SlicePath v = manager.updateRates("u", SliceRates.NONE, null);
        assertEquals(2, rulesOf(FlowRuleOperation.Type.MODIFY).size());
        assertTrue(rulesOf(FlowRuleOperation.Type.MODIFY).stream().allMatch(r -> !forward(r) && meterOf(r) == null));
        assertEquals(2, withdrawn.size());
        assertEquals(2, v.meters.size());
        // And gains them back.
        flowOps.clear();
        SlicePath w = manager.updateRates("u", new SliceRates(500, 0), null);
        assertEquals(4, w.meters.size());
        assertTrue(rulesOf(FlowRuleOperation.Type.MODIFY).stream().allMatch(r -> !forward(r) && meterOf(r) != null));

        // The same rates again change nothing.
        flowOps.clear();
        withdrawn.clear();
        manager.updateRates("u", new SliceRates(500, 0), new SliceRates(1000, 3000));
        assertTrue(flowOps.isEmpty());
        assertTrue(withdrawn.isEmpty());

        flowOps.clear();
        manager.removeSlice("u");
        assertEquals(4, rulesOf(FlowRuleOperation.Type.REMOVE).size());
        assertTrue(meters.isEmpty());
    }

    @Test
    public void refusedRateChangeKeepsTheOldMeters() {
        SlicePath s = manager.addSlice(ratedPath("f", SliceRates.NONE, SliceRates.cap(2000),
                new SlicePath.Hop(D1, 1, 2)));
        long old = s.meters.get(0).meterId;
        harness.refuseFlows = true;
        flowOps.clear();
        expect("internal", () -> manager.updateRates("f", null, new SliceRates(100, 200)));
        // Re-pointed back to the old meter, the new one withdrawn.
        List<FlowRule> modified = rulesOf(FlowRuleOperation.Type.MODIFY);
        assertEquals(2, modified.size());
        assertEquals(old, (long) meterOf(modified.get(1)).id());
        assertEquals(1, withdrawn.size());
        assertTrue(meters.containsKey(D1 + "/" + old));
        assertEquals(1, meters.size());
        assertEquals(SliceRates.cap(2000), manager.slice("f").get().up);
        assertEquals(old, manager.slice("f").get().meters.get(0).meterId);
    }

    @Test
    public void rateChangesAreValidated() {
        expect("not_found", () -> manager.updateRates("nope", SliceRates.NONE, null));
        manager.addSlice(path("o", 0, 1000, false, new SlicePath.Hop(D1, 1, 2)));
        expect("bad_request", () -> manager.updateRates("o", SliceRates.cap(10), null));
        assertEquals(SliceRates.NONE, manager.slice("o").get().down);
    }

    private static void expect(String code, Runnable r) {
        try {
            r.run();
            fail("expected " + code);
        } catch (SliceException e) {
            assertEquals(e.getMessage(), code, e.code());
        }
    }
}
