package org.wislice.onos.pof.impl;

import org.onlab.util.Tools;
import org.onosproject.net.DeviceId;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.slf4j.Logger;
import org.wislice.onos.pof.api.PofController;
import org.wislice.onos.pof.api.PofSwitchListener;
import org.wislice.onos.pof.channel.PofSession;
import org.wislice.onos.pof.channel.PofSessionListener;
import org.wislice.onos.pof.channel.PofSwitchServer;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;
import org.wislice.onos.pof.wire.PortStatus;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Dictionary;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

import static org.slf4j.LoggerFactory.getLogger;
import static org.wislice.onos.pof.impl.OsgiPropertyConstants.POF_PORT;
import static org.wislice.onos.pof.impl.OsgiPropertyConstants.POF_PORT_DEFAULT;

/**
 * Runs the POF switch server and keeps the ready sessions by device id. When a switch becomes ready it
 * creates the slicing table, then tells the providers; it never touches ONOS stores itself.
 */
@Component(immediate = true, service = PofController.class,
        property = {POF_PORT + ":Integer=" + POF_PORT_DEFAULT})
public class PofControllerImpl implements PofController {
    private final Logger log = getLogger(getClass());

    private final Map<DeviceId, PofSession> sessions = new ConcurrentHashMap<>();
    private final Set<PofSwitchListener> listeners = new CopyOnWriteArraySet<>();
    private PofSwitchServer server;

    /** TCP port the POF switches connect to. */
    private int pofPort = POF_PORT_DEFAULT;

    @Activate
    protected void activate(ComponentContext context) throws IOException {
        if (context != null) {
            Dictionary<?, ?> props = context.getProperties();
            pofPort = Tools.getIntegerProperty(props, POF_PORT, POF_PORT_DEFAULT);
        }
        start(pofPort);
        log.info("Started POF controller on port {}", pofPort);
    }

    /** Starts the server on a port (0 picks a free one, for tests); returns the bound port. */
    public int start(int port) throws IOException {
        server = new PofSwitchServer(new InetSocketAddress(port), new Sessions());
        server.start();
        return server.port();
    }

    @Deactivate
    protected void deactivate() {
        if (server != null) {
            server.stop();
        }
        sessions.clear();
        log.info("Stopped POF controller");
    }

    @Override
    public Map<DeviceId, PofSession> switches() {
        return Map.copyOf(sessions);
    }

    @Override
    public Optional<PofSession> session(DeviceId deviceId) {
        return Optional.ofNullable(sessions.get(deviceId));
    }

    @Override
    public void addListener(PofSwitchListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(PofSwitchListener listener) {
        listeners.remove(listener);
    }

    /** Session events, turned into device-id events for the providers. */
    private final class Sessions implements PofSessionListener {
        @Override
        public void switchReady(PofSession session) {
            DeviceId id = PofController.deviceId(session.devId());
            PofSession old = sessions.put(id, session);
            if (old != null && old != session) {
                log.info("{} reconnected from {}; closing the old session", id, session.remoteAddress());
                old.close();
                sessions.put(id, session);
            }
            listeners.forEach(l -> l.switchAdded(id, session));
        }

        @Override
        public void portChanged(PofSession session, PortStatus status) {
            DeviceId id = PofController.deviceId(session.devId());
            listeners.forEach(l -> l.portChanged(id, status));
        }

        @Override
        public void message(PofSession session, PofMessage message) {
            DeviceId id = PofController.deviceId(session.devId());
            if (message.type() == PofType.ERROR) {
                log.info("{}: ERROR from switch: {}", id, message.body());
            }
            listeners.forEach(l -> l.message(id, message));
        }

        @Override
        public void switchGone(PofSession session) {
            if (session.devId() < 0) {
                return;
            }
            DeviceId id = PofController.deviceId(session.devId());
            if (sessions.remove(id, session)) {
                log.info("{} disconnected", id);
                listeners.forEach(l -> l.switchRemoved(id));
            }
        }
    }
}
