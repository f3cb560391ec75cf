package org.wislice.onos.pof.impl;

import org.onlab.packet.ChassisId;
import org.onlab.util.Tools;
import org.onosproject.net.AnnotationKeys;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DeviceId;
import org.onosproject.net.MastershipRole;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DefaultDeviceDescription;
import org.onosproject.net.device.DefaultPortDescription;
import org.onosproject.net.device.DefaultPortStatistics;
import org.onosproject.net.device.DeviceDescription;
import org.onosproject.net.device.DeviceProvider;
import org.onosproject.net.device.DeviceProviderRegistry;
import org.onosproject.net.device.DeviceProviderService;
import org.onosproject.net.device.PortDescription;
import org.onosproject.net.device.PortStatistics;
import org.onosproject.net.provider.AbstractProvider;
import org.onosproject.net.provider.ProviderId;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.wislice.onos.pof.api.MeterEnforcement;
import org.wislice.onos.pof.api.PofController;
import org.wislice.onos.pof.api.PofSwitchListener;
import org.wislice.onos.pof.channel.PofErrorException;
import org.wislice.onos.pof.channel.PofSession;
import org.wislice.onos.pof.channel.SwitchLatency;
import org.wislice.onos.pof.driver.PofDriverRegistrar;
import org.wislice.onos.pof.wire.FeaturesReply;
import org.wislice.onos.pof.wire.Hex;
import org.wislice.onos.pof.wire.MultipartReply;
import org.wislice.onos.pof.wire.MultipartRequest;
import org.wislice.onos.pof.wire.PofCodecException;
import org.wislice.onos.pof.wire.PofPort;
import org.wislice.onos.pof.wire.PortStatus;

import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;
import static org.wislice.onos.pof.impl.OsgiPropertyConstants.PORT_STATS_POLL_SECONDS;
import static org.wislice.onos.pof.impl.OsgiPropertyConstants.PORT_STATS_POLL_SECONDS_DEFAULT;

/**
 * POF switches as ONOS devices (scheme "pof"), with their ports; port enable/disable through PORT_MOD. Port
 * statistics: every poll period one MULTIPART PORT_STATS request (all ports) per connected switch, its replies
 * pushed as ONOS port statistics. A switch that refuses the request (the reference switch answers ERROR
 * BAD_REQUEST/BAD_TYPE), answers it malformed or never answers is not asked again while it stays connected.
 * Switches whose FEATURES_REPLY vendor_id is WiSlice (pof-switch) are also asked, in the same period, for their
 * latency (MULTIPART PORT_LATENCY: residence time per port and class, spec/pof "Port latency"); the latest answer is
 * kept on the switch's session for GET /onos/pof/switches. Others never get that request; a switch that refuses it
 * (an older pof-switch: BAD_MULTIPART) is not asked again while it stays connected.
 */
@Component(immediate = true,
        property = {PORT_STATS_POLL_SECONDS + ":Integer=" + PORT_STATS_POLL_SECONDS_DEFAULT})
public class PofDeviceProvider extends AbstractProvider implements DeviceProvider {
    public static final ProviderId PID = new ProviderId("pof", "org.wislice.pof");
    /** How long one poll waits for the switches' port statistics. */
    static final long PORT_STATS_TIMEOUT_MS = 5000;
    /** Polls in a row without an answer after which a switch is taken not to report port statistics. */
    static final int PORT_STATS_MAX_MISSED = 3;
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceProviderRegistry providerRegistry;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PofController controller;

    private volatile DeviceProviderService providerService;
    private final PofSwitchListener listener = new Switches();
    /** Port statistics state of each connected switch; a new entry (asking again) on every connect. */
    private final Map<DeviceId, StatsPoll> statsPolls = new ConcurrentHashMap<>();
    private ScheduledExecutorService statsPoller;
    private ScheduledFuture<?> statsTask;

    /** Seconds between polls of the switches' port counters (MULTIPART) for ONOS port statistics; 0 = off. */
    private int portStatsPollSeconds = PORT_STATS_POLL_SECONDS_DEFAULT;

    public PofDeviceProvider() {
        super(PID);
    }

