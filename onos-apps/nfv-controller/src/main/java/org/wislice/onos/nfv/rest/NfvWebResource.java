package org.wislice.onos.nfv.rest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.rest.AbstractWebResource;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.RestBodies;
import org.wislice.onos.nfv.api.NfvService;

import javax.ws.rs.Consumes;
import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.InputStream;

import static org.wislice.onos.agent.RestBodies.json;
import static org.wislice.onos.agent.RestBodies.list;
import static org.wislice.onos.agent.RestBodies.publicView;

/** /onos/nfv: MEC nodes and vNFs (spec/onos-rest/README.md). */
@Path("")
public class NfvWebResource extends AbstractWebResource {

    /** vnf_id path parameter: an unsigned 32-bit integer. */
    static long vnfId(String value) {
        try {
            long id = Long.parseLong(value);
            if (id >= 0 && id <= 0xffffffffL) {
                return id;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new ControllerException("bad_request", "vnf_id must be an unsigned 32-bit integer");
    }

    /** MEC nodes. */
    @GET
    @Path("nodes")
    @Produces(MediaType.APPLICATION_JSON)
    public Response nodes() {
        return json(Response.Status.OK, list("nodes", get(NfvService.class).nodes()));
    }

    /** vNF states, each with its node. */
    @GET
    @Path("vnfs")
    @Produces(MediaType.APPLICATION_JSON)
    public Response vnfs() {
        return json(Response.Status.OK, list("vnfs", get(NfvService.class).vnfs()));
    }

    /** Places and creates a vNF: VnfSpec + optional "node" (pin) and "near_ap". */
    @POST
    @Path("vnfs")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response create(InputStream body) {
        ObjectNode created = get(NfvService.class).createVnf(RestBodies.read(body));
        created.set("vnf", publicView((ObjectNode) created.get("vnf")));
        return json(Response.Status.CREATED, created);
    }

    /** Removes a vNF. */
    @DELETE
    @Path("vnfs/{vnfId}")
    public Response remove(@PathParam("vnfId") String vnfId) {
        get(NfvService.class).removeVnf(vnfId(vnfId));
        return Response.noContent().build();
    }

    /** VnfStats of one vNF. */
    @GET
    @Path("vnfs/{vnfId}/stats")
    @Produces(MediaType.APPLICATION_JSON)
    public Response stats(@PathParam("vnfId") String vnfId) {
        return json(Response.Status.OK, get(NfvService.class).vnfStats(vnfId(vnfId)));
    }

    /** Controller metrics. */
    @GET
    @Path("metrics")
    @Produces(MediaType.APPLICATION_JSON)
    public Response metrics() {
        return json(Response.Status.OK, get(NfvService.class).metrics());
    }
}
