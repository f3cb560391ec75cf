package org.wislice.onos.pof.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.test.JerseyTest;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.TestServiceDirectory;
import org.onlab.rest.AuthorizationFilter;
import org.onlab.rest.BaseResource;
import org.onlab.packet.ChassisId;
import org.onosproject.net.AnnotationKeys;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.provider.ProviderId;
import org.wislice.onos.pof.api.LatencyClass;
import org.wislice.onos.pof.api.MeterEnforcement;
import org.wislice.onos.pof.api.PofController;
import org.wislice.onos.pof.api.PofFlowService;
import org.wislice.onos.pof.api.PofMeterCapabilityService;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.pof.api.PofSwitchListener;
import org.wislice.onos.pof.api.SliceBranch;
import org.wislice.onos.pof.api.SliceClient;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;
import org.wislice.onos.pof.channel.PofSession;

import javax.ws.rs.client.Entity;
import javax.ws.rs.core.Application;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/** /onos/pof over HTTP (Jersey on Jetty) with fake services behind it. */
public class PofWebResourceTest extends JerseyTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final FakeSlices slices = new FakeSlices();
    private final List<String> flowCalls = new ArrayList<>();

    @Override
    protected Application configure() {
        // The app's classes minus ONOS's AuthorizationFilter: Karaf's JAAS realm does the HTTP basic auth there.
        ResourceConfig config = new ResourceConfig();
        new PofWebApplication().getClasses().stream()
                .filter(c -> c != AuthorizationFilter.class).forEach(config::register);
        return config;
    }

    @Before
    public void setUpServices() throws Exception {
        TestServiceDirectory dir = new TestServiceDirectory()
                .add(PofSliceService.class, slices)
                .add(PofController.class, new NoSwitches())
                .add(DeviceService.class, new StoredSwitches())
                .add(PofMeterCapabilityService.class, (PofMeterCapabilityService) id -> id.toString()
                        .equals(REFERENCE) ? new MeterEnforcement(false, MeterEnforcement.Source.FEATURES)
                        : new MeterEnforcement(true, MeterEnforcement.Source.OVERRIDE))
                .add(PofFlowService.class, new PofFlowService() {
                    @Override
                    public List<FlowId> addFlows(DeviceId deviceId, JsonNode entries) {
                        flowCalls.add("add " + deviceId + " " + entries.size());
                        return List.of(FlowId.valueOf(7));
                    }

                    @Override
                    public int removeFlows(DeviceId deviceId) {
                        flowCalls.add("remove " + deviceId);
                        return 3;
                    }
                });
        Field services = BaseResource.class.getDeclaredField("services");
        services.setAccessible(true);
        services.set(null, dir);
    }

    /** Slices in a map; the real manager's conflict rule on slice ids. */
    private static final class FakeSlices implements PofSliceService {
        final Map<String, SlicePath> map = new LinkedHashMap<>();

        @Override
        public List<SlicePath> slices() {
            return new ArrayList<>(map.values());
        }

        @Override
        public Optional<SlicePath> slice(String id) {
            return Optional.ofNullable(map.get(id));
        }

        @Override
        public SlicePath addSlice(SlicePath p) {
            if (map.containsKey(p.sliceId)) {
                throw SliceException.conflict("slice " + p.sliceId + " exists");
            }
            // The real manager's enforcement rule for paths through the one switch that does not enforce.
            boolean rated = p.up.metered() || p.down.metered();
            List<String> unenforced = rated && p.hops.stream().anyMatch(h -> h.deviceId.equals(REFERENCE))
                    ? List.of(REFERENCE) : List.of();
            if (!unenforced.isEmpty() && p.requireEnforcement) {
                throw SliceException.metersNotEnforced(unenforced);
            }
            SlicePath installed = p.withTag(p.tag == 0 ? 1 : p.tag).withMeters(
                    List.of(new SlicePath.MeterRef(p.hops.get(0).deviceId, "forward", 0, 5)))
                    .withUnenforcedDevices(unenforced);
            map.put(p.sliceId, installed);
            return installed;
        }

        @Override
        public void removeSlice(String id) {
            if (map.remove(id) == null) {
                throw SliceException.notFound("no slice " + id);
            }
        }

        @Override
        public SlicePath updatePath(String id, SliceRates down, SliceRates up, LatencyClass cls) {
            SlicePath p = slice(id).orElseThrow(() -> SliceException.notFound("no slice " + id));
            SlicePath updated = p.withLatency(cls == null ? p.latencyClass : cls, down == null ? p.down : down,
                    up == null ? p.up : up, p.queuelessDevices);
            map.put(id, updated);
            return updated;
        }

        /** The real manager's checks of a placement, in the order it makes them; always "3 ms". */
        @Override
        public long placeClient(String id, String mac, String branch) {
            SlicePath p = slice(id).orElseThrow(() -> SliceException.notFound("no slice " + id));
            String m = SliceClient.mac(mac);
            if (!SliceBranch.MAIN.equals(branch) && p.branch(branch).isEmpty()) {
                throw SliceException.badRequest("slice " + id + " has no branch '" + branch + "'");
            }
            List<SliceClient> clients = new ArrayList<>(p.clients);
            clients.removeIf(c -> c.mac.equals(m));
            if (!SliceBranch.MAIN.equals(branch)) {
                clients.add(new SliceClient(m, branch, clients.size() + 1));
            }
            map.put(id, p.withClients(clients));
            return 3;
        }

        @Override
        public void removeClient(String id, String mac) {
            SlicePath p = slice(id).orElseThrow(() -> SliceException.notFound("no slice " + id));
            String m = SliceClient.mac(mac);
            List<SliceClient> clients = new ArrayList<>(p.clients);
            if (!clients.removeIf(c -> c.mac.equals(m))) {
                throw SliceException.notFound(m + " is not placed on a branch of " + id);
            }
            map.put(id, p.withClients(clients));
        }

        @Override
        public List<SliceClient> clients(String id) {
            return slice(id).orElseThrow(() -> SliceException.notFound("no slice " + id)).clients;
        }
    }

    private static final String REFERENCE = "pof:000000ff";

    /** Two POF devices the device store knows (neither connected): pof:00000001 and the reference switch. */
    private static final class StoredSwitches extends DeviceServiceAdapter {
        @Override
        public Iterable<Device> getDevices() {
            List<Device> out = new ArrayList<>();
            for (String id : new String[] {REFERENCE, "pof:00000001"}) {
                out.add(new DefaultDevice(new ProviderId("pof", "t"), DeviceId.deviceId(id), Device.Type.SWITCH,
                        "v", "h", "s", "n", new ChassisId(1), DefaultAnnotations.builder()
                        .set(AnnotationKeys.CHANNEL_ID, "127.0.0.1:1").build()));
            }
            return out;
        }

        @Override
        public List<Port> getPorts(DeviceId deviceId) {
            return List.of();
        }
    }

    /** A controller without switch sessions. */
    private static final class NoSwitches implements PofController {
        @Override
        public Map<DeviceId, PofSession> switches() {
            return Map.of();
        }

        @Override
        public Optional<PofSession> session(DeviceId deviceId) {
            return Optional.empty();
        }

        @Override
        public void addListener(PofSwitchListener listener) {
        }

        @Override
        public void removeListener(PofSwitchListener listener) {
        }
    }

    private static final String BODY = "{\"slice_id\":\"s1\",\"tenant_id\":4,\"rate_kbps\":1000,\"hops\":"
            + "[{\"device_id\":\"pof:00000001\",\"in_port\":1,\"out_port\":2}]}";

    private Response post(String path, String body) {
        return target(path).request().post(Entity.entity(body, MediaType.APPLICATION_JSON));
    }

    private static JsonNode json(Response r) throws Exception {
        return JSON.readTree(r.readEntity(String.class));
    }

    @Test
    public void sliceLifecycle() throws Exception {
        assertEquals(0, json(target("slices").request().get()).get("slices").size());
        Response created = post("slices", BODY);
        assertEquals(201, created.getStatus());
        JsonNode s = json(created);
        assertEquals("s1", s.get("slice_id").asText());
        assertEquals(1, s.get("tag").asInt());
        assertEquals(5, s.at("/meters/0/meter_id").asInt());
        JsonNode list = json(target("slices").request().get());
        assertEquals("s1", list.at("/slices/0/slice_id").asText());

        Response again = post("slices", BODY);
        assertEquals(409, again.getStatus());
        assertEquals("conflict", json(again).get("code").asText());

        assertEquals(204, target("slices/s1").request().delete().getStatus());
        Response missing = target("slices/s1").request().delete();
        assertEquals(404, missing.getStatus());
        assertEquals("not_found", json(missing).get("code").asText());
    }

    private static final String BRANCHED = BODY.replace("]}", "],\"branches\":[{\"branch_id\":\"ap2\","
            + "\"hops\":[{\"device_id\":\"pof:00000004\",\"in_port\":1,\"out_port\":2},"
            + "{\"device_id\":\"pof:00000001\",\"in_port\":3,\"out_port\":2}]}]}");

    @Test
    public void clientsArePlacedOnBranchesListedAndRemoved() throws Exception {
        assertEquals(201, post("slices", BRANCHED).getStatus());
        Response placed = put("slices/s1/clients/02:00:00:00:00:0A", "{\"branch\":\"ap2\"}");
        assertEquals(200, placed.getStatus());
        JsonNode body = json(placed);
        assertEquals("02:00:00:00:00:0a", body.get("mac").asText());
        assertEquals("ap2", body.get("branch").asText());
        assertEquals(3, body.get("switched_ms").asLong());
        JsonNode list = json(target("slices/s1/clients").request().get());
        assertEquals("02:00:00:00:00:0a", list.at("/clients/0/mac").asText());
        assertEquals("ap2", list.at("/clients/0/branch").asText());
        assertEquals("ap2", json(target("slices").request().get()).at("/slices/0/clients/0/branch").asText());

        assertEquals(204, target("slices/s1/clients/02:00:00:00:00:0a").request().delete().getStatus());
        assertEquals(0, json(target("slices/s1/clients").request().get()).get("clients").size());
        assertEquals(404, target("slices/s1/clients/02:00:00:00:00:0a").request().delete().getStatus());
    }

    @Test
    public void badPlacementsSayWhyAndChangeNothing() throws Exception {
        assertEquals(201, post("slices", BRANCHED).getStatus());
        String[][] cases = {
            {"slices/s1/clients/02:00:00:00:00:0a", "{\"branch\":\"ap9\"}", "400", "no branch 'ap9'"},
            {"slices/s1/clients/not-a-mac", "{\"branch\":\"ap2\"}", "400", "not a MAC address"},
            {"slices/s1/clients/02:00:00:00:00:0a", "{\"branch\":2}", "400", "body must be"},
            {"slices/s1/clients/02:00:00:00:00:0a", "{\"branch\":\"ap2\",\"x\":1}", "400", "body must be"},
            {"slices/nope/clients/02:00:00:00:00:0a", "{\"branch\":\"ap2\"}", "404", "no slice nope"},
        };
        for (String[] c : cases) {
            Response r = put(c[0], c[1]);
            assertEquals(c[0] + " " + c[1], Integer.parseInt(c[2]), r.getStatus());
            assertTrue(json(r).get("message").asText().contains(c[3]));
        }
        assertTrue(slices.map.get("s1").clients.isEmpty());
        assertEquals(404, target("slices/nope/clients").request().get().getStatus());
    }

    @Test
    public void badBodiesAre400AndInstallNothing() throws Exception {
        for (String bad : new String[] {"not json", "{\"slice_id\":\"s\"}", "[1,2]",
                BODY.replace("\"in_port\":1", "\"in_port\":\"one\"")}) {
            Response r = post("slices", bad);
            assertEquals(bad, 400, r.getStatus());
            JsonNode err = json(r);
            assertEquals("bad_request", err.get("code").asText());
            assertTrue(err.get("message").asText().length() > 0);
        }
        assertTrue(slices.map.isEmpty());
    }

    private Response put(String path, String body) {
        return target(path).request().put(Entity.entity(body, MediaType.APPLICATION_JSON));
    }

    @Test
    public void ratesOfALiveSliceChangePerDirection() throws Exception {
        Response created = post("slices", BODY.replace("\"rate_kbps\":1000", "\"down\":{\"guaranteed_kbps\":500,"
                + "\"cap_kbps\":2000},\"up\":{\"cap_kbps\":1000}"));
        assertEquals(201, created.getStatus());
        JsonNode s = json(created);
        assertEquals(500, s.at("/down/guaranteed_kbps").asInt());
        assertEquals(1000, s.at("/up/cap_kbps").asInt());

        Response r = put("slices/s1/rates", "{\"up\":{\"guaranteed_kbps\":300,\"cap_kbps\":0}}");
        assertEquals(200, r.getStatus());
        JsonNode u = json(r);
        assertEquals(300, u.at("/up/guaranteed_kbps").asInt());
        assertEquals(0, u.at("/up/cap_kbps").asInt());
        assertEquals("down unchanged", 2000, u.at("/down/cap_kbps").asInt());
        assertEquals(300, slices.map.get("s1").up.guaranteedKbps);

        Response missing = put("slices/nope/rates", "{\"down\":{}}");
        assertEquals(404, missing.getStatus());
        assertEquals("not_found", json(missing).get("code").asText());
        for (String bad : new String[] {"{}", "[]", "not json", "{\"down\":{\"guaranteed_kbps\":3,"
                + "\"cap_kbps\":2}}", "{\"rate_kbps\":5}", "{\"up\":{\"cap_kbps\":-1}}", "{\"up\":null}"}) {
            Response b = put("slices/s1/rates", bad);
            assertEquals(bad, 400, b.getStatus());
            assertEquals("bad_request", json(b).get("code").asText());
        }
        assertEquals(300, slices.map.get("s1").up.guaranteedKbps);
    }

    @Test
    public void bothLegacyRateAndDirectionsIs400() throws Exception {
        Response r = post("slices", BODY.replace("\"rate_kbps\":1000", "\"rate_kbps\":1000,\"up\":{}"));
        assertEquals(400, r.getStatus());
        assertTrue(slices.map.isEmpty());
    }

    @Test
    public void switchesShowWhetherTheyEnforceMeterRates() throws Exception {
        Response r = target("switches").request().get();
        assertEquals(200, r.getStatus());
        JsonNode switches = json(r).get("switches");
        assertEquals(2, switches.size());
        assertEquals("pof:00000001", switches.at("/0/device_id").asText());
        assertEquals(1, switches.at("/0/dev_id").asLong());
        assertTrue(switches.at("/0/meters_enforced").asBoolean());
        assertEquals("override", switches.at("/0/meters_enforced_source").asText());
        assertEquals(REFERENCE, switches.at("/1/device_id").asText());
        assertFalse(switches.at("/1/connected").asBoolean());
        assertFalse(switches.at("/1/meters_enforced").asBoolean());
        assertEquals("features", switches.at("/1/meters_enforced_source").asText());
    }

    @Test
    public void aRatedPathThroughASwitchThatDoesNotEnforceIs409UnlessBestEffortIsAccepted() throws Exception {
        String body = BODY.replace("pof:00000001", REFERENCE);
        Response refused = post("slices", body);
        assertEquals(409, refused.getStatus());
        JsonNode err = json(refused);
        assertEquals("meters_not_enforced", err.get("code").asText());
        assertTrue(err.get("message").asText(), err.get("message").asText().startsWith(REFERENCE + " does not"));
        assertTrue(slices.map.isEmpty());

        Response accepted = post("slices", body.replace("\"hops\"", "\"require_enforcement\":false,\"hops\""));
        assertEquals(201, accepted.getStatus());
        JsonNode s = json(accepted);
        assertFalse(s.get("require_enforcement").asBoolean());
        assertEquals(REFERENCE, s.at("/unenforced_devices/0").asText());
        assertEquals(1, s.get("unenforced_devices").size());
        // Without rates nothing is metered: no enforcement to require.
        assertEquals(201, post("slices", body.replace("\"rate_kbps\":1000", "\"rate_kbps\":0")
                .replace("\"s1\"", "\"s2\"")).getStatus());
        assertEquals(400, post("slices", body.replace("\"hops\"", "\"require_enforcement\":\"no\",\"hops\""))
                .getStatus());
    }

    @Test
    public void rawFlowsAreAddedAndRemovedPerDevice() throws Exception {
        Response r = post("flows", "{\"device_id\":\"pof:00000001\",\"flows\":[{}]}");
        assertEquals(201, r.getStatus());
        assertEquals(7, json(r).at("/flow_ids/0").asLong());
        Response del = target("flows/pof:00000001").request().delete();
        assertEquals(3, json(del).get("removed").asInt());
        assertEquals(400, post("flows", "{\"device_id\":\"of:1\",\"flows\":[]}").getStatus());
        assertEquals(List.of("add pof:00000001 1", "remove pof:00000001"), flowCalls);
    }
}
