package org.wislice.onos.pof.impl;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterService;
import org.onosproject.store.serializers.KryoNamespaces;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.wislice.onos.pof.api.LatencyClass;
import org.wislice.onos.pof.api.PofMeterCapabilityService;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.pof.api.SliceBranch;
import org.wislice.onos.pof.api.SliceClient;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Installs and removes slice paths: meters first (so no packet of the slice is ever unmetered), then the flows
 * of both directions through ONOS's FlowRuleService; stores the slice (JSON in a ConsistentMap) only once all
 * of it is on the switches, and takes back what it installed when any part fails. A live path's rates change
 * without interrupting it: ONOS 2.5's MeterService cannot modify a meter (submit with an index needs the global
 * user-defined-index mode), so new meters are installed, the flows re-pointed with FLOW_MOD MODIFY, and the old
 * meters removed after.
 */
@Component(immediate = true, service = PofSliceService.class)
public class PofSliceManager implements PofSliceService {
    public static final String APP_NAME = "org.wislice.pof";
    static final long INSTALL_TIMEOUT_MS = 15_000;
    /** Seconds between checks that every stored slice path still has its flows and meters in ONOS. */
    static final long REPAIR_PERIOD_S = 3;
    static final long RECONNECT_DELAY_MS = 200;
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

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PofMeterCapabilityService meterCapabilities;

