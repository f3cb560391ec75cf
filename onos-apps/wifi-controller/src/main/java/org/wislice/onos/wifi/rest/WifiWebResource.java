package org.wislice.onos.wifi.rest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.rest.AbstractWebResource;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.RestBodies;
import org.wislice.onos.wifi.api.WifiService;

import javax.ws.rs.Consumes;
import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.PATCH;
import javax.ws.rs.POST;
import javax.ws.rs.PUT;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.InputStream;
import java.util.Set;

import static org.wislice.onos.agent.RestBodies.ident;
import static org.wislice.onos.agent.RestBodies.json;
import static org.wislice.onos.agent.RestBodies.list;
import static org.wislice.onos.agent.RestBodies.publicView;

/** /onos/wifi: ap-agents, their radios, vAPs and clients (spec/onos-rest/README.md). */
@Path("")
public class WifiWebResource extends AbstractWebResource {

    /** All agents. */
    @GET
    @Path("agents")
    @Produces(MediaType.APPLICATION_JSON)
    public Response agents() {
        return json(Response.Status.OK, list("agents", get(WifiService.class).agents()));
    }

    /** One agent. */
    @GET
    @Path("agents/{agentId}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response agent(@PathParam("agentId") String agentId) {
        ObjectNode agent = get(WifiService.class).agent(ident(agentId, "agent_id"))
                .orElseThrow(() -> new ControllerException("not_found", "no ap-agent " + agentId));
        return json(Response.Status.OK, publicView(agent));
    }

    /** All agents as APs: their records with firmware_version and their last firmware upgrade (issue 18). */
    @GET
    @Path("aps")
    @Produces(MediaType.APPLICATION_JSON)
    public Response aps() {
        return json(Response.Status.OK, list("aps", get(WifiService.class).aps()));
    }

    /** One AP. */
    @GET
    @Path("aps/{agentId}")
    @Produces(MediaType.APPLICATION_JSON)
    public Response ap(@PathParam("agentId") String agentId) {
        ObjectNode ap = get(WifiService.class).ap(ident(agentId, "agent_id"))
                .orElseThrow(() -> new ControllerException("not_found", "no ap-agent " + agentId));
        return json(Response.Status.OK, publicView(ap));
    }

    /**
     * Asks an AP to upgrade (operator): body {version, kind, url, sha256, signature, timeout_s}; 202
     * {"state": "requested"} once its agent accepted; 404, 409 (one in progress), 503 (not connected), 400.
     */
    @POST
    @Path("aps/{agentId}/firmware")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response upgradeFirmware(@PathParam("agentId") String agentId, InputStream body) {
        ObjectNode req = RestBodies.read(body);
        return json(Response.Status.ACCEPTED,
                    get(WifiService.class).upgradeFirmware(ident(agentId, "agent_id"), req));
    }

    /** vAP states, optionally of one agent. */
    @GET
    @Path("vaps")
    @Produces(MediaType.APPLICATION_JSON)
    public Response vaps(@QueryParam("agent") String agentId) {
        String agent = agentId == null ? null : ident(agentId, "agent");
        return json(Response.Status.OK, list("vaps", get(WifiService.class).vaps(agent)));
    }

    /** Creates a vAP from a VapSpec; 201 once the agent has it up. */
    @POST
    @Path("agents/{agentId}/vaps")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response createVap(@PathParam("agentId") String agentId, InputStream body) {
        ObjectNode spec = RestBodies.read(body);
        ObjectNode vap = get(WifiService.class).createVap(ident(agentId, "agent_id"), spec);
        return vapReply(Response.Status.CREATED, vap);
    }

    /** Removes a vAP. */
    @DELETE
    @Path("agents/{agentId}/vaps/{vapId}")
    public Response removeVap(@PathParam("agentId") String agentId, @PathParam("vapId") String vapId) {
        get(WifiService.class).removeVap(ident(agentId, "agent_id"), ident(vapId, "vap_id"));
        return Response.noContent().build();
    }

    /** Changes a vAP's rate_limit (body: a rate_limit object); 200 {"vap": VapState} once the agent applied it. */
    @PUT
    @Path("vaps/{vapId}/rate_limit")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response updateRateLimit(@PathParam("vapId") String vapId, InputStream body) {
        ObjectNode rateLimit = RestBodies.read(body);
        ObjectNode vap = get(WifiService.class).updateRateLimit(ident(vapId, "vap_id"), rateLimit);
        return vapReply(Response.Status.OK, vap);
    }

    /** Changes a running vAP in place: body {rate_limit?, wmm_ac?, probe?} (a null probe stops it). */
    @PATCH
    @Path("vaps/{vapId}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response updateVap(@PathParam("vapId") String vapId, InputStream body) {
        ObjectNode changes = RestBodies.read(body);
        ObjectNode vap = get(WifiService.class).updateVap(ident(vapId, "vap_id"), changes);
        return vapReply(Response.Status.OK, vap);
    }

