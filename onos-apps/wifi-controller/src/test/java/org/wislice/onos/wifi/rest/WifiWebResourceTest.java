package org.wislice.onos.wifi.rest;

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
import org.wislice.onos.wifi.api.WifiListener;
import org.wislice.onos.wifi.api.WifiService;

import javax.ws.rs.client.Entity;
import javax.ws.rs.core.Response;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/** /onos/wifi on Jersey's test container with a recording WifiService. */
public class WifiWebResourceTest extends JerseyTest {

    private final FakeWifiService service = new FakeWifiService();

    @Override
    protected ResourceConfig configure() {
        return new ResourceConfig(WifiWebResource.class, ControllerExceptionMapper.class);
    }

    @Before
    public void setUpServices() throws Exception {
        TestServiceDirectory directory = new TestServiceDirectory()
                .add(WifiService.class, service)
                .add(CodecService.class, new CodecManager());
        Field f = BaseResource.class.getDeclaredField("services");
        f.setAccessible(true);
        f.set(null, (ServiceDirectory) directory);
    }

    private static JsonNode json(Response r) throws ProtocolException {
        return Json.parseLine(r.readEntity(String.class));
    }

    @Test
    public void listsAgentsVapsAndClientsWithoutInternalFields() throws Exception {
        JsonNode agents = json(target("agents").request().get());
        assertEquals("ap-1", agents.get("agents").get(0).get("agent_id").asText());
        JsonNode vaps = json(target("vaps").queryParam("agent", "ap-1").request().get());
        assertEquals("ap-1", service.lastAgent);
        assertFalse(vaps.get("vaps").get(0).has("updated_ts"));
        JsonNode clients = json(target("clients").queryParam("vap", "v1").request().get());
        assertEquals("v1", service.lastVap);
        assertEquals(1, clients.get("clients").size());
    }

    @Test
    public void oneAgentOr404() throws Exception {
        assertEquals(200, target("agents/ap-1").request().get().getStatus());
        Response r = target("agents/ap-9").request().get();
        assertEquals(404, r.getStatus());
        assertEquals("not_found", json(r).get("code").asText());
    }

    @Test
    public void createVapAnswers201AndValidates() throws Exception {
        Response r = target("agents/ap-1/vaps").request()
                .post(Entity.json("{\"vap_id\":\"v1\",\"radio\":\"phy0\"}"));
        assertEquals(201, r.getStatus());
        assertEquals("v1", json(r).get("vap").get("vap_id").asText());

        Response dup = target("agents/ap-1/vaps").request().post(Entity.json("{\"a\":1,\"a\":2}"));
        assertEquals(400, dup.getStatus());
        Response notJson = target("agents/ap-1/vaps").request().post(Entity.json("{oops"));
        assertEquals(400, notJson.getStatus());
        assertEquals("bad_request", json(notJson).get("code").asText());
        Response badId = target("agents/bad$id/vaps").request().post(Entity.json("{}"));
        assertEquals(400, badId.getStatus());
    }

    @Test
    public void deleteKickChannelRatesAndErrors() throws Exception {
        assertEquals(204, target("agents/ap-1/vaps/v1").request().delete().getStatus());
        assertEquals("v1", service.lastVap);
        assertEquals(204, target("agents/ap-1/clients/02:00:00:00:01:00").request().delete().getStatus());
        assertEquals(400, target("agents/ap-1/clients/NOT-A-MAC").request().delete().getStatus());
        Response ch = target("agents/ap-1/radios/phy0/channel").request().post(Entity.json("{\"channel\":11}"));
        assertEquals(200, ch.getStatus());
        assertEquals(11, json(ch).get("radio").get("channel").asInt());
        assertEquals(400, target("agents/ap-1/radios/phy0/channel").request()
                .post(Entity.json("{\"channel\":\"x\"}")).getStatus());
        assertEquals(200, target("agents/ap-1/vaps/v1/rates").request().get().getStatus());
        // Agent-side failures map onto 502/504.
        service.failWith = new ControllerException("timeout", "slow");
        assertEquals(504, target("agents/ap-1/vaps/v1/rates").request().get().getStatus());
        service.failWith = new ControllerException("agent_unreachable", "away");
        assertEquals(502, target("agents/ap-1/vaps/v1").request().delete().getStatus());
    }

