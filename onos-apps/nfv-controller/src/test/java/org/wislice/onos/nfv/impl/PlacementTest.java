package org.wislice.onos.nfv.impl;

import org.junit.Test;
import org.wislice.onos.agent.AgentRecord;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.mec.Capacity;
import org.wislice.onos.agent.mec.MecCapabilities;
import org.wislice.onos.agent.mec.VnfSpec;

import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

/** Placement by capacity, load and AP distance. */
public class PlacementTest {

    static Node node(String id, double cpu, long mem, double usedCpu, long usedMem, double load) {
        return node(id, true, cpu, mem, usedCpu, usedMem, load);
    }

    static Node node(String id, boolean connected, double cpu, long mem, double usedCpu, long usedMem, double load) {
        MecCapabilities caps = new MecCapabilities(new Capacity(cpu, mem), List.of("firewall", "kernel-fwd"),
                                                   false, true);
        return new Node(new AgentRecord<>(id, connected, "127.0.0.1:1", "node-1", "test", caps, 0),
                        new Capacity(usedCpu, usedMem), load, 0);
    }

    static VnfSpec spec(double cpu, long mem, String image) {
        return new VnfSpec(1, 1, image, null, cpu, mem, 0);
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
        List<Node> nodes = List.of(node("mec-1", 4, 4096, 0, 0, 0), node("mec-2", 4, 4096, 0, 0, 0));
        assertEquals("mec-2", p.choose(nodes, spec(0.5, 128, "firewall"), "ap-1"));
        assertEquals("mec-1", p.choose(nodes, spec(0.5, 128, "firewall"), null)); // tie -> smaller id
    }

    @Test
    public void capacityCatalogAndConnectionAreHardLimits() {
        Placement p = new Placement(Map.of(), 10);
        Node full = node("mec-1", 2, 4096, 1.8, 0, 0);
        Node away = node("mec-2", false, 8, 8192, 0, 0, 0);
        Node ok = node("mec-3", 1, 256, 0, 0, 0);
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
