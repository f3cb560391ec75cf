package org.wislice.onos.pof.channel;

import org.slf4j.Logger;
import org.wislice.onos.pof.wire.FeaturesReply;
import org.wislice.onos.pof.wire.MultipartReply;
import org.wislice.onos.pof.wire.MultipartRequest;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofCodec;
import org.wislice.onos.pof.wire.PofCodecException;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofPort;
import org.wislice.onos.pof.wire.PofType;
import org.wislice.onos.pof.wire.PortStatus;
import org.wislice.onos.pof.wire.ResourceReport;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * One switch connection, controller side. Runs the handshake the reference switch expects, strictly in order:
 * switch HELLO -> HELLO -> FEATURES_REQUEST -> FEATURES_REPLY -> SET_CONFIG -> GET_CONFIG_REQUEST ->
 * GET_CONFIG_REPLY + RESOURCE_REPORT + one PORT_STATUS per port; then PORT_MOD of_enable=1 per port. Afterwards
 * it answers ECHO, matches replies (COUNTER_REPLY, ECHO_REPLY, ERROR) to pending requests by xid, collects the
 * MULTIPART_REPLYs of a multipart request until the last, and hands the rest to the listener. A malformed message
 * is answered with ERROR and closes this connection only; except a malformed MULTIPART_REPLY to a pending request:
 * that request fails and the connection (its framing intact) goes on.
 */
public final class PofSession {
    private static final Logger log = getLogger(PofSession.class);

    /** Missing a message for this long (we send ECHO every third of it) means the switch is gone. */
    public static final int READ_TIMEOUT_MS = 15_000;
    private static final int MISS_SEND_LEN = 128;
    /** Replies one multipart request may take (each holds up to 584 ports): a bound against a runaway switch. */
    static final int MAX_MULTIPART_REPLIES = 64;

    enum State { WAIT_HELLO, WAIT_FEATURES, WAIT_CONFIG, WAIT_PORTS, READY, CLOSED }

    private final Socket socket;
    private final PofSessionListener listener;
    private final AtomicLong xids = new AtomicLong(1);
    private final Map<Long, CompletableFuture<PofMessage>> pending = new ConcurrentHashMap<>();
    private final Map<Long, Multipart> multiparts = new ConcurrentHashMap<>();
    private final Map<Long, SwitchDump> dumps = new ConcurrentHashMap<>();
    private final Map<Integer, PofPort> ports = new ConcurrentSkipListMap<>();
    private volatile State state = State.WAIT_HELLO;
    private volatile FeaturesReply features;
    private volatile ResourceReport resources;
    /** The switch's latest PORT_LATENCY answer (the device provider's poll), null until one came. */
    private volatile SwitchLatency latency;
    private boolean gotConfigReply;
    private volatile OutputStream out;
    /** Writers take this, not the session's monitor, so that close() never waits behind a blocked write. */
    private final Object writeLock = new Object();
    private final long createdNanos = System.nanoTime();
    /** When the write in progress started (0: none); the server closes a session whose write stalls. */
    private volatile long writingSinceNanos;

    public PofSession(Socket socket, PofSessionListener listener) {
        this.socket = socket;
        this.listener = listener;
    }

    public long devId() {
        return features == null ? -1 : features.devId;
    }

    /** The switch's latest measured latency (PORT_LATENCY), or null: kept per session, so a reconnect forgets it. */
    public SwitchLatency latency() {
        return latency;
    }

    public void latency(SwitchLatency latest) {
        this.latency = latest;
    }

    public FeaturesReply features() {
        return features;
    }

    public ResourceReport resources() {
        return resources;
    }

    /** Ports in port id order, as last reported (of_enable as the controller set it); a snapshot. */
    public Map<Integer, PofPort> ports() {
        // Map.copyOf would iterate in an unspecified order: REST and CLI list ports by id.
        return Collections.unmodifiableSortedMap(new TreeMap<>(ports));
    }

