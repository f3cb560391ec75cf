package org.wislice.onos.mobility.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.cluster.ClusterService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.wislice.onos.mobility.api.ClientMobilityService;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.wifi.api.WifiEvent;
import org.wislice.onos.wifi.api.WifiListener;
import org.wislice.onos.wifi.api.WifiService;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

import static org.onlab.util.Tools.groupedThreads;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Listens for stations associating at the APs and lets the client's slice path follow (HandoverFollower), one
 * association at a time on its own thread: a placement waits for the switch's confirmation, which must not hold
 * the wifi-controller's event dispatch.
 */
@Component(immediate = true, service = ClientMobilityService.class)
public class MobilityManager implements ClientMobilityService {

    static final int KEPT = 256;

    private final Logger log = getLogger(getClass());
    private final Deque<Handover> handovers = new ArrayDeque<>();
    private final WifiListener listener = this::event;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected WifiService wifiService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PofSliceService pofSliceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ClusterService clusterService;

    private ExecutorService executor;
    private HandoverFollower follower;

    @Activate
    protected void activate() {
        follower = new HandoverFollower(wifiService, pofSliceService, clusterService.getLocalNode().id().id(),
                                        System::currentTimeMillis);
        executor = Executors.newSingleThreadExecutor(groupedThreads("wislice/mobility", "follower", log));
        wifiService.addListener(listener);
        log.info("Started: slice clients follow their stations between APs");
    }

    @Deactivate
    protected void deactivate() {
        wifiService.removeListener(listener);
        executor.shutdownNow();
        log.info("Stopped");
    }

    private void event(WifiEvent event) {
        if (event.type() != WifiEvent.Type.CLIENT_ASSOCIATED) {
            return;
        }
        ObjectNode client = event.subject().deepCopy();
        // The handover's clock starts when the event reaches this node: the event's own time is the agent's
        // clock, which an AP does not keep in step with the controller's (1.3-1.4 s apart in the testbed's VM).
        long receivedMs = System.currentTimeMillis();
        executor.execute(() -> follow(client, receivedMs));
    }

    void follow(ObjectNode client, long receivedMs) {
        try {
            follower.follow(client, receivedMs).ifPresent(this::record);
        } catch (RuntimeException e) {
            log.warn("following the association of {} failed", client, e);
        }
    }

    private void record(Handover h) {
        if (h.error != null) {
            log.warn("{} at {}/{}: its downlink could not move to {} of slice {}: {}", h.mac, h.agentId, h.vapId,
                     h.branchId, h.sliceId, h.error);
        } else {
            log.info("{} at {}/{}: downlink on {} of slice {} in {} ms (switch {} ms), stale at {}", h.mac,
                     h.agentId, h.vapId, h.branchId, h.sliceId, h.pathSwitchMs, h.switchConfirmMs, h.kicked);
        }
        synchronized (handovers) {
            handovers.addLast(h);
            while (handovers.size() > KEPT) {
                handovers.removeFirst();
            }
        }
    }

    @Override
    public List<ObjectNode> handovers() {
        synchronized (handovers) {
            return handovers.stream().map(Handover::toJson).collect(Collectors.toList());
        }
    }
}
