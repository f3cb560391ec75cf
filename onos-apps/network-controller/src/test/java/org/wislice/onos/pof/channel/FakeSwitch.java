package org.wislice.onos.pof.channel;

import org.wislice.onos.pof.wire.FeaturesReply;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofCodec;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A test switch speaking the switch side of the POF handshake (as the reference switch does), then recording
 * every message it receives; it answers ECHO, and answers other messages through an optional responder (one
 * reply, or several: e.g. MULTIPART_REPLYs flagged REPLY_MORE). QUERYALL is answered with the messages in
 * {@link #kept} (what an earlier session left, none by default) and QUERYALL_FIN, unless a test turns it off.
 */
public final class FakeSwitch implements AutoCloseable {
    public final long devId;
    public final int portCount;
    /** FEATURES_REPLY vendor_id: not pof-switch's ("WiSlice") unless a test sets it before the handshake. */
    public String vendorId = "WiSlice test";
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    public final BlockingQueue<PofMessage> received = new LinkedBlockingQueue<>();
    public final List<PofMessage> handshake = Collections.synchronizedList(new ArrayList<>());
    private volatile Function<PofMessage, List<PofMessage>> responder = m -> List.of();
    private Thread reader;
    private volatile boolean deaf;
    /** ECHO_REQUESTs (the controller's barriers) not answered yet: held while holdEchoes is on. */
    private final List<PofMessage> heldEchoes = new ArrayList<>();
    private boolean holdEchoes;
    /** TABLE_MODs and FLOW_MODs the switch reports holding when asked QUERYALL. */
    public final List<PofBody> kept = Collections.synchronizedList(new ArrayList<>());
    /** False: QUERYALL goes to the responder like any message (the reference switch's answer, or none). */
    public volatile boolean answersQueryAll = true;

    public FakeSwitch(int controllerPort, long devId, int portCount) throws IOException {
        this.devId = devId;
        this.portCount = portCount;
        socket = new Socket("127.0.0.1", controllerPort);
        socket.setSoTimeout(5000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    public void respondWith(Function<PofMessage, PofMessage> r) {
        responder = m -> {
            PofMessage reply = r.apply(m);
            return reply == null ? List.of() : List.of(reply);
        };
    }

    /** Answers a message with any number of messages, written in order. */
    public void respondWithAll(Function<PofMessage, List<PofMessage>> r) {
        responder = r;
    }

    public void send(PofMessage m) throws IOException {
        synchronized (out) {
            out.write(PofCodec.encode(m));
            out.flush();
        }
    }

    public void sendRaw(byte[] raw) throws IOException {
        synchronized (out) {
            out.write(raw);
            out.flush();
        }
    }

    PofMessage read() throws IOException {
        byte[] frame = PofCodec.readFrame(in);
        if (frame == null) {
            throw new IOException("controller closed the connection");
        }
        return PofCodec.decode(frame);
    }

    private PofMessage expect(PofType type) throws IOException {
        PofMessage m = read();
        handshake.add(m);
        if (m.type() != type) {
            throw new IOException("expected " + type + " got " + m.type());
        }
        return m;
    }

    /** The reference switch's side of the handshake, strictly in order. */
    public void handshake() throws IOException {
        send(new PofMessage(PofType.HELLO, 0, new PofBody.Empty()));
        expect(PofType.HELLO);
        PofMessage fr = expect(PofType.FEATURES_REQUEST);
        FeaturesReply f = new FeaturesReply();
        f.devId = devId;
        f.portNum = portCount;
        f.tableNum = 45;
        f.vendorId = vendorId;
        f.devFwId = "fake 1";
        f.devLkupId = "fake";
        send(new PofMessage(PofType.FEATURES_REPLY, fr.xid(), f));
        PofMessage sc = expect(PofType.SET_CONFIG);
        PofMessage gc = expect(PofType.GET_CONFIG_REQUEST);
        send(new PofMessage(PofType.GET_CONFIG_REPLY, gc.xid(), sc.body()));
        ResourceReport r = new ResourceReport();
        r.counterNum = 512;
        r.meterNum = 256;
        r.groupNum = 128;
        int[] counts = {10, 10, 5, 20};
        for (int t = 0; t < 4; t++) {
            ResourceReport.TableResource tr = new ResourceReport.TableResource();
            tr.devId = devId;
            tr.type = t;
            tr.tblNum = counts[t];
            tr.keyLen = 320;
            tr.totalSize = 8000;
            r.tables.add(tr);
        }
        send(new PofMessage(PofType.RESOURCE_REPORT, gc.xid(), r));
        for (int p = 1; p <= portCount; p++) {
            send(new PofMessage(PofType.PORT_STATUS, gc.xid(), new PortStatus(PortStatus.ADD, port(p))));
        }
        for (int p = 1; p <= portCount; p++) {
            expect(PofType.PORT_MOD);
        }
        reader = new Thread(this::readLoop, "fake-switch-" + devId);
        reader.setDaemon(true);
        reader.start();
    }

    public PofPort port(int p) {
        PofPort port = new PofPort();
        port.portId = p;
        port.devId = devId;
        port.hwAddr = new byte[] {2, 0, 0, 0, (byte) devId, (byte) p};
        port.name = "veth" + p;
        port.currSpeed = 10_000_000;
        port.maxSpeed = 10_000_000;
        return port;
    }

    /** From now on answers no ECHO_REQUEST (a barrier stays open) until releaseEchoes. */
    public void holdEchoes() {
        synchronized (heldEchoes) {
            holdEchoes = true;
        }
    }

    /** Answers the held ECHO_REQUESTs, in order, and the next ones at once again. */
    public void releaseEchoes() throws IOException {
        synchronized (heldEchoes) {
            holdEchoes = false;
            for (PofMessage m : heldEchoes) {
                send(new PofMessage(PofType.ECHO_REPLY, m.xid(), m.body()));
            }
            heldEchoes.clear();
        }
    }

    /** From now on reads nothing more (a switch whose input stalls): the controller's writes fill the buffers. */
    public void stopReading() {
        deaf = true;
    }

    private void readLoop() {
        try {
            socket.setSoTimeout(0);
            while (true) {
                while (deaf && !socket.isClosed()) {
                    Thread.sleep(20);
                }
                PofMessage m = read();
                if (m.type() == PofType.ECHO_REQUEST) {
                    synchronized (heldEchoes) {
                        if (holdEchoes) {
                            heldEchoes.add(m);
                        } else {
                            send(new PofMessage(PofType.ECHO_REPLY, m.xid(), m.body()));
                        }
                    }
                    continue;
                }
                received.add(m);
                if (m.type() == PofType.QUERYALL_REQUEST && answersQueryAll) {
                    synchronized (kept) {
                        for (PofBody b : kept) {
                            send(new PofMessage(b instanceof FlowMod ? PofType.FLOW_MOD : PofType.TABLE_MOD,
                                    m.xid(), b));
                        }
                    }
                    send(new PofMessage(PofType.QUERYALL_FIN, m.xid(), new PofBody.Empty()));
                    continue;
                }
                for (PofMessage reply : responder.apply(m)) {
                    send(reply);
                }
            }
        } catch (IOException | InterruptedException e) {
            // connection closed: the test is over or checks for it
        }
    }

    /** Next received message of a type (skipping others), or null after the timeout. */
    public PofMessage next(PofType type, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            PofMessage m = received.poll(deadline - System.currentTimeMillis(), TimeUnit.MILLISECONDS);
            if (m != null && m.type() == type) {
                return m;
            }
        }
        return null;
    }

    public boolean isClosedByPeer() {
        try {
            socket.setSoTimeout(3000);
            return in.read() < 0;
        } catch (IOException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
