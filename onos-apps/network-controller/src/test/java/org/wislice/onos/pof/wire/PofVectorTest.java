package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.Test;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
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
                if (!decoded.equals(BY_VALUE, expected)) {
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

    @Test
    public void referenceHelloIsEightBytes() {
        byte[] hello = PofCodec.encode(new PofMessage(PofType.HELLO, 0, new PofBody.Empty()));
        assertArrayEquals(Hex.decode("0400000800000000"), hello);
    }
}
