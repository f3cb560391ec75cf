package org.wislice.onos.pof.impl;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.TestApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.CompletedBatchOperation;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.oldbatch.FlowRuleBatchEntry;
import org.onosproject.net.flow.oldbatch.FlowRuleBatchOperation;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.channel.FakeSwitch;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * The flow provider's batches to one switch: one on the wire at a time, and an index the switch says is taken is
 * not handed out again (a core switch restarted in the testbed's fault test once looped on "entry index in use").
 */
public class PofFlowBatchOrderTest {
    private static final DeviceId DEV = DeviceId.deviceId("pof:00000001");

    private PofControllerImpl controller;
    private RecordingRegistries.Flows flows;
    private PofFlowRuleProvider flowProvider;
    private FakeSwitch sw;
    private List<FlowRule> rules;

    @Before
    public void setUp() throws Exception {
        controller = new PofControllerImpl();
        int port = controller.start(0);
        flows = new RecordingRegistries.Flows();
        flowProvider = new PofFlowRuleProvider();
        flowProvider.providerRegistry = flows;
        flowProvider.controller = controller;
        flowProvider.mastershipService = new RecordingRegistries.Mastership();
        flowProvider.flowRuleService = new RecordingRegistries.StoredFlows();
        flowProvider.activate(null);
        sw = new FakeSwitch(port, 1, 2);
        sw.handshake();
        long until = System.currentTimeMillis() + 5000;
        while (!flows.pushed.containsKey(DEV) && System.currentTimeMillis() < until) {
            Thread.sleep(10);
        }
        assertNotNull("the provider took the switch", flows.pushed.get(DEV));
        SlicePath path = new SlicePath("s1", 3, 9, 0, false, List.of(new SlicePath.Hop("pof:00000001", 1, 2),
                new SlicePath.Hop("pof:00000001", 2, 1)), List.of());
        rules = SliceFlows.build(path, TestApplicationId.create("t"), Map.of());
    }

    @After
    public void tearDown() throws Exception {
        sw.close();
        flowProvider.deactivate();
        controller.deactivate();
    }

    private void add(FlowRule rule, long batchId) {
        flowProvider.executeBatch(new FlowRuleBatchOperation(List.of(
                new FlowRuleBatchEntry(FlowRuleBatchEntry.FlowRuleOperation.ADD, rule)), DEV, batchId));
    }

    @Test
    public void aBatchWaitsForThePreviousBatchsBarrierSoAModifyNeverOvertakesItsAdd() throws Exception {
        // ONOS may hand the same rule to two installer threads (a reconnected switch's re-adds): the second is a
        // MODIFY of the first's index, and it must reach the switch after that ADD was handled.
        sw.holdEchoes();
        add(rules.get(0), 1);
        add(rules.get(0), 2);
        FlowMod first = sw.next(PofType.FLOW_MOD, 5000).body(FlowMod.class);
        assertEquals(FlowMod.ADD, first.command);
        assertNull("nothing more before the first batch's barrier is answered", sw.next(PofType.FLOW_MOD, 500));
        assertNull(flows.completed.poll(0, TimeUnit.SECONDS));
        sw.releaseEchoes();
        FlowMod second = sw.next(PofType.FLOW_MOD, 5000).body(FlowMod.class);
        assertEquals(FlowMod.MODIFY, second.command);
        assertEquals(first.index, second.index);
        assertTrue(flows.completed.poll(5, TimeUnit.SECONDS).isSuccess());
        assertTrue(flows.completed.poll(5, TimeUnit.SECONDS).isSuccess());
        assertEquals(1, flows.pushed.get(DEV).size());
    }

    @Test
    public void anIndexTheSwitchSaysIsTakenIsNotHandedOutAgain() throws Exception {
        sw.respondWith(m -> {
            if (m.type() != PofType.FLOW_MOD || m.body(FlowMod.class).index != 0) {
                return null;
            }
            PofBody.Error e = new PofBody.Error();
            e.type = FlowMod.FLOW_MOD_FAILED;
            e.code = FlowMod.ENTRY_EXIST;
            e.string = "entry index in use";
            return new PofMessage(PofType.ERROR, m.xid(), e);
        });
        add(rules.get(0), 1);
        assertEquals(0, sw.next(PofType.FLOW_MOD, 5000).body(FlowMod.class).index);
        CompletedBatchOperation refused = flows.completed.poll(5, TimeUnit.SECONDS);
        assertFalse(refused.isSuccess());
        assertEquals(java.util.Set.of(rules.get(0)), refused.failedItems());
        // ONOS retries the rule: it gets the next index, which the switch takes.
        add(rules.get(0), 2);
        assertEquals(1, sw.next(PofType.FLOW_MOD, 5000).body(FlowMod.class).index);
        assertTrue(flows.completed.poll(5, TimeUnit.SECONDS).isSuccess());
        assertEquals(1, flows.pushed.get(DEV).size());
    }
}
