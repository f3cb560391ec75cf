package org.wislice.onos.pof.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A client of a slice whose downlink goes down a branch (docs/mobility.md): its MAC, the branch, and the slot that
 * makes its client-table entry's flow id (1-32767, unique within the slice, kept while the client stays placed so
 * a move between branches is a MODIFY of the same entry). A client without a placement follows the main path.
 */
public final class SliceClient {
    public static final int MAX_SLOT = 0x7fff;
    private static final Pattern MAC = Pattern.compile("[0-9a-f]{2}(:[0-9a-f]{2}){5}");

    public final String mac;
    public final String branch;
    public final int slot;

    public SliceClient(String mac, String branch, int slot) {
        this.mac = mac;
        this.branch = branch;
        this.slot = slot;
    }

    /** The MAC in lower case with colons; 400 unless it is a station's (unicast) address. */
    public static String mac(String raw) {
        String mac = raw == null ? "" : raw.toLowerCase(Locale.ROOT).replace('-', ':');
        if (!MAC.matcher(mac).matches()) {
            throw SliceException.badRequest("'" + raw + "' is not a MAC address like 02:00:00:00:01:02");
        }
        if ((Integer.parseInt(mac.substring(0, 2), 16) & 1) != 0) {
            throw SliceException.badRequest(mac + " is a group address, not a station's");
        }
        return mac;
    }

    /** The 6 bytes of the MAC. */
    public byte[] macBytes() {
        byte[] b = new byte[6];
        for (int i = 0; i < 6; i++) {
            b[i] = (byte) Integer.parseInt(mac.substring(3 * i, 3 * i + 2), 16);
        }
        return b;
    }

    public ObjectNode toJson(ObjectMapper mapper) {
        return mapper.createObjectNode().put("mac", mac).put("branch", branch).put("slot", slot);
    }

    /** A stored placement (written by the controller, so not validated beyond its shape). */
    static SliceClient fromJson(JsonNode n) {
        return new SliceClient(n.path("mac").asText(), n.path("branch").asText(), n.path("slot").asInt());
    }
}