    /** Clients, optionally filtered by agent and vAP. */
    @GET
    @Path("clients")
    @Produces(MediaType.APPLICATION_JSON)
    public Response clients(@QueryParam("agent") String agentId, @QueryParam("vap") String vapId) {
        String agent = agentId == null ? null : ident(agentId, "agent");
        String vap = vapId == null ? null : ident(vapId, "vap");
        return json(Response.Status.OK, list("clients", get(WifiService.class).clients(agent, vap)));
    }

    /** Kicks (disassociates) a client. */
    @DELETE
    @Path("agents/{agentId}/clients/{mac}")
    public Response kick(@PathParam("agentId") String agentId, @PathParam("mac") String mac) {
        get(WifiService.class).kickClient(ident(agentId, "agent_id"), RestBodies.mac(mac));
        return Response.noContent().build();
    }

    /**
     * Steers a client to another BSS of its SSID (operator): body {"target_vap": ID, "target_agent"?: ID},
     * {"target_bssid": MAC} or {"target_agent": ID} (that AP's vAP of the client's SSID), and
     * "disassoc_timer_tbtt"? (0-65535); 200 with the station's answer.
     */
    @POST
    @Path("clients/{mac}/steer")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response steer(@PathParam("mac") String mac, InputStream body) {
        ObjectNode req = RestBodies.read(body);
        try {
            Fields.object(req, "steer", Set.of("target_agent", "target_vap", "target_bssid", "disassoc_timer_tbtt"),
                          Set.of());
            Fields.string(req, "target_agent", "steer", Fields.IDENT);
            Fields.string(req, "target_vap", "steer", Fields.IDENT);
            Fields.string(req, "target_bssid", "steer", Fields.MAC);
            Fields.integer(req, "disassoc_timer_tbtt", "steer", 0, 65535);
        } catch (ProtocolException e) {
            throw new ControllerException("bad_request", e.getMessage());
        }
        if (req.has("target_agent") && req.has("target_bssid")) {
            throw new ControllerException("bad_request",
                    "target_agent goes with target_vap or alone, not with a BSSID");
        }
        ObjectNode out = get(WifiService.class).steerClient(RestBodies.mac(mac), text(req, "target_agent"),
                text(req, "target_vap"), text(req, "target_bssid"),
                req.has("disassoc_timer_tbtt") ? req.get("disassoc_timer_tbtt").asInt() : null);
        return json(Response.Status.OK, out);
    }

    private static String text(ObjectNode req, String field) {
        return req.has(field) ? req.get(field).asText() : null;
    }

    /** Moves a radio to another channel: body {"channel": N}. */
    @POST
    @Path("agents/{agentId}/radios/{radio}/channel")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response channel(@PathParam("agentId") String agentId, @PathParam("radio") String radio,
                            InputStream body) {
        ObjectNode req = RestBodies.read(body);
        if (req.size() != 1 || !req.path("channel").isIntegralNumber()) {
            throw new ControllerException("bad_request", "body must be {\"channel\": N}");
        }
        ObjectNode updated = get(WifiService.class).changeChannel(ident(agentId, "agent_id"),
                                                                  ident(radio, "radio"), req.get("channel").asInt());
        ObjectNode root = Json.object();
        root.set("radio", updated);
        return json(Response.Status.OK, root);
    }

    /** Current rates of a vAP. */
    @GET
    @Path("agents/{agentId}/vaps/{vapId}/rates")
    @Produces(MediaType.APPLICATION_JSON)
    public Response rates(@PathParam("agentId") String agentId, @PathParam("vapId") String vapId) {
        return json(Response.Status.OK,
                    get(WifiService.class).rates(ident(agentId, "agent_id"), ident(vapId, "vap_id")));
    }

    /**
     * A probed vAP's latency now (getLatency): VapLatency + "agent_id"; ?agent=ID names its agent (else the one
     * holding it). 404 unknown vAP, 409 on several agents, 501 a vAP without probe, 502/504 agent away or slow.
     */
    @GET
    @Path("vaps/{vapId}/latency")
    @Produces(MediaType.APPLICATION_JSON)
    public Response latency(@PathParam("vapId") String vapId, @QueryParam("agent") String agentId) {
        String agent = agentId == null ? null : ident(agentId, "agent");
        return json(Response.Status.OK, get(WifiService.class).latency(agent, ident(vapId, "vap_id")));
    }

    /** The last stats event of every agent connected to this node: vAP and client rates, radio capacities. */
    @GET
    @Path("stats")
    @Produces(MediaType.APPLICATION_JSON)
    public Response stats() {
        return json(Response.Status.OK, get(WifiService.class).stats());
    }

    /** Controller metrics (agents connected, event latency, heap). */
    @GET
    @Path("metrics")
    @Produces(MediaType.APPLICATION_JSON)
    public Response metrics() {
        return json(Response.Status.OK, get(WifiService.class).metrics());
    }

    /** Clears the event latency samples. */
    @DELETE
    @Path("metrics")
    public Response resetMetrics() {
        get(WifiService.class).resetMetrics();
        return Response.noContent().build();
    }

    /** {"vap": the vAP's public view}: what creating or changing a vAP answers. */
    private Response vapReply(Response.Status status, ObjectNode vap) {
        ObjectNode root = Json.object();
        root.set("vap", publicView(vap));
        return json(status, root);
    }
}
