package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** Runs spec/agent/vectors against the Java validator: every valid vector accepted, every invalid one rejected. */
public class VectorTest {

    static File vectors() {
        File dir = new File(System.getProperty("wislice.vectors.dir", "../../spec/agent/vectors"));
        assertTrue("vector directory missing: " + dir, dir.isDirectory());
        return dir;
    }

    /** The vectors of a kind (valid, invalid), sorted by name. */
    static List<File> files(String kind) {
        File[] found = new File(vectors(), kind).listFiles((d, n) -> n.endsWith(".json"));
        assertTrue("no " + kind + " vectors", found != null && found.length > 0);
        Arrays.sort(found);
        return Arrays.asList(found);
    }

    static String read(File f) throws IOException {
        return new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
    }

    @Test
    public void validVectorsAreAccepted() throws IOException {
        List<String> failures = new ArrayList<>();
        for (File f : files("valid")) {
            try {
                JsonNode msg = Json.parseLine(read(f).trim());
                MessageValidator.validate(msg);
            } catch (ProtocolException e) {
                failures.add(f.getName() + ": " + e.getMessage());
            }
        }
        if (!failures.isEmpty()) {
            fail("valid vectors rejected:\n" + String.join("\n", failures));
        }
    }

    @Test
    public void invalidVectorsAreRejected() throws IOException, ProtocolException {
        List<String> failures = new ArrayList<>();
        for (File f : files("invalid")) {
            JsonNode vector = Json.parseLine(read(f).trim());
            // On the wire each message is one line: serialize it back as the agent would send it.
            String line = Json.write(vector.get("message"));
            try {
                MessageValidator.validate(Json.parseLine(line));
                failures.add(f.getName() + " (" + vector.get("why").asText() + ")");
            } catch (ProtocolException expected) {
                // rejected, as it must be
            }
        }
        if (!failures.isEmpty()) {
            fail("invalid vectors accepted:\n" + String.join("\n", failures));
        }
    }
}
