package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;
import org.wislice.onos.agent.ap.ApCalls;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.ap.ClientSteering;
import org.wislice.onos.agent.ap.SteerOutcome;

import java.io.File;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * steerClient against its vectors: the requests' params and the replies' flat results (which no RESULTS key of
 * CodecVectorTest finds) round-trip through STEER_CLIENT, and its invalid vectors are refused by the call's params
 * check with the validator's message.
 */
public class SteerClientVectorTest {

    private static JsonNode vector(String name) throws Exception {
        return Json.parseLine(VectorTest.read(new File(VectorTest.vectors(), name)).trim());
    }

    @Test
    public void requestsAndResultsRoundTrip() throws Exception {
        for (String name : List.of("valid/req-steerClient.json", "valid/req-steerClient-imminent.json")) {
            JsonNode params = vector(name).get("params");
            ApCalls.STEER_CLIENT.checkParams(params, "params");
            ClientSteering s = ApCalls.STEER_CLIENT.readParams(params);
            assertEquals(name, params, ApCalls.STEER_CLIENT.params(s));
        }
        ClientSteering s = ApCalls.STEER_CLIENT.readParams(vector("valid/req-steerClient.json").get("params"));
        assertEquals("t1-cafe", s.vapId());
        assertEquals("02:00:00:00:01:01", s.targetBssid());

        JsonNode accepted = vector("valid/reply-ok-steerClient.json").get("result");
        SteerOutcome ok = ApCalls.STEER_CLIENT.result(accepted);
        assertTrue(ok.accepted());
        assertEquals(Integer.valueOf(0), ok.statusCode());
        assertEquals(accepted, ApCodecs.STEER_OUTCOME.encode(ok));

        JsonNode silent = vector("valid/reply-ok-steerClient-no-answer.json").get("result");
        SteerOutcome none = ApCalls.STEER_CLIENT.result(silent);
        assertTrue(!none.accepted() && none.statusCode() == null);
        assertTrue("status_code null stays present", ApCodecs.STEER_OUTCOME.encode(none).get("status_code").isNull());
        assertEquals(silent, ApCodecs.STEER_OUTCOME.encode(none));
    }

    @Test
    public void invalidVectorsAreRefusedByTheParamsCheck() throws Exception {
        int refused = 0;
        for (File f : VectorTest.files("invalid")) {
            if (!f.getName().startsWith("steerClient-")) {
                continue;
            }
            JsonNode msg = Json.parseLine(VectorTest.read(f).trim()).get("message");
            String why = null;
            try {
                MessageValidator.validate(msg);
                fail(f.getName() + " passed the validator");
            } catch (ProtocolException e) {
                why = e.getMessage();
            }
            try {
                ApCalls.STEER_CLIENT.checkParams(msg.get("params"), "request.params");
                fail(f.getName() + " passed the params check");
            } catch (ProtocolException e) {
                assertEquals(f.getName(), why, e.getMessage());
                refused++;
            }
        }
        assertTrue("only " + refused + " steerClient vectors", refused >= 4);
    }

    @Test
    public void badResultsAreInvalidReplies() {
        List<ObjectNode> bad = List.of(
                Json.object().put("accepted", true).put("reason", "no status_code"),
                Json.object().put("accepted", "yes").putNull("status_code").put("reason", "x"),
                Json.object().put("accepted", false).put("status_code", 256).put("reason", "x"),
                Json.object().put("accepted", false).putNull("status_code").put("reason", "x".repeat(257)));
        for (ObjectNode result : bad) {
            try {
                ApCalls.STEER_CLIENT.result(result);
                fail("accepted " + result);
            } catch (RuntimeException e) {
                assertTrue(e.getMessage(), e.getMessage().contains("steerClient result"));
            }
        }
    }
}
