package org.wislice.onos.pof.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceService;
import org.onosproject.rest.AbstractWebResource;
import org.wislice.onos.pof.api.LatencyClass;
import org.wislice.onos.pof.api.PofController;
import org.wislice.onos.pof.api.PofFlowService;
import org.wislice.onos.pof.api.PofMeterCapabilityService;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.pof.api.PofSwitchView;
import org.wislice.onos.pof.api.SliceClient;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;

import javax.ws.rs.Consumes;
import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.PUT;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;

/**
 * POF switches and slice paths (controller REST contract, /onos/pof). Errors are {"code", "message"} with the
 * contract's status codes; a bad body loses nothing because nothing is installed before it validates.
 */
@Path("")
public class PofWebResource extends AbstractWebResource {

    /**
     * Lists the POF switches with their ports and whether they enforce meter rates.
     *
     * @return 200 {"switches": [...]}
     */
    @GET
    @Path("switches")
    @Produces(MediaType.APPLICATION_JSON)
    public Response switches() {
        ObjectNode root = mapper().createObjectNode();
        root.set("switches", PofSwitchView.switches(mapper(), get(PofController.class), get(DeviceService.class),
                get(PofMeterCapabilityService.class)));
        return Response.ok(root).build();
    }

    /**
     * Lists the installed slice paths.
     *
     * @return 200 {"slices": [SlicePath]}
     */
    @GET
    @Path("slices")
    @Produces(MediaType.APPLICATION_JSON)
    public Response slices() {
        ObjectNode root = mapper().createObjectNode();
        ArrayNode arr = root.putArray("slices");
        get(PofSliceService.class).slices().forEach(s -> arr.add(s.toJson(mapper())));
        return Response.ok(root).build();
    }

    /**
     * Installs a slice path: meters and flows on every hop.
     *
     * @param body SlicePath JSON
     * @return 201 the installed SlicePath (with its tag, meters and unenforced_devices); 409
     *     meters_not_enforced when its rates would be metered on a switch that does not enforce them and the
     *     body did not give "require_enforcement": false
     */
    @POST
    @Path("slices")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response addSlice(InputStream body) {
        try {
            JsonNode json = readJson(body);
            SlicePath installed = get(PofSliceService.class).addSlice(SlicePath.fromJson(json));
            return Response.status(Response.Status.CREATED).entity(installed.toJson(mapper())).build();
        } catch (SliceException e) {
            return error(e);
        }
    }

    /**
     * Removes a slice path's flows and meters.
     *
     * @param sliceId slice id
     * @return 204, or 404 when there is no such slice
     */
    @DELETE
    @Path("slices/{sliceId}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response removeSlice(@PathParam("sliceId") String sliceId) {
        try {
            get(PofSliceService.class).removeSlice(sliceId);
            return Response.noContent().build();
        } catch (SliceException e) {
            return error(e);
        }
    }

    /**
     * Changes a live slice's rates and/or latency class without interrupting it (new meters, flows re-pointed,
     * old meters removed).
     *
     * @param sliceId slice id
     * @param body {"down"?: {guaranteed_kbps, cap_kbps}, "up"?: {...}, "latency_class"?}; what is not given stays
     * @return 200 the updated SlicePath, 404 when there is no such slice
     */
    @PUT
    @Path("slices/{sliceId}/rates")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response updateRates(@PathParam("sliceId") String sliceId, InputStream body) {
        try {
            JsonNode json = readJson(body);
            if (!json.isObject() || json.size() == 0) {
                throw SliceException.badRequest("body must be {\"down\"?: {guaranteed_kbps, cap_kbps}, "
                        + "\"up\"?: {...}, \"latency_class\"?} with at least one of them");
            }
            for (Iterator<String> it = json.fieldNames(); it.hasNext();) {
                String key = it.next();
                if (!"down".equals(key) && !"up".equals(key) && !"latency_class".equals(key)) {
                    throw SliceException.badRequest("unknown field '" + key + "' (rates take down, up and "
                            + "latency_class)");
                }
            }
            SliceRates down = json.has("down") ? SliceRates.fromJson(json.get("down"), "down") : null;
            SliceRates up = json.has("up") ? SliceRates.fromJson(json.get("up"), "up") : null;
            LatencyClass cls = json.has("latency_class") ? LatencyClass.fromJson(json.get("latency_class")) : null;
            SlicePath updated = get(PofSliceService.class).updatePath(sliceId, down, up, cls);
            return Response.ok(updated.toJson(mapper())).build();
        } catch (SliceException e) {
            return error(e);
        }
    }