    public String remoteAddress() {
        return socket.getRemoteSocketAddress().toString().replaceFirst("^/", "");
    }

    public boolean isReady() {
        return state == State.READY;
    }

    /** Connected, handshake not complete yet. */
    boolean isPending() {
        State s = state;
        return s != State.READY && s != State.CLOSED;
    }

    long createdNanos() {
        return createdNanos;
    }

    /** How long the write in progress has been blocked (the switch does not read), 0 if none. */
    long writeStalledNanos(long nowNanos) {
        long since = writingSinceNanos;
        return since == 0 ? 0 : nowNanos - since;
    }

    private void write(byte[] raw) throws IOException {
        synchronized (writeLock) {
            if (out == null || state == State.CLOSED) {
                throw new IOException("POF session to " + remoteAddress() + " is closed");
            }
            writingSinceNanos = System.nanoTime();
            try {
                out.write(raw);
                out.flush();
            } finally {
                writingSinceNanos = 0;
            }
        }
    }

    /** Reads until the connection ends; call on a thread of its own. */
    public void run() {
        try (InputStream in = new BufferedInputStream(socket.getInputStream())) {
            socket.setSoTimeout(READ_TIMEOUT_MS);
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            while (state != State.CLOSED) {
                byte[] frame = PofCodec.readFrame(in);
                if (frame == null) {
                    break;
                }
                handleFrame(frame);
            }
        } catch (SocketTimeoutException e) {
            log.warn("POF switch {} silent for {} ms, closing", remoteAddress(), READ_TIMEOUT_MS);
        } catch (IOException | PofCodecException e) {
            if (state != State.CLOSED) {
                log.info("POF switch {} connection ended: {}", remoteAddress(), e.getMessage());
            }
        } finally {
            close();
        }
    }

    private void handleFrame(byte[] frame) throws IOException {
        PofMessage msg;
        try {
            msg = PofCodec.decode(frame);
        } catch (PofCodecException e) {
            long xid = PofCodec.xidOf(frame);
            sendError(xid, e.errorType(), e.errorCode(), e.getMessage());
            Multipart collecting = state == State.READY && (frame[1] & 0xff) == PofType.MULTIPART_REPLY.code()
                    ? multiparts.get(xid) : null;
            if (collecting != null) {
                log.warn("POF switch {}: malformed MULTIPART_REPLY xid {}: {}", remoteAddress(), xid, e.getMessage());
                collecting.future.completeExceptionally(e);
                return;
            }
            throw new IOException("malformed message from " + remoteAddress() + ": " + e.getMessage());
        }
        if (msg.type() == PofType.ECHO_REQUEST) {
            send(new PofMessage(PofType.ECHO_REPLY, msg.xid(), msg.body()));
            return;
        }
        switch (state) {
            case WAIT_HELLO:
                expect(msg, PofType.HELLO);
                send(new PofMessage(PofType.HELLO, msg.xid(), new PofBody.Empty()));
                send(new PofMessage(PofType.FEATURES_REQUEST, nextXid(), new PofBody.Empty()));
                state = State.WAIT_FEATURES;
                break;
            case WAIT_FEATURES:
                expect(msg, PofType.FEATURES_REPLY);
                features = msg.body(FeaturesReply.class);
                send(new PofMessage(PofType.SET_CONFIG, nextXid(),
                        new PofBody.SwitchConfig(features.devId, 0, MISS_SEND_LEN)));
                send(new PofMessage(PofType.GET_CONFIG_REQUEST, nextXid(), new PofBody.Empty()));
                state = State.WAIT_CONFIG;
                break;
            case WAIT_CONFIG:
            case WAIT_PORTS:
                handshakeTail(msg);
                break;
            case READY:
                dispatch(msg);
                break;
            default:
                break;
        }
    }

