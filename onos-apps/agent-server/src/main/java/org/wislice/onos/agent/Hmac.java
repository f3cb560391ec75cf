package org.wislice.onos.agent;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/** The hmac-sha256 scheme: mac = lowercase hex HMAC-SHA256(key = secret, message = nonce + "|" + agent_id). */
public final class Hmac {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Hmac() {
    }

    public static String mac(String secret, String nonce, String agentId) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return hex(mac.doFinal((nonce + "|" + agentId).getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** Constant-time comparison of the agent's mac with the expected one. */
    public static boolean verify(String secret, String nonce, String agentId, String agentMac) {
        byte[] expected = mac(secret, nonce, agentId).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, agentMac.getBytes(StandardCharsets.US_ASCII));
    }

    /** A fresh challenge nonce: 16 random bytes as 32 hex digits. */
    public static String nonce() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return hex(bytes);
    }

    static String hex(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }
}
