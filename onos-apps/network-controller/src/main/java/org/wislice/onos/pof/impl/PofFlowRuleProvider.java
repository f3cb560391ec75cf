package org.wislice.onos.pof.impl;

import org.onlab.util.Tools;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.CompletedBatchOperation;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.oldbatch.FlowRuleBatchEntry;
import org.onosproject.net.flow.oldbatch.FlowRuleBatchOperation;
import org.onosproject.net.flow.FlowRuleProvider;
import org.onosproject.net.flow.FlowRuleProviderRegistry;
import org.onosproject.net.flow.FlowRuleProviderService;
import org.onosproject.net.provider.AbstractProvider;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.wislice.onos.pof.api.PofController;
import org.wislice.onos.pof.api.PofSwitchListener;
import org.wislice.onos.pof.api.PofTableLayout;
import org.wislice.onos.pof.channel.PofSession;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;
import org.wislice.onos.pof.wire.TableMod;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;
import static org.wislice.onos.pof.impl.OsgiPropertyConstants.STATS_POLL_SECONDS;
import static org.wislice.onos.pof.impl.OsgiPropertyConstants.STATS_POLL_SECONDS_DEFAULT;

/**
 * POF flow entries as ONOS FlowRules. A batch becomes COUNTER_MOD + FLOW_MOD messages written at once, then an
 * ECHO as barrier: its reply means the switch handled the batch, and any ERROR it sent for a FLOW_MOD came
 * before it, so the batch completes with exactly the rules the switch refused. A device has one batch on the
 * wire at a time: ONOS hands batches for one device to several installer threads at once (after a reconnect it
 * re-adds the same rule twice), and a batch must decide ADD or MODIFY and pick indexes knowing what the switch
 * made of the one before, else a MODIFY overtakes its ADD and the entry's index is handed out twice.
 * Statistics: each entry gets a POF counter (while the switch has some free); COUNTER_REQUEST every poll period
 * gives packets and bytes.
 */
@Component(immediate = true, property = {STATS_POLL_SECONDS + ":Integer=" + STATS_POLL_SECONDS_DEFAULT})
public class PofFlowRuleProvider extends AbstractProvider implements FlowRuleProvider {
    private static final long BARRIER_TIMEOUT_S = 10;
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleProviderRegistry providerRegistry;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PofController controller;

    private FlowRuleProviderService providerService;
    private final Map<DeviceId, DeviceFlows> devices = new ConcurrentHashMap<>();
    /** FLOW_MOD xid -> rule, per device, until the batch's barrier: where an ERROR lands. */
    private final Map<DeviceId, Map<Long, FlowRule>> inflight = new ConcurrentHashMap<>();
    private final Map<DeviceId, Set<FlowRule>> refused = new ConcurrentHashMap<>();
    /** Per device, its last batch: the next one is sent when it has completed. */
    private final Map<DeviceId, CompletableFuture<Set<FlowRule>>> lastBatch = new ConcurrentHashMap<>();
    private final PofSwitchListener listener = new Switches();
    private ScheduledExecutorService poller;
    /** Writes the batches (never the session's reader thread, which completes the barrier before them). */
    private ExecutorService sender;

    /** Seconds between polls of the flow counters (COUNTER_REQUEST) that feed ONOS flow statistics. */
    private int statsPollSeconds = STATS_POLL_SECONDS_DEFAULT;

    public PofFlowRuleProvider() {
        super(PofDeviceProvider.PID);
    }

