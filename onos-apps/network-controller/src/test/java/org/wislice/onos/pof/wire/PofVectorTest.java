package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Test;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The shared POF contract: every hex vector in spec/pof/vectors decodes to its JSON message and its JSON
 * message encodes to exactly its hex; every vector in invalid/ is rejected with its ERROR type/code.
 */
public class PofVectorTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Numbers compare by value (an int 2 in the vector equals a long 2 from the codec). */
    private static final Comparator<JsonNode> BY_VALUE = (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
            return a.bigIntegerValue().compareTo(b.bigIntegerValue());
        }
        return a.equals(b) ? 0 : 1;
    };

    static File vectorDir() {
        File dir = new File(System.getProperty("pof.vectors", "../../spec/pof/vectors"));
        assertTrue("spec/pof/vectors not found at " + dir.getAbsolutePath(), dir.isDirectory());
        return dir;
    }

    static List<File> jsonFiles(File dir) {
        File[] files = dir.listFiles((d, name) -> name.endsWith(".json"));
        List<File> out = new ArrayList<>(Arrays.asList(files == null ? new File[0] : files));
        out.sort(Comparator.comparing(File::getName));
        return out;
    }

    @Test
    public void validVectorsDecodeAndEncode() throws IOException {
        List<File> files = jsonFiles(vectorDir());
        assertTrue("no vectors", files.size() >= 20);
        List<String> failures = new ArrayList<>();
        for (File f : files) {
            JsonNode vector = JSON.readTree(f);
            byte[] wire = Hex.decode(vector.get("hex").asText());
            JsonNode expected = vector.get("message");
            try {
                JsonNode decoded = PofJson.toJson(PofCodec.decode(wire));
                if (!normalized(decoded).equals(BY_VALUE, normalized(expected))) {
                    failures.add(f.getName() + ": decoded " + decoded + "\n   expected " + expected);
                }
                byte[] encoded = PofCodec.encode(PofJson.fromJson(expected));
                if (!Arrays.equals(encoded, wire)) {
                    failures.add(f.getName() + ": encoded " + Hex.encode(encoded));
                }
            } catch (RuntimeException e) {
                failures.add(f.getName() + ": " + e);
            }
        }
        assertEquals(String.join("\n", failures), 0, failures.size());
    }

    /**
     * A METER_MOD's committed_rate 0 and flags 0 are the reference's pad bytes: "committed_rate": 0 and no
     * committed_rate are the same message, and so are "flags": 0 and no flags (the codec leaves them out).
     */
    private static JsonNode normalized(JsonNode message) {
        JsonNode body = message.get("body");
        if (!"METER_MOD".equals(message.path("type").asText()) || body == null || !body.isObject()) {
            return message;
        }
        ObjectNode copy = message.deepCopy();
        for (String padField : List.of("committed_rate", "flags")) {
            if (body.has(padField) && body.get(padField).asLong() == 0) {
                ((ObjectNode) copy.get("body")).remove(padField);
            }
        }
        return copy;
    }

    @Test
    public void latencyMeterModPutsItsFlagInPadByteOne() throws IOException {
        JsonNode vector = JSON.readTree(new File(vectorDir(), "meter_mod_latency.json"));
        byte[] wire = Hex.decode(vector.get("hex").asText());
        assertEquals(PofBody.MeterMod.LATENCY, wire[8 + 1]);
        PofBody.MeterMod back = PofCodec.decode(wire).body(PofBody.MeterMod.class);
        assertEquals(PofBody.MeterMod.LATENCY, back.flags);
        assertEquals(2_000, back.rate);
        back.check();
        PofBody.MeterMod mod = new PofBody.MeterMod(PofBody.MeterMod.ADD, 3, 20_000);
        assertFalse("no flags in JSON for a meter of no class",
                PofJson.toJson(new PofMessage(PofType.METER_MOD, 1, mod)).get("body").has("flags"));
        assertEquals(0, PofCodec.encode(new PofMessage(PofType.METER_MOD, 1, mod))[8 + 1]);
        mod.flags = PofBody.MeterMod.LATENCY;
        assertEquals(1, PofJson.toJson(new PofMessage(PofType.METER_MOD, 1, mod)).at("/body/flags").asInt());
    }

    @Test
    public void twoRateMeterModPutsTheCommittedRateInThePadBytes() {
        PofBody.MeterMod mod = new PofBody.MeterMod(PofBody.MeterMod.ADD, 3, 20_000, 5_000);
        byte[] wire = PofCodec.encode(new PofMessage(PofType.METER_MOD, 16, mod));
        assertEquals("041e001800000010" + "00000000" + "00000003" + "00004e20" + "00001388", Hex.encode(wire));
        PofBody.MeterMod back = PofCodec.decode(wire).body(PofBody.MeterMod.class);
        assertEquals(20_000, back.rate);
        assertEquals(5_000, back.committedRate);
        assertEquals(5_000, PofJson.toJson(PofCodec.decode(wire)).at("/body/committed_rate").asLong());
        assertFalse("single-rate JSON has no committed_rate", PofJson.toJson(new PofMessage(PofType.METER_MOD, 1,
                new PofBody.MeterMod(PofBody.MeterMod.ADD, 3, 20_000))).get("body").has("committed_rate"));
    }

    /**
     * refused/: well-formed messages a switch must refuse (e.g. a committed_rate above the rate): the codec
     * carries them both ways, and the message's own check names the ERROR type/code.
     */
    @Test
    public void refusedVectorsAreWellFormedButRefused() throws IOException {
        File dir = new File(vectorDir(), "refused");
        List<String> failures = new ArrayList<>();
        for (File f : dir.isDirectory() ? jsonFiles(dir) : List.<File>of()) {
            JsonNode vector = JSON.readTree(f);
            byte[] wire = Hex.decode(vector.get("hex").asText());
            PofMessage msg = PofCodec.decode(wire);
            if (!normalized(PofJson.toJson(msg)).equals(BY_VALUE, normalized(vector.get("message")))) {
                failures.add(f.getName() + ": decoded " + PofJson.toJson(msg));
            }
            if (!Arrays.equals(PofCodec.encode(PofJson.fromJson(vector.get("message"))), wire)) {
                failures.add(f.getName() + ": encodes to other bytes");
            }
            if (!(msg.body() instanceof PofBody.MeterMod) && !(msg.body() instanceof PofBody.QueryAll)) {
                failures.add(f.getName() + ": no refusal check for " + msg.type());
                continue;
            }
            try {
                if (msg.body() instanceof PofBody.MeterMod) {
                    ((PofBody.MeterMod) msg.body()).check();
                } else {
                    ((PofBody.QueryAll) msg.body()).check();
                }
                failures.add(f.getName() + ": not refused");
            } catch (PofCodecException e) {
                if (e.errorType() != vector.at("/error/type").asInt()
                        || e.errorCode() != vector.at("/error/code").asInt()) {
                    failures.add(f.getName() + ": refused with " + e.errorType() + "/" + e.errorCode());
                }
            }
        }
        assertEquals(String.join("\n", failures), 0, failures.size());
        PofBody.MeterMod over = new PofBody.MeterMod(PofBody.MeterMod.ADD, 3, 1_000, 5_000);
        try {
            over.check();
            fail("committed_rate above rate passed its check");
        } catch (PofCodecException e) {
            assertEquals(12, e.errorType());
            assertEquals(6, e.errorCode());
        }
        new PofBody.MeterMod(PofBody.MeterMod.DELETE, 3, 0, 0).check();
    }

    @Test
    public void invalidVectorsAreRejectedWithTheirError() throws IOException {
        List<File> files = jsonFiles(new File(vectorDir(), "invalid"));
        assertTrue("no invalid vectors", files.size() >= 4);
        for (File f : files) {
            JsonNode vector = JSON.readTree(f);
            byte[] wire = Hex.decode(vector.get("hex").asText());
            try {
                PofCodec.decode(wire);
                fail(f.getName() + " decoded but should be rejected");
            } catch (PofCodecException e) {
                assertEquals(f.getName() + " error type", vector.at("/error/type").asInt(), e.errorType());
                assertEquals(f.getName() + " error code", vector.at("/error/code").asInt(), e.errorCode());
            }
        }
    }

    /**
     * QUERYALL_REQUEST goes out with the reference's 8-byte body (slot_id 0xFFFF: every slot); the bare header
     * earlier controllers sent (liberal/) still decodes, as every slot; slots 0 and every slot pass the check.
     */
    @Test
    public void queryAllHasTheReferenceBody() throws IOException {
        byte[] wire = PofCodec.encode(new PofMessage(PofType.QUERYALL_REQUEST, 19,
                new PofBody.QueryAll(PofBody.QueryAll.ALL_SLOTS)));
        JsonNode vector = JSON.readTree(new File(vectorDir(), "queryall_request.json"));
        assertEquals(vector.get("hex").asText(), Hex.encode(wire));
        JsonNode empty = JSON.readTree(new File(new File(vectorDir(), "liberal"), "queryall_request_empty.json"));
        PofMessage bare = PofCodec.decode(Hex.decode(empty.get("hex").asText()));
        assertEquals(PofBody.QueryAll.ALL_SLOTS, bare.body(PofBody.QueryAll.class).slotId);
        assertEquals(8 + PofBody.QueryAll.SIZE, PofCodec.encode(bare).length);
        new PofBody.QueryAll(0).check();
        bare.body(PofBody.QueryAll.class).check();
    }

    @Test
    public void referenceHelloIsEightBytes() {
        byte[] hello = PofCodec.encode(new PofMessage(PofType.HELLO, 0, new PofBody.Empty()));
        assertArrayEquals(Hex.decode("0400000800000000"), hello);
    }
}
