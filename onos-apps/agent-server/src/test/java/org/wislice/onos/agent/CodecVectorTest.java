package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.Test;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.mec.MecCodecs;

import java.io.File;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The codecs against spec/agent/vectors: every protocol object in a valid vector decodes and encodes back to the
 * same JSON (numbers in the same form, optional fields absent as they were), and the object that makes an invalid
 * vector invalid is refused by its codec with the validator's own message.
 */
public class CodecVectorTest {

    /** A protocol object inside a message: where, its codec, and its path as MessageValidator names it. */
    private static final class Target {
        final String pointer;
        final AgentCodec<?> codec;
        final String path;

        Target(String pointer, AgentCodec<?> codec, String path) {
            this.pointer = pointer;
            this.codec = codec;
            this.path = path;
        }
    }

    private static final Map<String, AgentCodec<?>> PARAMS = Map.of(
            "createVap", ApCodecs.VAP_SPEC, "createVnf", MecCodecs.VNF_SPEC);
    private static final Map<String, AgentCodec<?>> PARAMS_OBJECT = Map.of(
            "updateVap", ApCodecs.VAP_RATE_LIMIT, "changeChannel", ApCodecs.CHANNEL_CHANGE);
    private static final Map<String, AgentCodec<?>> RESULTS = Map.of(
            "vap", ApCodecs.VAP_STATE, "vnf", MecCodecs.VNF_STATE, "radio", ApCodecs.RADIO);
    private static final Map<String, AgentCodec<?>> EVENTS = Map.of(
            "clientAssociated", ApCodecs.CLIENT_ASSOCIATED, "clientDisassociated", ApCodecs.CLIENT_DISASSOCIATED,
            "vapState", ApCodecs.VAP_STATE_CHANGED, "vnfState", MecCodecs.VNF_STATE_CHANGED);

    /** The protocol objects of a message that have a codec. */
    private static List<Target> targets(JsonNode msg) {
        List<Target> out = new ArrayList<>();
        switch (msg.path("type").asText()) {
            case "request": {
                String method = msg.path("method").asText();
                JsonNode params = msg.path("params");
                if (PARAMS.containsKey(method)) {
                    String key = method.equals("createVap") ? "vap" : "vnf";
                    out.add(new Target("/params/" + key, PARAMS.get(method), "request.params." + key));
                } else if (PARAMS_OBJECT.containsKey(method)) {
                    out.add(new Target("/params", PARAMS_OBJECT.get(method), "request.params"));
                } else if (method.equals("syncVaps") || method.equals("syncVnfs")) {
                    String key = method.equals("syncVaps") ? "vaps" : "vnfs";
                    AgentCodec<?> codec = key.equals("vaps") ? ApCodecs.VAP_SPEC : MecCodecs.VNF_SPEC;
                    for (int i = 0; i < params.path(key).size(); i++) {
                        out.add(new Target("/params/" + key + "/" + i, codec, "request.params." + key + "[" + i + "]"));
                    }
                }
                break;
            }
            case "reply":
                RESULTS.forEach((key, codec) -> {
                    if (msg.path("result").has(key)) {
                        out.add(new Target("/result/" + key, codec, key));
                    }
                });
                break;
            case "hello":
                out.add(new Target("/capabilities", "ap".equals(msg.path("role").asText())
                        ? ApCodecs.CAPABILITIES : MecCodecs.CAPABILITIES, "hello.capabilities"));
                break;
            case "event": {
                String event = msg.path("event").asText();
                JsonNode data = msg.path("data");
                AgentCodec<?> codec = !"stats".equals(event) ? EVENTS.get(event)
                        : data.has("vnfs") || data.has("node") ? MecCodecs.STATS : ApCodecs.STATS;
                out.add(new Target("/data", codec, "event.data"));
                break;
            }
            default:
                break;
        }
        return out;
    }

