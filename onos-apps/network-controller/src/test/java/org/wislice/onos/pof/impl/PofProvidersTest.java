package org.wislice.onos.pof.impl;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.ComponentContextAdapter;
import org.onosproject.TestApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.PortStatistics;
import org.onosproject.net.flow.CompletedBatchOperation;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.oldbatch.FlowRuleBatchEntry;
import org.onosproject.net.flow.oldbatch.FlowRuleBatchOperation;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.DefaultBand;
import org.onosproject.net.meter.DefaultMeter;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterOperation;
import org.onosproject.net.meter.MeterState;
import org.wislice.onos.pof.api.MeterEnforcement;
import org.wislice.onos.pof.api.PofController;
import org.wislice.onos.pof.api.PofTableLayout;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;
import org.wislice.onos.pof.channel.FakeSwitch;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.MultipartReply;
import org.wislice.onos.pof.wire.MultipartRequest;
import org.wislice.onos.pof.wire.PofAction;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofInstruction;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;
import org.wislice.onos.pof.wire.TableMod;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * The device, flow and meter providers over a real POF session to a fake switch on loopback, reporting into
 * recording provider registries: what ONOS would be told, and what goes on the wire.
 */
public class PofProvidersTest {
    private static final DeviceId DEV = DeviceId.deviceId("pof:00000001");

    private PofControllerImpl controller;
    private RecordingRegistries.Devices devices;
    private RecordingRegistries.Flows flows;
    private RecordingRegistries.Meters meters;
    private PofDeviceProvider deviceProvider;
    private PofFlowRuleProvider flowProvider;
    private PofMeterProvider meterProvider;
    private FakeSwitch sw;
    private int switchPort;

    @Before
    public void setUp() throws Exception {
        controller = new PofControllerImpl();
        switchPort = controller.start(0);
        devices = new RecordingRegistries.Devices();
        flows = new RecordingRegistries.Flows();
        meters = new RecordingRegistries.Meters();
        deviceProvider = new PofDeviceProvider();
        deviceProvider.providerRegistry = devices;
        deviceProvider.controller = controller;
        // Port statistics are polled by hand (pollPortStats) unless a test turns the period on.
        deviceProvider.activate(portStatsEvery(0));
        flowProvider = new PofFlowRuleProvider();
        flowProvider.providerRegistry = flows;
        flowProvider.controller = controller;
        flowProvider.mastershipService = new RecordingRegistries.Mastership();
        flowProvider.flowRuleService = new RecordingRegistries.StoredFlows();
        flowProvider.activate(null);
        meterProvider = new PofMeterProvider();
        meterProvider.providerRegistry = meters;
        meterProvider.controller = controller;
        meterProvider.activate();
        sw = new FakeSwitch(switchPort, 1, 2);
        sw.handshake();
        assertEquals("connected " + DEV, devices.events.poll(5, TimeUnit.SECONDS));
        // Listeners run in registration order (device, flow, meter): once the meter provider has pushed the
        // switch's meter features, every provider knows the switch.
        long until = System.currentTimeMillis() + 5000;
        while (meters.features.get(DEV) == null && System.currentTimeMillis() < until) {
            Thread.sleep(10);
        }
    }

    @After
    public void tearDown() throws Exception {
        sw.close();
        meterProvider.deactivate();
        flowProvider.deactivate();
        if (deviceProvider != null) {
            deviceProvider.deactivate();
        }
        controller.deactivate();
    }

    private static ComponentContextAdapter portStatsEvery(int seconds) {
        return new ComponentContextAdapter() {
            @Override
            public Dictionary<String, Object> getProperties() {
                Hashtable<String, Object> p = new Hashtable<>();
                p.put(OsgiPropertyConstants.PORT_STATS_POLL_SECONDS, seconds);
                return p;
            }
        };
    }

