package org.wislice.onos.pof.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Test;

import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** A slice path's branches (other APs' parts, docs/mobility.md): JSON both ways and every validation rule. */
public class SliceBranchTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String AP1 = "pof:00000001";
    private static final String AP2 = "pof:00000004";
    /** The testbed's shape: AP1 (vAP 1 -> 2) -> core (1 -> 2) -> MEC (1 -> vNF 3); AP2 (1 -> 2) -> core (3 -> 2). */
    private static final String MAIN = "\"hops\":[" + hop(AP1, 1, 2) + "," + hop("pof:00000002", 1, 2) + ","
            + hop("pof:00000003", 1, 3) + "]";

    private static String hop(String device, int in, int out) {
        return "{\"device_id\":\"" + device + "\",\"in_port\":" + in + ",\"out_port\":" + out + "}";
    }

    private static String branch(String id, String... hops) {
        return "{\"branch_id\":\"" + id + "\",\"hops\":[" + String.join(",", hops) + "]}";
    }

    private static String ap2(String id) {
        return branch(id, hop(AP2, 1, 2), hop("pof:00000002", 3, 2));
    }

    private static SlicePath parse(String branches) throws Exception {
        return SlicePath.fromJson(JSON.readTree("{\"slice_id\":\"s\",\"tenant_id\":1," + MAIN
                + ",\"branches\":[" + branches + "]}"));
    }

    /** The 400 message of a path with these branches. */
    private static String refused(String branches) throws Exception {
        try {
            parse(branches);
        } catch (SliceException e) {
            assertEquals(400, e.status());
            return e.getMessage();
        }
        fail("branches " + branches + " must be refused");
        return null;
    }

    @Test
    public void branchesRoundTripWithTheirJoinAndClients() throws Exception {
        SlicePath p = parse(ap2("ap2"));
        assertEquals(1, p.branches.size());
        SliceBranch b = p.branches.get(0);
        assertEquals("ap2", b.branchId);
        assertEquals(1, b.joinIndex(p.hops));
        // Its clients' uplink: its own hops, then the main path after the join (the MEC hop).
        assertEquals(List.of(new SlicePath.Hop(AP2, 1, 2), new SlicePath.Hop("pof:00000002", 3, 2),
                new SlicePath.Hop("pof:00000003", 1, 3)), b.fullHops(p.hops));
        SlicePath stored = p.withClients(List.of(new SliceClient("02:00:00:00:00:07", "ap2", 1)))
                .withMeters(List.of(new SlicePath.MeterRef(AP2, "forward", 0, 9, "ap2")));
        JsonNode json = stored.toJson(JSON);
        assertEquals("ap2", json.get("branches").get(0).get("branch_id").asText());
        assertEquals("ap2", json.get("meters").get(0).get("branch").asText());
        SlicePath back = SlicePath.fromJson(json);
        assertEquals(b.hops, back.branches.get(0).hops);
        assertEquals("02:00:00:00:00:07", back.clients.get(0).mac);
        assertEquals(1, back.clients.get(0).slot);
        assertEquals("ap2", back.meters.get(0).branch);
    }

    @Test
    public void mainBranchIdNamesTheMainPathAndSurvivesStorage() throws Exception {
        SlicePath p = SlicePath.fromJson(JSON.readTree("{\"slice_id\":\"s\",\"tenant_id\":1," + MAIN
                + ",\"main_branch_id\":\"ap1\",\"branches\":[" + ap2("ap2") + "]}"));
        assertEquals("ap1", p.mainBranchId);
        SlicePath back = SlicePath.fromJson(p.withClients(List.of()).withTag(5).toJson(JSON));
        assertEquals("ap1", back.mainBranchId);
        // Without it, the answer has no such key (what a path had before).
        assertFalse(parse(ap2("ap2")).toJson(JSON).has("main_branch_id"));
        for (String bad : new String[] {"\"main\"", "\"ap2\"", "\"-x\"", "7", "\"a b\""}) {
            try {
                SlicePath.fromJson(JSON.readTree("{\"slice_id\":\"s\",\"tenant_id\":1," + MAIN
                        + ",\"main_branch_id\":" + bad + ",\"branches\":[" + ap2("ap2") + "]}"));
                fail("main_branch_id " + bad + " must be refused");
            } catch (SliceException e) {
                assertEquals(400, e.status());
                assertTrue(e.getMessage(), e.getMessage().contains("main_branch_id"));
            }
        }
    }

    @Test
    public void aPathWithoutBranchesKeepsItsForm() throws Exception {
        SlicePath p = SlicePath.fromJson(JSON.readTree("{\"slice_id\":\"s\",\"tenant_id\":1," + MAIN + "}"));
        assertTrue(p.branches.isEmpty());
        JsonNode json = p.withMeters(List.of(new SlicePath.MeterRef(AP1, "forward", 0, 3))).toJson(JSON);
        assertFalse(json.has("branches"));
        assertFalse(json.has("clients"));
        assertFalse(json.get("meters").get(0).has("branch"));
        assertEquals(SliceBranch.MAIN, SlicePath.fromJson(json).meters.get(0).branch);
    }

    @Test
    public void badBranchesAreRefusedWithTheirReason() throws Exception {
        assertTrue(refused(ap2("main")).contains("not \"main\""));
        assertTrue(refused(ap2("a b")).contains("branch_id must be"));
        assertTrue(refused(ap2("x") + "," + branch("x", hop("pof:00000005", 1, 2), hop("pof:00000002", 4, 2)))
                .contains("branch_id x is given twice"));
        // Its last hop leaves the core by a port the main path does not leave by: it joins nothing.
        assertTrue(refused(branch("x", hop(AP2, 1, 2), hop("pof:00000002", 3, 4))).contains("must join the main"));
        // It enters the core on the main path's own port.
        assertTrue(refused(branch("x", hop(AP2, 1, 2), hop("pof:00000002", 1, 2))).contains("port pof:00000002/1"));
        // Two branches on one vAP port.
        assertTrue(refused(ap2("x") + "," + ap2("y").replace("\"in_port\":3", "\"in_port\":4"))
                .contains("port " + AP2 + "/1"));
        assertTrue(refused(branch("x")).contains("hops must be a list of 1-16"));
        assertTrue(refused("{\"branch_id\":\"x\",\"hops\":[" + hop(AP2, 1, 2) + "],\"tag\":3}")
                .contains("unknown field 'tag'"));
        StringBuilder nine = new StringBuilder();
        for (int i = 0; i < 9; i++) {
            nine.append(i == 0 ? "" : ",").append(branch("b" + i, hop(String.format("pof:%08x", 16 + i), 1, 2),
                    hop("pof:00000002", 10 + i, 2)));
        }
        assertTrue(refused(nine.toString()).contains("at most 8"));
        assertEquals(8, parse(nine.substring(0, nine.lastIndexOf(",{\"branch_id\""))).branches.size());
    }

    @Test
    public void clientMacsAreStationAddresses() {
        assertEquals("02:00:00:00:00:0a", SliceClient.mac("02-00-00-00-00-0A"));
        for (String bad : new String[] {"02:00:00:00:00", "zz:00:00:00:00:01", "01:00:5e:00:00:01", ""}) {
            try {
                SliceClient.mac(bad);
                fail(bad + " must be refused");
            } catch (SliceException e) {
                assertEquals(400, e.status());
            }
        }
        assertEquals(10, new SliceClient("02:00:00:00:00:0a", "b", 1).macBytes()[5]);
    }
}
