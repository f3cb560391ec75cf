package org.wislice.onos.mobility.rest;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.rest.AbstractWebResource;
import org.wislice.onos.mobility.api.ClientMobilityService;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;

/** /onos/mobility: the handovers the app followed (spec/onos-rest/README.md). */
@Path("")
public class MobilityWebResource extends AbstractWebResource {

    /** The last handovers, oldest first: {"handovers": [...]} (ClientMobilityService#handovers). */
    @GET
    @Path("handovers")
    @Produces(MediaType.APPLICATION_JSON)
    public Response handovers() {
        ObjectNode root = mapper().createObjectNode();
        ArrayNode list = root.putArray("handovers");
        get(ClientMobilityService.class).handovers().forEach(list::add);
        return Response.ok(root).build();
    }
}