    /** PORT_STATS entries for ports 1 and 2 (port p: p * 1000 packets in, p * 64000 bytes in...). */
    private static MultipartReply.PortStats portStats(int p) {
        MultipartReply.PortStats s = new MultipartReply.PortStats();
        s.portNo = p;
        s.rxPackets = p * 1000L;
        s.txPackets = p * 2000L;
        s.rxBytes = p * 64_000L;
        s.txBytes = p * 128_000L;
        s.rxDropped = p;
        s.txDropped = 2L * p;
        s.rxErrors = 3L * p;
        s.txErrors = 4L * p;
        s.durationSec = 60 + p;
        s.durationNsec = 500;
        return s;
    }

    /** Answers MULTIPART_REQUEST with two replies (port 1 flagged REPLY_MORE, then port 2), as pof-switch may. */
    private void switchReportsPortStats() {
        sw.respondWithAll(m -> {
            if (m.type() != PofType.MULTIPART_REQUEST) {
                return List.of();
            }
            MultipartReply first = new MultipartReply();
            first.flags = MultipartReply.REPLY_MORE;
            first.stats.add(portStats(1));
            MultipartReply last = new MultipartReply();
            last.stats.add(portStats(2));
            return List.of(new PofMessage(PofType.MULTIPART_REPLY, m.xid(), first),
                    new PofMessage(PofType.MULTIPART_REPLY, m.xid(), last));
        });
    }

    private static PortStatistics ofPort(List<PortStatistics> stats, long port) {
        return stats.stream().filter(s -> s.portNumber().equals(PortNumber.portNumber(port))).findFirst()
                .orElseThrow(() -> new AssertionError("no statistics for port " + port + " in " + stats));
    }

    @Test
    public void aConnectingSwitchIsReportedEmptyAtOnceSoOnosReaddsItsFlows() throws Exception {
        // The statistics poll runs every 5 s here; the report that makes ONOS re-add a reconnected switch's
        // flows must not wait for it.
        long until = System.currentTimeMillis() + 2000;
        while (!flows.pushed.containsKey(DEV) && System.currentTimeMillis() < until) {
            Thread.sleep(10);
        }
        assertEquals("an empty report right after the handshake", List.of(), flows.pushed.get(DEV));
    }

