package org.wislice.onos.pof.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.ComponentContextAdapter;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.wislice.onos.pof.api.MeterEnforcement;
import org.wislice.onos.pof.api.PofSwitchView;
import org.wislice.onos.pof.channel.FakeSwitch;
import org.wislice.onos.pof.channel.PofSession;
import org.wislice.onos.pof.channel.SwitchLatency;
import org.wislice.onos.pof.wire.MultipartReply;
import org.wislice.onos.pof.wire.MultipartReply.PortLatency;
import org.wislice.onos.pof.wire.MultipartRequest;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * The device provider's latency poll (MULTIPART PORT_LATENCY): only switches whose vendor_id is WiSlice are asked,
 * the latest answer is kept on the session and shown as the switch's `latency` (worst port's p99 of the latency
 * class where it carried packets, else of the rest); a switch that refuses it is not asked again.
 */
public class PofLatencyPollTest {
    private static final DeviceId OURS = DeviceId.deviceId("pof:00000002");
    private static final DeviceId OTHER = DeviceId.deviceId("pof:00000001");

    private PofControllerImpl controller;
    private PofDeviceProvider provider;
    private FakeSwitch other;
    private FakeSwitch ours;

    @Before
    public void setUp() throws Exception {
        controller = new PofControllerImpl();
        int port = controller.start(0);
        provider = new PofDeviceProvider();
        provider.providerRegistry = new RecordingRegistries.Devices();
        provider.controller = controller;
        provider.activate(new ComponentContextAdapter() {
            @Override
            public Dictionary<String, Object> getProperties() {
                Hashtable<String, Object> p = new Hashtable<>();
                p.put(OsgiPropertyConstants.PORT_STATS_POLL_SECONDS, 0); // polled by hand
                return p;
            }
        });
        other = new FakeSwitch(port, 1, 2); // vendor "WiSlice test": not pof-switch
        other.handshake();
        ours = new FakeSwitch(port, 2, 2);
        ours.vendorId = MeterEnforcement.WISLICE_VENDOR;
        ours.handshake();
        long until = System.currentTimeMillis() + 5000;
        while (controller.switches().size() < 2 && System.currentTimeMillis() < until) {
            Thread.sleep(10);
        }
        assertEquals(2, controller.switches().size());
    }

    @After
    public void tearDown() throws Exception {
        ours.close();
        other.close();
        provider.deactivate();
        controller.deactivate();
    }

    private static PortLatency port(int id, long latPackets, long latP99, long otherP99) {
        PortLatency p = new PortLatency();
        p.portNo = id;
        p.packets[PortLatency.LATENCY] = latPackets;
        p.p50Ns[PortLatency.LATENCY] = latP99 / 2;
        p.p99Ns[PortLatency.LATENCY] = latP99;
        p.maxNs[PortLatency.LATENCY] = latP99;
        p.packets[PortLatency.OTHER] = 100;
        p.p50Ns[PortLatency.OTHER] = otherP99 / 2;
        p.p99Ns[PortLatency.OTHER] = otherP99;
        p.maxNs[PortLatency.OTHER] = otherP99 * 2;
        return p;
    }

    private void answer(List<PortLatency> ports) {
        ours.respondWith(m -> {
            if (m.type() != PofType.MULTIPART_REQUEST) {
                return null;
            }
            MultipartReply r = new MultipartReply();
            r.mpType = MultipartRequest.PORT_LATENCY;
            r.latency = new java.util.ArrayList<>(ports);
            return new PofMessage(PofType.MULTIPART_REPLY, m.xid(), r);
        });
    }

    /** Polls until pof-switch gets its request (the provider learns a new switch just after ONOS does). */
    private PofMessage pollUntilAsked() throws InterruptedException {
        long until = System.currentTimeMillis() + 5000;
        PofMessage m = null;
        while (m == null && System.currentTimeMillis() < until) {
            provider.pollPortLatency();
            m = ours.next(PofType.MULTIPART_REQUEST, 100);
        }
        assertNotNull("pof-switch asked for its latency", m);
        return m;
    }

    private SwitchLatency latencyOf(DeviceId id) {
        PofSession s = controller.switches().get(id);
        return s == null ? null : s.latency();
    }

    @Test
    public void onlyPofSwitchIsAskedAndItsLatestAnswerIsShown() throws Exception {
        answer(List.of(port(1, 0, 0, 40_000), port(2, 0, 0, 9_000)));
        MultipartRequest req = pollUntilAsked().body(MultipartRequest.class);
        assertEquals(MultipartRequest.PORT_LATENCY, req.mpType);
        assertEquals(MultipartRequest.ALL_PORTS, req.portNo);
        assertNull("a switch that is not pof-switch never gets it", other.next(PofType.MULTIPART_REQUEST, 300));
        assertNull(latencyOf(OTHER));
        SwitchLatency lat = latencyOf(OURS);
        assertNotNull(lat);
        // no latency packets yet: the rest's worst port
        assertEquals(PortLatency.OTHER, lat.costClass());
        assertEquals(40_000, lat.p99Ns());
        JsonNode json = lat.toJson(new ObjectMapper(), lat.readAtMillis() + 250);
        assertEquals(40.0, json.get("p99_us").asDouble(), 1e-9);
        assertEquals(20.0, json.get("p50_us").asDouble(), 1e-9);
        assertEquals(200, json.get("packets").asLong());
        assertEquals("other", json.get("class").asText());
        assertEquals(250, json.get("age_ms").asLong());
        assertEquals(2, json.get("ports").get(1).get("port_id").asInt());
        assertEquals(18.0, json.get("ports").get(1).get("other").get("max_us").asDouble(), 1e-9);

        // GET /onos/pof/switches: the listing shows it on pof-switch only
        JsonNode listing = PofSwitchView.switches(new ObjectMapper(), controller, new DeviceServiceAdapter(),
                id -> new MeterEnforcement(false, MeterEnforcement.Source.FEATURES));
        assertEquals(OTHER.toString(), listing.at("/0/device_id").asText());
        assertTrue("no latency for a switch that is not pof-switch", listing.get(0).path("latency").isMissingNode());
        assertEquals(OURS.toString(), listing.at("/1/device_id").asText());
        assertEquals(40.0, listing.at("/1/latency/p99_us").asDouble(), 1e-9);
        assertEquals(2, listing.at("/1/latency/ports").size());

        // latency packets on port 2: its latency class is the cost now, however slow best effort is
        answer(List.of(port(1, 0, 0, 900_000), port(2, 50, 3_500, 800_000)));
        provider.pollPortLatency();
        lat = latencyOf(OURS);
        assertEquals(PortLatency.LATENCY, lat.costClass());
        assertEquals(3_500, lat.p99Ns());
    }

    @Test
    public void aSwitchThatRefusesIsNotAskedAgain() throws Exception {
        ours.respondWith(m -> {
            if (m.type() != PofType.MULTIPART_REQUEST) {
                return null;
            }
            PofBody.Error e = new PofBody.Error();
            e.type = 1;
            e.code = 2; // BAD_MULTIPART: an older pof-switch
            e.string = "multipart type is not PORT_STATS (4)";
            return new PofMessage(PofType.ERROR, m.xid(), e);
        });
        pollUntilAsked();
        provider.pollPortLatency();
        assertNull("asked again after the ERROR", ours.next(PofType.MULTIPART_REQUEST, 300));
        assertNull(latencyOf(OURS));
        assertTrue("the switch stays connected", controller.switches().get(OURS).isReady());
    }
}
