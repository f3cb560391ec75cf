package org.wislice.onos.nfv.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;

import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

/** Placement by capacity, load and AP distance. */
public class PlacementTest {

    static ObjectNode node(String id, double cpu, long mem, double usedCpu, long usedMem, double load) {
        ObjectNode n = Json.object().put("agent_id", id).put("connected", true).put("load", load);
        n.putObject("capacity").put("cpu", cpu).put("memory_mib", mem);
        n.putObject("used").put("cpu", usedCpu).put("memory_mib", usedMem);
        n.putArray("catalog").add("firewall").add("kernel-fwd");
        return n;
    }

    static ObjectNode spec(double cpu, long mem, String image) {
        return Json.object().put("tenant_id", 1).put("instance_id", 1).put("image", image).put("cpu", cpu)
                .put("memory_mib", mem).put("chain_position", 0);
    }

    @Test
    public void prefersTheLessUtilisedNode() {
        Placement p = new Placement(Map.of(), 10);
        String chosen = p.choose(List.of(node("mec-1", 4, 4096, 3, 1024, 0), node("mec-2", 4, 4096, 1, 1024, 0)),
                                 spec(0.5, 128, "firewall"), null);
        assertEquals("mec-2", chosen);
    }

    @Test
    public void loadBreaksEvenUtilisation() {
        Placement p = new Placement(Map.of(), 10);
        assertEquals("mec-1", p.choose(List.of(node("mec-1", 4, 4096, 1, 0, 10), node("mec-2", 4, 4096, 1, 0, 80)),
                                       spec(0.5, 128, "firewall"), null));
    }

    @Test
    public void distanceToTheSlicesApCounts() {
        Placement p = new Placement(Placement.parseDistances("ap-1:mec-1=8, ap-1:mec-2=1"), 10);
        List<ObjectNode> nodes = List.of(node("mec-1", 4, 4096, 0, 0, 0), node("mec-2", 4, 4096, 0, 0, 0));
        assertEquals("mec-2", p.choose(nodes, spec(0.5, 128, "firewall"), "ap-1"));
        assertEquals("mec-1", p.choose(nodes, spec(0.5, 128, "firewall"), null)); // tie -> smaller id
    }

    @Test
    public void capacityCatalogAndConnectionAreHardLimits() {
        Placement p = new Placement(Map.of(), 10);
        ObjectNode full = node("mec-1", 2, 4096, 1.8, 0, 0);
        ObjectNode away = node("mec-2", 8, 8192, 0, 0, 0).put("connected", false);
        ObjectNode ok = node("mec-3", 1, 256, 0, 0, 0);
        assertEquals("mec-3", p.choose(List.of(full, away, ok), spec(0.5, 128, "firewall"), null));
        try {
            p.choose(List.of(full, away, ok), spec(0.5, 128, "dpdk-fwd"), null);
            fail("image no node offers was placed");
        } catch (ControllerException e) {
            assertEquals("capacity", e.code());
        }
        try {
            p.choose(List.of(ok), spec(0.5, 512, "firewall"), null);
            fail("memory over capacity was placed");
        } catch (ControllerException e) {
            assertEquals(409, e.httpStatus());
        }
    }

    @Test
    public void distanceMapSyntaxIsChecked() {
        assertEquals(Map.of("ap-1:mec-1", 3), Placement.parseDistances("ap-1:mec-1=3"));
        for (String bad : new String[]{"ap-1=3", "ap-1:mec-1=x", "ap-1:mec-1=-1"}) {
            try {
                Placement.parseDistances(bad);
                fail(bad);
            } catch (IllegalArgumentException expected) {
                // rejected with a message naming the entry
            }
        }
    }
}