    @Test
    public void rateLimitIsPutOnTheVap() throws Exception {
        Response r = target("vaps/v1/rate_limit").request().put(Entity.json(
                "{\"down_kbps\":8000,\"up_kbps\":0,\"down_guaranteed_kbps\":3000}"));
        assertEquals(200, r.getStatus());
        JsonNode vap = json(r).get("vap");
        assertEquals("ap-1", vap.get("agent_id").asText());
        assertEquals(3000, vap.at("/rate_limit/down_guaranteed_kbps").asInt());
        assertFalse(vap.has("updated_ts"));
        assertEquals("v1", service.lastVap);
        assertEquals(400, target("vaps/bad$id/rate_limit").request().put(Entity.json("{}")).getStatus());
        assertEquals(400, target("vaps/v1/rate_limit").request().put(Entity.json("{oops")).getStatus());
        service.failWith = new ControllerException("not_found", "no vAP v1");
        assertEquals(404, target("vaps/v1/rate_limit").request().put(Entity.json("{}")).getStatus());
        service.failWith = new ControllerException("agent_unreachable", "away");
        assertEquals(502, target("vaps/v1/rate_limit").request().put(Entity.json("{}")).getStatus());
        service.failWith = new ControllerException("conflict", "two agents");
        assertEquals(409, target("vaps/v1/rate_limit").request().put(Entity.json("{}")).getStatus());
    }

    @Test
    public void steerTakesAVapABssidOrAnAp() throws Exception {
        Response r = target("clients/02:00:00:00:01:00/steer").request().post(Entity.json(
                "{\"target_vap\":\"v2\",\"target_agent\":\"ap-2\",\"disassoc_timer_tbtt\":10}"));
        assertEquals(200, r.getStatus());
        JsonNode body = json(r);
        assertTrue(body.get("accepted").asBoolean());
        assertEquals("02:00:00:00:01:00 ap-2 v2 null 10", service.lastSteer);
        assertEquals(200, target("clients/02:00:00:00:01:00/steer").request().post(Entity.json(
                "{\"target_bssid\":\"02:00:00:00:00:02\"}")).getStatus());
        assertEquals("02:00:00:00:01:00 null null 02:00:00:00:00:02 null", service.lastSteer);
        // The AP alone: the service picks its vAP of the client's SSID.
        assertEquals(200, target("clients/02:00:00:00:01:00/steer").request().post(Entity.json(
                "{\"target_agent\":\"ap-2\"}")).getStatus());
        assertEquals("02:00:00:00:01:00 ap-2 null null null", service.lastSteer);
        for (String bad : List.of("{\"target_bssid\":\"02:00\"}", "{\"target_vap\":\"v2\",\"x\":1}",
                                  "{\"target_agent\":\"ap-2\",\"target_bssid\":\"02:00:00:00:00:02\"}",
                                  "{\"target_vap\":\"v2\",\"disassoc_timer_tbtt\":70000}")) {
            assertEquals(bad, 400, target("clients/02:00:00:00:01:00/steer").request().post(Entity.json(bad))
                    .getStatus());
        }
        assertEquals(400, target("clients/02:00:00:00:01:0Z/steer").request().post(Entity.json("{}")).getStatus());
        service.failWith = new ControllerException("not_found", "no client");
        assertEquals(404, target("clients/02:00:00:00:01:00/steer").request().post(Entity.json(
                "{\"target_vap\":\"v2\"}")).getStatus());
    }

