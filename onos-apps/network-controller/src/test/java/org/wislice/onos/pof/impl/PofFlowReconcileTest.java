package org.wislice.onos.pof.impl;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.TestApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.CompletedBatchOperation;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.oldbatch.FlowRuleBatchEntry;
import org.onosproject.net.flow.oldbatch.FlowRuleBatchOperation;
import org.wislice.onos.pof.api.PofTableLayout;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.channel.FakeSwitch;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;
import org.wislice.onos.pof.wire.TableMod;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * A switch that kept its slice tables and entries from an earlier controller session (pof-switch's default, as
 * after a controller node's failover): the flow provider keeps them and ONOS's rules claim them by flow id, so
 * nothing is deleted and re-added; on the switch's master, held entries are claimed from ONOS's flow store, and
 * what the store lacks for the grace polls is deleted.
 */
public class PofFlowReconcileTest {
    private static final DeviceId DEV = DeviceId.deviceId("pof:00000001");
    private static final long HELD_INDEX = 3;
    private static final long HELD_COUNTER = 7;

    private PofControllerImpl controller;
    private RecordingRegistries.Flows flows;
    private RecordingRegistries.Mastership mastership;
    private RecordingRegistries.StoredFlows stored;
    private PofFlowRuleProvider flowProvider;
    private FakeSwitch sw;
    private int port;
    private List<FlowRule> rules;

    @Before
    public void setUp() throws Exception {
        controller = new PofControllerImpl();
        port = controller.start(0);
        flows = new RecordingRegistries.Flows();
        mastership = new RecordingRegistries.Mastership();
        flowProvider = new PofFlowRuleProvider();
        flowProvider.providerRegistry = flows;
        flowProvider.controller = controller;
        flowProvider.mastershipService = mastership;
        stored = new RecordingRegistries.StoredFlows();
        flowProvider.flowRuleService = stored;
        flowProvider.activate(null);
        SlicePath path = new SlicePath("s1", 3, 9, 0, false, List.of(new SlicePath.Hop("pof:00000001", 1, 2),
                new SlicePath.Hop("pof:00000001", 2, 1)), List.of());
        rules = SliceFlows.build(path, TestApplicationId.create("t"), Map.of());
    }

    @After
    public void tearDown() throws Exception {
        if (sw != null) {
            sw.close();
        }
        flowProvider.deactivate();
        controller.deactivate();
    }

    /** Connects a switch holding our two tables and {@code held} entries; waits until the provider took it. */
    private void connectHolding(FlowMod... held) throws Exception {
        sw = new FakeSwitch(port, 1, 2);
        sw.kept.add(PofTableLayout.sliceTable());
        sw.kept.add(PofTableLayout.clientTable());
        sw.kept.addAll(List.of(held));
        sw.handshake();
        assertNotNull("QUERYALL asked", sw.next(PofType.QUERYALL_REQUEST, 5000));
        waitPushed();
    }

    private void waitPushed() throws InterruptedException {
        long until = System.currentTimeMillis() + 5000;
        while (!flows.pushed.containsKey(DEV) && System.currentTimeMillis() < until) {
            Thread.sleep(10);
        }
        assertNotNull("the provider took the switch", flows.pushed.get(DEV));
    }

    /** The FLOW_MOD an earlier session installed for {@code rule} (as QUERYALL replays it). */
    private static FlowMod installed(FlowRule rule) {
        return installed(rule, HELD_INDEX, HELD_COUNTER);
    }

    private static FlowMod installed(FlowRule rule, long index, long counter) {
        return PofFlowTranslator.toFlowMod(rule, FlowMod.ADD, null, index, counter);
    }

    private CompletedBatchOperation run(FlowRuleBatchEntry.FlowRuleOperation op, FlowRule rule, long id)
            throws InterruptedException {
        flowProvider.executeBatch(new FlowRuleBatchOperation(List.of(new FlowRuleBatchEntry(op, rule)), DEV, id));
        CompletedBatchOperation done = flows.completed.poll(5, TimeUnit.SECONDS);
        assertNotNull("batch " + id + " completed", done);
        assertTrue(done.isSuccess());
        return done;
    }

    private List<FlowMod> flowMods() {
        return sw.received.stream().filter(m -> m.type() == PofType.FLOW_MOD).map(m -> m.body(FlowMod.class))
                .collect(Collectors.toList());
    }

    @Test
    public void keptEntryIsClaimedByItsRuleWithoutTouchingTheSwitch() throws Exception {
        connectHolding(installed(rules.get(0)));
        assertEquals("the switch holds none of ONOS's entries until a rule claims one", List.of(),
                flows.pushed.get(DEV));
        run(FlowRuleBatchEntry.FlowRuleOperation.ADD, rules.get(0), 1);
        run(FlowRuleBatchEntry.FlowRuleOperation.ADD, rules.get(1), 2);

        assertTrue("no table recreated", sw.received.stream().noneMatch(m -> m.type() == PofType.TABLE_MOD));
        List<FlowMod> sent = flowMods();
        assertEquals("only the rule the switch did not hold went out: " + sent, 1, sent.size());
        FlowMod fresh = sent.get(0);
        assertEquals(FlowMod.ADD, fresh.command);
        assertEquals(rules.get(1).id().value(), fresh.cookie);
        assertNotEquals("the held entry's index stays taken", HELD_INDEX, fresh.index);
        assertNotEquals("and so does its counter", HELD_COUNTER, fresh.counterId);
        List<FlowEntry> pushed = flows.pushed.get(DEV);
        assertEquals(2, pushed.size());
        assertTrue(pushed.stream().allMatch(e -> e.state() == FlowEntry.FlowEntryState.ADDED));

        // Removing the claimed rule deletes the entry where the switch holds it.
        run(FlowRuleBatchEntry.FlowRuleOperation.REMOVE, rules.get(0), 3);
        FlowMod del = flowMods().get(1);
        assertEquals(FlowMod.DELETE, del.command);
        assertEquals(HELD_INDEX, del.index);
        PofBody.Counter counter = sw.next(PofType.COUNTER_MOD, 1000).body(PofBody.Counter.class);
        assertEquals("the fresh rule's counter", fresh.counterId, counter.counterId);
        counter = sw.next(PofType.COUNTER_MOD, 1000).body(PofBody.Counter.class);
        assertEquals(PofBody.Counter.DELETE, counter.command);
        assertEquals(HELD_COUNTER, counter.counterId);
    }

    @Test
    public void keptEntryThatDiffersFromItsRuleIsModifiedInPlace() throws Exception {
        FlowMod stale = installed(rules.get(0));
        stale.priority = stale.priority + 1;
        connectHolding(stale);
        run(FlowRuleBatchEntry.FlowRuleOperation.ADD, rules.get(0), 1);
        List<FlowMod> sent = flowMods();
        assertEquals(1, sent.size());
        assertEquals(FlowMod.MODIFY, sent.get(0).command);
        assertEquals(HELD_INDEX, sent.get(0).index);
        assertEquals(HELD_COUNTER, sent.get(0).counterId);
        assertEquals(rules.get(0).priority(), sent.get(0).priority);
    }

    @Test
    public void unclaimedEntriesAreDeletedOnlyByTheMasterAfterTheGracePollsOfAStoreWithoutThem() throws Exception {
        connectHolding(installed(rules.get(0)));
        mastership.local = false;
        for (int i = 0; i < PofFlowRuleProvider.HELD_GRACE_POLLS + 2; i++) {
            flowProvider.reconcileHeld(DEV);
        }
        assertNull("a node that does not master the switch deletes nothing", sw.next(PofType.FLOW_MOD, 300));
        mastership.local = true;
        stored.failure = new IllegalStateException("flow table of a new master not synchronised yet");
        for (int i = 0; i < PofFlowRuleProvider.HELD_GRACE_POLLS + 2; i++) {
            flowProvider.reconcileHeld(DEV);
        }
        assertNull("a store that cannot answer decides nothing", sw.next(PofType.FLOW_MOD, 300));
        stored.failure = null;
        for (int i = 1; i < PofFlowRuleProvider.HELD_GRACE_POLLS; i++) {
            flowProvider.reconcileHeld(DEV);
        }
        assertNull("not within the grace polls", sw.next(PofType.FLOW_MOD, 300));
        flowProvider.reconcileHeld(DEV);
        FlowMod del = sw.next(PofType.FLOW_MOD, 5000).body(FlowMod.class);
        assertEquals(FlowMod.DELETE, del.command);
        assertEquals(HELD_INDEX, del.index);
        assertEquals(rules.get(0).id().value(), del.cookie);
        PofBody.Counter counter = sw.next(PofType.COUNTER_MOD, 1000).body(PofBody.Counter.class);
        assertEquals(HELD_COUNTER, counter.counterId);
        flowProvider.reconcileHeld(DEV);
        assertNull("once", sw.next(PofType.FLOW_MOD, 300));
        // The rule added later gets an entry of its own (the index is free again).
        run(FlowRuleBatchEntry.FlowRuleOperation.ADD, rules.get(0), 1);
        FlowMod add = sw.next(PofType.FLOW_MOD, 1000).body(FlowMod.class);
        assertEquals(FlowMod.ADD, add.command);
    }

    @Test
    public void masterClaimsHeldEntriesWhoseRulesItsFlowStoreHasWithoutTouchingTheSwitch() throws Exception {
        connectHolding(installed(rules.get(0)), installed(rules.get(1), HELD_INDEX + 1, HELD_COUNTER + 1));
        // The store has rule 0 (ADDED, as after a failover); rule 1 it is removing: that entry goes.
        stored.entries.add(new DefaultFlowEntry(rules.get(0), FlowEntry.FlowEntryState.ADDED));
        stored.entries.add(new DefaultFlowEntry(rules.get(1), FlowEntry.FlowEntryState.PENDING_REMOVE));
        for (int i = 0; i < PofFlowRuleProvider.HELD_GRACE_POLLS; i++) {
            flowProvider.reconcileHeld(DEV);
        }
        long until = System.currentTimeMillis() + 5000;
        while (flows.pushed.get(DEV).isEmpty() && System.currentTimeMillis() < until) {
            Thread.sleep(10);
        }
        List<FlowEntry> pushed = flows.pushed.get(DEV);
        assertEquals("rule 0 claimed and reported ADDED", List.of(rules.get(0).id()),
                pushed.stream().map(FlowEntry::id).collect(Collectors.toList()));
        FlowMod del = sw.next(PofType.FLOW_MOD, 5000).body(FlowMod.class);
        assertEquals("only the entry of the rule being removed goes", FlowMod.DELETE, del.command);
        assertEquals(HELD_INDEX + 1, del.index);
        assertNull("nothing sent for the claimed entry", sw.next(PofType.FLOW_MOD, 300));
    }

    @Test
    public void switchWithoutOurTablesHasThemRecreated() throws Exception {
        sw = new FakeSwitch(port, 1, 2);
        FlowMod elsewhere = installed(rules.get(0));
        sw.kept.add(PofTableLayout.sliceTable());
        sw.kept.add(elsewhere); // no client table: an older layout
        sw.handshake();
        TableMod drop = sw.next(PofType.TABLE_MOD, 5000).body(TableMod.class);
        assertEquals(TableMod.DELETE, drop.command);
        waitPushed();
        run(FlowRuleBatchEntry.FlowRuleOperation.ADD, rules.get(0), 1);
        FlowMod add = sw.next(PofType.FLOW_MOD, 1000).body(FlowMod.class);
        assertEquals("the rule is installed afresh", FlowMod.ADD, add.command);
    }

    @Test
    public void switchThatDoesNotAnswerQueryAllHasItsTablesRecreatedAndBatchesWait() throws Exception {
        sw = new FakeSwitch(port, 1, 2);
        sw.answersQueryAll = false;
        sw.handshake();
        assertNotNull(sw.next(PofType.QUERYALL_REQUEST, 5000));
        flowProvider.executeBatch(new FlowRuleBatchOperation(List.of(new FlowRuleBatchEntry(
                FlowRuleBatchEntry.FlowRuleOperation.ADD, rules.get(0))), DEV, 1));
        CompletedBatchOperation done = flows.completed.poll(10, TimeUnit.SECONDS);
        assertNotNull("the batch completed after the QUERYALL timeout", done);
        assertTrue("the batch waited for the tables and succeeded", done.isSuccess());
        assertEquals("the first table message drops the old slice table", TableMod.DELETE, sw.received.stream()
                .filter(m -> m.type() == PofType.TABLE_MOD).findFirst().orElseThrow().body(TableMod.class).command);
        List<PofType> order = sw.received.stream().map(PofMessage::type)
                .filter(t -> t == PofType.TABLE_MOD || t == PofType.FLOW_MOD).collect(Collectors.toList());
        assertEquals(List.of(PofType.TABLE_MOD, PofType.TABLE_MOD, PofType.TABLE_MOD, PofType.TABLE_MOD,
                PofType.FLOW_MOD), order);
    }
}