    private ApplicationId appId;
    private ConsistentMap<String, String> slices;
    private ScheduledExecutorService repairer;
    private SliceInstaller installer;
    private SliceClientPlacer placer;
    private final DeviceListener reconnects = new Reconnects();

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(APP_NAME);
        installer = new SliceInstaller(flowRuleService, meterService);
        slices = storageService.<String, String>consistentMapBuilder()
                .withName("wislice-pof-slices")
                .withSerializer(Serializer.using(KryoNamespaces.API))
                .build();
        placer = new SliceClientPlacer(appId, installer, slices);
        repairer = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "pof-slice-repair"));
        repairer.scheduleWithFixedDelay(this::repairAll, REPAIR_PERIOD_S, REPAIR_PERIOD_S, TimeUnit.SECONDS);
        deviceService.addListener(reconnects);
        log.info("Started POF slice manager ({} slices stored)", slices.size());
    }

    @Deactivate
    protected void deactivate() {
        deviceService.removeListener(reconnects);
        repairer.shutdownNow();
        log.info("Stopped POF slice manager");
    }

    /** Every stored path that lacks flows or meters in ONOS gets them again (see repair). */
    void repairAll() {
        for (SlicePath path : slices()) {
            try {
                repair(path.sliceId);
            } catch (RuntimeException e) {
                log.warn("slice {}: repair failed (tried again in {} s): {}", path.sliceId, REPAIR_PERIOD_S,
                        e.getMessage());
            }
        }
    }

    /**
     * The slice paths are kept in a ConsistentMap, ONOS's flow and meter stores by the runtime (in memory on the
     * single-node runtime): after ONOS restarts, a path is stored but its flows and meters are not, and nothing
     * would install them again. Each connected switch gets its lost meters (new ids: the switch's old ones are a
     * previous session's) and its missing flows at once, without waiting for the path's other switches: the
     * controller recreated its slice table when it connected, so until then it carries none of the slice.
     *
     * @return true when something was installed again
     */
    synchronized boolean repair(String sliceId) {
        Versioned<String> stored = slices.get(sliceId);
        if (stored == null) {
            return false;
        }
        SlicePath path = parse(stored.value());
        List<SlicePath.MeterRef> refs = new ArrayList<>();
        List<SlicePath.MeterRef> added = new ArrayList<>();
        for (SlicePath.MeterRef m : path.meters) {
            DeviceId device = DeviceId.deviceId(m.deviceId);
            if (meterService.getMeter(device, MeterId.meterId(m.meterId)) != null
                    || !deviceService.isAvailable(device)) {
                refs.add(m); // known, or its switch is away (repaired when it is back)
                continue;
            }
            Meter again = meterService.submit(SliceMeters.request(appId, path, m.direction, m.deviceId).add());
            SlicePath.MeterRef ref = new SlicePath.MeterRef(m.deviceId, m.direction, m.hop, again.id().id(),
                    m.branch);
            refs.add(ref);
            added.add(ref);
        }
        Set<String> renamed = added.stream().map(m -> m.deviceId).collect(Collectors.toSet());
        List<FlowRule> rules = SliceFlows.build(path, appId, meterIds(refs, path)).stream()
                .filter(r -> deviceService.isAvailable(r.deviceId()))
                .collect(Collectors.toCollection(ArrayList::new));
        Set<FlowId> present = new HashSet<>();
        rules.stream().map(FlowRule::deviceId).distinct().forEach(d ->
                flowRuleService.getFlowEntries(d).forEach(e -> present.add(e.id())));
        // A switch with a new meter needs its flows again, present or not: they name the lost meter's id.
        rules.removeIf(r -> present.contains(r.id()) && !renamed.contains(r.deviceId().toString()));
        if (added.isEmpty() && rules.isEmpty()) {
            return false;
        }
        // Stored first: a repair interrupted after this finds the new meters and does not submit more. Only over
        // the version read: a path that another node changed or is removing meanwhile (its flows going away look
        // lost from here) must not be put back (seen on a cluster: a slice deleted on one node resurrected by a
        // rejoined node's repair).
        SlicePath repaired = path.withMeters(refs);
        if (!slices.replace(sliceId, stored.version(), repaired.toJson(mapper).toString())) {
            withdrawMeters(added, repaired);
            log.info("slice {}: changed or removed while being repaired, left as it is now", sliceId);
            return false;
        }
        installer.awaitMeters(added);
        if (!rules.isEmpty()) {
            installer.applyFlows(rules, FlowRuleOperation.Type.ADD);
        }
        if (slices.get(sliceId) == null) {
            // Removed after the write above: the removal withdrew the meters it read, ours among them, but may
            // have removed the flows before they were added here.
            if (!rules.isEmpty()) {
                installer.applyFlows(rules, FlowRuleOperation.Type.REMOVE);
            }
            log.info("slice {}: removed while being repaired, its flows taken back", sliceId);
            return false;
        }
        log.warn("slice {}: installed again ({} meters, {} flows): ONOS had lost them", sliceId, added.size(),
                rules.size());
        return true;
    }

    /** A switch that (re)connects is repaired at once, not at the next round (its slice table was recreated). */
    private final class Reconnects implements DeviceListener {
        @Override
        public void event(DeviceEvent event) {
            boolean up = event.type() == DeviceEvent.Type.DEVICE_ADDED
                    || event.type() == DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED;
            if (up && deviceService.isAvailable(event.subject().id())) {
                // A moment later: the meter provider reports the switch's meter features on the same connect.
                repairer.schedule(PofSliceManager.this::repairAll, RECONNECT_DELAY_MS, TimeUnit.MILLISECONDS);
            }
        }
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
        List<String> unenforced = checkEnforcement(request);
        SlicePath path = request.withClients(List.of())
                .withTag(SliceEdges.pickTag(request.tag, existing)).withUnenforcedDevices(unenforced)
                .withLatency(request.latencyClass, request.down, request.up, queueless(request, request.latencyClass));
        SliceEdges.checkEdges(path, existing);

        Map<String, MeterId> meterIds = new HashMap<>();
        List<SlicePath.MeterRef> refs = new ArrayList<>();
        List<FlowRule> rules = List.of();
        try {
            for (String d : SliceFlows.directions(path).keySet()) {
                submitMeters(path, d, meterIds, refs);
            }
            installer.awaitMeters(refs);
            rules = SliceFlows.build(path, appId, meterIds);
            installer.applyFlows(rules, FlowRuleOperation.Type.ADD);
        } catch (SliceException | IllegalArgumentException | IllegalStateException e) {
            log.warn("slice {}: install failed, rolling back: {}", path.sliceId, e.getMessage());
            try {
                if (!rules.isEmpty()) {
                    installer.applyFlows(rules, FlowRuleOperation.Type.REMOVE);
                }
            } catch (RuntimeException re) {
                log.warn("rollback of flows failed: {}", re.getMessage());
            }
            withdrawMeters(refs, path);
            throw asSliceException(e);
        }
        SlicePath installed = path.withMeters(refs);
        slices.put(installed.sliceId, installed.toJson(mapper).toString());
        log.info("slice {} installed: tag {}, {} flows, {} meters", installed.sliceId, installed.tag,
                rules.size(), refs.size());
        if (!unenforced.isEmpty()) {
            log.warn("slice {}: best effort accepted where meters are not enforced: {}", installed.sliceId,
                    unenforced);
        }
        return installed;
    }

    @Override
    public synchronized void removeSlice(String sliceId) {
        // The stored path goes first, and what it held last is removed: a repair on another node then cannot put
        // it back (its versioned write fails), and meters it added before that are in the value removed here.
        Versioned<String> removed = slices.remove(sliceId);
        if (removed == null) {
            throw SliceException.notFound("no slice " + sliceId);
        }
        SlicePath path = parse(removed.value());
        // Flow ids come from tag, direction and hop, so rebuilding the rules finds the installed ones.
        List<FlowRule> rules = SliceFlows.build(path, appId, Map.of());
        try {
            installer.applyFlows(rules, FlowRuleOperation.Type.REMOVE);
        } catch (SliceException e) {
            // A switch that is gone took its flows with it; the slice is removed anyway.
            log.warn("slice {}: some flows not confirmed removed: {}", sliceId, e.getMessage());
        }
        withdrawMeters(path.meters, path);
        log.info("slice {} removed", sliceId);
    }

    @Override
    public synchronized SlicePath updatePath(String sliceId, SliceRates down, SliceRates up, LatencyClass cls) {
        SlicePath path = slice(sliceId).orElseThrow(() -> SliceException.notFound("no slice " + sliceId));
        LatencyClass newClass = cls == null ? path.latencyClass : cls;
        SlicePath rated = path.withLatency(newClass, down == null ? path.down : down, up == null ? path.up : up,
                queueless(path, newClass));
        Map<String, List<SlicePath.Hop>> directions = SliceFlows.directions(path);
        // Another class (or a switch that gained or lost latency meters) changes every meter's flag.
        boolean flags = !rated.queuelessDevices.equals(path.queuelessDevices)
                || rated.latencyClass.prioritized() != path.latencyClass.prioritized();
        Set<String> changed = directions.keySet().stream()
                .filter(d -> flags || !path.rates(d).equals(rated.rates(d))).collect(Collectors.toSet());
        if (changed.isEmpty()) {
            if (rated.latencyClass != path.latencyClass) {  // low <-> ultra_low: the same meters
                slices.put(sliceId, rated.toJson(mapper).toString());
            }
            return rated;
        }
        checkHops(path);
        // The path's own require_enforcement holds for its new rates too.
        SlicePath target = rated.withUnenforcedDevices(checkEnforcement(rated));
        // Unchanged directions keep their meters; the changed ones get new meters (or none).
        List<SlicePath.MeterRef> kept = new ArrayList<>();
        List<SlicePath.MeterRef> retired = new ArrayList<>();
        for (SlicePath.MeterRef m : path.meters) {
            (changed.contains(m.direction) ? retired : kept).add(m);
        }
        Map<String, MeterId> oldIds = meterIds(path.meters, path);
        Map<String, MeterId> newIds = meterIds(kept, path);
        List<SlicePath.MeterRef> added = new ArrayList<>();
        boolean repointed = false;
        try {
            for (String d : changed) {
                submitMeters(target, d, newIds, added);
            }
            installer.awaitMeters(added);
            repointed = true;
            installer.applyFlows(SliceFlows.build(target, appId, newIds, changed),
                    FlowRuleOperation.Type.MODIFY);
        } catch (SliceException | IllegalArgumentException | IllegalStateException e) {
            log.warn("slice {}: rate change failed, rolling back: {}", sliceId, e.getMessage());
            if (repointed) {
                try {
                    installer.applyFlows(SliceFlows.build(path, appId, oldIds, changed),
                            FlowRuleOperation.Type.MODIFY);
                } catch (RuntimeException re) {
                    log.warn("slice {}: flows not confirmed back on their old meters: {}", sliceId,
                            re.getMessage());
                }
            }
            withdrawMeters(added, target);
            throw asSliceException(e);
        }
        // No flow uses the retired meters any more.
        withdrawMeters(retired, path);
        List<SlicePath.MeterRef> refs = new ArrayList<>(kept);
        refs.addAll(added);
        SlicePath updated = target.withMeters(refs);
        slices.put(sliceId, updated.toJson(mapper).toString());
        log.info("slice {} rates: down {}, up {}, class {} ({} meters replaced by {})", sliceId, updated.down,
                updated.up, updated.latencyClass.jsonName(), retired.size(), added.size());
        return updated;
    }

    @Override
    public synchronized long placeClient(String sliceId, String rawMac, String branchId) {
        SlicePath path = slice(sliceId).orElseThrow(() -> SliceException.notFound("no slice " + sliceId));
        String mac = SliceClient.mac(rawMac);
        if (!path.bidirectional) {
            throw SliceException.badRequest("slice " + sliceId + " is one-way: it has no downlink to place");
        }
        if (branchId == null || !SliceBranch.MAIN.equals(branchId) && path.branch(branchId).isEmpty()) {
            throw SliceException.badRequest("slice " + sliceId + " has no branch '" + branchId + "' (its branches: "
                    + path.branches.stream().map(b -> b.branchId).collect(Collectors.toList()) + ", or main)");
        }
        SliceClient old = path.clients.stream().filter(c -> c.mac.equals(mac)).findFirst().orElse(null);
        if (old == null ? SliceBranch.MAIN.equals(branchId) : old.branch.equals(branchId)) {
            return 0;
        }
        return SliceBranch.MAIN.equals(branchId) ? placer.unplace(path, old) : placer.place(path, old, mac, branchId);
    }

    @Override
    public synchronized void removeClient(String sliceId, String rawMac) {
        SlicePath path = slice(sliceId).orElseThrow(() -> SliceException.notFound("no slice " + sliceId));
        String mac = SliceClient.mac(rawMac);
        SliceClient old = path.clients.stream().filter(c -> c.mac.equals(mac)).findFirst()
                .orElseThrow(() -> SliceException.notFound(mac + " is not placed on a branch of " + sliceId));
        placer.unplace(path, old);
    }

    @Override
    public List<SliceClient> clients(String sliceId) {
        return slice(sliceId).orElseThrow(() -> SliceException.notFound("no slice " + sliceId)).clients;
    }

    /**
     * Submits a meter on every client-facing hop of a direction that has rates, on the main path and on each
     * branch (each AP's clients get their own), LATENCY where the path's class and the switch have it; records
     * them in ids and refs.
     */
    private void submitMeters(SlicePath path, String direction, Map<String, MeterId> ids,
                              List<SlicePath.MeterRef> refs) {
        if (!path.rates(direction).metered()) {
            return;
        }
        for (BranchFlows.Segment s : BranchFlows.segments(path)) {
            if (!s.direction.equals(direction)) {
                continue;
            }
            for (int i = s.from; i < s.to; i++) {
                if (!SliceFlows.clientFacing(s.hops, direction, i)) {
                    continue;
                }
                SlicePath.Hop hop = s.hops.get(i);
                Meter m = meterService.submit(SliceMeters.request(appId, path, direction, hop.deviceId).add());
                ids.put(s.meterKey(i), m.id());
                refs.add(new SlicePath.MeterRef(hop.deviceId, direction, i, m.id().id(), s.branchId));
            }
        }
    }

    /** The meter ids of a path's meters keyed as SliceFlows and BranchFlows expect them. */
    static Map<String, MeterId> meterIds(List<SlicePath.MeterRef> refs, SlicePath path) {
        Map<String, MeterId> ids = new HashMap<>();
        List<BranchFlows.Segment> segments = BranchFlows.segments(path);
        for (SlicePath.MeterRef m : refs) {
            for (BranchFlows.Segment s : segments) {
                if (s.branchId.equals(m.branch) && s.direction.equals(m.direction) && m.hop >= s.from
                        && m.hop < s.to) {
                    ids.put(s.meterKey(m.hop), MeterId.meterId(m.meterId));
                }
            }
        }
        return ids;
    }

    private void withdrawMeters(List<SlicePath.MeterRef> refs, SlicePath path) {
        for (SlicePath.MeterRef m : refs) {
            meterService.withdraw(SliceMeters.request(appId, m.deviceId, path.rates(m.direction)).remove(),
                    MeterId.meterId(m.meterId));
        }
    }

    private static SliceException asSliceException(RuntimeException e) {
        return e instanceof SliceException ? (SliceException) e : new SliceException("internal", 500, e.getMessage());
    }

    /** Every hop's switch is a connected POF device with both ports. */
    private void checkHops(SlicePath path) {
        List<SlicePath.Hop> all = new ArrayList<>(path.hops);
        path.branches.forEach(b -> all.addAll(b.hops));
        for (SlicePath.Hop hop : all) {
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

    /**
     * The switches where a meter of this path would not be enforced (spec/pof "Capabilities the controller
     * reads"); refused with 409 meters_not_enforced, naming them, unless the path accepts best effort there.
     */
    private List<String> checkEnforcement(SlicePath path) {
        List<String> unenforced = SliceFlows.meteredDevices(path).stream()
                .filter(d -> !meterCapabilities.meterEnforcement(DeviceId.deviceId(d)).enforced)
                .collect(Collectors.toList());
        if (!unenforced.isEmpty() && path.requireEnforcement) {
            throw SliceException.metersNotEnforced(unenforced);
        }
        return unenforced;
    }

    /** The path's switches, in hop order, that announced no latency meters (none matter for best effort). */
    private List<String> queueless(SlicePath path, LatencyClass cls) {
        if (!cls.prioritized()) {
            return List.of();
        }
        List<SlicePath.Hop> all = new ArrayList<>(path.hops);
        path.branches.forEach(b -> all.addAll(b.hops));
        return all.stream().map(h -> h.deviceId).distinct()
                .filter(d -> !meterCapabilities.latencyMeters(DeviceId.deviceId(d))).collect(Collectors.toList());
    }

    private SlicePath parse(String json) {
        try {
            return SlicePath.fromJson(mapper.readTree(json));
        } catch (IOException e) {
            throw new IllegalStateException("stored slice is not JSON: " + e.getMessage(), e);
        }
    }
}
