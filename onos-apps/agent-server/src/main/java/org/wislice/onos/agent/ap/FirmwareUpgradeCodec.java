package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * upgradeFirmware's params: {version, kind (sysupgrade|packages), url (http/https, at most 2048 characters),
 * sha256 (64 lowercase hex), signature (usign signature file text, 1-512 characters), timeout_s (30-86400)}.
 */
public final class FirmwareUpgradeCodec extends AgentCodec<FirmwareUpgrade> {

    public static final Set<String> KINDS = Set.of("sysupgrade", "packages");
    /** http or https, then printable ASCII without spaces (the schema's pattern). */
    static final Pattern URL = Pattern.compile("^https?://[!-~]+$");
    private static final Set<String> FIELDS = Set.of("version", "kind", "url", "sha256", "signature", "timeout_s");

    FirmwareUpgradeCodec() {
        super("upgradeFirmware params");
    }

    @Override
    public void check(JsonNode p, String at) throws ProtocolException {
        Fields.object(p, at, FIELDS, FIELDS);
        Fields.string(p, "version", at, Fields.FIRMWARE_VERSION);
        Fields.oneOf(p, "kind", at, KINDS);
        Fields.maxLength(p, "url", at, 2048);
        Fields.string(p, "url", at, URL);
        Fields.string(p, "sha256", at, Fields.HEX64);
        if (Fields.maxLength(p, "signature", at, 512).isEmpty()) {
            throw ProtocolException.badRequest(at + ".signature: empty");
        }
        Fields.integer(p, "timeout_s", at, 30, 86400);
    }

    @Override
    public FirmwareUpgrade read(JsonNode j) {
        return new FirmwareUpgrade(text(j, "version"), text(j, "kind"), text(j, "url"), text(j, "sha256"),
                                   text(j, "signature"), j.get("timeout_s").asInt());
    }

    @Override
    public ObjectNode encode(FirmwareUpgrade u) {
        return Json.object().put("version", u.version).put("kind", u.kind).put("url", u.url)
                .put("sha256", u.sha256).put("signature", u.signature).put("timeout_s", u.timeoutS);
    }
}
