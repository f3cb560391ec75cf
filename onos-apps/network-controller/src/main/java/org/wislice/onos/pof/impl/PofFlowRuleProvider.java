package org.wislice.onos.pof.impl;

import org.onlab.util.Tools;
import org.onosproject.mastership.MastershipService;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.CompletedBatchOperation;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.oldbatch.FlowRuleBatchEntry;
import org.onosproject.net.flow.oldbatch.FlowRuleBatchOperation;
import org.onosproject.net.flow.FlowRuleProvider;
import org.onosproject.net.flow.FlowRuleProviderRegistry;
import org.onosproject.net.flow.FlowRuleProviderService;
import org.onosproject.net.flow.FlowRuleService;
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
import org.wislice.onos.pof.channel.SwitchDump;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
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
import java.util.function.Supplier;
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
 * A connecting switch is asked what it holds (QUERYALL) before its first batch; entries an earlier session left
 * are kept and claimed by ONOS's rules ({@link SwitchReconciler}): when ONOS (re)adds the rule, or, on the switch's
 * master, at the next poll that finds the rule in ONOS's flow store. An entry whose rule the store, answering on
 * the master, lacks (or is removing) in {@link #HELD_GRACE_POLLS} polls is deleted.
 */
@Component(immediate = true, property = {STATS_POLL_SECONDS + ":Integer=" + STATS_POLL_SECONDS_DEFAULT})
public class PofFlowRuleProvider extends AbstractProvider implements FlowRuleProvider {
    private static final long BARRIER_TIMEOUT_S = 10;
    private static final long QUERYALL_TIMEOUT_S = 5;
    /**
     * Polls as master in which ONOS's flow store answered without a held entry's rule before it is deleted (12 x
     * the 5 s period: a minute). A new master's flow store answers from its own copy while it still synchronises the
     * device's flows from the previous term (a cluster bench run: empty for 7 s after mastership moved), so only a
     * long absence tells an entry ONOS no longer wants (a slice removed while its switch was away) from one it will
     * re-add: such an entry forwards for a minute more, a wrongly deleted one would stop a live slice.
     */
    static final int HELD_GRACE_POLLS = 12;
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleProviderRegistry providerRegistry;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PofController controller;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected MastershipService mastershipService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleService flowRuleService;

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
        return enqueue(deviceId, () -> send(deviceId, adds, removes));
    }

    /** Runs {@code work} on the sender once the device's previous batch (or reconciliation) has completed. */
    private CompletableFuture<Set<FlowRule>> enqueue(DeviceId deviceId,
                                                     Supplier<CompletableFuture<Set<FlowRule>>> work) {
        return lastBatch.compute(deviceId, (d, previous) -> (previous == null
                ? CompletableFuture.<Void>completedFuture(null) : previous.handle((failed, err) -> (Void) null))
                .thenComposeAsync(v -> work.get(), sender));
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
                DeviceFlows.Held held = old == null ? flows.claim(rule.id()) : null;
                if (held != null && held.table != rule.tableId()) {
                    msgs.addAll(SwitchReconciler.deleteHeld(session, flows, List.of(held)));
                    held = null;
                }
                if (held != null) {
                    // The switch holds this rule's entry from an earlier session: keep it, rewrite it if it differs.
                    DeviceFlows.Entry e = flows.adopt(rule, held);
                    FlowMod want = PofFlowTranslator.toFlowMod(rule, FlowMod.MODIFY, session.resources(), e.index,
                            e.counterId);
                    if (!SwitchReconciler.sameEntry(want, held.mod)) {
                        long xid = session.nextXid();
                        msgs.add(new PofMessage(PofType.FLOW_MOD, xid, want));
                        xids.put(xid, rule);
                    }
                    continue;
                }
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
                DeviceFlows.Held held = flows.claim(rule.id());
                if (held != null) {
                    msgs.addAll(SwitchReconciler.deleteHeld(session, flows, List.of(held)));
                }
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
                reconcileHeld(d);
                poll(d);
            } catch (RuntimeException e) {
                log.warn("{}: statistics poll failed: {}", d, e.getMessage());
            }
        }
    }

    /**
     * On the switch's master: held entries whose rule ONOS's flow store has (added or being added) are claimed by
     * it (nothing sent when the entry is the rule), those whose rule it lacks or is removing are deleted once that
     * held for {@link #HELD_GRACE_POLLS} polls. A store that cannot answer yet (a new master's flow table still
     * synchronising) decides nothing: the switch keeps forwarding meanwhile.
     */
    void reconcileHeld(DeviceId deviceId) {
        DeviceFlows flows = devices.get(deviceId);
        if (flows == null || flows.heldCount() == 0 || !mastershipService.isLocalMaster(deviceId)) {
            return;
        }
        Map<FlowId, FlowEntry> stored = new HashMap<>();
        try {
            for (FlowEntry e : flowRuleService.getFlowEntries(deviceId)) {
                if (e.state() == FlowEntry.FlowEntryState.ADDED || e.state() == FlowEntry.FlowEntryState.PENDING_ADD) {
                    stored.put(e.id(), e);
                }
            }
        } catch (RuntimeException e) {
            log.debug("{}: flow store not readable yet ({}); held entries wait", deviceId, e.toString());
            return;
        }
        List<FlowRule> known = flows.heldIds().stream().filter(stored::containsKey).map(stored::get)
                .collect(Collectors.toList());
        if (!known.isEmpty()) {
            flows.claiming(known.stream().map(FlowRule::id).collect(Collectors.toList()));
            program(deviceId, known, List.of());
        }
        List<DeviceFlows.Held> gone = flows.unclaimedAfter(HELD_GRACE_POLLS, stored.keySet());
        if (gone.isEmpty()) {
            return;
        }
        enqueue(deviceId, () -> {
            PofSession session = controller.session(deviceId).orElse(null);
            if (session == null) {
                return CompletableFuture.completedFuture(Set.of());
            }
            log.info("{}: deleting {} flow entries an earlier session left that ONOS does not have", deviceId,
                    gone.size());
            try {
                session.sendAll(SwitchReconciler.deleteHeld(session, flows, gone));
            } catch (IOException e) {
                log.warn("{}: deleting unclaimed entries failed: {}", deviceId, e.getMessage());
                return CompletableFuture.completedFuture(Set.of());
            }
            return session.barrier().orTimeout(BARRIER_TIMEOUT_S, TimeUnit.SECONDS)
                    .handle((reply, err) -> Set.<FlowRule>of());
        });
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

    /** Per-switch state follows the connection: what the switch kept is reconciled, the rest ONOS re-adds. */
    private final class Switches implements PofSwitchListener {
        @Override
        public void switchAdded(DeviceId id, PofSession session) {
            int counters = session.resources() == null ? 512 : (int) Math.min(session.resources().counterNum, 512);
            DeviceFlows flows = new DeviceFlows(counters,
                    Map.of(PofTableLayout.SLICE_TABLE, PofTableLayout.SLICE_TABLE_SIZE,
                            PofTableLayout.CLIENT_TABLE, PofTableLayout.CLIENT_TABLE_SIZE));
            // Reconciled here, when this provider takes the switch, not when it connects: after an ONOS restart
            // switches connect ~10 s before the providers start. Batches wait behind it (lastBatch).
            CompletableFuture<Set<FlowRule>> reconciled = session.queryAll()
                    .orTimeout(QUERYALL_TIMEOUT_S, TimeUnit.SECONDS)
                    .handleAsync((dump, err) -> reconcile(id, session, flows, dump, err), sender);
            lastBatch.put(id, reconciled);
            devices.put(id, flows);
            // Tell ONOS at once which entries the switch holds for it (none yet: the held ones are claimed as ONOS
            // re-adds them), so it re-adds now instead of at the next statistics poll.
            reconciled.thenRun(() -> poller.execute(() -> pushEntries(id)));
        }

        private Set<FlowRule> reconcile(DeviceId id, PofSession session, DeviceFlows flows, SwitchDump dump,
                                        Throwable err) {
            if (dump != null && SwitchReconciler.hasSliceTables(dump)) {
                int kept = 0;
                for (FlowMod f : dump.flows) {
                    int table = SwitchReconciler.globalTable(f, session.resources());
                    if (table >= 0 && flows.hold(f, table)) {
                        kept++;
                    }
                }
                log.info("{}: kept the slice tables and {} of {} flow entries the switch held", id, kept,
                        dump.flows.size());
                return Set.of();
            }
            if (err != null) {
                log.info("{}: no QUERYALL answer ({}); recreating the slice tables", id, err.toString());
            }
            try {
                session.sendAll(SwitchReconciler.recreateTables(session));
            } catch (IOException e) {
                log.warn("{}: could not create the slice and client tables: {}", id, e.getMessage());
            }
            return Set.of();
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
