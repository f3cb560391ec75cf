package org.wislice.onos.agent;

import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.ext.ExceptionMapper;
import javax.ws.rs.ext.Provider;

/** Controller errors as HTTP status + {"code", "message"} (spec/onos-rest), for the apps' JAX-RS applications. */
@Provider
public class ControllerExceptionMapper implements ExceptionMapper<ControllerException> {
    @Override
    public Response toResponse(ControllerException e) {
        String body = Json.write(Json.object().put("code", e.code()).put("message", e.getMessage()));
        return Response.status(e.httpStatus()).type(MediaType.APPLICATION_JSON).entity(body).build();
    }
}