    @Activate
    protected void activate(ComponentContext context) {
        if (context != null) {
            statsPollSeconds = Tools.getIntegerProperty(context.getProperties(), STATS_POLL_SECONDS,
                    STATS_POLL_SECONDS_DEFAULT);
        }
        int period = Math.max(1, statsPollSeconds);
        providerService = providerRegistry.register(this);
        poller = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "pof-flow-stats"));
        sender = Executors.newSingleThreadExecutor(r -> new Thread(r, "pof-flow-sender"));
        controller.addListener(listener);
        controller.switches().forEach(listener::switchAdded);
        poller.scheduleWithFixedDelay(this::pollAll, period, period, TimeUnit.SECONDS);
        log.info("Started POF flow rule provider (stats every {} s)", period);
    }

    @Deactivate
    protected void deactivate() {
        poller.shutdownNow();
        sender.shutdownNow();
        controller.removeListener(listener);
        providerRegistry.unregister(this);
        providerService = null;
        devices.clear();
        log.info("Stopped POF flow rule provider");
    }

    @Override
    public void applyFlowRule(FlowRule... flowRules) {
        byDevice(flowRules).forEach((d, rules) -> program(d, rules, List.of()));
    }

    @Override
    public void removeFlowRule(FlowRule... flowRules) {
        byDevice(flowRules).forEach((d, rules) -> program(d, List.of(), rules));
    }

    @Override
    public void executeBatch(FlowRuleBatchOperation batch) {
        List<FlowRule> adds = new ArrayList<>();
        List<FlowRule> removes = new ArrayList<>();
        for (FlowRuleBatchEntry e : batch.getOperations()) {
            if (e.operator() == FlowRuleBatchEntry.FlowRuleOperation.REMOVE) {
                removes.add(e.target());
            } else {
                adds.add(e.target());
            }
        }
        program(batch.deviceId(), adds, removes).whenComplete((failed, err) -> {
            Set<FlowRule> failures = err != null ? allOf(adds, removes) : failed;
            providerService.batchOperationCompleted(batch.id(),
                    new CompletedBatchOperation(failures.isEmpty(), failures, batch.deviceId()));
        });
    }

    private static Set<FlowRule> allOf(List<FlowRule> a, List<FlowRule> b) {
        Set<FlowRule> all = new HashSet<>(a);
        all.addAll(b);
        return all;
    }

    private static Map<DeviceId, List<FlowRule>> byDevice(FlowRule... rules) {
        return Arrays.stream(rules).collect(Collectors.groupingBy(FlowRule::deviceId));
    }

    /**
     * Sends the adds and removes of one device and a barrier once the device's previous batch has completed;
     * completes with the rules the switch refused (or that could not be translated), after pushing the device's
     * entries to ONOS.
     */
    CompletableFuture<Set<FlowRule>> program(DeviceId deviceId, List<FlowRule> adds, List<FlowRule> removes) {
        return lastBatch.compute(deviceId, (d, previous) -> (previous == null
                ? CompletableFuture.<Void>completedFuture(null) : previous.handle((failed, err) -> (Void) null))
                .thenComposeAsync(v -> send(deviceId, adds, removes), sender));
    }

    private CompletableFuture<Set<FlowRule>> send(DeviceId deviceId, List<FlowRule> adds, List<FlowRule> removes) {
        PofSession session = controller.session(deviceId).orElse(null);
        DeviceFlows flows = devices.get(deviceId);
        if (session == null || flows == null) {
            log.warn("{}: not connected; {} flow operations refused", deviceId, adds.size() + removes.size());
            return CompletableFuture.completedFuture(allOf(adds, removes));
        }
        Set<FlowRule> failed = ConcurrentHashMap.newKeySet();
        Map<Long, FlowRule> xids = inflight.computeIfAbsent(deviceId, d -> new ConcurrentHashMap<>());
        refused.computeIfAbsent(deviceId, d -> ConcurrentHashMap.newKeySet());
        List<PofMessage> msgs = new ArrayList<>();
        for (FlowRule rule : adds) {
            try {
                DeviceFlows.Entry old = flows.get(rule.id());
                DeviceFlows.Entry e = old == null ? flows.reserve(rule) : flows.replace(old, rule);
                int command = old == null ? FlowMod.ADD : FlowMod.MODIFY;
                if (old == null && e.counterId != 0) {
                    msgs.add(new PofMessage(PofType.COUNTER_MOD, session.nextXid(),
                            new PofBody.Counter(PofBody.Counter.ADD, e.counterId)));
                }
                long xid = session.nextXid();
                msgs.add(new PofMessage(PofType.FLOW_MOD, xid,
                        PofFlowTranslator.toFlowMod(rule, command, session.resources(), e.index, e.counterId)));
                xids.put(xid, rule);
            } catch (IllegalArgumentException | IllegalStateException ex) {
                log.warn("{}: flow {} refused: {}", deviceId, rule.id(), ex.getMessage());
                flows.release(rule.id());
                failed.add(rule);
            }
        }
        for (FlowRule rule : removes) {
            DeviceFlows.Entry e = flows.get(rule.id());
            if (e == null) {
                continue;
            }
            msgs.add(new PofMessage(PofType.FLOW_MOD, session.nextXid(), PofFlowTranslator.toFlowMod(
                    e.rule, FlowMod.DELETE, session.resources(), e.index, e.counterId)));
            if (e.counterId != 0) {
                msgs.add(new PofMessage(PofType.COUNTER_MOD, session.nextXid(),
                        new PofBody.Counter(PofBody.Counter.DELETE, e.counterId)));
            }
            flows.release(rule.id());
        }
        try {
            session.sendAll(msgs);
        } catch (IOException ex) {
            log.warn("{}: sending flows failed: {}", deviceId, ex.getMessage());
            return CompletableFuture.completedFuture(allOf(adds, removes));
        }
        return session.barrier().orTimeout(BARRIER_TIMEOUT_S, TimeUnit.SECONDS).handle((reply, err) -> {
            for (PofMessage m : msgs) {
                FlowRule rule = xids.remove(m.xid());
                if (rule != null && refused.get(deviceId).remove(rule)) {
                    failed.add(rule);
                }
            }
            if (err != null) {
                log.warn("{}: no barrier reply: {}", deviceId, err.getMessage());
                failed.addAll(adds);
            }
            pushEntries(deviceId);
            return failed;
        });
    }

    /** Tells ONOS which entries the switch holds (state ADDED) with their last counter values. */
    private void pushEntries(DeviceId deviceId) {
        DeviceFlows flows = devices.get(deviceId);
        if (flows == null || providerService == null) {
            return;
        }
        long now = System.currentTimeMillis();
        List<FlowEntry> entries = flows.all().stream()
                .map(e -> (FlowEntry) new DefaultFlowEntry(e.rule, FlowEntry.FlowEntryState.ADDED,
                        (now - e.installedMillis) / 1000, TimeUnit.SECONDS, e.packets, e.bytes))
                .collect(Collectors.toList());
        providerService.pushFlowMetrics(deviceId, entries);
    }

    private void pollAll() {
        for (DeviceId d : devices.keySet()) {
            try {
                poll(d);
            } catch (RuntimeException e) {
                log.warn("{}: statistics poll failed: {}", d, e.getMessage());
            }
        }
    }

    /** COUNTER_REQUEST for every entry that has a counter, then one push with the fresh values. */
    void poll(DeviceId deviceId) {
        PofSession session = controller.session(deviceId).orElse(null);
        DeviceFlows flows = devices.get(deviceId);
        if (session == null || flows == null) {
            return;
        }
        List<CompletableFuture<?>> replies = new ArrayList<>();
        for (DeviceFlows.Entry e : flows.all()) {
            if (e.counterId == 0) {
                continue;
            }
            replies.add(session.request(PofType.COUNTER_REQUEST,
                    new PofBody.Counter(PofBody.Counter.ADD, e.counterId)).thenAccept(reply -> {
                        if (reply.type() == PofType.COUNTER_REPLY) {
                            PofBody.Counter c = reply.body(PofBody.Counter.class);
                            e.packets = c.packets;
                            e.bytes = c.bytes;
                        }
                    }));
        }
        try {
            CompletableFuture.allOf(replies.toArray(new CompletableFuture<?>[0])).get(BARRIER_TIMEOUT_S,
                    TimeUnit.SECONDS);
        } catch (Exception e) {
            log.debug("{}: some counter replies missing: {}", deviceId, e.toString());
        }
        pushEntries(deviceId);
    }

    /** Per-switch state follows the connection: a reconnected switch starts empty and ONOS re-adds. */
    private final class Switches implements PofSwitchListener {
        @Override
        public void switchAdded(DeviceId id, PofSession session) {
            // The slice table is recreated here, when this provider takes the switch, not when it connects: after
            // an ONOS restart switches connect ~10 s before the providers start, and a table emptied then left the
            // slices without flows all that time (the switch had kept them). "No such table" is a harmless ERROR.
            try {
                for (TableMod table : List.of(PofTableLayout.sliceTable(), PofTableLayout.clientTable())) {
                    TableMod drop = PofTableLayout.sliceTable();
                    drop.tableId = table.tableId;
                    drop.command = TableMod.DELETE;
                    session.send(new PofMessage(PofType.TABLE_MOD, session.nextXid(), drop));
                    session.send(new PofMessage(PofType.TABLE_MOD, session.nextXid(), table));
                }
            } catch (IOException e) {
                log.warn("{}: could not create the slice and client tables: {}", id, e.getMessage());
            }
            int counters = session.resources() == null ? 512 : (int) Math.min(session.resources().counterNum, 512);
            devices.put(id, new DeviceFlows(counters,
                    Map.of(PofTableLayout.SLICE_TABLE, PofTableLayout.SLICE_TABLE_SIZE,
                            PofTableLayout.CLIENT_TABLE, PofTableLayout.CLIENT_TABLE_SIZE)));
            // Tell ONOS now that the switch holds none of its flows (its table was just recreated): ONOS re-adds
            // the missing ones at once instead of at the next statistics poll, seconds of a slice without flows.
            poller.execute(() -> pushEntries(id));
        }

        @Override
        public void switchRemoved(DeviceId id) {
            devices.remove(id);
            inflight.remove(id);
            refused.remove(id);
        }

        @Override
        public void message(DeviceId id, PofMessage message) {
            if (message.type() != PofType.ERROR) {
                return;
            }
            Map<Long, FlowRule> xids = inflight.get(id);
            FlowRule rule = xids == null ? null : xids.get(message.xid());
            DeviceFlows flows = devices.get(id);
            if (rule != null && flows != null) {
                PofBody.Error error = message.body(PofBody.Error.class);
                log.warn("{}: switch refused flow {}: {}", id, rule.id(), error.string);
                flows.release(rule.id(), error.type == FlowMod.FLOW_MOD_FAILED && error.code == FlowMod.ENTRY_EXIST);
                refused.get(id).add(rule);
            }
        }
    }
}