    /**
     * Puts a client's downlink on a branch of its slice (or back on "main"), confirmed by the join switch.
     *
     * @param sliceId slice id
     * @param mac the client's MAC, e.g. 02:00:00:00:01:02
     * @param body {"branch": branch_id or "main"}
     * @return 200 {"slice_id", "mac", "branch", "switched_ms"}; 400 bad MAC or unknown branch, 404 no such slice
     */
    @PUT
    @Path("slices/{sliceId}/clients/{mac}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response placeClient(@PathParam("sliceId") String sliceId, @PathParam("mac") String mac,
                                InputStream body) {
        try {
            JsonNode json = readJson(body);
            if (!json.isObject() || json.size() != 1 || !json.path("branch").isTextual()) {
                throw SliceException.badRequest("body must be {\"branch\": \"<branch_id>\" or \"main\"}");
            }
            String branch = json.get("branch").asText();
            long ms = get(PofSliceService.class).placeClient(sliceId, mac, branch);
            return Response.ok(mapper().createObjectNode().put("slice_id", sliceId).put("mac",
                    SliceClient.mac(mac)).put("branch", branch).put("switched_ms", ms)).build();
        } catch (SliceException e) {
            return error(e);
        }
    }

    /**
     * Puts a placed client back on the slice's main path (its client-table entry removed).
     *
     * @param sliceId slice id
     * @param mac the client's MAC
     * @return 204; 404 when the slice does not exist or the client is not placed on a branch
     */
    @DELETE
    @Path("slices/{sliceId}/clients/{mac}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response removeClient(@PathParam("sliceId") String sliceId, @PathParam("mac") String mac) {
        try {
            get(PofSliceService.class).removeClient(sliceId, mac);
            return Response.noContent().build();
        } catch (SliceException e) {
            return error(e);
        }
    }

    /**
     * Lists the clients placed on the slice's branches (the others follow the main path).
     *
     * @param sliceId slice id
     * @return 200 {"slice_id", "clients": [{"mac", "branch", "slot"}]}, 404 when there is no such slice
     */
    @GET
    @Path("slices/{sliceId}/clients")
    @Produces(MediaType.APPLICATION_JSON)
    public Response clients(@PathParam("sliceId") String sliceId) {
        try {
            ObjectNode root = mapper().createObjectNode().put("slice_id", sliceId);
            ArrayNode arr = root.putArray("clients");
            get(PofSliceService.class).clients(sliceId).forEach(c -> arr.add(c.toJson(mapper())));
            return Response.ok(root).build();
        } catch (SliceException e) {
            return error(e);
        }
    }

    /**
     * Installs raw POF flow entries on one switch through ONOS and waits until the switch confirmed them.
     *
     * @param body {"device_id", "flows": [{"table_id", "priority", "matches", "instructions"}]}
     * @return 201 {"device_id", "flow_ids": [...]}
     */
    @POST
    @Path("flows")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response addFlows(InputStream body) {
        try {
            JsonNode json = readJson(body);
            DeviceId deviceId = deviceId(json.path("device_id").asText());
            ObjectNode out = mapper().createObjectNode().put("device_id", deviceId.toString());
            ArrayNode ids = out.putArray("flow_ids");
            get(PofFlowService.class).addFlows(deviceId, json.get("flows")).forEach(id -> ids.add(id.value()));
            return Response.status(Response.Status.CREATED).entity(out).build();
        } catch (SliceException e) {
            return error(e);
        }
    }

    /**
     * Removes every raw POF flow entry installed through /onos/pof/flows on a switch.
     *
     * @param deviceId device id, e.g. pof:00000001
     * @return 200 {"removed": n}
     */
    @DELETE
    @Path("flows/{deviceId}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response removeFlows(@PathParam("deviceId") String deviceId) {
        try {
            int n = get(PofFlowService.class).removeFlows(deviceId(deviceId));
            return Response.ok(mapper().createObjectNode().put("removed", n)).build();
        } catch (SliceException e) {
            return error(e);
        }
    }

    private JsonNode readJson(InputStream body) {
        try {
            JsonNode json = mapper().readTree(body);
            if (json == null || json.isMissingNode()) {
                throw SliceException.badRequest("empty body");
            }
            return json;
        } catch (IOException e) {
            throw SliceException.badRequest("body is not JSON: " + e.getMessage());
        }
    }

    private static DeviceId deviceId(String id) {
        if (id == null || !id.matches("pof:[0-9a-f]{8}")) {
            throw SliceException.badRequest("device_id must be a POF device id like pof:00000001");
        }
        return DeviceId.deviceId(id);
    }

    private Response error(SliceException e) {
        ObjectNode err = mapper().createObjectNode().put("code", e.code()).put("message", e.getMessage());
        return Response.status(e.status()).entity(err).type(MediaType.APPLICATION_JSON).build();
    }
}
