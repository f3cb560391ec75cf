package org.wislice.onos.mobility.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Before;
import org.junit.Test;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;

import java.util.List;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/** One association at an AP of a multi-AP slice: where the downlink goes and which stale association goes. */
public class HandoverFollowerTest {
    private static final String MAC = "02:00:00:00:00:07";
    private static final String AP1 = "pof:00000001";
    private static final String AP2 = "pof:00000004";

    private FakeWifi wifi;
    private FakeSlices slices;
    private long now;

    private static String hop(String device, int in, int out) {
        return "{\"device_id\":\"" + device + "\",\"in_port\":" + in + ",\"out_port\":" + out + "}";
    }

    /** The testbed's shape: vAP mainVap on ap-1 is the main path, vAP branchVap on ap-2 a branch joining at core. */
    private static SlicePath path(String sliceId, String mainVap, String branchVap) throws Exception {
        return SlicePath.fromJson(FakeWifi.JSON.readTree("{\"slice_id\":\"" + sliceId + "\",\"tenant_id\":1,"
                + "\"hops\":[" + hop(AP1, 1, 2) + "," + hop("pof:00000002", 1, 2) + "," + hop("pof:00000003", 1, 3)
                + "],\"main_branch_id\":\"" + mainVap + "\",\"branches\":[{\"branch_id\":\"" + branchVap
                + "\",\"hops\":[" + hop(AP2, 1, 2) + "," + hop("pof:00000002", 3, 2) + "]}]}"));
    }

    private HandoverFollower follower(String localNode) {
        return new HandoverFollower(wifi, slices, localNode, () -> now);
    }

    @Before
    public void setUp() throws Exception {
        wifi = new FakeWifi();
        slices = new FakeSlices();
        slices.paths.add(path("t1s1", "t1s1v1", "t1s1v2"));
        slices.paths.add(path("t2s5", "t2s5v1", "t2s5v2"));
        now = 10_000;
    }

    @Test
    public void associationAtTheBranchVapPlacesTheClientOnItsBranchAndKicksTheOldAp() {
        wifi.associate("ap-1", "t1s1v1", MAC);
        ObjectNode arrived = wifi.associate("ap-2", "t1s1v2", MAC);
        Handover h = follower(null).follow(arrived, 9_950).orElseThrow();
        assertEquals(List.of("t1s1/" + MAC + "->t1s1v2"), slices.placed);
        assertEquals(List.of("ap-1/" + MAC), wifi.kicks);
        assertEquals(List.of("ap-1"), h.kicked);
        assertEquals("t1s1", h.sliceId);
        assertEquals(50, h.pathSwitchMs);
        assertEquals(7, h.switchConfirmMs);
        assertNull(h.error);
        assertEquals("t1s1v2", h.toJson().get("branch_id").asText());
    }

    @Test
    public void associationAtTheMainVapPutsTheClientBackOnTheMainPath() {
        wifi.associate("ap-2", "t1s1v2", MAC);
        ObjectNode arrived = wifi.associate("ap-1", "t1s1v1", MAC);
        Handover h = follower(null).follow(arrived, now).orElseThrow();
        assertEquals(List.of("t1s1/" + MAC + "->main"), slices.placed);
        assertEquals("main", h.branchId);
        assertEquals(List.of("ap-2/" + MAC), wifi.kicks);
    }

    @Test
    public void aVapInNoSlicePathChangesNothing() {
        ObjectNode arrived = wifi.associate("ap-1", "lonely-vap", MAC);
        assertFalse(follower(null).follow(arrived, now).isPresent());
        assertTrue(slices.placed.isEmpty() && wifi.kicks.isEmpty());
    }

    @Test
    public void anAssociationOnAnotherSlicesVapIsNotKicked() {
        wifi.associate("ap-3", "t2s5v1", MAC);  // the same station on another tenant's slice: not this move's
        ObjectNode arrived = wifi.associate("ap-2", "t1s1v2", MAC);
        Handover h = follower(null).follow(arrived, now).orElseThrow();
        assertTrue(wifi.kicks.isEmpty() && h.kicked.isEmpty());
        assertEquals(2, wifi.clients.size());
    }

    @Test
    public void aRefusedPlacementIsRecordedAndNothingIsKicked() {
        wifi.associate("ap-1", "t1s1v1", MAC);
        ObjectNode arrived = wifi.associate("ap-2", "t1s1v2", MAC);
        slices.failure = SliceException.badRequest("one-way slice");
        Handover h = follower(null).follow(arrived, now).orElseThrow();
        assertEquals("one-way slice", h.error);
        assertEquals(-1, h.pathSwitchMs);
        assertTrue(wifi.kicks.isEmpty());
    }

    @Test
    public void onlyTheNodeTheAgentIsConnectedToFollowsIt() {
        wifi.agentOn("ap-2", "node-b");
        ObjectNode arrived = wifi.associate("ap-2", "t1s1v2", MAC);
        assertEquals(Optional.empty(), follower("node-a").follow(arrived, now));
        assertTrue(slices.placed.isEmpty());
        assertTrue(follower("node-b").follow(arrived, now).isPresent());
    }

    @Test
    public void aRecordWithoutItsFieldsIsIgnored() {
        ObjectNode partial = FakeWifi.JSON.createObjectNode().put("agent_id", "ap-2").put("mac", MAC);
        assertFalse(follower(null).follow(partial, now).isPresent());
    }
}