    @Test
    public void statsOfEveryAgentInOneAnswer() throws Exception {
        Response r = target("stats").request().get();
        assertEquals(200, r.getStatus());
        JsonNode body = json(r);
        assertEquals("node-1", body.get("node").asText());
        assertEquals(1_000_000, body.at("/agents/0/vaps/0/tx_bps").asDouble(), 0);
        assertEquals(4000, body.at("/agents/0/clients/0/rx_bps").asDouble(), 0);
    }

    @Test
    public void apsAndTheirFirmwareUpgrade() throws Exception {
        assertEquals("1.0", json(target("aps").request().get()).at("/aps/0/firmware_version").asText());
        assertEquals("ap-1", json(target("aps/ap-1").request().get()).get("agent_id").asText());
        assertEquals(404, target("aps/ap-9").request().get().getStatus());
        String body = "{\"version\":\"1.1\",\"kind\":\"packages\",\"url\":\"http://o/f\"}";
        Response r = target("aps/ap-1/firmware").request().post(Entity.json(body));
        assertEquals(202, r.getStatus());
        assertEquals("requested", json(r).get("state").asText());
        assertEquals("1.1", service.lastFirmware.get("version").asText());
        assertEquals(400, target("aps/ap-1/firmware").request().post(Entity.json("{oops")).getStatus());
        assertEquals(400, target("aps/bad$id/firmware").request().post(Entity.json(body)).getStatus());
        service.failWith = new ControllerException("not_connected", "away");
        assertEquals(503, target("aps/ap-1/firmware").request().post(Entity.json(body)).getStatus());
        service.failWith = new ControllerException("conflict", "in progress");
        assertEquals(409, target("aps/ap-1/firmware").request().post(Entity.json(body)).getStatus());
    }

    @Test
    public void metrics() throws Exception {
        assertTrue(json(target("metrics").request().get()).has("event_p99_ms"));
        assertEquals(204, target("metrics").request().delete().getStatus());
    }

    @Test
    public void latencyAsksTheVapsAgentAndMapsItsErrors() throws Exception {
        Response r = target("vaps/v1/latency").queryParam("agent", "ap-1").request().get();
        assertEquals(200, r.getStatus());
        JsonNode latency = json(r);
        assertEquals("ap-1 v1", service.lastLatency);
        assertEquals(420, latency.get("p99_us").asLong());
        assertEquals(200, target("vaps/v1/latency").request().get().getStatus());
        assertEquals("null v1", service.lastLatency);
        assertEquals(400, target("vaps/v1/latency").queryParam("agent", "bad$id").request().get().getStatus());
        service.failWith = new ControllerException("unsupported", "vAP v1 has no probe");
        Response unsupported = target("vaps/v1/latency").request().get();
        assertEquals(501, unsupported.getStatus());
        assertEquals("unsupported", json(unsupported).get("code").asText());
        service.failWith = new ControllerException("not_found", "no vAP v1");
        assertEquals(404, target("vaps/v1/latency").request().get().getStatus());
    }

    /** Records calls and answers with canned records. */
    static final class FakeWifiService implements WifiService {
        String lastAgent;
        String lastVap;
        String lastSteer;
        String lastLatency;
        JsonNode lastFirmware;
        ControllerException failWith;

        private void maybeFail() {
            if (failWith != null) {
                throw failWith;
            }
        }

        @Override
        public List<ObjectNode> agents() {
            return List.of(Json.object().put("agent_id", "ap-1").put("connected", true));
        }

        @Override
        public Optional<ObjectNode> agent(String agentId) {
            return "ap-1".equals(agentId) ? Optional.of(agents().get(0)) : Optional.empty();
        }

        @Override
        public List<ObjectNode> aps() {
            return List.of(agents().get(0).put("firmware_version", "1.0"));
        }

        @Override
        public Optional<ObjectNode> ap(String agentId) {
            return agent(agentId).map(a -> a.put("firmware_version", "1.0"));
        }

