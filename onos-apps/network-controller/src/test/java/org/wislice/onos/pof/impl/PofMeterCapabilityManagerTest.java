package org.wislice.onos.pof.impl;

import org.junit.Before;
import org.junit.Test;
import org.onlab.osgi.ComponentContextAdapter;
import org.onlab.packet.ChassisId;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.provider.ProviderId;
import org.wislice.onos.pof.api.MeterEnforcement;
import org.wislice.onos.pof.wire.FeaturesReply;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.wislice.onos.pof.api.MeterEnforcement.Source.FEATURES;
import static org.wislice.onos.pof.api.MeterEnforcement.Source.OVERRIDE;

/** Which switches enforce meter rates: what their handshake said (device annotation), and the overrides. */
public class PofMeterCapabilityManagerTest {
    /** pof-switch: FEATURES_REPLY vendor_id "WiSlice". */
    static final DeviceId OURS = DeviceId.deviceId("pof:00000001");
    /** The reference switch: another vendor_id. */
    static final DeviceId REFERENCE = DeviceId.deviceId("pof:00000002");
    /** A device stored before the annotation existed. */
    static final DeviceId UNANNOTATED = DeviceId.deviceId("pof:00000003");
    static final DeviceId UNKNOWN = DeviceId.deviceId("pof:000000ff");

    private PofMeterCapabilityManager manager;

    /** A POF device as the device provider describes it, with the annotation its FEATURES_REPLY gave. */
    static Device device(DeviceId id, String metersEnforced) {
        return device(id, metersEnforced, null);
    }

    /** ... and the latency-meter annotation (null: a device stored before it existed). */
    static Device device(DeviceId id, String metersEnforced, String latencyMeters) {
        DefaultAnnotations.Builder a = DefaultAnnotations.builder().set("protocol", "POF");
        if (metersEnforced != null) {
            a.set(MeterEnforcement.ANNOTATION, metersEnforced);
        }
        if (latencyMeters != null) {
            a.set(MeterEnforcement.LATENCY_ANNOTATION, latencyMeters);
        }
        return new DefaultDevice(new ProviderId("pof", "t"), id, Device.Type.SWITCH, "v", "h", "s", "n",
                new ChassisId(1), a.build());
    }

    /** Devices of {@link #OURS}, {@link #REFERENCE} and {@link #UNANNOTATED}. */
    static final class Devices extends DeviceServiceAdapter {
        final Map<DeviceId, Device> byId = Map.of(OURS, device(OURS, "true"), REFERENCE, device(REFERENCE, "false"),
                UNANNOTATED, device(UNANNOTATED, null));

        @Override
        public Device getDevice(DeviceId id) {
            return byId.get(id);
        }

        @Override
        public Iterable<Device> getDevices() {
            return byId.values();
        }
    }

    static ComponentContextAdapter overrides(String spec) {
        return new ComponentContextAdapter() {
            @Override
            public Dictionary<String, Object> getProperties() {
                Dictionary<String, Object> p = new Hashtable<>();
                p.put(OsgiPropertyConstants.METER_ENFORCEMENT_OVERRIDES, spec);
                return p;
            }
        };
    }

    @Before
    public void setUp() {
        manager = new PofMeterCapabilityManager();
        manager.deviceService = new Devices();
        manager.cfgService = new ComponentConfigAdapter();
        manager.activate(overrides(""));
    }

    @Test
    public void theHandshakeSaysWhichSwitchEnforces() {
        assertEquals(new MeterEnforcement(true, FEATURES), manager.meterEnforcement(OURS));
        assertEquals(new MeterEnforcement(false, FEATURES), manager.meterEnforcement(REFERENCE));
        assertFalse(manager.meterEnforcement(UNANNOTATED).enforced);
        assertFalse("nothing known, nothing promised", manager.meterEnforcement(UNKNOWN).enforced);
    }

    @Test
    public void onlyPofSwitchsVendorIdMeansEnforced() {
        FeaturesReply f = new FeaturesReply();
        f.vendorId = "WiSlice";
        assertTrue(MeterEnforcement.learnedFrom(f));
        for (String other : new String[] {"", "WiSlice test", "wislice", "Huawei", " WiSlice"}) {
            f.vendorId = other;
            assertFalse(other, MeterEnforcement.learnedFrom(f));
        }
        assertFalse(MeterEnforcement.learnedFrom(null));
    }

    @Test
    public void overridesWinOverTheHandshake() {
        manager.modified(overrides(" pof:00000002=true, pof:00000001=false,pof:000000ff=true"));
        assertEquals(new MeterEnforcement(true, OVERRIDE), manager.meterEnforcement(REFERENCE));
        assertEquals(new MeterEnforcement(false, OVERRIDE), manager.meterEnforcement(OURS));
        assertEquals(new MeterEnforcement(true, OVERRIDE), manager.meterEnforcement(UNKNOWN));
        assertEquals(new MeterEnforcement(false, FEATURES), manager.meterEnforcement(UNANNOTATED));
        // Cleared: back to what the switches said.
        manager.modified(overrides(""));
        assertEquals(new MeterEnforcement(false, FEATURES), manager.meterEnforcement(REFERENCE));
    }

    @Test
    public void aBadOverrideListChangesNothing() {
        manager.modified(overrides("pof:00000002=true"));
        for (String bad : new String[] {"pof:00000002=yes", "pof:2=true", "of:0000000000000001=true",
                "pof:00000002", "pof:00000002=true,pof:00000002=false", "pof:00000002=true,,pof:00000001=true"}) {
            manager.modified(overrides(bad));
            assertEquals(bad, new MeterEnforcement(true, OVERRIDE), manager.meterEnforcement(REFERENCE));
            try {
                PofMeterCapabilityManager.parseOverrides(bad);
                fail(bad);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage(), e.getMessage().startsWith("entry '"));
            }
        }
    }

    @Test
    public void jsonShowsTheAnswerAndItsSource() {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        assertEquals("{\"meters_enforced\":false,\"meters_enforced_source\":\"features\"}",
                manager.meterEnforcement(REFERENCE).addTo(json.createObjectNode()).toString());
        manager.modified(overrides("pof:00000002=true"));
        assertEquals("{\"meters_enforced\":true,\"meters_enforced_source\":\"override\"}",
                manager.meterEnforcement(REFERENCE).addTo(json.createObjectNode()).toString());
    }
}
