package org.wislice.onos.pof.impl;

import org.onosproject.mastership.MastershipServiceAdapter;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRuleServiceAdapter;
import org.onosproject.net.device.DeviceDescription;
import org.onosproject.net.device.DeviceProvider;
import org.onosproject.net.device.DeviceProviderRegistryAdapter;
import org.onosproject.net.device.DeviceProviderService;
import org.onosproject.net.device.DeviceProviderServiceAdapter;
import org.onosproject.net.device.PortDescription;
import org.onosproject.net.device.PortStatistics;
import org.onosproject.net.flow.CompletedBatchOperation;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRuleProvider;
import org.onosproject.net.flow.FlowRuleProviderRegistry;
import org.onosproject.net.flow.FlowRuleProviderService;
import org.onosproject.net.flow.TableStatisticsEntry;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterFailReason;
import org.onosproject.net.meter.MeterFeatures;
import org.onosproject.net.meter.MeterOperation;
import org.onosproject.net.meter.MeterProvider;
import org.onosproject.net.meter.MeterProviderRegistry;
import org.onosproject.net.meter.MeterProviderService;
import org.onosproject.net.provider.ProviderId;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

/** Provider registries whose provider services record what the providers report. */
final class RecordingRegistries {

    private RecordingRegistries() {
    }

    /** Device provider service: devices and their ports as last reported; port statistics in order. */
    static final class Devices extends DeviceProviderRegistryAdapter {
        final Map<DeviceId, DeviceDescription> connected = new ConcurrentHashMap<>();
        final Map<DeviceId, List<PortDescription>> ports = new ConcurrentHashMap<>();
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        /** Every updatePortStatistics call (kept apart from events: polls run in the background). */
        final BlockingQueue<Map.Entry<DeviceId, List<PortStatistics>>> portStats = new LinkedBlockingQueue<>();

        @Override
        public DeviceProviderService register(DeviceProvider provider) {
            return new DeviceProviderServiceAdapter() {
                @Override
                public void deviceConnected(DeviceId id, DeviceDescription d) {
                    connected.put(id, d);
                    events.add("connected " + id);
                }

                @Override
                public void deviceDisconnected(DeviceId id) {
                    connected.remove(id);
                    events.add("disconnected " + id);
                }

                @Override
                public void updatePorts(DeviceId id, List<PortDescription> list) {
                    ports.put(id, list);
                    events.add("ports " + id + " " + list.size());
                }

                @Override
                public void portStatusChanged(DeviceId id, PortDescription p) {
                    events.add("port " + id + " " + p.portNumber());
                }

                @Override
                public void updatePortStatistics(DeviceId id, Collection<PortStatistics> stats) {
                    portStats.add(Map.entry(id, List.copyOf(stats)));
                }
            };
        }
    }

    /** Flow provider service: batch completions and pushed entries. */
    /** Mastership as a test sets it: this node masters every device while {@code local} is true. */
    static final class Mastership extends MastershipServiceAdapter {
        volatile boolean local = true;

        @Override
        public boolean isLocalMaster(DeviceId deviceId) {
            return local;
        }
    }

    /** ONOS's flow store as a test sets it: the entries getFlowEntries answers, or an exception while it fails. */
    static final class StoredFlows extends FlowRuleServiceAdapter {
        final List<FlowEntry> entries = new CopyOnWriteArrayList<>();
        volatile RuntimeException failure;

        @Override
        public Iterable<FlowEntry> getFlowEntries(DeviceId deviceId) {
            if (failure != null) {
                throw failure;
            }
            return List.copyOf(entries);
        }
    }

    static final class Flows implements FlowRuleProviderRegistry {
        final BlockingQueue<CompletedBatchOperation> completed = new LinkedBlockingQueue<>();
        final Map<DeviceId, List<FlowEntry>> pushed = new ConcurrentHashMap<>();

        @Override
        public FlowRuleProviderService register(FlowRuleProvider provider) {
            return new FlowRuleProviderService() {
                @Override
                public void flowRemoved(FlowEntry flowEntry) {
                }

                @Override
                public void pushFlowMetrics(DeviceId deviceId, Iterable<FlowEntry> entries) {
                    List<FlowEntry> list = new ArrayList<>();
                    entries.forEach(list::add);
                    pushed.put(deviceId, list);
                }

                @Override
                public void pushFlowMetricsWithoutFlowMissing(DeviceId deviceId, Iterable<FlowEntry> entries) {
                    pushFlowMetrics(deviceId, entries);
                }

                @Override
                public void pushTableStatistics(DeviceId deviceId, List<TableStatisticsEntry> list) {
                }

                @Override
                public void batchOperationCompleted(long batchId, CompletedBatchOperation operation) {
                    completed.add(operation);
                }

                @Override
                public FlowRuleProvider provider() {
                    return provider;
                }
            };
        }

        @Override
        public void unregister(FlowRuleProvider provider) {
        }

        @Override
        public Set<ProviderId> getProviders() {
            return Set.of();
        }
    }

    /** Meter provider service: pushed meters, features and failures. */
    static final class Meters implements MeterProviderRegistry {
        final Map<DeviceId, Collection<Meter>> pushed = new ConcurrentHashMap<>();
        final Map<DeviceId, MeterFeatures> features = new ConcurrentHashMap<>();
        final BlockingQueue<MeterFailReason> failures = new LinkedBlockingQueue<>();

        @Override
        public MeterProviderService register(MeterProvider provider) {
            return new MeterProviderService() {
                @Override
                public void meterOperationFailed(MeterOperation operation, MeterFailReason reason) {
                    failures.add(reason);
                }

                @Override
                public void pushMeterMetrics(DeviceId deviceId, Collection<Meter> meterEntries) {
                    pushed.put(deviceId, List.copyOf(meterEntries));
                }

                @Override
                public void pushMeterFeatures(DeviceId deviceId, MeterFeatures meterfeatures) {
                    features.put(deviceId, meterfeatures);
                }

                @Override
                public void pushMeterFeatures(DeviceId deviceId, Collection<MeterFeatures> meterfeatures) {
                    meterfeatures.forEach(f -> features.put(deviceId, f));
                }

                @Override
                public void deleteMeterFeatures(DeviceId deviceId) {
                    features.remove(deviceId);
                }

                @Override
                public MeterProvider provider() {
                    return provider;
                }
            };
        }

        @Override
        public void unregister(MeterProvider provider) {
        }

        @Override
        public Set<ProviderId> getProviders() {
            return Set.of();
        }
    }
}
