package org.wislice.onos.pof.impl;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D1;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D2;
import static org.wislice.onos.pof.impl.SliceManagerHarness.D3;

/** A stored slice path whose flows and meters ONOS lost (a restart of the runtime) is installed again. */
public class PofSliceRepairTest {
    private SliceManagerHarness h;

    @Before
    public void setUp() {
        h = new SliceManagerHarness();
    }

    @After
    public void tearDown() {
        h.manager.deactivate();
    }

    private SlicePath metered() {
        return h.manager.addSlice(new SlicePath("r", 1, 0, new SliceRates(1000, 4000), new SliceRates(500, 2000), true,
                List.of(new SlicePath.Hop(D1, 1, 2), new SlicePath.Hop(D2, 1, 2), new SlicePath.Hop(D3, 1, 2)),
                List.of()));
    }

    private static List<Long> onD1(SlicePath p) {
        return p.meters.stream().filter(m -> m.deviceId.equals(D1)).map(m -> m.meterId).collect(Collectors.toList());
    }

    private static List<Long> ids(SlicePath p) {
        return p.meters.stream().map(m -> m.meterId).collect(Collectors.toList());
    }

    @Test
    public void aPathWhoseFlowsAndMetersOnosLostGetsThemAgain() {
        SlicePath s = metered();
        int flows = h.installed.size();
        assertTrue(flows > 0 && !s.meters.isEmpty());
        assertFalse("nothing lost, nothing done", h.manager.repair("r"));

        h.installed.clear(); // ONOS restarted: the path is stored, its flow and meter stores are empty
        h.meters.clear();
        assertTrue(h.manager.repair("r"));
        assertEquals(flows, h.installed.size());
        SlicePath again = h.manager.slice("r").get();
        assertEquals(s.meters.size(), again.meters.size());
        assertTrue("every meter the path names is known again", again.meters.stream()
                .allMatch(m -> h.meters.containsKey(m.deviceId + "/" + m.meterId)));
        assertNotEquals("new meters, not the lost ids", s.meters.get(0).meterId, again.meters.get(0).meterId);
        assertFalse("and then nothing more to do", h.manager.repair("r"));
    }

    @Test
    public void lostFlowsAloneAreAddedAgainOnTheirMeters() {
        SlicePath s = metered();
        int flows = h.installed.size();
        h.installed.clear();
        assertTrue(h.manager.repair("r"));
        assertEquals(flows, h.installed.size());
        assertEquals("the meters were kept", ids(s), ids(h.manager.slice("r").get()));
    }

    @Test
    public void eachConnectedSwitchIsRepairedWithoutWaitingForTheOthers() {
        SlicePath s = metered();
        int flows = h.installed.size();
        h.installed.clear();
        h.meters.clear();
        h.away.add(D1); // ONOS restarted and D1 has not connected yet
        assertTrue(h.manager.repair("r"));
        assertTrue("D2 and D3 carry the slice again", h.installed.values().stream()
                .noneMatch(r -> r.deviceId().toString().equals(D1)) && h.installed.size() > 0);
        SlicePath partly = h.manager.slice("r").get();
        assertEquals(s.meters.size(), partly.meters.size());
        assertEquals("D1's meters keep their old ids until it is back", onD1(s), onD1(partly));
        assertFalse("D1 has meters on this path", onD1(s).isEmpty());
        assertFalse("nothing more while D1 is away", h.manager.repair("r"));

        h.away.clear();
        assertTrue(h.manager.repair("r"));
        assertEquals(flows, h.installed.size());
        assertTrue("every meter the path names is known again", h.manager.slice("r").get().meters.stream()
                .allMatch(m -> h.meters.containsKey(m.deviceId + "/" + m.meterId)));
        assertFalse(h.manager.repair("r"));
    }

    @Test
    public void aRemovedPathIsNotRepaired() {
        metered();
        h.manager.removeSlice("r");
        h.installed.clear();
        assertFalse(h.manager.repair("r"));
        assertTrue(h.installed.isEmpty());
    }

    @Test
    public void aSliceRemovedWhileItIsRepairedIsNotPutBack() {
        metered();
        h.installed.clear(); // flows and meters going away: as another node's removal looks from here
        h.meters.clear();
        // The removal reaches the shared map while the repair submits its first meter.
        h.atNextMeter = () -> h.manager.removeSlice("r");
        assertFalse(h.manager.repair("r"));
        assertFalse("not resurrected", h.manager.slice("r").isPresent());
        assertTrue("no flow of it left", h.installed.isEmpty());
        assertTrue("the meters the repair added are withdrawn", h.meters.isEmpty());
    }

    @Test
    public void aSliceRemovedAfterTheRepairWroteItLeavesNoFlows() {
        metered();
        int flows = h.installed.size();
        h.installed.clear();
        // The removal runs just before the repair's flows are recorded: it removed what it found (nothing yet).
        h.atNextFlows = () -> h.manager.removeSlice("r");
        assertFalse(h.manager.repair("r"));
        assertTrue(flows > 0);
        assertFalse(h.manager.slice("r").isPresent());
        assertTrue("the repair took its flows back", h.installed.isEmpty());
    }
}
