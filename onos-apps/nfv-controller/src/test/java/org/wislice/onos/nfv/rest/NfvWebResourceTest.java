package org.wislice.onos.nfv.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.test.JerseyTest;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.osgi.TestServiceDirectory;
import org.onlab.rest.BaseResource;
import org.onosproject.codec.CodecService;
import org.onosproject.codec.impl.CodecManager;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.ControllerExceptionMapper;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.nfv.api.NfvListener;
import org.wislice.onos.nfv.api.NfvService;

import javax.ws.rs.client.Entity;
import javax.ws.rs.core.Response;
import java.lang.reflect.Field;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

/** /onos/nfv on Jersey's test container with a recording NfvService. */
public class NfvWebResourceTest extends JerseyTest {

    private final FakeNfvService service = new FakeNfvService();

    @Override
    protected ResourceConfig configure() {
        return new ResourceConfig(NfvWebResource.class, ControllerExceptionMapper.class);
    }

    @Before
    public void setUpServices() throws Exception {
        TestServiceDirectory directory = new TestServiceDirectory()
                .add(NfvService.class, service).add(CodecService.class, new CodecManager());
        Field f = BaseResource.class.getDeclaredField("services");
        f.setAccessible(true);
        f.set(null, (ServiceDirectory) directory);
    }

    private static JsonNode json(Response r) throws ProtocolException {
        return Json.parseLine(r.readEntity(String.class));
    }

    @Test
    public void nodesAndVnfs() throws Exception {
        assertEquals("mec-1", json(target("nodes").request().get()).get("nodes").get(0).get("agent_id").asText());
        JsonNode vnfs = json(target("vnfs").request().get());
        assertFalse(vnfs.get("vnfs").get(0).has("updated_ts"));
    }

    @Test
    public void createRemoveStats() throws Exception {
        Response r = target("vnfs").request().post(Entity.json("{\"tenant_id\":1,\"instance_id\":2}"));
        assertEquals(201, r.getStatus());
        assertEquals("mec-1", json(r).get("node").asText());
        assertEquals(204, target("vnfs/65538").request().delete().getStatus());
        assertEquals(65538L, service.removed);
        assertEquals(400, target("vnfs/-1").request().delete().getStatus());
        assertEquals(400, target("vnfs/4294967296").request().delete().getStatus());
        assertEquals(200, target("vnfs/65538/stats").request().get().getStatus());
        service.failWith = new ControllerException("capacity", "full");
        Response full = target("vnfs").request().post(Entity.json("{}"));
        assertEquals(409, full.getStatus());
        assertEquals("capacity", json(full).get("code").asText());
        assertEquals(400, target("vnfs").request().post(Entity.json("[1]")).getStatus());
    }

    @Test
    public void metrics() {
        assertEquals(200, target("metrics").request().get().getStatus());
    }

    static final class FakeNfvService implements NfvService {
        long removed = -1;
        ControllerException failWith;

        @Override
        public List<ObjectNode> nodes() {
            return List.of(Json.object().put("agent_id", "mec-1"));
        }

        @Override
        public List<ObjectNode> vnfs() {
            return List.of(Json.object().put("vnf_id", 65538).put("updated_ts", 1.0));
        }

        @Override
        public ObjectNode createVnf(JsonNode request) {
            if (failWith != null) {
                throw failWith;
            }
            ObjectNode out = Json.object().put("node", "mec-1");
            out.putObject("vnf").put("vnf_id", 65538);
            return out;
        }

        @Override
        public void removeVnf(long vnfId) {
            removed = vnfId;
        }

        @Override
        public ObjectNode vnfStats(long vnfId) {
            return Json.object().put("vnf_id", vnfId);
        }

        @Override
        public ObjectNode metrics() {
            return Json.object();
        }

        @Override
        public void addListener(NfvListener listener) {
        }

        @Override
        public void removeListener(NfvListener listener) {
        }
    }
}
