package org.wislice.onos.pof.impl;

import org.junit.Test;
import org.onosproject.TestApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.meter.MeterId;
import org.wislice.onos.pof.driver.PofMatchSelector;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofAction;
import org.wislice.onos.pof.wire.PofInstruction;
import org.wislice.onos.pof.wire.PofMatchX;
import org.wislice.onos.pof.wire.TableMod;

import java.util.List;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** FlowRule -> FLOW_MOD: tables, meters, plain outputs, and what is refused. */
public class PofFlowTranslatorTest {
    private static final DeviceId DEV = DeviceId.deviceId("pof:00000001");

    private static FlowRule.Builder rule(int table) {
        return DefaultFlowRule.builder().forDevice(DEV).forTable(table).withPriority(9)
                .fromApp(TestApplicationId.create("t")).makePermanent();
    }

    @Test
    public void globalTableIdsMapOntoTypeAndIndex() {
        assertArrayEquals(new int[] {TableMod.MM, 0}, PofFlowTranslator.locateTable(0, null));
        assertArrayEquals(new int[] {TableMod.LPM, 0}, PofFlowTranslator.locateTable(10, null));
        assertArrayEquals(new int[] {TableMod.EM, 4}, PofFlowTranslator.locateTable(24, null));
        assertArrayEquals(new int[] {TableMod.LINEAR, 19}, PofFlowTranslator.locateTable(44, null));
        try {
            PofFlowTranslator.locateTable(45, null);
            fail("table 45 does not exist on the reference switch");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("45"));
        }
    }

    @Test
    public void meterComesFirstAndPlainOutputsBecomeApplyActions() {
        PofMatchX m = PofMatchX.exact(2, 96, 16, new byte[] {8, 0});
        FlowRule r = rule(20).withSelector(DefaultTrafficSelector.builder()
                        .extension(new PofMatchSelector(List.of(m)), DEV).build())
                .withTreatment(DefaultTrafficTreatment.builder().meter(MeterId.meterId(3))
                        .setOutput(PortNumber.portNumber(2)).build()).build();
        FlowMod f = PofFlowTranslator.toFlowMod(r, FlowMod.ADD, null, 5, 7);
        assertEquals(TableMod.EM, f.tableType);
        assertEquals(0, f.tableId);
        assertEquals(5, f.index);
        assertEquals(7, f.counterId);
        assertEquals(9, f.priority);
        assertEquals(r.id().value(), f.cookie);
        assertEquals(List.of(m), f.matches);
        assertEquals(3, ((PofInstruction.Meter) f.instructions.get(0)).meterId);
        PofAction.Output out = (PofAction.Output) ((PofInstruction.ApplyActions) f.instructions.get(1)).actions.get(0);
        assertEquals(2L, (long) out.value);
    }

    @Test
    public void nonPofCriteriaAreRefused() {
        FlowRule r = rule(0).withSelector(DefaultTrafficSelector.builder().matchEthType((short) 0x800).build())
                .withTreatment(DefaultTrafficTreatment.builder().build()).build();
        try {
            PofFlowTranslator.toFlowMod(r, FlowMod.ADD, null, 0, 0);
            fail("an OpenFlow criterion has no POF meaning here");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("ETH_TYPE"));
        }
    }
}
