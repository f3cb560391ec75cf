package org.wislice.onos.pof.channel;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;
import org.wislice.onos.pof.wire.PortStatus;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The switch server against hostile peers (PofSwitchServer.Limits, small here): a peer that trickles bytes and
 * never completes the handshake, a flood of connections that never speak, and a switch that stops reading. In
 * each case the peer is closed in bounded time and a well-behaved switch gets (and keeps) a working session.
 */
public class PofSwitchServerLimitsTest {
    private static final int MAX_PENDING = 8;
    private static final long HANDSHAKE_MS = 800;
    private static final long WRITE_STALL_MS = 800;

    private final BlockingQueue<PofSession> ready = new LinkedBlockingQueue<>();
    private final List<Socket> raw = new ArrayList<>();
    private PofSwitchServer server;

    @Before
    public void setUp() throws IOException {
        server = new PofSwitchServer(new InetSocketAddress("127.0.0.1", 0), new PofSessionListener() {
            @Override
            public void switchReady(PofSession session) {
                ready.add(session);
            }

            @Override
            public void portChanged(PofSession session, PortStatus status) {
            }

            @Override
            public void message(PofSession session, PofMessage message) {
            }

            @Override
            public void switchGone(PofSession session) {
            }
        }, new PofSwitchServer.Limits(MAX_PENDING, HANDSHAKE_MS, WRITE_STALL_MS));
        server.start();
    }

    @After
    public void tearDown() throws IOException {
        for (Socket s : raw) {
            s.close();
        }
        server.stop();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        raw.add(s);
        return s;
    }

    /** True if the server closes s (end of stream or reset) within ms; what it sends first is skipped. */
    private static boolean closedWithin(Socket s, long ms) throws IOException {
        long deadline = System.currentTimeMillis() + ms;
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        while (System.currentTimeMillis() < deadline) {
            s.setSoTimeout((int) Math.max(1, deadline - System.currentTimeMillis()));
            try {
                if (in.read(buf) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true;
            }
        }
        return false;
    }

    private void goodSwitchWorks(long devId) throws Exception {
        try (FakeSwitch sw = new FakeSwitch(server.port(), devId, 2)) {
            sw.handshake();
            PofSession s = ready.poll(5, TimeUnit.SECONDS);
            assertNotNull("the good switch did not get ready", s);
            assertEquals(devId, s.devId());
            assertEquals(PofType.ECHO_REPLY, s.barrier().get(5, TimeUnit.SECONDS).type());
        }
    }

    @Test
    public void tricklingPeerIsClosedAtTheHandshakeDeadline() throws Exception {
        Socket s = connect();
        OutputStream out = s.getOutputStream();
        // A HELLO header claiming 65535 bytes, one byte per 100 ms: every read succeeds, no message completes.
        byte[] hello = {4, 0, (byte) 0xff, (byte) 0xff, 0, 0, 0, 1};
        long start = System.currentTimeMillis();
        boolean closed = false;
        try {
            for (int i = 0; i < 40 && !closed; i++) {
                out.write(i < hello.length ? hello[i] : 0);
                out.flush();
                closed = closedWithin(s, 100);
            }
        } catch (IOException e) {
            closed = true; // the write met the reset
        }
        long took = System.currentTimeMillis() - start;
        assertTrue("a trickling peer is still connected after " + took + " ms", closed);
        assertTrue("closed too early: " + took + " ms", took >= HANDSHAKE_MS - 100);
        goodSwitchWorks(11);
    }

    @Test
    public void floodOfSilentConnectionsKeepsTheHandshakeSlotsBounded() throws Exception {
        List<Socket> flood = new ArrayList<>();
        for (int i = 0; i < 5 * MAX_PENDING; i++) {
            flood.add(connect());
        }
        // The oldest were closed to make room at once (long before the handshake deadline), the newest are not.
        assertTrue("the first silent connection is still open", closedWithin(flood.get(0), HANDSHAKE_MS / 2));
        goodSwitchWorks(12);
        // And a switch that completed its handshake is never a pending one: a second flood leaves it working.
        try (FakeSwitch sw = new FakeSwitch(server.port(), 13, 1)) {
            sw.handshake();
            PofSession s = ready.poll(5, TimeUnit.SECONDS);
            assertNotNull(s);
            for (int i = 0; i < 5 * MAX_PENDING; i++) {
                connect();
            }
            assertEquals(PofType.ECHO_REPLY, s.barrier().get(5, TimeUnit.SECONDS).type());
            assertTrue(s.isReady());
        }
    }

    @Test
    public void switchThatStopsReadingIsClosedAndOthersGoOn() throws Exception {
        try (FakeSwitch good = new FakeSwitch(server.port(), 21, 1);
             FakeSwitch deaf = new FakeSwitch(server.port(), 22, 1)) {
            good.handshake();
            PofSession goodSession = ready.poll(5, TimeUnit.SECONDS);
            deaf.handshake();
            PofSession deafSession = ready.poll(5, TimeUnit.SECONDS);
            assertNotNull(goodSession);
            assertNotNull(deafSession);
            assertEquals(22, deafSession.devId());
            deaf.stopReading();
            // Far more than the kernels' buffers hold: the write blocks until the watchdog closes the session.
            List<PofMessage> batch = new ArrayList<>();
            for (int i = 0; i < 4000; i++) {
                batch.add(new PofMessage(PofType.ECHO_REQUEST, i, new PofBody.Echo(new byte[2000])));
            }
            CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
                try {
                    deafSession.sendAll(batch);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                write.get(WRITE_STALL_MS + 3000, TimeUnit.MILLISECONDS);
                fail("the write to a switch that does not read completed");
            } catch (ExecutionException e) {
                assertFalse(deafSession.isReady()); // closed, and the blocked write failed
            }
            assertEquals(PofType.ECHO_REPLY, goodSession.barrier().get(5, TimeUnit.SECONDS).type());
            assertTrue(goodSession.isReady());
        }
    }
}
