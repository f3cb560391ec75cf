package org.wislice.onos.wifi.impl;

import org.wislice.onos.agent.AgentValue;

import java.util.Base64;

/** A passphrase sealed by PassphraseCipher: the key's fingerprint, the GCM nonce and the ciphertext with its tag. */
public final class SealedPassphrase extends AgentValue {

    private final String keyId;
    private final byte[] iv;
    private final byte[] ciphertext;

    public SealedPassphrase(String keyId, byte[] iv, byte[] ciphertext) {
        this.keyId = keyId;
        this.iv = iv.clone();
        this.ciphertext = ciphertext.clone();
    }

    public String keyId() {
        return keyId;
    }

    public byte[] iv() {
        return iv.clone();
    }

    public byte[] ciphertext() {
        return ciphertext.clone();
    }

    @Override
    protected Object[] fields() {
        // Base64 text: arrays would compare by identity.
        return new Object[] {keyId, Base64.getEncoder().encodeToString(iv),
                             Base64.getEncoder().encodeToString(ciphertext)};
    }

    @Override
    public String toString() {
        return "SealedPassphrase[key " + keyId + ", " + ciphertext.length + " bytes]";
    }
}
