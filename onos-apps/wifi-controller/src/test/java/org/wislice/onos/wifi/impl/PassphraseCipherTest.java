package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.ap.VapSpec;
import org.wislice.onos.agent.ap.VapUpdate;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** Passphrases at rest: what the WiFi store writes holds none in clear, and only this runtime's key opens it. */
public class PassphraseCipherTest {

    private static final String PASSPHRASE = "correct horse battery";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static VapSpec spec(String mode, String passphrase) throws Exception {
        return spec(mode, passphrase, false);
    }

    private static VapSpec spec(String mode, String passphrase, boolean fastTransition) throws Exception {
        ObjectNode j = Json.object().put("vap_id", "t1-cafe").put("radio", "phy0").put("ssid", "Cafe")
                .put("tenant_id", 1).put("slice_id", "s-1");
        ObjectNode security = j.putObject("security").put("mode", mode);
        if (passphrase != null) {
            security.put("passphrase", passphrase);
        }
        if (fastTransition) {
            security.put("fast_transition", true);
        }
        j.putObject("rate_limit").put("down_kbps", 5000).put("up_kbps", 2000);
        return ApCodecs.VAP_SPEC.decode(j, "vap");
    }

    /** The record exactly as DistributedWifiStore puts it into its ConsistentMap. */
    private static String stored(DesiredVap vap) {
        return Json.write(DesiredVapCodec.INSTANCE.encode(vap));
    }

    @Test
    public void theStoredFormHoldsNoPassphraseBytes() throws Exception {
        PassphraseCipher cipher = PassphraseCipher.random();
        String record = stored(DesiredVap.seal(spec("wpa2-psk", PASSPHRASE), cipher));
        assertTrue(record, record.contains("\"passphrase_sealed\"") && record.contains("\"ssid\":\"Cafe\""));
        assertFalse(record, record.contains("\"passphrase\""));
        for (String fragment : new String[] {PASSPHRASE, "correct", "battery",
                                             Base64.getEncoder().encodeToString(PASSPHRASE.getBytes())}) {
            assertFalse(fragment + " in " + record, record.contains(fragment));
        }
        // Two seals of one passphrase differ (a fresh nonce each): equal passphrases do not show as equal.
        assertNotEquals(record, stored(DesiredVap.seal(spec("wpa2-psk", PASSPHRASE), cipher)));
    }

    @Test
    public void roundTripThroughTheStoredForm() throws Exception {
        PassphraseCipher cipher = PassphraseCipher.random();
        for (VapSpec spec : new VapSpec[] {spec("wpa2-psk", PASSPHRASE), spec("wpa3-sae", "Tr0ub4dor&3 ~!@#"),
                                           spec("open", null), spec("wpa2-psk", PASSPHRASE, true)}) {
            String record = stored(DesiredVap.seal(spec, cipher));
            DesiredVapCodec.INSTANCE.check(Json.parseLine(record), "desired");
            DesiredVap back = DesiredVapCodec.INSTANCE.read(Json.parseLine(record));
            assertEquals(spec, back.open(cipher));
            assertNull("the stored spec has no passphrase", back.spec().security().passphrase());
            assertEquals("fast transition kept", spec.security().fastTransition(),
                         back.open(cipher).security().fastTransition());
        }
        DesiredVap changed = DesiredVapCodec.INSTANCE.read(Json.parseLine(
                stored(DesiredVap.seal(spec("wpa2-psk", PASSPHRASE), cipher))))
                .with(VapUpdate.rates("v1", spec("open", null).rateLimit()));
        assertEquals(PASSPHRASE, changed.open(cipher).security().passphrase());
    }

    @Test
    public void anotherKeyFailsClearly() throws Exception {
        DesiredVap sealed = DesiredVap.seal(spec("wpa2-psk", PASSPHRASE), PassphraseCipher.random());
        PassphraseCipher other = PassphraseCipher.random();
        try {
            sealed.open(other);
            fail("opened with another key");
        } catch (ControllerException e) {
            assertEquals("internal", e.code());
            assertTrue(e.getMessage(), e.getMessage().contains("sealed with store key " + sealed.passphrase().keyId())
                    && e.getMessage().contains(other.keyId()));
        }
    }

    @Test
    public void anAlteredRecordFailsClearly() throws Exception {
        PassphraseCipher cipher = PassphraseCipher.random();
        ObjectNode record = DesiredVapCodec.INSTANCE.encode(DesiredVap.seal(spec("wpa2-psk", PASSPHRASE), cipher));
        ObjectNode sealed = (ObjectNode) record.at("/security/passphrase_sealed");
        byte[] ct = Base64.getDecoder().decode(sealed.get("ciphertext").asText());
        ct[0] ^= 1;
        sealed.put("ciphertext", Base64.getEncoder().encodeToString(ct));
        try {
            DesiredVapCodec.INSTANCE.read(record).open(cipher);
            fail("an altered ciphertext opened");
        } catch (ControllerException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("altered"));
        }
    }

    @Test
    public void theKeyFileIsReadAndItsProblemsNamed() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("store-key");
        byte[] key = new byte[32];
        key[5] = 7;
        Files.write(file, (Base64.getEncoder().encodeToString(key) + "\n").getBytes(StandardCharsets.US_ASCII));
        PassphraseCipher cipher = PassphraseCipher.fromFile(file);
        assertEquals(new PassphraseCipher(key).keyId(), cipher.keyId());
        assertEquals(PASSPHRASE, new PassphraseCipher(key).open(cipher.seal(PASSPHRASE)));

        Files.write(file, "not a key\n".getBytes(StandardCharsets.US_ASCII));
        expectIllegalState(file, "not 32 bytes of base64");
        expectIllegalState(tmp.getRoot().toPath().resolve("missing"), "no store key in");
    }

    private static void expectIllegalState(Path file, String message) {
        try {
            PassphraseCipher.fromFile(file);
            fail("read " + file);
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(message) && e.getMessage().contains(file.toString()));
        }
    }
}
