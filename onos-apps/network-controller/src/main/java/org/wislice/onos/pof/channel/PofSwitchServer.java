package org.wislice.onos.pof.channel;

import org.slf4j.Logger;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Accepts POF switch connections (they dial out to the controller) and runs one {@link PofSession} per
 * connection on a thread of its own; a few switches per controller, so blocking I/O keeps it simple. Sends
 * ECHO to every ready switch periodically so a dead peer is noticed within the session's read timeout.
 */
public final class PofSwitchServer {
    private static final Logger log = getLogger(PofSwitchServer.class);

    private final InetSocketAddress address;
    private final PofSessionListener listener;
    private final Set<PofSession> sessions = ConcurrentHashMap.newKeySet();
    private ServerSocket server;
    private Thread acceptor;
    private ScheduledExecutorService keepalive;

    public PofSwitchServer(InetSocketAddress address, PofSessionListener listener) {
        this.address = address;
        this.listener = listener;
    }

    public synchronized void start() throws IOException {
        server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(address);
        acceptor = new Thread(this::acceptLoop, "pof-accept-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
        keepalive = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pof-echo");
            t.setDaemon(true);
            return t;
        });
        long period = PofSession.READ_TIMEOUT_MS / 3;
        keepalive.scheduleAtFixedRate(this::echoAll, period, period, TimeUnit.MILLISECONDS);
        log.info("POF switch server listening on {}", server.getLocalSocketAddress());
    }

    /** The bound port (useful when started on port 0 in tests). */
    public int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                PofSession session = new PofSession(socket, new Forget(listener));
                sessions.add(session);
                Thread t = new Thread(session::run, "pof-session-" + session.remoteAddress());
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (!server.isClosed()) {
                    log.warn("POF accept failed: {}", e.getMessage());
                }
            }
        }
    }

    private void echoAll() {
        for (PofSession s : sessions) {
            if (s.isReady()) {
                s.barrier();
            }
        }
    }

    public synchronized void stop() {
        try {
            if (server != null) {
                server.close();
            }
        } catch (IOException e) {
            log.debug("closing server socket: {}", e.getMessage());
        }
        if (keepalive != null) {
            keepalive.shutdownNow();
        }
        sessions.forEach(PofSession::close);
        sessions.clear();
    }

    /** Drops a session from the set when it ends, then tells the real listener. */
    private final class Forget implements PofSessionListener {
        private final PofSessionListener next;

        Forget(PofSessionListener next) {
            this.next = next;
        }

        @Override
        public void switchReady(PofSession session) {
            next.switchReady(session);
        }

        @Override
        public void portChanged(PofSession session, org.wislice.onos.pof.wire.PortStatus status) {
            next.portChanged(session, status);
        }

        @Override
        public void message(PofSession session, org.wislice.onos.pof.wire.PofMessage message) {
            next.message(session, message);
        }

        @Override
        public void switchGone(PofSession session) {
            sessions.remove(session);
            next.switchGone(session);
        }
    }
}
