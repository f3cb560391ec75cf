package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Reads REST request bodies with the protocol's own limits: at most 1 MiB, one strict JSON object. */
public final class RestBodies {

    private RestBodies() {
    }

    public static ObjectNode read(InputStream in) {
        try {
            byte[] body = in.readNBytes(AgentServer.MAX_LINE + 1);
            if (body.length > AgentServer.MAX_LINE) {
                throw new ControllerException("bad_request", "request body over 1 MiB");
            }
            return Json.parseLine(new String(body, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ControllerException("bad_request", "cannot read the request body");
        } catch (ProtocolException e) {
            throw new ControllerException("bad_request", e.getMessage());
        }
    }

    /** Rejects path parameters outside the protocol's identifier alphabet. */
    public static String ident(String value, String what) {
        if (value == null || !Fields.IDENT.matcher(value).matches()) {
            throw new ControllerException("bad_request", what + " must match ^[A-Za-z0-9_.:-]{1,64}$");
        }
        return value;
    }

    public static String mac(String value) {
        if (value == null || !Fields.MAC.matcher(value).matches()) {
            throw new ControllerException("bad_request", "mac must be lowercase aa:bb:cc:dd:ee:ff");
        }
        return value;
    }

    /** A copy of a stored record without the controller's internal fields. */
    public static ObjectNode publicView(ObjectNode record) {
        ObjectNode copy = record.deepCopy();
        copy.remove("updated_ts");
        return copy;
    }
}
