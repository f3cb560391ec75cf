package org.wislice.onos.wifi.impl;

import org.wislice.onos.agent.ControllerException;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Seals vAP passphrases for the store with AES-256-GCM under this runtime's store key, so the ONOS stores (and
 * whatever they persist or replicate) never hold one in clear; a passphrase is opened only to push it to its
 * agent. The key is one line of base64 (32 bytes) in a file that onos-apps/runtime/onos-runtime generates with
 * mode 0600 in the runtime's run directory (next to the generated ONOS password); a sealed value names the key it
 * was sealed with by a short fingerprint, so another key fails with a clear message instead of garbage.
 */
public final class PassphraseCipher {

    /** System property naming the key file; unset, the runtime's run directory (Karaf home's parent). */
    static final String KEY_FILE_PROPERTY = "wislice.storeKeyFile";
    static final String KEY_FILE_NAME = "store-key";
    private static final int KEY_BYTES = 32;
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;
    private final String keyId;

    /** A cipher for a 32-byte key. */
    public PassphraseCipher(byte[] keyBytes) {
        if (keyBytes.length != KEY_BYTES) {
            throw new IllegalArgumentException("a store key has " + KEY_BYTES + " bytes, not " + keyBytes.length);
        }
        key = new SecretKeySpec(keyBytes, "AES");
        keyId = fingerprint(keyBytes);
    }

    /** A fresh random key (unit tests). */
    static PassphraseCipher random() {
        byte[] k = new byte[KEY_BYTES];
        RANDOM.nextBytes(k);
        return new PassphraseCipher(k);
    }

    /** The key file this runtime uses: the system property, else store-key in the runtime's run directory. */
    static Path keyFile() {
        String configured = System.getProperty(KEY_FILE_PROPERTY, "");
        if (!configured.isEmpty()) {
            return Paths.get(configured);
        }
        return Paths.get(System.getProperty("karaf.home", ".")).toAbsolutePath().getParent().resolve(KEY_FILE_NAME);
    }

    /** Reads the key file; IllegalStateException naming the file when it is missing or not a key. */
    static PassphraseCipher fromFile(Path file) {
        String text;
        try {
            text = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            throw new IllegalStateException("no store key in " + file + " (" + e + "): onos-runtime generates it "
                    + "when the runtime is assembled; restore it from the backup if the runtime has stored vAPs");
        }
        try {
            return new PassphraseCipher(Base64.getDecoder().decode(text));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("store key file " + file + " is not 32 bytes of base64");
        }
    }

    /** The key's fingerprint as a sealed value names it (not secret: 8 hex digits of its SHA-256). */
    String keyId() {
        return keyId;
    }

    public SealedPassphrase seal(String passphrase) {
        byte[] iv = new byte[IV_BYTES];
        RANDOM.nextBytes(iv);
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, iv));
            return new SealedPassphrase(keyId, iv, c.doFinal(passphrase.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable", e);
        }
    }

    /**
     * The passphrase; ControllerException "internal" when this key cannot open it (sealed under another key, or
     * the record was altered), so a push fails with a reason instead of sending a wrong passphrase.
     */
    public String open(SealedPassphrase sealed) {
        if (!keyId.equals(sealed.keyId())) {
            throw new ControllerException("internal", "a stored passphrase was sealed with store key " + sealed.keyId()
                    + ", this runtime's key (" + keyFile() + ") is " + keyId + ": restore the runtime's store key");
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed.iv()));
            return new String(c.doFinal(sealed.ciphertext()), StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new ControllerException("internal", "a stored passphrase does not open with store key " + keyId
                    + ": the record was altered");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable", e);
        }
    }

    private static String fingerprint(byte[] keyBytes) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(keyBytes);
            StringBuilder hex = new StringBuilder();
            for (int i = 0; i < 4; i++) {
                hex.append(String.format("%02x", digest[i]));
            }
            return hex.toString();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
