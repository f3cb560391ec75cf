package org.wislice.onos.agent;

import org.junit.Test;

import static org.junit.Assert.assertEquals;

/** Hostile input at the JSON layer: duplicates, nesting, trailing garbage, non-objects. */
public class JsonTest {

    @Test
    public void duplicateKeysAreRefused() {
        Expect.protocolError(() -> Json.parseLine("{\"type\":\"ping\",\"type\":\"pong\",\"id\":1}"));
    }

    @Test
    public void deepNestingIsRefusedBeforeParsing() {
        String deep = "{\"a\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
        Expect.protocolError(() -> Json.parseLine(deep));
    }

    @Test
    public void bracketsInsideStringsDoNotCount() {
        assertEquals(1, Json.depth("{\"s\":\"[[[[\\\"[[[\"}"));
    }

    @Test
    public void trailingGarbageAndNonObjectsAreRefused() {
        Expect.protocolError(() -> Json.parseLine("{\"type\":\"ping\",\"id\":1} x"));
        Expect.protocolError(() -> Json.parseLine("[1,2]"));
        Expect.protocolError(() -> Json.parseLine("not json"));
    }

    @Test
    public void hmacMatchesTheProtocolDefinition() {
        // HMAC-SHA256(key="secret", "00112233445566778899aabbccddeeff|ap-1"), computed with Python's hmac module.
        String mac = Hmac.mac("secret", "00112233445566778899aabbccddeeff", "ap-1");
        assertEquals("708eeb10b82547dcdd974aaeb951fbcd9a55ff3fb1471f21358ad410d7bf278c", mac);
        assertEquals(true, Hmac.verify("secret", "00112233445566778899aabbccddeeff", "ap-1", mac));
        assertEquals(false, Hmac.verify("other", "00112233445566778899aabbccddeeff", "ap-1", mac));
    }
}