    @Test
    public void portStatisticsArePolledEveryPeriodAndPushed() throws Exception {
        switchReportsPortStats();
        deviceProvider.modified(portStatsEvery(1));
        Map.Entry<DeviceId, List<PortStatistics>> update = devices.portStats.poll(5, TimeUnit.SECONDS);
        assertNotNull("port statistics pushed within the 1 s period", update);
        MultipartRequest req = sw.next(PofType.MULTIPART_REQUEST, 1000).body(MultipartRequest.class);
        assertEquals(MultipartRequest.PORT_STATS, req.mpType);
        assertEquals(MultipartRequest.ALL_PORTS, req.portNo);
        assertEquals(DEV, update.getKey());
        List<PortStatistics> stats = update.getValue();
        assertEquals("both replies of the request", 2, stats.size());
        PortStatistics p2 = ofPort(stats, 2);
        assertEquals(2000, p2.packetsReceived());
        assertEquals(4000, p2.packetsSent());
        assertEquals(128_000, p2.bytesReceived());
        assertEquals(256_000, p2.bytesSent());
        assertEquals(2, p2.packetsRxDropped());
        assertEquals(4, p2.packetsTxDropped());
        assertEquals(6, p2.packetsRxErrors());
        assertEquals(8, p2.packetsTxErrors());
        assertEquals(62, p2.durationSec());
        assertEquals(500, p2.durationNano());
        assertEquals(1000, ofPort(stats, 1).packetsReceived());
        assertNotNull("and again the next period", devices.portStats.poll(5, TimeUnit.SECONDS));

        // Polling stops with the provider, and its thread ends.
        deviceProvider.deactivate();
        deviceProvider = null;
        devices.portStats.clear();
        sw.received.clear();
        assertNull(sw.next(PofType.MULTIPART_REQUEST, 2500));
        assertTrue(devices.portStats.isEmpty());
        assertFalse("pof-port-stats thread left running", Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("pof-port-stats") && t.isAlive()));
    }

    @Test
    public void switchWithoutPortStatisticsIsNotAskedAgain() throws Exception {
        // The reference switch: MULTIPART is a type it does not know.
        sw.respondWith(m -> {
            if (m.type() != PofType.MULTIPART_REQUEST) {
                return null;
            }
            PofBody.Error e = new PofBody.Error();
            e.type = 1;
            e.code = 1;
            e.string = "message type not supported";
            return new PofMessage(PofType.ERROR, m.xid(), e);
        });
        deviceProvider.pollPortStats();
        assertNotNull(sw.next(PofType.MULTIPART_REQUEST, 5000));
        deviceProvider.pollPortStats();
        deviceProvider.pollPortStats();
        assertNull("asked again after the ERROR", sw.next(PofType.MULTIPART_REQUEST, 500));
        assertTrue(devices.portStats.isEmpty());
        assertTrue("the switch itself stays connected", deviceProvider.isReachable(DEV));

        // Reconnected (maybe with another switch binary), it is asked again.
        sw.close();
        assertEquals("ports " + DEV + " 2", devices.events.poll(5, TimeUnit.SECONDS));
        assertEquals("disconnected " + DEV, devices.events.poll(5, TimeUnit.SECONDS));
        deviceProvider.pollPortStats();
        assertTrue("nothing for a disconnected switch", devices.portStats.isEmpty());
        sw = new FakeSwitch(switchPort, 1, 2);
        switchReportsPortStats();
        sw.handshake();
        assertEquals("connected " + DEV, devices.events.poll(5, TimeUnit.SECONDS));
        Map.Entry<DeviceId, List<PortStatistics>> update = null;
        long until = System.currentTimeMillis() + 5000;
        while (update == null && System.currentTimeMillis() < until) {
            deviceProvider.pollPortStats();
            update = devices.portStats.poll(100, TimeUnit.MILLISECONDS);
        }
        assertNotNull("the reconnected switch is asked again", update);
        assertEquals(2, update.getValue().size());
    }

    @Test
    public void switchBecomesDeviceWithPortsAndSliceAndClientTables() throws Exception {
        assertEquals("ports " + DEV + " 2", devices.events.poll(5, TimeUnit.SECONDS));
        assertEquals("WiSlice test", devices.connected.get(DEV).manufacturer());
        assertEquals("wislice-pof", devices.connected.get(DEV).annotations().value("driver"));
        assertEquals("a vendor_id other than pof-switch's", "false",
                devices.connected.get(DEV).annotations().value(MeterEnforcement.ANNOTATION));
        assertTrue(devices.ports.get(DEV).stream().allMatch(p -> p.isEnabled()));
        assertEquals(10_000, devices.ports.get(DEV).get(0).portSpeed());
        TableMod drop = sw.next(PofType.TABLE_MOD, 5000).body(TableMod.class);
        assertEquals(TableMod.DELETE, drop.command);
        TableMod add = sw.next(PofType.TABLE_MOD, 5000).body(TableMod.class);
        assertEquals(TableMod.ADD, add.command);
        assertEquals(List.of(PofTableLayout.IN_PORT, PofTableLayout.TAG_WORD), add.matches);
        // The client table beside it (MM table 1): tag word + destination MAC, for slices with branches.
        TableMod dropClients = sw.next(PofType.TABLE_MOD, 5000).body(TableMod.class);
        assertEquals(TableMod.DELETE, dropClients.command);
        assertEquals(PofTableLayout.CLIENT_TABLE, dropClients.tableId);
        TableMod clients = sw.next(PofType.TABLE_MOD, 5000).body(TableMod.class);
        assertEquals(TableMod.ADD, clients.command);
        assertEquals(PofTableLayout.CLIENT_TABLE, clients.tableId);
        assertEquals(TableMod.MM, clients.tableType);
        assertEquals(List.of(PofTableLayout.TAG_WORD, PofTableLayout.DST_MAC), clients.matches);
        assertTrue(deviceProvider.isReachable(DEV));
        sw.close();
        assertEquals("disconnected " + DEV, devices.events.poll(5, TimeUnit.SECONDS));
    }

    @Test
    public void pofSwitchsVendorIdMarksADeviceThatEnforcesMeters() throws Exception {
        DeviceId ours = DeviceId.deviceId("pof:00000002");
        try (FakeSwitch pofSwitch = new FakeSwitch(switchPort, 2, 1)) {
            pofSwitch.vendorId = MeterEnforcement.WISLICE_VENDOR;
            pofSwitch.handshake();
            long until = System.currentTimeMillis() + 5000;
            while (!devices.connected.containsKey(ours) && System.currentTimeMillis() < until) {
                Thread.sleep(20);
            }
            assertEquals("true", devices.connected.get(ours).annotations().value(MeterEnforcement.ANNOTATION));
            assertEquals("false", devices.connected.get(DEV).annotations().value(MeterEnforcement.ANNOTATION));
        }
    }

    private static SlicePath twoHop() {
        return new SlicePath("s1", 3, 9, 0, false, List.of(new SlicePath.Hop("pof:00000001", 1, 2),
                new SlicePath.Hop("pof:00000002", 1, 2)), List.of());
    }

    @Test
    public void batchInstallsFlowModsAndCompletesAfterTheBarrier() throws Exception {
        FlowRule rule = SliceFlows.build(twoHop(), TestApplicationId.create("t"), Map.of()).get(0);
        flowProvider.executeBatch(new FlowRuleBatchOperation(List.of(
                new FlowRuleBatchEntry(FlowRuleBatchEntry.FlowRuleOperation.ADD, rule)), DEV, 1));
        CompletedBatchOperation done = flows.completed.poll(5, TimeUnit.SECONDS);
        assertNotNull(done);
        assertTrue(done.isSuccess());
        PofBody.Counter counter = sw.next(PofType.COUNTER_MOD, 5000).body(PofBody.Counter.class);
        FlowMod mod = sw.next(PofType.FLOW_MOD, 5000).body(FlowMod.class);
        assertEquals(FlowMod.ADD, mod.command);
        assertEquals(TableMod.MM, mod.tableType);
        assertEquals(0, mod.tableId);
        assertEquals(0, mod.index);
        assertEquals(counter.counterId, mod.counterId);
        assertEquals(rule.id().value(), mod.cookie);
        assertEquals(SliceFlows.EDGE_PRIORITY, mod.priority);
        List<PofAction> actions = ((PofInstruction.ApplyActions) mod.instructions.get(0)).actions;
        assertTrue(actions.get(0) instanceof PofAction.AddField);
        assertEquals(2L, (long) ((PofAction.Output) actions.get(1)).value);
        List<FlowEntry> pushed = flows.pushed.get(DEV);
        assertEquals(1, pushed.size());
        assertEquals(FlowEntry.FlowEntryState.ADDED, pushed.get(0).state());

        // Counters feed the flow statistics.
        sw.respondWith(m -> {
            if (m.type() != PofType.COUNTER_REQUEST) {
                return null;
            }
            PofBody.Counter c = m.body(PofBody.Counter.class);
            c.packets = 10;
            c.bytes = 640;
            return new PofMessage(PofType.COUNTER_REPLY, m.xid(), c);
        });
        flowProvider.poll(DEV);
        assertEquals(10, flows.pushed.get(DEV).get(0).packets());
        assertEquals(640, flows.pushed.get(DEV).get(0).bytes());

        flowProvider.executeBatch(new FlowRuleBatchOperation(List.of(
                new FlowRuleBatchEntry(FlowRuleBatchEntry.FlowRuleOperation.REMOVE, rule)), DEV, 2));
        assertTrue(flows.completed.poll(5, TimeUnit.SECONDS).isSuccess());
        FlowMod del = sw.next(PofType.FLOW_MOD, 5000).body(FlowMod.class);
        assertEquals(FlowMod.DELETE, del.command);
        assertEquals(0, del.index);
        assertTrue(flows.pushed.get(DEV).isEmpty());
    }

    @Test
    public void flowTheSwitchRefusesIsReportedFailed() throws Exception {
        sw.respondWith(m -> {
            if (m.type() != PofType.FLOW_MOD) {
                return null;
            }
            PofBody.Error e = new PofBody.Error();
            e.type = 5;
            e.code = 2;
            e.string = "refused by test";
            return new PofMessage(PofType.ERROR, m.xid(), e);
        });
        List<FlowRule> rules = SliceFlows.build(twoHop(), TestApplicationId.create("t"), Map.of());
        FlowRule onDev1 = rules.get(0);
        flowProvider.executeBatch(new FlowRuleBatchOperation(List.of(
                new FlowRuleBatchEntry(FlowRuleBatchEntry.FlowRuleOperation.ADD, onDev1)), DEV, 3));
        CompletedBatchOperation done = flows.completed.poll(5, TimeUnit.SECONDS);
        assertFalse(done.isSuccess());
        assertEquals(java.util.Set.of(onDev1), done.failedItems());
        assertTrue(flows.pushed.get(DEV).isEmpty());
    }

    @Test
    public void meterBecomesPofMeterAndIsPushedAdded() throws Exception {
        assertNotNull("meter features from the RESOURCE_REPORT", meters.features.get(DEV));
        assertEquals(255, meters.features.get(DEV).maxMeter());
        Band band = DefaultBand.builder().ofType(Band.Type.DROP).withRate(5000).burstSize(0).build();
        Meter meter = DefaultMeter.builder().forDevice(DEV).withId(MeterId.meterId(4))
                .fromApp(TestApplicationId.create("t")).withUnit(Meter.Unit.KB_PER_SEC).withBands(List.of(band))
                .build();
        meterProvider.performMeterOperation(DEV, new MeterOperation(meter, MeterOperation.Type.ADD));
        PofBody.MeterMod mod = sw.next(PofType.METER_MOD, 5000).body(PofBody.MeterMod.class);
        assertEquals(PofBody.MeterMod.ADD, mod.command);
        assertEquals(4, mod.meterId);
        assertEquals(5000, mod.rate);
        Meter pushed = firstPushed();
        assertEquals(MeterState.ADDED, pushed.state());
        assertEquals(MeterId.meterId(4), pushed.id());

        Meter pkts = DefaultMeter.builder().forDevice(DEV).withId(MeterId.meterId(5))
                .fromApp(TestApplicationId.create("t")).withUnit(Meter.Unit.PKTS_PER_SEC).withBands(List.of(band))
                .build();
        meterProvider.performMeterOperation(DEV, new MeterOperation(pkts, MeterOperation.Type.ADD));
        assertNotNull("packet-rate meters are refused", meters.failures.poll(5, TimeUnit.SECONDS));
    }

    @Test
    public void meterLeftOnTheSwitchByAnEarlierSessionIsReplaced() throws Exception {
        // After ONOS restarts it allocates meter ids afresh; the switch still holds its meters, refuses the ADD.
        sw.respondWith(m -> {
            if (m.type() != PofType.METER_MOD || m.body(PofBody.MeterMod.class).command != PofBody.MeterMod.ADD) {
                return null;
            }
            PofBody.Error e = new PofBody.Error();
            e.type = PofBody.MeterMod.METER_MOD_FAILED;
            e.code = PofBody.MeterMod.METER_EXISTS;
            e.string = "meter exists";
            return new PofMessage(PofType.ERROR, m.xid(), e);
        });
        meterProvider.performMeterOperation(DEV, new MeterOperation(meter(9, band(Band.Type.DROP, 3000)),
                MeterOperation.Type.ADD));
        assertEquals(PofBody.MeterMod.ADD, sw.next(PofType.METER_MOD, 5000).body(PofBody.MeterMod.class).command);
        PofBody.MeterMod again = sw.next(PofType.METER_MOD, 5000).body(PofBody.MeterMod.class);
        assertEquals(PofBody.MeterMod.MODIFY, again.command);
        assertEquals(9, again.meterId);
        assertEquals(3000, again.rate);
        assertEquals(MeterId.meterId(9), firstPushed().id());
        assertTrue("no failure reported", meters.failures.isEmpty());
    }

    /** The first meter the provider pushed to ONOS, within 5 s. */
    private Meter firstPushed() throws InterruptedException {
        long deadline = System.currentTimeMillis() + 5000;
        while (meters.pushed.getOrDefault(DEV, List.of()).isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        return meters.pushed.get(DEV).iterator().next();
    }

    private static Meter meter(long id, Band... bands) {
        return DefaultMeter.builder().forDevice(DEV).withId(MeterId.meterId(id))
                .fromApp(TestApplicationId.create("t")).withUnit(Meter.Unit.KB_PER_SEC).withBands(List.of(bands))
                .build();
    }

    private static Band band(Band.Type type, long rate) {
        Band.Builder b = DefaultBand.builder().ofType(type).withRate(rate).burstSize(0);
        if (type == Band.Type.REMARK) {
            b.dropPrecedence((short) 1); // ONOS wants one on REMARK bands only
        }
        return b.build();
    }

    @Test
    public void twoRateMeterCarriesItsCommittedRate() throws Exception {
        assertTrue(meters.features.get(DEV).bandTypes().contains(Band.Type.MARK_YELLOW));
        // The slice manager's bands for a guarantee of 2000 kbps under a cap of 9000 kbps.
        Meter twoRate = DefaultMeter.builder().forDevice(DEV).withId(MeterId.meterId(6))
                .fromApp(TestApplicationId.create("t")).withUnit(Meter.Unit.KB_PER_SEC)
                .withBands(SliceMeters.bands(new SliceRates(2000, 9000))).build();
        meterProvider.performMeterOperation(DEV, new MeterOperation(twoRate, MeterOperation.Type.ADD));
        PofBody.MeterMod mod = sw.next(PofType.METER_MOD, 5000).body(PofBody.MeterMod.class);
        assertEquals(PofBody.MeterMod.ADD, mod.command);
        assertEquals(6, mod.meterId);
        assertEquals(9000, mod.rate);
        assertEquals(2000, mod.committedRate);

        // Band order does not matter; REMARK carries a committed rate as MARK_YELLOW does.
        meterProvider.performMeterOperation(DEV, new MeterOperation(meter(7, band(Band.Type.REMARK, 10),
                band(Band.Type.DROP, 20)), MeterOperation.Type.ADD));
        PofBody.MeterMod remark = sw.next(PofType.METER_MOD, 5000).body(PofBody.MeterMod.class);
        assertEquals(20, remark.rate);
        assertEquals(10, remark.committedRate);

        // A single DROP band is a single-rate meter: committed_rate 0 (the reference's pad bytes).
        assertEquals(0, PofMeterProvider.toMeterMod(new MeterOperation(meter(8, band(Band.Type.DROP, 5)),
                MeterOperation.Type.ADD)).committedRate);
        // Deleting needs no rates.
        PofBody.MeterMod del = PofMeterProvider.toMeterMod(new MeterOperation(twoRate, MeterOperation.Type.REMOVE));
        assertEquals(PofBody.MeterMod.DELETE, del.command);
        assertEquals(0, del.rate);
    }

    @Test
    public void metersPofCannotHoldAreRefused() throws Exception {
        Meter[] bad = {
            meter(9, band(Band.Type.DROP, 10), band(Band.Type.MARK_YELLOW, 11)),
            meter(10, band(Band.Type.MARK_YELLOW, 10)),
            meter(11, band(Band.Type.DROP, 10), band(Band.Type.DROP, 5)),
            meter(12, band(Band.Type.DROP, 10), band(Band.Type.MARK_YELLOW, 5), band(Band.Type.MARK_RED, 1)),
            meter(13, band(Band.Type.DROP, 0x1_0000_0000L)),
        };
        for (Meter m : bad) {
            meterProvider.performMeterOperation(DEV, new MeterOperation(m, MeterOperation.Type.ADD));
            assertNotNull("refused: " + m.bands(), meters.failures.poll(5, TimeUnit.SECONDS));
        }
        assertNull("nothing sent", sw.next(PofType.METER_MOD, 300));
    }

    @Test
    public void deviceIdIsPofAndEightHexDigits() {
        assertEquals(DEV, PofController.deviceId(1));
        assertEquals("pof:0000abcd", PofController.deviceId(0xabcd).toString());
    }
}
