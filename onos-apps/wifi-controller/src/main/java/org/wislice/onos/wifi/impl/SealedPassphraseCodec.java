package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Base64;

/** A SealedPassphrase in the store: {"key_id": 8 hex, "iv": base64 (12 bytes), "ciphertext": base64}. */
public final class SealedPassphraseCodec extends AgentCodec<SealedPassphrase> {

    static final SealedPassphraseCodec INSTANCE = new SealedPassphraseCodec();

    private SealedPassphraseCodec() {
        super("SealedPassphrase");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        if (json == null || !json.isObject() || !json.path("key_id").isTextual()) {
            throw ProtocolException.badRequest(path + ": {key_id, iv, ciphertext} expected");
        }
        for (String field : new String[] {"iv", "ciphertext"}) {
            try {
                Base64.getDecoder().decode(json.path(field).asText(""));
            } catch (IllegalArgumentException e) {
                throw ProtocolException.badRequest(path + "." + field + ": base64 expected");
            }
        }
    }

    @Override
    public SealedPassphrase read(JsonNode j) {
        return new SealedPassphrase(text(j, "key_id"), Base64.getDecoder().decode(text(j, "iv")),
                                    Base64.getDecoder().decode(text(j, "ciphertext")));
    }

    @Override
    public ObjectNode encode(SealedPassphrase s) {
        return Json.object().put("key_id", s.keyId()).put("iv", Base64.getEncoder().encodeToString(s.iv()))
                .put("ciphertext", Base64.getEncoder().encodeToString(s.ciphertext()));
    }
}