    @Activate
    protected void activate(ComponentContext context) {
        readProperties(context);
        providerService = providerRegistry.register(this);
        statsPoller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pof-port-stats");
            t.setDaemon(true);
            return t;
        });
        controller.addListener(listener);
        controller.switches().forEach(listener::switchAdded);
        schedulePortStats();
        log.info("Started POF device provider (port statistics every {} s)", portStatsPollSeconds);
    }

    @Modified
    protected void modified(ComponentContext context) {
        int was = portStatsPollSeconds;
        readProperties(context);
        if (was != portStatsPollSeconds) {
            schedulePortStats();
            log.info("POF port statistics every {} s", portStatsPollSeconds);
        }
    }

    @Deactivate
    protected void deactivate() {
        statsPoller.shutdownNow();
        try {
            // An interrupted poll ends at once; wait for it so nothing reaches ONOS after unregister.
            statsPoller.awaitTermination(PORT_STATS_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        controller.removeListener(listener);
        statsPolls.clear();
        controller.switches().keySet().forEach(providerService::deviceDisconnected);
        providerRegistry.unregister(this);
        providerService = null;
        log.info("Stopped POF device provider");
    }

    private void readProperties(ComponentContext context) {
        if (context != null) {
            portStatsPollSeconds = Math.max(0, Tools.getIntegerProperty(context.getProperties(),
                    PORT_STATS_POLL_SECONDS, PORT_STATS_POLL_SECONDS_DEFAULT));
        }
    }

    private synchronized void schedulePortStats() {
        if (statsTask != null) {
            statsTask.cancel(false);
            statsTask = null;
        }
        if (portStatsPollSeconds > 0 && !statsPoller.isShutdown()) {
            statsTask = statsPoller.scheduleWithFixedDelay(this::pollPortStatsLogged, portStatsPollSeconds,
                    portStatsPollSeconds, TimeUnit.SECONDS);
        }
    }

    /** A task that throws is never run again by the executor: keep polling whatever one poll ran into. */
    private void pollPortStatsLogged() {
        try {
            pollPortStats();
            pollPortLatency();
        } catch (RuntimeException e) {
            log.warn("port statistics poll failed: {}", e.toString());
        }
    }

    /**
     * Asks every connected switch that reports port statistics for all its ports at once, then waits (at most
     * {@link #PORT_STATS_TIMEOUT_MS} in all) and pushes each switch's answer to ONOS.
     */
    void pollPortStats() {
        Map<StatsPoll, CompletableFuture<List<MultipartReply>>> asked = new LinkedHashMap<>();
        for (StatsPoll poll : statsPolls.values()) {
            if (!poll.refused && poll.session.isReady()) {
                asked.put(poll, poll.session.requestMultipart(
                        MultipartRequest.portStats(MultipartRequest.ALL_PORTS)));
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PORT_STATS_TIMEOUT_MS);
        for (Map.Entry<StatsPoll, CompletableFuture<List<MultipartReply>>> e : asked.entrySet()) {
            StatsPoll poll = e.getKey();
            try {
                List<MultipartReply> replies = e.getValue().get(Math.max(0, deadline - System.nanoTime()),
                        TimeUnit.NANOSECONDS);
                poll.missed = 0;
                DeviceProviderService service = providerService;
                // Not for a switch that went away (or reconnected) while we waited.
                if (service != null && statsPolls.get(poll.deviceId) == poll) {
                    service.updatePortStatistics(poll.deviceId, portStatistics(poll.deviceId, replies));
                }
            } catch (InterruptedException ex) {
                asked.values().forEach(f -> f.cancel(true));
                Thread.currentThread().interrupt();
                return;
            } catch (TimeoutException ex) {
                e.getValue().cancel(true);
                if (++poll.missed >= PORT_STATS_MAX_MISSED) {
                    refused(poll, "no answer to " + poll.missed + " requests in a row");
                } else {
                    log.debug("{}: no port statistics within {} ms", poll.deviceId, PORT_STATS_TIMEOUT_MS);
                }
            } catch (ExecutionException ex) {
                Throwable cause = ex.getCause();
                if (cause instanceof PofErrorException || cause instanceof PofCodecException) {
                    refused(poll, cause.getMessage());
                } else {
                    // The session closed: the switch is gone, or back with a new session (and a new StatsPoll).
                    log.debug("{}: port statistics request failed: {}", poll.deviceId, cause.toString());
                }
            }
        }
    }

    /** Whether the switch is asked for PORT_LATENCY: only pof-switch (vendor_id WiSlice) knows it. */
    static boolean measuresLatency(PofSession session) {
        return MeterEnforcement.learnedFrom(session.features());
    }

    /**
     * Asks every connected pof-switch for its ports' latency at once, waits (at most {@link #PORT_STATS_TIMEOUT_MS}
     * in all) and keeps each answer on its session. An ERROR or a malformed answer: not asked again on that session;
     * no answer: asked again next period (the kept one ages, and says how old it is).
     */
    void pollPortLatency() {
        Map<StatsPoll, CompletableFuture<List<MultipartReply>>> asked = new LinkedHashMap<>();
        for (StatsPoll poll : statsPolls.values()) {
            if (!poll.latencyRefused && poll.session.isReady() && measuresLatency(poll.session)) {
                asked.put(poll, poll.session.requestMultipart(
                        MultipartRequest.portLatency(MultipartRequest.ALL_PORTS)));
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PORT_STATS_TIMEOUT_MS);
        for (Map.Entry<StatsPoll, CompletableFuture<List<MultipartReply>>> e : asked.entrySet()) {
            StatsPoll poll = e.getKey();
            try {
                List<MultipartReply> replies = e.getValue().get(Math.max(0, deadline - System.nanoTime()),
                        TimeUnit.NANOSECONDS);
                poll.session.latency(new SwitchLatency(replies, System.currentTimeMillis()));
            } catch (InterruptedException ex) {
                asked.values().forEach(f -> f.cancel(true));
                Thread.currentThread().interrupt();
                return;
            } catch (TimeoutException ex) {
                e.getValue().cancel(true);
                log.debug("{}: no port latency within {} ms", poll.deviceId, PORT_STATS_TIMEOUT_MS);
            } catch (ExecutionException ex) {
                Throwable cause = ex.getCause();
                if (cause instanceof PofErrorException || cause instanceof PofCodecException) {
                    poll.latencyRefused = true;
                    log.info("{}: no port latency from this switch ({}); not asking again while it stays connected",
                            poll.deviceId, cause.getMessage());
                } else {
                    log.debug("{}: port latency request failed: {}", poll.deviceId, cause.toString());
                }
            }
        }
    }

    private void refused(StatsPoll poll, String why) {
        poll.refused = true;
        log.info("{}: no port statistics from this switch ({}); not asking again while it stays connected",
                poll.deviceId, why);
    }

    /** The entries of a switch's PORT_STATS replies as ONOS port statistics (port number = POF port id). */
    static List<PortStatistics> portStatistics(DeviceId id, List<MultipartReply> replies) {
        return replies.stream().flatMap(r -> r.stats.stream())
                .map(s -> (PortStatistics) DefaultPortStatistics.builder()
                        .setDeviceId(id)
                        .setPort(PortNumber.portNumber(s.portId()))
                        .setPacketsReceived(s.rxPackets)
                        .setPacketsSent(s.txPackets)
                        .setBytesReceived(s.rxBytes)
                        .setBytesSent(s.txBytes)
                        .setPacketsRxDropped(s.rxDropped)
                        .setPacketsTxDropped(s.txDropped)
                        .setPacketsRxErrors(s.rxErrors)
                        .setPacketsTxErrors(s.txErrors)
                        .setDurationSec(s.durationSec)
                        .setDurationNano(s.durationNsec)
                        .build())
                .collect(Collectors.toList());
    }

    static DeviceDescription describe(DeviceId id, PofSession session) {
        FeaturesReply f = session.features();
        DefaultAnnotations annotations = DefaultAnnotations.builder()
                .set(AnnotationKeys.PROTOCOL, "POF")
                .set(AnnotationKeys.CHANNEL_ID, session.remoteAddress())
                .set(AnnotationKeys.DRIVER, PofDriverRegistrar.DRIVER_NAME)
                .set("devId", Long.toString(f.devId))
                .set("tables", Integer.toString(f.tableNum))
                .set(MeterEnforcement.ANNOTATION, Boolean.toString(MeterEnforcement.learnedFrom(f)))
                .set(MeterEnforcement.LATENCY_ANNOTATION, Boolean.toString(MeterEnforcement.latencyFrom(f)))
                .build();
        return new DefaultDeviceDescription(URI.create(id.toString()), org.onosproject.net.Device.Type.SWITCH,
                f.vendorId, f.devLkupId, f.devFwId, Long.toString(f.devId), new ChassisId(f.devId), annotations);
    }

    static PortDescription describe(PofPort p) {
        DefaultAnnotations annotations = DefaultAnnotations.builder()
                .set(AnnotationKeys.PORT_NAME, p.name)
                .set(AnnotationKeys.PORT_MAC, macString(p.hwAddr))
                .build();
        // curr_speed is in kbps on the wire; ONOS counts Mbps.
        return DefaultPortDescription.builder()
                .withPortNumber(PortNumber.portNumber(p.portId))
                .isEnabled(p.ofEnable != 0)
                .type(Port.Type.COPPER)
                .portSpeed(p.currSpeed / 1000)
                .annotations(annotations)
                .build();
    }

    private static String macString(byte[] mac) {
        String hex = Hex.encode(mac);
        return hex.replaceAll("(..)(?!$)", "$1:");
    }

    @Override
    public void triggerProbe(DeviceId deviceId) {
        // Switches report themselves; nothing to probe.
    }

    @Override
    public void roleChanged(DeviceId deviceId, MastershipRole newRole) {
        // POF has no role request: the node holding the switch connection is its master, so confirm the role.
        if (providerService != null) {
            providerService.receivedRoleReply(deviceId, newRole, newRole);
        }
    }

    @Override
    public boolean isReachable(DeviceId deviceId) {
        return controller.session(deviceId).map(PofSession::isReady).orElse(false);
    }

    @Override
    public void changePortState(DeviceId deviceId, PortNumber portNumber, boolean enable) {
        controller.session(deviceId).ifPresent(s -> {
            PofPort reported = s.ports().get((int) portNumber.toLong());
            if (reported == null) {
                log.warn("{}: no port {}", deviceId, portNumber);
                return;
            }
            PofPort port = reported.copy();
            port.ofEnable = enable ? 1 : 0;
            try {
                s.send(new org.wislice.onos.pof.wire.PofMessage(org.wislice.onos.pof.wire.PofType.PORT_MOD,
                        s.nextXid(), new PortStatus(PortStatus.MODIFY, port)));
                reported.ofEnable = port.ofEnable;
                providerService.portStatusChanged(deviceId, describe(port));
            } catch (IOException e) {
                log.warn("{}: PORT_MOD failed: {}", deviceId, e.getMessage());
            }
        });
    }

    /** Switch events to device and port updates. */
    private final class Switches implements PofSwitchListener {
        @Override
        public void switchAdded(DeviceId id, PofSession session) {
            providerService.deviceConnected(id, describe(id, session));
            List<PortDescription> ports = session.ports().values().stream()
                    .map(PofDeviceProvider::describe).collect(Collectors.toList());
            providerService.updatePorts(id, ports);
            statsPolls.put(id, new StatsPoll(id, session));
        }

        @Override
        public void switchRemoved(DeviceId id) {
            statsPolls.remove(id);
            providerService.deviceDisconnected(id);
        }

        @Override
        public void portChanged(DeviceId id, PortStatus status) {
            PortDescription desc = describe(status.port);
            if (status.reason == PortStatus.DELETE) {
                providerService.deletePort(id, desc);
            } else {
                providerService.portStatusChanged(id, desc);
            }
        }
    }

    /** One switch connection as the port statistics poll sees it; touched by the poller thread only. */
    private static final class StatsPoll {
        final DeviceId deviceId;
        final PofSession session;
        volatile boolean refused;
        volatile boolean latencyRefused;
        int missed;

        StatsPoll(DeviceId deviceId, PofSession session) {
            this.deviceId = deviceId;
            this.session = session;
        }
    }
}
