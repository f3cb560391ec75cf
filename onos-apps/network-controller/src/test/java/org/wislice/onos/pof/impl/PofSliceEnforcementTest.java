package org.wislice.onos.pof.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.net.flow.FlowRuleOperation;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;

import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.wislice.onos.pof.impl.SliceManagerHarness.refused;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D1;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D2;
import static org.wislice.onos.pof.impl.SliceManagerHarness.REF;

/**
 * Path admission against the switches' meter capability: a rated path whose meters would sit on a switch that does
 * not enforce them is refused (409 meters_not_enforced, naming it) unless it accepts best effort there.
 */
public class PofSliceEnforcementTest {
    private static final SliceRates GUARANTEE = new SliceRates(5000, 20000);
    private SliceManagerHarness h;

    @Before
    public void setUp() {
        h = new SliceManagerHarness();
    }

    /** AP switch D1 -> REF (reference-like) -> D2. */
    private static SlicePath throughRef(String id, SliceRates down, SliceRates up, boolean requireEnforcement) {
        return new SlicePath(id, 1, 0, down, up, true, List.of(new SlicePath.Hop(D1, 1, 2),
                new SlicePath.Hop(REF, 1, 2), new SlicePath.Hop(D2, 1, 2)), List.of(), requireEnforcement,
                List.of());
    }

    @Test
    public void aGuaranteeThroughASwitchThatDoesNotEnforceIsRefusedAndInstallsNothing() {
        SliceException e = refused(() -> h.manager.addSlice(throughRef("g", GUARANTEE, GUARANTEE, true)));
        assertEquals("meters_not_enforced", e.code());
        assertEquals(409, e.status());
        assertTrue(e.getMessage(), e.getMessage().startsWith(REF + " does not enforce meter rates"));
        assertTrue(e.getMessage(), e.getMessage().contains("\"require_enforcement\": false"));
        assertTrue(h.meters.isEmpty());
        assertTrue(h.flowOps.isEmpty());
        assertTrue(h.manager.slices().isEmpty());
        // A cap alone (the legacy rate_kbps) is refused the same way: the reference applies neither rate.
        assertEquals("meters_not_enforced", refused(() -> h.manager.addSlice(
                throughRef("c", SliceRates.NONE, SliceRates.cap(700), true))).code());
    }

    @Test
    public void bestEffortAcceptedIsInstalledAndFlagged() {
        SlicePath s = h.manager.addSlice(throughRef("b", GUARANTEE, SliceRates.cap(700), false));
        assertEquals(List.of(REF), s.unenforcedDevices);
        // Meters go on every client-facing hop as usual: the switch takes them, it just does not apply them.
        assertEquals(6, s.meters.size());
        assertTrue(s.meters.stream().anyMatch(m -> m.deviceId.equals(REF)));
        assertEquals(6, h.flowOps.size());
        SlicePath stored = h.manager.slice("b").get();
        assertEquals(List.of(REF), stored.unenforcedDevices);
        assertEquals(false, stored.requireEnforcement);
        assertEquals("[\"" + REF + "\"]", stored.toJson(new ObjectMapper()).get("unenforced_devices").toString());
    }

    @Test
    public void anUnratedPathCrossesAnySwitch() {
        SlicePath s = h.manager.addSlice(throughRef("u", SliceRates.NONE, SliceRates.NONE, true));
        assertTrue(s.unenforcedDevices.isEmpty());
        assertTrue(s.meters.isEmpty());
    }

    @Test
    public void onlyTheSwitchesThatWouldHoldAMeterCount() {
        // AP D1, MEC REF with a vNF between ports 3 (in) and 4 (out): the hop out of the vNF is between the chain
        // and the server, not client-facing, and gets no meter; the hop into the vNF does.
        SlicePath chainOnRef = new SlicePath("m", 1, 0, GUARANTEE, GUARANTEE, true, List.of(
                new SlicePath.Hop(D1, 1, 2), new SlicePath.Hop(REF, 1, 3), new SlicePath.Hop(REF, 4, 2)), List.of());
        assertEquals(List.of(D1, REF), SliceFlows.meteredDevices(chainOnRef));
        // The chain on an enforcing switch, the reference-like one past it: REF holds no meter of the path.
        SlicePath pastTheChain = new SlicePath("p", 1, 0, GUARANTEE, GUARANTEE, true, List.of(
                new SlicePath.Hop(D1, 1, 3), new SlicePath.Hop(D1, 4, 2), new SlicePath.Hop(REF, 1, 2)), List.of());
        assertEquals(List.of(D1), SliceFlows.meteredDevices(pastTheChain));
        SlicePath s = h.manager.addSlice(pastTheChain);
        assertTrue(s.unenforcedDevices.isEmpty());
        assertTrue(s.meters.stream().noneMatch(m -> m.deviceId.equals(REF)));
    }

    @Test
    public void overridesDecideBothWays() {
        h.overrides(REF + "=true");
        SlicePath s = h.manager.addSlice(throughRef("o", GUARANTEE, GUARANTEE, true));
        assertTrue(s.unenforcedDevices.isEmpty());
        h.manager.removeSlice("o");

        h.overrides(D1 + "=false");
        SliceException e = refused(() -> h.manager.addSlice(new SlicePath("d", 1, 0, GUARANTEE, GUARANTEE, true,
                List.of(new SlicePath.Hop(D1, 1, 2), new SlicePath.Hop(D2, 1, 2)), List.of())));
        assertTrue(e.getMessage(), e.getMessage().startsWith(D1 + " does not"));

        // Several switches are named together.
        h.overrides("");
        h.overrides(D2 + "=false");
        e = refused(() -> h.manager.addSlice(throughRef("two", GUARANTEE, GUARANTEE, true)));
        assertTrue(e.getMessage(), e.getMessage().startsWith(REF + ", " + D2 + " do not enforce"));
    }

    @Test
    public void ratesAddedLaterAreAdmittedByTheSameRule() {
        h.manager.addSlice(throughRef("later", SliceRates.NONE, SliceRates.NONE, true));
        h.flowOps.clear();
        assertEquals("meters_not_enforced", refused(() -> h.manager.updateRates("later", null, GUARANTEE)).code());
        assertTrue("nothing changed", h.flowOps.isEmpty() && h.meters.isEmpty());
        assertEquals(SliceRates.NONE, h.manager.slice("later").get().up);
        h.manager.removeSlice("later");

        // A path that accepted best effort gets its new rates, flagged.
        h.manager.addSlice(throughRef("be", SliceRates.NONE, SliceRates.NONE, false));
        h.flowOps.clear();
        assertTrue(h.manager.slice("be").get().unenforcedDevices.isEmpty());
        SlicePath u = h.manager.updateRates("be", null, GUARANTEE);
        assertEquals(List.of(REF), u.unenforcedDevices);
        assertEquals(List.of(REF), h.manager.slice("be").get().unenforcedDevices);
        assertTrue(h.flowOps.stream().allMatch(o -> o.type() == FlowRuleOperation.Type.MODIFY));
        // And loses the flag with its rates.
        assertTrue(h.manager.updateRates("be", null, SliceRates.NONE).unenforcedDevices.isEmpty());
    }
}
