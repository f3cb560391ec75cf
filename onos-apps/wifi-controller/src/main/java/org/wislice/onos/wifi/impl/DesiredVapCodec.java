package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.ap.ApCodecs;

/**
 * A DesiredVap in the store: the VapSpec's JSON with "security": {"mode", "passphrase_sealed": SealedPassphrase}
 * instead of the passphrase.
 */
public final class DesiredVapCodec extends AgentCodec<DesiredVap> {

    static final DesiredVapCodec INSTANCE = new DesiredVapCodec();
    private static final String SEALED = "passphrase_sealed";

    private DesiredVapCodec() {
        super("DesiredVap");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        ObjectNode spec = json.deepCopy();
        ObjectNode security = (ObjectNode) spec.path("security");
        JsonNode sealed = security.remove(SEALED);
        if (sealed != null) {
            SealedPassphraseCodec.INSTANCE.check(sealed, path + ".security." + SEALED);
            security.put("passphrase", "sealed-passphrase");  // stands in for it in the VapSpec's own check
        }
        ApCodecs.VAP_SPEC.check(spec, path);
    }

    @Override
    public DesiredVap read(JsonNode j) {
        ObjectNode spec = j.deepCopy();
        JsonNode sealed = ((ObjectNode) spec.get("security")).remove(SEALED);
        return new DesiredVap(ApCodecs.VAP_SPEC.read(spec),
                              sealed == null ? null : SealedPassphraseCodec.INSTANCE.read(sealed));
    }

    @Override
    public ObjectNode encode(DesiredVap d) {
        ObjectNode j = ApCodecs.VAP_SPEC.encode(d.spec());
        if (d.passphrase() != null) {
            ((ObjectNode) j.get("security")).set(SEALED, SealedPassphraseCodec.INSTANCE.encode(d.passphrase()));
        }
        return j;
    }
}
