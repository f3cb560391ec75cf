package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.Test;
import org.wislice.onos.agent.ap.ApCalls;
import org.wislice.onos.agent.ap.ApCapabilities;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.ap.FirmwareUpgrade;

import java.io.File;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** Fleet upgrades (issue 18): the hello's firmware_version in the agent record, upgradeFirmware's params and result. */
public class FirmwareCallTest {

    private static JsonNode vector(String name) throws Exception {
        return Json.parseLine(VectorTest.read(new File(VectorTest.vectors(), "valid/" + name)).trim());
    }

    @Test
    public void theHellosFirmwareVersionIsKeptInTheAgentRecord() throws Exception {
        JsonNode hello = vector("hello-ap-firmware.json");
        AgentRecordCodec<ApCapabilities> codec = new AgentRecordCodec<>("node", ApCodecs.CAPABILITIES);
        AgentRecord<ApCapabilities> agent = new AgentRecord<>("ap-1", true, "10.0.0.2:40000", "onos-1", "x",
                ApCodecs.CAPABILITIES.read(hello.get("capabilities")), 1.5, hello.get("firmware_version").asText());
        JsonNode json = codec.encode(agent);
        assertEquals("23.05.3-wislice1", json.get("firmware_version").asText());
        AgentRecord<ApCapabilities> back = codec.decode(json, "agent");
        assertEquals(agent, back);
        assertEquals("23.05.3-wislice1", back.disconnected(2.0).firmwareVersion());
        // An agent from before firmware_version: absent, not null.
        AgentRecord<ApCapabilities> old = new AgentRecord<>("ap-2", true, "a", "n", "x", agent.capabilities(), 1.5);
        assertFalse(codec.encode(old).has("firmware_version"));
        assertNull(codec.decode(codec.encode(old), "agent").firmwareVersion());
    }

    @Test
    public void upgradeFirmwareParamsAndResult() throws Exception {
        JsonNode request = vector("req-upgradeFirmware.json");
        FirmwareUpgrade upgrade = ApCalls.UPGRADE_FIRMWARE.readParams(request.get("params"));
        assertEquals("packages", upgrade.kind());
        assertEquals(600, upgrade.timeoutS());
        assertEquals(request.get("params"), ApCalls.UPGRADE_FIRMWARE.params(upgrade));
        assertTrue(ApCalls.UPGRADE_FIRMWARE.result(vector("reply-ok-upgradeFirmware.json").get("result")));
        try {
            ApCalls.UPGRADE_FIRMWARE.result(Json.parseLine("{\"accepted\":\"yes\"}"));
            fail("a non-boolean accepted was read");
        } catch (InvalidReplyException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("accepted"));
        }
    }
}
