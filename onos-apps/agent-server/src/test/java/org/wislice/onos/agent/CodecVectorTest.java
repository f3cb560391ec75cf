package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;
import org.wislice.onos.agent.ap.ApCalls;
import org.wislice.onos.agent.ap.ApCapabilities;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.mec.MecCalls;
import org.wislice.onos.agent.mec.MecCodecs;
import org.wislice.onos.agent.mec.VnfState;

import java.io.File;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The codecs against spec/agent/vectors: every protocol object in a valid vector decodes and encodes back to the
 * same JSON (numbers in the same form, optional fields absent as they were), every request's params through its
 * AgentCall, and the object that makes an invalid vector invalid is refused by its codec with the validator's
 * own message. A new call, event or vector needs no change here: its vectors are found through ApCalls/MecCalls
 * and the codecs' EVENTS (a reply's result, which does not name its method, through RESULTS and RESULT_LISTS).
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

    /** Every call by method (getStatus is in both lists, with the same params). */
    private static final Map<String, AgentCall<?, ?>> CALLS = new HashMap<>();
    private static final Map<String, AgentCodec<?>> RESULTS = Map.of(
            "vap", ApCodecs.VAP_STATE, "vnf", MecCodecs.VNF_STATE, "radio", ApCodecs.RADIO);
    /** Results that are a list of protocol objects (getVaps, getVnfs): each item through the codec. */
    private static final Map<String, AgentCodec<?>> RESULT_LISTS = Map.of(
            "vaps", ApCodecs.VAP_STATE, "vnfs", MecCodecs.VNF_STATE);
    /** Messages that are an envelope only: they carry no protocol object of their own. */
    private static final Set<String> ENVELOPES = Set.of("bye", "challenge", "ping", "welcome");

    static {
        List.of(ApCalls.ALL, MecCalls.ALL).forEach(calls -> calls.forEach(c -> CALLS.putIfAbsent(c.method(), c)));
    }

    /** The protocol objects of a message that have a codec (a request's params go through their call). */
    private static List<Target> targets(JsonNode msg) {
        List<Target> out = new ArrayList<>();
        switch (msg.path("type").asText()) {
            case "reply":
                RESULTS.forEach((key, codec) -> {
                    if (msg.path("result").has(key)) {
                        out.add(new Target("/result/" + key, codec, key));
                    }
                });
                RESULT_LISTS.forEach((key, codec) -> {
                    for (int i = 0; i < msg.path("result").path(key).size(); i++) {
                        out.add(new Target("/result/" + key + "/" + i, codec, key + "[" + i + "]"));
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
                boolean mec = "vnfState".equals(event) || data.has("vnfs") || data.has("node");
                out.add(new Target("/data", (mec ? MecCodecs.EVENTS : ApCodecs.EVENTS).get(event), "event.data"));
                break;
            }
            default:
                break;
        }
        return out;
    }

    /** A request's params read as its call's P and encoded back. */
    private static <P> void roundTripParams(AgentCall<P, ?> call, JsonNode params, String where)
            throws ProtocolException {
        call.checkParams(params, "params");
        P value = call.readParams(params);
        JsonNode encoded = call.params(value);
        assertTrue(where + ": " + params + " came back as " + encoded, params.equals(SAME_FORM, encoded));
        assertEquals(where + ": read(encode(p)) is p", value, call.readParams(encoded));
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
            if ("request".equals(msg.path("type").asText())) {
                AgentCall<?, ?> call = CALLS.get(msg.path("method").asText());
                assertTrue(f.getName() + ": no AgentCall for its method", call != null);
                roundTripParams(call, msg.get("params"), f.getName());
                objects++;
            } else if (targets.isEmpty() && !envelopeOnly(msg) && !readByACall(msg.path("result"))) {
                uncovered.add(f.getName());
            }
        }
        assertEquals("vectors with protocol objects no codec read", List.of(), uncovered);
        assertTrue("only " + objects + " objects round-tripped", objects >= 33);
    }

    /** A message with nothing but its envelope: bye, challenge, ping, welcome, a failed reply, a {} result. */
    private static boolean envelopeOnly(JsonNode msg) {
        String type = msg.path("type").asText();
        return ENVELOPES.contains(type)
                || "reply".equals(type) && (!msg.path("ok").asBoolean() || msg.path("result").isEmpty());
    }

    /** Whether some call's Result reads this reply result (one with no codec here, e.g. a flat object). */
    private static boolean readByACall(JsonNode result) {
        for (AgentCall<?, ?> call : CALLS.values()) {
            try {
                if (call.result(result) != null) {
                    return true;
                }
            } catch (RuntimeException e) {
                // not this call's result
            }
        }
        return false;
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
            AgentCall<?, ?> call = CALLS.get(msg.path("method").asText());
            if ("request".equals(msg.path("type").asText()) && call != null && about("request.params", why)) {
                try {
                    call.checkParams(msg.get("params"), "request.params");
                    fail(f.getName() + ": " + call.method() + " accepted " + msg.get("params"));
                } catch (ProtocolException e) {
                    assertEquals(f.getName(), why, e.getMessage());
                    refused++;
                }
            }
            for (Target t : targets(msg)) {
                if (!about(t.path, why)) {
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
    public void recordsOfTheVectorsObjectsRoundTrip() throws Exception {
        JsonNode hello = Json.parseLine(VectorTest.read(new File(VectorTest.vectors(), "valid/hello-ap-capacity.json"))
                .trim());
        AgentRecordCodec<ApCapabilities> agents = new AgentRecordCodec<>("node", ApCodecs.CAPABILITIES);
        AgentRecord<ApCapabilities> agent = new AgentRecord<>("ap-1", true, "10.0.0.2:40000", "onos-1",
                "wislice-ap-agent 0.2", ApCodecs.CAPABILITIES.read(hello.get("capabilities")), 1763762400.5);
        JsonNode json = agents.encode(agent);
        assertEquals(List.of("agent_id", "connected", "address", "node", "software", "radios", "security",
                             "pof_switch", "last_seen"), fieldNames(json));
        roundTrip(agents, json, "ap agent record");
        assertEquals(agent, agents.decode(json, "agent"));

        JsonNode reply = Json.parseLine(VectorTest.read(new File(VectorTest.vectors(), "valid/reply-ok-vnf.json"))
                .trim());
        PlacedCodec<VnfState> vnfs = new PlacedCodec<>("node", MecCodecs.VNF_STATE);
        JsonNode placed = vnfs.encode(new Placed<>("mec-1", MecCodecs.VNF_STATE.read(reply.at("/result/vnf"))));
        assertEquals("mec-1", placed.get("node").asText());
        roundTrip(vnfs, placed, "placed vNF");
        try {
            vnfs.decode(((ObjectNode) placed.deepCopy()).put("address", "x"), "vnf");
            fail("bad address accepted");
        } catch (ProtocolException e) {
            assertEquals("vnf.address: invalid value", e.getMessage());
        }
    }

    @Test
    public void placementFieldsAreTypedAndChecked() throws Exception {
        JsonNode reply = Json.parseLine(VectorTest.read(
                new File(VectorTest.vectors(), "valid/reply-ok-getVnfs-placed.json")).trim());
        JsonNode placed = reply.at("/result/vnfs/0");
        VnfState vnf = MecCodecs.VNF_STATE.decode(placed, "vnf");
        assertEquals(java.util.Optional.of("1"), vnf.cpus());
        assertEquals(java.util.Optional.of("exclusive"), vnf.cpuMode());
        VnfState kernel = MecCodecs.VNF_STATE.decode(reply.at("/result/vnfs/3"), "vnf");
        assertTrue("a kernel vNF has no placement", kernel.cpus().isEmpty() && kernel.cpuMode().isEmpty());
        assertTrue("placement is part of the value", !vnf.equals(MecCodecs.VNF_STATE.read(
                ((ObjectNode) placed.deepCopy()).put("cpu_mode", "shared"))));
        ObjectNode wide = ((ObjectNode) placed.deepCopy()).put("cpus", "0-3,5,7-8");
        assertEquals("0-3,5,7-8", MecCodecs.VNF_STATE.decode(wide, "vnf").cpus().get());
        Map<JsonNode, String> bad = Map.of(
                Json.object().put("cpu_mode", "pinned"), "vnf.cpu_mode: not one of ",
                Json.object().put("cpus", "1-"), "vnf.cpus: invalid value",
                Json.object().put("cpus", ""), "vnf.cpus: invalid value",
                Json.object().put("cpus", "a"), "vnf.cpus: invalid value",
                Json.object().put("cpus", 1), "vnf.cpus: string expected");
        for (Map.Entry<JsonNode, String> e : bad.entrySet()) {
            ObjectNode json = ((ObjectNode) placed.deepCopy()).setAll((ObjectNode) e.getKey());
            try {
                MecCodecs.VNF_STATE.decode(json, "vnf");
                fail("accepted " + e.getKey());
            } catch (ProtocolException err) {
                assertTrue(err.getMessage(), err.getMessage().startsWith(e.getValue()));
            }
        }
    }

    private static List<String> fieldNames(JsonNode json) {
        List<String> names = new ArrayList<>();
        json.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** Whether an error message is about the object at path. */
    private static boolean about(String path, String message) {
        return message.startsWith(path + ".") || message.startsWith(path + ":") || message.startsWith(path + "[");
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
