package org.wislice.onos.nfv.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;
import org.wislice.onos.agent.AgentRecord;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.mec.Capacity;
import org.wislice.onos.agent.mec.MecCodecs;

import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

/** A MEC node as GET /onos/nfv/nodes shows it: the record's fields, used and load, and back. */
public class NodeCodecTest {

    @Test
    public void aNodeRoundTripsInTheRestForm() throws Exception {
        // The capabilities of spec/agent/vectors/valid/hello-mec.json.
        ObjectNode caps = Json.parseLine("{\"capacity\": {\"cpu\": 2, \"memory_mib\": 8192}, "
                + "\"catalog\": [\"kernel-fwd\", \"dpdk-fwd\"], \"dpdk\": true, \"pof_switch\": true}");
        Node node = new Node(new AgentRecord<>("mec-1", true, "10.0.0.3:41000", "onos-1", "wislice-mec-agent 0.1",
                                               MecCodecs.CAPABILITIES.read(caps), 1763762400.0),
                             new Capacity(1.5, 256), 41.5, 2);
        ObjectNode json = NfvRecords.NODE.encode(node);
        List<String> fields = new ArrayList<>();
        json.fieldNames().forEachRemaining(fields::add);
        assertEquals(List.of("agent_id", "connected", "address", "controller_node", "software", "capacity", "catalog",
                             "dpdk", "pof_switch", "last_seen", "used", "load", "switch_core_vnfs"), fields);
        assertEquals("2 stays an integer", "2", json.at("/capacity/cpu").toString());
        assertEquals(2, json.get("switch_core_vnfs").asInt());
        assertEquals(node, NfvRecords.NODE.decode(json, "node"));
        try {
            NfvRecords.NODE.decode(json.deepCopy().put("switch_core_vnfs", -1), "node");
            fail("negative switch_core_vnfs accepted");
        } catch (ProtocolException e) {
            assertEquals("node.switch_core_vnfs: out of range [0, 2147483647]", e.getMessage());
        }
        try {
            json.remove("used");
            NfvRecords.NODE.decode(json, "node");
            fail("node without used accepted");
        } catch (ProtocolException e) {
            assertEquals("node: node with used, load and switch_core_vnfs expected", e.getMessage());
        }
    }
}