    /** Equal JSON where numbers also keep their form: integers stay integers (of any width), fractions fractions. */
    private static final Comparator<JsonNode> SAME_FORM = (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
            return a.isIntegralNumber() == b.isIntegralNumber() ? a.decimalValue().compareTo(b.decimalValue()) : 1;
        }
        return a.equals(b) ? 0 : 1;
    };

    private static <T> void roundTrip(AgentCodec<T> codec, JsonNode json, String where) throws ProtocolException {
        T value = codec.decode(json, "x");
        JsonNode encoded = codec.encode(value);
        assertTrue(where + ": " + json + " came back as " + encoded, json.equals(SAME_FORM, encoded));
        assertEquals(where + ": decode(encode(v)) is v", value, codec.decode(encoded, "x"));
        assertEquals(where + ": equal values, equal hashes", value.hashCode(), codec.read(encoded).hashCode());
    }

    @Test
    public void validVectorsRoundTrip() throws Exception {
        int objects = 0;
        List<String> uncovered = new ArrayList<>();
        for (File f : VectorTest.files("valid")) {
            JsonNode msg = Json.parseLine(VectorTest.read(f).trim());
            List<Target> targets = targets(msg);
            for (Target t : targets) {
                roundTrip(t.codec, msg.at(t.pointer), f.getName() + " " + t.pointer);
                objects++;
            }
            if (targets.isEmpty()) {
                uncovered.add(f.getName());
            }
        }
        // Messages without protocol objects of their own: the envelope only, or a params id.
        assertEquals(List.of("bye.json", "challenge.json", "ping.json", "reply-error.json", "req-delVap.json",
                             "req-delVnf.json", "req-getClient-all.json", "req-removeClient.json",
                             "req-syncVaps-empty.json", "welcome.json"), uncovered);
        assertTrue("only " + objects + " objects round-tripped", objects >= 23);
    }

    @Test
    public void codecsRefuseWhatTheValidatorRefusesWithItsMessage() throws Exception {
        int refused = 0;
        for (File f : VectorTest.files("invalid")) {
            JsonNode msg = Json.parseLine(VectorTest.read(f).trim()).get("message");
            String why;
            try {
                MessageValidator.validate(msg);
                fail(f.getName() + " passed the validator");
                return;
            } catch (ProtocolException e) {
                why = e.getMessage();
            }
            for (Target t : targets(msg)) {
                if (!why.startsWith(t.path + ".") && !why.startsWith(t.path + ":")
                        && !why.startsWith(t.path + "[")) {
                    continue; // the envelope or another object is what is wrong
                }
                try {
                    t.codec.decode(msg.at(t.pointer), t.path);
                    fail(f.getName() + ": " + t.codec.name() + " codec accepted " + msg.at(t.pointer));
                } catch (ProtocolException e) {
                    assertEquals(f.getName(), why, e.getMessage());
                    refused++;
                }
            }
        }
        assertTrue("only " + refused + " invalid objects reached a codec", refused >= 25);
    }

    @Test
    public void decodeErrorsNameTheField() {
        JsonNode spec = ApCodecs.VAP_SPEC.encode(new org.wislice.onos.agent.ap.VapSpec("v1", "phy0", "Cafe",
                new org.wislice.onos.agent.ap.Security("open", null), null, 70000, "s-1",
                new org.wislice.onos.agent.ap.RateLimit(0, 0, null, null), null));
        try {
            ApCodecs.VAP_SPEC.decode(spec, "vap");
            fail("tenant_id 70000 accepted");
        } catch (ProtocolException e) {
            assertEquals("vap.tenant_id: out of range [0, 65535]", e.getMessage());
            assertEquals("bad_request", e.code());
        }
        try {
            ApCodecs.VAP_SPEC.decode(Json.object().put("vap_id", "v1"), "vap");
            fail("incomplete spec accepted");
        } catch (ProtocolException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("vap: missing field '"));
        }
    }
}