    /** GET_CONFIG_REPLY, RESOURCE_REPORT and the port list, in that order. */
    private void handshakeTail(PofMessage msg) throws IOException {
        if (!gotConfigReply) {
            expect(msg, PofType.GET_CONFIG_REPLY);
            gotConfigReply = true;
            return;
        }
        if (resources == null) {
            expect(msg, PofType.RESOURCE_REPORT);
            resources = msg.body(ResourceReport.class);
            state = State.WAIT_PORTS;
        } else {
            expect(msg, PofType.PORT_STATUS);
            PofPort port = msg.body(PortStatus.class).port;
            ports.put(port.portId, port);
        }
        if (state == State.WAIT_PORTS && ports.size() >= features.portNum) {
            for (PofPort port : ports.values()) {
                enablePort(port);
            }
            state = State.READY;
            log.info("POF switch {} dev_id {} ready with {} ports", remoteAddress(), devId(), ports.size());
            listener.switchReady(this);
        }
    }

    private void dispatch(PofMessage msg) throws IOException {
        SwitchDump dump = dumps.get(msg.xid());
        if (dump != null && dump.add(msg)) {
            return;
        }
        Multipart collecting = multiparts.get(msg.xid());
        if (collecting != null && (msg.type() == PofType.MULTIPART_REPLY || msg.type() == PofType.ERROR)) {
            collecting.add(msg);
            return;
        }
        CompletableFuture<PofMessage> waiter = pending.remove(msg.xid());
        if (waiter != null && (msg.type() == PofType.ERROR || msg.type() == PofType.ECHO_REPLY
                || msg.type() == PofType.COUNTER_REPLY)) {
            waiter.complete(msg);
            return;
        }
        if (waiter != null) {
            pending.put(msg.xid(), waiter);
        }
        if (msg.type() == PofType.PORT_STATUS) {
            PortStatus status = msg.body(PortStatus.class);
            if (status.reason == PortStatus.DELETE) {
                ports.remove(status.port.portId);
            } else {
                boolean added = !ports.containsKey(status.port.portId);
                ports.put(status.port.portId, status.port);
                if (added && status.port.ofEnable == 0) {
                    enablePort(status.port);
                }
            }
            listener.portChanged(this, status);
            return;
        }
        listener.message(this, msg);
    }

    private void enablePort(PofPort reported) throws IOException {
        PofPort port = reported.copy();
        port.ofEnable = 1;
        reported.ofEnable = 1;
        send(new PofMessage(PofType.PORT_MOD, nextXid(), new PortStatus(PortStatus.MODIFY, port)));
    }

    private void expect(PofMessage msg, PofType type) throws IOException {
        if (msg.type() != type) {
            throw new IOException("handshake: expected " + type + " but got " + msg.type());
        }
    }

    public long nextXid() {
        return xids.getAndIncrement() & 0xffffffffL;
    }

    /** Sends one message; thread-safe (one writer at a time). */
    public void send(PofMessage msg) throws IOException {
        write(PofCodec.encode(msg));
    }

    /** Sends several messages in one write (a batch of FLOW_MODs). */
    public void sendAll(List<PofMessage> msgs) throws IOException {
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        for (PofMessage m : msgs) {
            buf.write(PofCodec.encode(m));
        }
        write(buf.toByteArray());
    }

    /**
     * Sends a request and completes with its reply or the ERROR carrying its xid. Also the barrier: the switch
     * handles messages in order and BARRIER is not supported, so an ECHO reply means everything sent before it
     * was processed (and any ERROR for it already arrived).
     */
    public CompletableFuture<PofMessage> request(PofType type, PofBody body) {
        long xid = nextXid();
        CompletableFuture<PofMessage> reply = new CompletableFuture<>();
        pending.put(xid, reply);
        try {
            send(new PofMessage(type, xid, body));
        } catch (IOException e) {
            pending.remove(xid);
            reply.completeExceptionally(e);
        }
        return reply;
    }

