package org.wislice.onos.pof.impl;

import org.junit.Test;
import org.onosproject.TestApplicationId;
import org.onosproject.net.flow.FlowRule;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofAction;
import org.wislice.onos.pof.wire.PofInstruction;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** The tag word lives on switch-to-switch links only: what each hop of a path with a vNF chain does to it. */
public class SliceFlowsTest {
    private static final String AP = "pof:00000001";
    private static final String CORE = "pof:00000002";
    private static final String MEC = "pof:00000003";

    /** AP (vAP 1 -> uplink 2) -> core (1 -> 2) -> MEC (link 1 -> transcoder in 3; transcoder out 4 -> router 5). */
    private static SlicePath chainPath() {
        return new SlicePath("t1s1-v1", 1, 7, SliceRates.NONE, SliceRates.NONE, true,
                List.of(new SlicePath.Hop(AP, 1, 2), new SlicePath.Hop(CORE, 1, 2), new SlicePath.Hop(MEC, 1, 3),
                        new SlicePath.Hop(MEC, 4, 5)), List.of());
    }

    /** Per rule "device in->out: tag action, priority, tag matched exactly?". */
    private static List<String> describe(List<FlowRule> rules) {
        List<String> out = new ArrayList<>();
        for (FlowRule r : rules) {
            FlowMod mod = PofFlowTranslator.toFlowMod(r, FlowMod.ADD, null, 0, 0);
            List<PofAction> actions = ((PofInstruction.ApplyActions) mod.instructions.get(0)).actions;
            String tag = actions.get(0) instanceof PofAction.AddField ? "add"
                    : actions.get(0) instanceof PofAction.DeleteField ? "delete" : "keep";
            long out2 = ((PofAction.Output) actions.get(actions.size() - 1)).value;
            boolean exact = mod.matches.get(1).mask[0] != 0;
            out.add(r.deviceId() + " " + (mod.matches.get(0).value[0] & 0xff) + "->" + out2 + ": " + tag + " "
                    + r.priority() + (exact ? " tagged" : " any"));
        }
        return out;
    }

    private static List<String> sorted(List<String> lines) {
        List<String> copy = new ArrayList<>(lines);
        Collections.sort(copy);
        return copy;
    }

    @Test
    public void vnfsInAChainSeePlainEthernet() {
        List<FlowRule> rules = SliceFlows.build(chainPath(), TestApplicationId.create("t"), Map.of());
        // The directions come out in no fixed order: compare sorted.
        assertEquals(sorted(List.of(
                AP + " 1->2: add 100 any", CORE + " 1->2: keep 200 tagged", MEC + " 1->3: delete 200 tagged",
                MEC + " 4->5: keep 100 any",
                // reverse: router -> transcoder out, transcoder in -> link (tag added), core, AP (tag removed)
                MEC + " 5->4: keep 100 any", MEC + " 3->1: add 100 any", CORE + " 2->1: keep 200 tagged",
                AP + " 2->1: delete 200 tagged")), sorted(describe(rules)));
    }

    @Test
    public void onlyHopsBetweenTheApAndTheChainsHeadAreClientFacing() {
        List<SlicePath.Hop> forward = chainPath().hops;
        List<SlicePath.Hop> reverse = chainPath().reverseHops();
        List<Boolean> up = new ArrayList<>();
        List<Boolean> down = new ArrayList<>();
        for (int i = 0; i < forward.size(); i++) {
            up.add(SliceFlows.clientFacing(forward, SliceFlows.FORWARD, i));
            down.add(SliceFlows.clientFacing(reverse, SliceFlows.REVERSE, i));
        }
        // AP, core, MEC link -> transcoder in: metered; transcoder out -> router: between vNFs, not metered.
        assertEquals(List.of(true, true, true, false), up);
        // reverse: router -> transcoder out (not metered), transcoder in -> link, core, AP.
        assertEquals(List.of(false, true, true, true), down);
        // One vNF (no chain segment): every hop carries what the clients get.
        List<SlicePath.Hop> single = forward.subList(0, 3);
        for (int i = 0; i < single.size(); i++) {
            assertTrue(SliceFlows.clientFacing(single, SliceFlows.FORWARD, i));
            assertTrue(SliceFlows.clientFacing(single, SliceFlows.REVERSE, i));
        }
    }

    @Test
    public void aOnePortVnfInTheMiddleIsRefused() throws Exception {
        String body = "{\"slice_id\":\"s\",\"tenant_id\":1,\"hops\":["
                + "{\"device_id\":\"" + CORE + "\",\"in_port\":1,\"out_port\":2},"
                + "{\"device_id\":\"" + MEC + "\",\"in_port\":1,\"out_port\":3},"
                + "{\"device_id\":\"" + MEC + "\",\"in_port\":3,\"out_port\":5}]}";
        try {
            SlicePath.fromJson(new ObjectMapper().readTree(body));
            fail("a port entering the path twice must be refused");
        } catch (SliceException e) {
            assertEquals(400, e.status());
            assertTrue(e.getMessage(), e.getMessage().contains("port " + MEC + "/3 enters the path twice"));
        }
        // The same chain with the vNF's two ports is fine.
        SlicePath ok = SlicePath.fromJson(new ObjectMapper().readTree(body.replace(
                "\"in_port\":3,\"out_port\":5", "\"in_port\":4,\"out_port\":5")));
        assertEquals(3, ok.hops.size());
    }
}
