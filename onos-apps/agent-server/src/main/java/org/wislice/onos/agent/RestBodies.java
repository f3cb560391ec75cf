package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * REST bodies of the apps: requests read with the protocol's own limits (at most 1 MiB, one strict JSON object),
 * answers written as JSON.
 */
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

    /** A request body's protocol object as a value: bad_request naming the field when it is not valid. */
    public static <T> T decode(AgentCodec<T> codec, JsonNode json, String path) {
        try {
            return codec.decode(json, path);
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

    /** An answer with a JSON body. */
    public static Response json(Response.Status status, ObjectNode body) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(Json.write(body)).build();
    }

    /** {key: [record, ...]} with each record's public view. */
    public static ObjectNode list(String key, List<ObjectNode> records) {
        ObjectNode root = Json.object();
        ArrayNode array = root.putArray(key);
        records.forEach(r -> array.add(publicView(r)));
        return root;
    }

    /** A copy of a stored record without the controller's internal fields. */
    public static ObjectNode publicView(ObjectNode record) {
        ObjectNode copy = record.deepCopy();
        copy.remove("updated_ts");
        return copy;
    }
}
