package org.wislice.onos.pof.channel;

import org.slf4j.Logger;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
 * Against hostile or broken peers (a flood of connections, slow bytes, a switch that stops reading) a watchdog
 * bounds what one peer holds: see {@link Limits}.
 */
public final class PofSwitchServer {
    private static final Logger log = getLogger(PofSwitchServer.class);

    /** What a peer may hold before it is closed; the defaults suit a real network. */
    public static final class Limits {
        /** Connections still in the handshake; one more closes the oldest of them (threads stay bounded). */
        final int maxPending;
        /** From accept to a complete handshake (slow bytes keep a read alive, not a handshake). */
        final long handshakeMs;
        /** A write blocked this long (the switch does not read) closes that session, never the others'. */
        final long writeStallMs;

        public Limits(int maxPending, long handshakeMs, long writeStallMs) {
            this.maxPending = maxPending;
            this.handshakeMs = handshakeMs;
            this.writeStallMs = writeStallMs;
        }

        public static final Limits DEFAULT = new Limits(64, 10_000, 10_000);
    }

    private final InetSocketAddress address;
    private final PofSessionListener listener;
    private final Limits limits;
    private final Set<PofSession> sessions = ConcurrentHashMap.newKeySet();
    private ServerSocket server;
    private Thread acceptor;
    private ScheduledExecutorService keepalive;

    public PofSwitchServer(InetSocketAddress address, PofSessionListener listener) {
        this(address, listener, Limits.DEFAULT);
    }

    public PofSwitchServer(InetSocketAddress address, PofSessionListener listener, Limits limits) {
        this.address = address;
        this.listener = listener;
        this.limits = limits;
    }

    public synchronized void start() throws IOException {
        server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(address);
        acceptor = new Thread(this::acceptLoop, "pof-accept-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
        // Two threads: an ECHO that blocks on a switch that does not read must not stop the watchdog.
        keepalive = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "pof-keepalive");
            t.setDaemon(true);
            return t;
        });
        long period = PofSession.READ_TIMEOUT_MS / 3;
        keepalive.scheduleAtFixedRate(this::echoAll, period, period, TimeUnit.MILLISECONDS);
        long watch = Math.max(50, Math.min(limits.handshakeMs, limits.writeStallMs) / 4);
        keepalive.scheduleWithFixedDelay(this::watchdog, watch, watch, TimeUnit.MILLISECONDS);
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
                makeRoomForPending();
                sessions.add(session);
                Thread t = new Thread(session::run, "pof-session-" + session.remoteAddress());
                t.setDaemon(true);
                t.start();
            } catch (IOException | RuntimeException e) {
                // Whatever one connection does, the acceptor lives on: it is every switch's way in.
                if (!server.isClosed()) {
                    log.warn("POF accept failed: {}", e.toString());
                }
            }
        }
    }

    private void echoAll() {
        long now = System.nanoTime();
        for (PofSession s : sessions) {
            if (s.isReady() && s.writeStalledNanos(now) == 0) {
                s.barrier();
            }
        }
    }

    /** At most maxPending - 1 sessions in the handshake before a new one joins: the oldest goes. */
    private void makeRoomForPending() {
        List<PofSession> pending = new ArrayList<>();
        for (PofSession s : sessions) {
            if (s.isPending()) {
                pending.add(s);
            }
        }
        if (pending.size() < limits.maxPending) {
            return;
        }
        pending.sort(Comparator.comparingLong(PofSession::createdNanos));
        for (PofSession s : pending.subList(0, pending.size() - limits.maxPending + 1)) {
            log.warn("POF: {} connections in the handshake; closing the oldest, {}", pending.size(),
                    s.remoteAddress());
            s.close();
        }
    }

    /** Closes sessions that hold the server without progress: a handshake past its time, a stalled write. */
    private void watchdog() {
        try {
            long now = System.nanoTime();
            for (PofSession s : sessions) {
                if (s.isPending() && now - s.createdNanos() > TimeUnit.MILLISECONDS.toNanos(limits.handshakeMs)) {
                    log.warn("POF switch {}: no complete handshake within {} ms, closing", s.remoteAddress(),
                            limits.handshakeMs);
                    s.close();
                } else if (s.writeStalledNanos(now) > TimeUnit.MILLISECONDS.toNanos(limits.writeStallMs)) {
                    log.warn("POF switch {}: not reading (a write blocked {} ms), closing", s.remoteAddress(),
                            limits.writeStallMs);
                    s.close();
                }
            }
        } catch (RuntimeException e) {
            log.warn("POF watchdog: {}", e.toString()); // a periodic task that throws is never run again
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
