package org.wislice.onos.pof.impl;

import org.onosproject.TestApplicationId;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleServiceAdapter;
import org.onosproject.net.meter.DefaultMeter;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterRequest;
import org.onosproject.net.meter.MeterServiceAdapter;
import org.onosproject.net.meter.MeterState;
import org.onosproject.store.service.TestStorageService;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.wislice.onos.pof.api.SliceException;

import static org.junit.Assert.fail;

/**
 * The slice manager on ONOS service adapters, the real meter capability manager and the real distributed-map code
 * on TestStorageService; records the flow operations and meters it is asked for. Switches {@link #D1}-{@link #D3}
 * enforce meter rates (their handshake said so), {@link #D1} and {@link #D2} announced latency meters too,
 * {@link #REF} is reference-like; all have ports 1-4.
 */
final class SliceManagerHarness {
    static final String D1 = "pof:00000001";
    static final String D2 = "pof:00000002";
    static final String D3 = "pof:00000003";
    static final String REF = "pof:00000004";

    final List<FlowRuleOperation> flowOps = new ArrayList<>();
    /** What ONOS's flow store holds, by flow id (added and not removed again). */
    final Map<FlowId, FlowRule> installed = new ConcurrentHashMap<>();
    final Map<String, Meter> meters = new HashMap<>();
    final List<MeterId> withdrawn = new ArrayList<>();
    boolean refuseFlows;
    /** Run once at the next meter submission, or before the next flow batch is recorded (another node's act). */
    Runnable atNextMeter;
    Runnable atNextFlows;
    /** Switches that are not connected at the moment (the others of D1-D3 and REF are). */
    final java.util.Set<String> away = ConcurrentHashMap.newKeySet();
    final PofSliceManager manager = new PofSliceManager();
    final PofMeterCapabilityManager capabilities = new PofMeterCapabilityManager();

    SliceManagerHarness() {
        manager.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return TestApplicationId.create(name);
            }
        };
        manager.deviceService = new Devices(away);
        manager.flowRuleService = new FlowRuleServiceAdapter() {
            @Override
            public void apply(FlowRuleOperations ops) {
                Runnable first = atNextFlows;
                atNextFlows = null;
                if (first != null) {
                    first.run();
                }
                ops.stages().forEach(flowOps::addAll);
                if (refuseFlows) {
                    ops.callback().onError(ops);
                    return;
                }
                ops.stages().forEach(stage -> stage.forEach(o -> {
                    if (o.type() == FlowRuleOperation.Type.REMOVE) {
                        installed.remove(o.rule().id());
                    } else {
                        installed.put(o.rule().id(), o.rule());
                    }
                }));
                ops.callback().onSuccess(ops);
            }

            @Override
            public Iterable<FlowEntry> getFlowEntries(DeviceId deviceId) {
                return installed.values().stream().filter(r -> r.deviceId().equals(deviceId))
                        .map(r -> (FlowEntry) new DefaultFlowEntry(r, FlowEntry.FlowEntryState.ADDED))
                        .collect(Collectors.toList());
            }
        };
        manager.meterService = new MeterServiceAdapter() {
            private long next = 1;

            @Override
            public Meter submit(MeterRequest request) {
                Runnable first = atNextMeter;
                atNextMeter = null;
                if (first != null) {
                    first.run();
                }
                DefaultMeter m = (DefaultMeter) DefaultMeter.builder().forDevice(request.deviceId())
                        .withId(MeterId.meterId(next++)).fromApp(request.appId()).withUnit(request.unit())
                        .withBands(request.bands()).withAnnotations(request.annotations()).build();
                m.setState(MeterState.ADDED);
                meters.put(request.deviceId() + "/" + m.id().id(), m);
                return m;
            }

            @Override
            public Meter getMeter(DeviceId deviceId, MeterId id) {
                return meters.get(deviceId + "/" + id.id());
            }

            @Override
            public void withdraw(MeterRequest request, MeterId meterId) {
                withdrawn.add(meterId);
                meters.remove(request.deviceId() + "/" + meterId.id());
            }
        };
        manager.storageService = new TestStorageService();
        capabilities.deviceService = manager.deviceService;
        capabilities.cfgService = new ComponentConfigAdapter();
        capabilities.activate(PofMeterCapabilityManagerTest.overrides(""));
        manager.meterCapabilities = capabilities;
        manager.activate();
    }

    /** Sets the meterEnforcementOverrides component property. */
    void overrides(String spec) {
        capabilities.modified(PofMeterCapabilityManagerTest.overrides(spec));
    }

    /** The connected switches. */
    private static final class Devices extends DeviceServiceAdapter {
        private final java.util.Set<String> away;

        Devices(java.util.Set<String> away) {
            this.away = away;
        }

        @Override
        public Device getDevice(DeviceId id) {
            if (id.toString().equals(REF)) {
                return PofMeterCapabilityManagerTest.device(id, "false");
            }
            if (List.of(D1, D2).contains(id.toString())) {
                return PofMeterCapabilityManagerTest.device(id, "true", "true");
            }
            return D3.equals(id.toString()) ? PofMeterCapabilityManagerTest.device(id, "true") : null;
        }

        @Override
        public boolean isAvailable(DeviceId id) {
            return getDevice(id) != null && !away.contains(id.toString());
        }

        @Override
        public Port getPort(DeviceId id, PortNumber n) {
            return getDevice(id) != null && n.toLong() >= 1 && n.toLong() <= 4
                    ? new DefaultPort(getDevice(id), n, true) : null;
        }
    }

    /** The SliceException that r throws; fails the test when it throws none. */
    static SliceException refused(Runnable r) {
        try {
            r.run();
        } catch (SliceException e) {
            return e;
        }
        fail("expected a SliceException");
        return null;
    }
}
