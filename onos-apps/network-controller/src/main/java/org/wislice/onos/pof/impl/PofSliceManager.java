package org.wislice.onos.pof.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.DefaultBand;
import org.onosproject.net.meter.DefaultMeterRequest;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterRequest;
import org.onosproject.net.meter.MeterService;
import org.onosproject.net.meter.MeterState;
import org.onosproject.store.serializers.KryoNamespaces;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.StorageService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Installs and removes slice paths: meters first (so no packet of the slice is ever unmetered), then the flows
 * of both directions through ONOS's FlowRuleService; stores the slice (JSON in a ConsistentMap) only once all
 * of it is on the switches, and takes back what it installed when any part fails.
 */
@Component(immediate = true, service = PofSliceService.class)
public class PofSliceManager implements PofSliceService {
    public static final String APP_NAME = "org.wislice.pof";
    static final long INSTALL_TIMEOUT_MS = 15_000;
    private final Logger log = getLogger(getClass());
    private final ObjectMapper mapper = new ObjectMapper();

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleService flowRuleService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected MeterService meterService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    private ApplicationId appId;
    private ConsistentMap<String, String> slices;

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(APP_NAME);
        slices = storageService.<String, String>consistentMapBuilder()
                .withName("wislice-pof-slices")
                .withSerializer(Serializer.using(KryoNamespaces.API))
                .build();
        log.info("Started POF slice manager ({} slices stored)", slices.size());
    }

    @Deactivate
    protected void deactivate() {
        log.info("Stopped POF slice manager");
    }

    @Override
    public List<SlicePath> slices() {
        return slices.values().stream().map(v -> parse(v.value())).collect(Collectors.toList());
    }

    @Override
    public Optional<SlicePath> slice(String sliceId) {
        return Optional.ofNullable(slices.get(sliceId)).map(v -> parse(v.value()));
    }

    @Override
    public synchronized SlicePath addSlice(SlicePath request) {
        if (slices.containsKey(request.sliceId)) {
            throw SliceException.conflict("slice " + request.sliceId + " exists");
        }
        List<SlicePath> existing = slices();
        checkHops(request);
        SlicePath path = request.withTag(pickTag(request.tag, existing));
        checkEdges(path, existing);

        Map<String, MeterId> meterIds = new HashMap<>();
        List<SlicePath.MeterRef> refs = new ArrayList<>();
        List<FlowRule> rules = List.of();
        try {
            if (path.rateKbps > 0) {
                SliceFlows.directions(path).forEach((direction, hops) -> {
                    for (int i = 0; i < hops.size(); i++) {
                        SlicePath.Hop hop = hops.get(i);
                        Meter m = meterService.submit(meterRequest(hop.deviceId, path.rateKbps).add());
                        meterIds.put(SliceFlows.meterKey(direction, i, hop), m.id());
                        refs.add(new SlicePath.MeterRef(hop.deviceId, direction, m.id().id()));
                    }
                });
                awaitMeters(refs);
            }
            rules = SliceFlows.build(path, appId, meterIds);
            applyFlows(rules, true);
        } catch (SliceException | IllegalArgumentException | IllegalStateException e) {
            log.warn("slice {}: install failed, rolling back: {}", path.sliceId, e.getMessage());
            removeQuietly(rules, refs, path.rateKbps);
            throw e instanceof SliceException ? (SliceException) e
                    : new SliceException("internal", 500, e.getMessage());
        }
        SlicePath installed = path.withMeters(refs);
        slices.put(installed.sliceId, installed.toJson(mapper).toString());
        log.info("slice {} installed: tag {}, {} flows, {} meters", installed.sliceId, installed.tag,
                rules.size(), refs.size());
        return installed;
    }

    @Override
    public synchronized void removeSlice(String sliceId) {
        SlicePath path = slice(sliceId).orElseThrow(() -> SliceException.notFound("no slice " + sliceId));
        // Flow ids come from tag, direction and hop, so rebuilding the rules finds the installed ones.
        List<FlowRule> rules = SliceFlows.build(path, appId, Map.of());
        try {
            applyFlows(rules, false);
        } catch (SliceException e) {
            // A switch that is gone took its flows with it; the slice is removed anyway.
            log.warn("slice {}: some flows not confirmed removed: {}", sliceId, e.getMessage());
        }
        for (SlicePath.MeterRef m : path.meters) {
            meterService.withdraw(meterRequest(m.deviceId, path.rateKbps).remove(), MeterId.meterId(m.meterId));
        }
        slices.remove(sliceId);
        log.info("slice {} removed", sliceId);
    }

    private void removeQuietly(List<FlowRule> rules, List<SlicePath.MeterRef> meters, long rate) {
        try {
            if (!rules.isEmpty()) {
                applyFlows(rules, false);
            }
        } catch (RuntimeException e) {
            log.warn("rollback of flows failed: {}", e.getMessage());
        }
        for (SlicePath.MeterRef m : meters) {
            meterService.withdraw(meterRequest(m.deviceId, rate).remove(), MeterId.meterId(m.meterId));
        }
    }

    /** Every hop's switch is a connected POF device with both ports. */
    private void checkHops(SlicePath path) {
        for (SlicePath.Hop hop : path.hops) {
            DeviceId id = DeviceId.deviceId(hop.deviceId);
            Device device = deviceService.getDevice(id);
            if (device == null || !deviceService.isAvailable(id)) {
                throw SliceException.badRequest(hop.deviceId + " is not a connected POF switch");
            }
            for (int port : new int[] {hop.inPort, hop.outPort}) {
                if (deviceService.getPort(id, PortNumber.portNumber(port)) == null) {
                    throw SliceException.badRequest(hop.deviceId + " has no port " + port);
                }
            }
        }
    }

    /** The requested tag if free, else (when 0) the lowest free one. */
    private static int pickTag(int wanted, List<SlicePath> existing) {
        Set<Integer> used = existing.stream().map(s -> s.tag).collect(Collectors.toSet());
        if (wanted != 0) {
            if (used.contains(wanted)) {
                throw SliceException.conflict("tag " + wanted + " is used by another slice");
            }
            return wanted;
        }
        for (int t = 1; t <= 0xffff; t++) {
            if (!used.contains(t)) {
                return t;
            }
        }
        throw new SliceException("capacity", 409, "all 65535 slice tags are in use");
    }

    /** An edge port classifies traffic into exactly one slice: no two slices may enter on the same port. */
    private static void checkEdges(SlicePath path, List<SlicePath> existing) {
        Set<String> taken = new HashSet<>();
        for (SlicePath s : existing) {
            SliceFlows.directions(s).values().forEach(h -> taken.add(h.get(0).deviceId + "/" + h.get(0).inPort));
        }
        for (List<SlicePath.Hop> hops : SliceFlows.directions(path).values()) {
            String edge = hops.get(0).deviceId + "/" + hops.get(0).inPort;
            if (taken.contains(edge)) {
                throw SliceException.conflict("port " + edge + " already classifies another slice");
            }
        }
    }

    private MeterRequest.Builder meterRequest(String deviceId, long rateKbps) {
        Band band = DefaultBand.builder().ofType(Band.Type.DROP).withRate(rateKbps).burstSize(0).build();
        return DefaultMeterRequest.builder()
                .forDevice(DeviceId.deviceId(deviceId))
                .fromApp(appId)
                .withUnit(Meter.Unit.KB_PER_SEC)
                .withBands(List.of(band));
    }

    /** Waits until every meter is ADDED (the switch confirmed it). */
    private void awaitMeters(List<SlicePath.MeterRef> refs) {
        long deadline = System.currentTimeMillis() + INSTALL_TIMEOUT_MS;
        for (SlicePath.MeterRef ref : refs) {
            while (true) {
                Meter m = meterService.getMeter(DeviceId.deviceId(ref.deviceId), MeterId.meterId(ref.meterId));
                if (m != null && m.state() == MeterState.ADDED) {
                    break;
                }
                if (System.currentTimeMillis() > deadline) {
                    throw new SliceException("timeout", 504, "meter " + ref.meterId + " on " + ref.deviceId
                            + " not confirmed by the switch");
                }
                sleep();
            }
        }
    }

    /** Adds or removes the rules as one FlowRuleOperations and waits for the providers to confirm. */
    private void applyFlows(List<FlowRule> rules, boolean add) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        rules.forEach(r -> {
            if (add) {
                ops.add(r);
            } else {
                ops.remove(r);
            }
        });
        flowRuleService.apply(ops.build(new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations o) {
                done.complete(null);
            }

            @Override
            public void onError(FlowRuleOperations o) {
                done.completeExceptionally(new SliceException("internal", 500,
                        "a switch refused the slice's flows"));
            }
        }));
        try {
            done.get(INSTALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new SliceException("timeout", 504, "switches did not confirm the slice's flows in time");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof SliceException ? (SliceException) e.getCause()
                    : new SliceException("internal", 500, String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SliceException("internal", 500, "interrupted");
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SliceException("internal", 500, "interrupted");
        }
    }

    private SlicePath parse(String json) {
        try {
            return SlicePath.fromJson(mapper.readTree(json));
        } catch (IOException e) {
            throw new IllegalStateException("stored slice is not JSON: " + e.getMessage(), e);
        }
    }
}