    /**
     * Sends a MULTIPART_REQUEST and completes with the bodies of every MULTIPART_REPLY carrying its xid, in order,
     * once one without REPLY_MORE arrived. Fails with {@link PofErrorException} when the switch answers ERROR (the
     * reference switch refuses the type with BAD_REQUEST/BAD_TYPE), with {@link PofCodecException} when a reply is
     * malformed or the replies do not end, and with IOException when the session closes. Completing the future from
     * outside (a timeout, cancel) forgets the request; later replies with its xid go to the listener.
     */
    public CompletableFuture<List<MultipartReply>> requestMultipart(MultipartRequest body) {
        long xid = nextXid();
        Multipart collecting = new Multipart();
        multiparts.put(xid, collecting);
        collecting.future.whenComplete((r, e) -> multiparts.remove(xid, collecting));
        try {
            send(new PofMessage(PofType.MULTIPART_REQUEST, xid, body));
        } catch (IOException | PofCodecException e) {
            collecting.future.completeExceptionally(e);
        }
        return collecting.future;
    }

    /**
     * Sends QUERYALL_REQUEST and completes with the switch's tables, flows and meters once QUERYALL_FIN arrived.
     * Fails with {@link PofErrorException} when the switch answers ERROR, with IOException when the session closes;
     * completing it from outside (a timeout) forgets the request.
     */
    public CompletableFuture<SwitchDump> queryAll() {
        long xid = nextXid();
        SwitchDump dump = new SwitchDump();
        dumps.put(xid, dump);
        dump.future.whenComplete((r, e) -> dumps.remove(xid, dump));
        try {
            send(new PofMessage(PofType.QUERYALL_REQUEST, xid, new PofBody.QueryAll(PofBody.QueryAll.ALL_SLOTS)));
        } catch (IOException | PofCodecException e) {
            dump.future.completeExceptionally(e);
        }
        return dump.future;
    }

    public CompletableFuture<PofMessage> barrier() {
        return request(PofType.ECHO_REQUEST, new PofBody.Echo(new byte[0]));
    }

    private void sendError(long xid, int type, int code, String why) {
        PofBody.Error err = new PofBody.Error();
        err.type = type;
        err.code = code;
        err.devId = Math.max(0, devId());
        err.string = why.length() > 255 ? why.substring(0, 255) : why;
        try {
            send(new PofMessage(PofType.ERROR, xid, err));
        } catch (IOException | PofCodecException e) {
            log.debug("could not send ERROR to {}: {}", remoteAddress(), e.getMessage());
        }
    }

    /** Closes the connection; the listener hears switchGone once (also for a switch that never got ready). */
    public void close() {
        State was;
        synchronized (this) {
            was = state;
            state = State.CLOSED;
        }
        try {
            socket.close();
        } catch (IOException e) {
            log.debug("close {}: {}", remoteAddress(), e.getMessage());
        }
        pending.values().forEach(f -> f.completeExceptionally(new IOException("POF session closed")));
        pending.clear();
        multiparts.values().forEach(m -> m.future.completeExceptionally(new IOException("POF session closed")));
        multiparts.clear();
        dumps.values().forEach(d -> d.future.completeExceptionally(new IOException("POF session closed")));
        dumps.clear();
        if (was != State.CLOSED) {
            listener.switchGone(this);
        }
    }

    /** The replies of one multipart request so far; touched only by the reader thread. */
    private static final class Multipart {
        final CompletableFuture<List<MultipartReply>> future = new CompletableFuture<>();
        final List<MultipartReply> parts = new ArrayList<>();

        void add(PofMessage msg) {
            if (msg.type() == PofType.ERROR) {
                future.completeExceptionally(new PofErrorException(msg.body(PofBody.Error.class)));
                return;
            }
            MultipartReply part = msg.body(MultipartReply.class);
            parts.add(part);
            if (!part.more()) {
                future.complete(List.copyOf(parts));
            } else if (parts.size() >= MAX_MULTIPART_REPLIES) {
                future.completeExceptionally(new PofCodecException("MULTIPART_REPLY: still REPLY_MORE after "
                        + MAX_MULTIPART_REPLIES + " replies to one request"));
            }
        }
    }
}