        @Override
        public ObjectNode upgradeFirmware(String agentId, JsonNode request) {
            maybeFail();
            lastAgent = agentId;
            lastFirmware = request;
            return Json.object().put("state", "requested");
        }

        @Override
        public List<ObjectNode> vaps(String agentId) {
            lastAgent = agentId;
            return List.of(Json.object().put("vap_id", "v1").put("agent_id", "ap-1").put("updated_ts", 1.0));
        }

        @Override
        public ObjectNode createVap(String agentId, JsonNode vapSpec) {
            return Json.object().put("vap_id", vapSpec.get("vap_id").asText()).put("state", "up");
        }

        @Override
        public void removeVap(String agentId, String vapId) {
            maybeFail();
            lastVap = vapId;
        }

        @Override
        public ObjectNode updateVap(String vapId, JsonNode changes) {
            maybeFail();
            lastVap = vapId;
            ObjectNode vap = Json.object().put("vap_id", vapId).put("agent_id", "ap-1").put("updated_ts", 2.0);
            vap.setAll((ObjectNode) changes);
            return vap;
        }

        @Override
        public ObjectNode updateRateLimit(String vapId, JsonNode rateLimit) {
            maybeFail();
            lastVap = vapId;
            ObjectNode vap = Json.object().put("vap_id", vapId).put("agent_id", "ap-1").put("updated_ts", 2.0);
            vap.set("rate_limit", rateLimit);
            return vap;
        }

        @Override
        public List<ObjectNode> clients(String agentId, String vapId) {
            lastVap = vapId;
            return new ArrayList<>(List.of(Json.object().put("mac", "02:00:00:00:01:00")));
        }

        @Override
        public void kickClient(String agentId, String mac) {
        }

        @Override
        public ObjectNode steerClient(String mac, String targetAgent, String targetVap, String targetBssid,
                                      Integer disassocTimerTbtt) {
            maybeFail();
            lastSteer = mac + " " + targetAgent + " " + targetVap + " " + targetBssid + " " + disassocTimerTbtt;
            return Json.object().put("mac", mac).put("accepted", true).put("status_code", 0).put("reason", "ok");
        }

        @Override
        public ObjectNode changeChannel(String agentId, String radio, int channel) {
            return Json.object().put("name", radio).put("channel", channel);
        }

        @Override
        public ObjectNode rates(String agentId, String vapId) {
            maybeFail();
            return Json.object().put("tx_bps", 1.0).put("rx_bps", 2.0).put("interval_s", 5);
        }

        @Override
        public ObjectNode latency(String agentId, String vapId) {
            maybeFail();
            lastLatency = agentId + " " + vapId;
            return Json.object().put("agent_id", "ap-1").put("vap_id", vapId).put("sent", 10).put("received", 9)
                    .put("lost", 1).put("p50_us", 200).put("p90_us", 300).put("p99_us", 420).put("max_us", 500)
                    .put("samples", 9);
        }

        @Override
        public ObjectNode stats() {
            ObjectNode root = Json.object().put("node", "node-1");
            ObjectNode agent = root.putArray("agents").addObject().put("agent_id", "ap-1").put("ts", 10.0)
                    .put("interval_s", 5);
            agent.putArray("vaps").addObject().put("vap_id", "v1").put("tx_bps", 1e6).put("rx_bps", 1e4)
                    .put("clients", 1);
            agent.putArray("clients").addObject().put("mac", "02:00:00:00:01:00").put("vap_id", "v1")
                    .put("tx_bytes", 1).put("rx_bytes", 2).put("tx_bps", 8.0).put("rx_bps", 4000.0);
            return root;
        }

        @Override
        public ObjectNode metrics() {
            return Json.object().putNull("event_p99_ms");
        }

        @Override
        public void resetMetrics() {
        }

        @Override
        public void addListener(WifiListener listener) {
        }

        @Override
        public void removeListener(WifiListener listener) {
        }
    }

}
