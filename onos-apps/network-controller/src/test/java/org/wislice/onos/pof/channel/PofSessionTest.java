package org.wislice.onos.pof.channel;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.wislice.onos.pof.wire.Hex;
import org.wislice.onos.pof.wire.MultipartReply;
import org.wislice.onos.pof.wire.MultipartRequest;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofCodecException;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;
import org.wislice.onos.pof.wire.PortStatus;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** The controller side of the handshake against a fake switch on loopback. */
public class PofSessionTest {
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final BlockingQueue<PofSession> ready = new LinkedBlockingQueue<>();
    private PofSwitchServer server;

    @Before
    public void setUp() throws IOException {
        server = new PofSwitchServer(new InetSocketAddress("127.0.0.1", 0), new PofSessionListener() {
            @Override
            public void switchReady(PofSession session) {
                ready.add(session);
                events.add("ready " + session.devId());
            }

            @Override
            public void portChanged(PofSession session, PortStatus status) {
                events.add("port " + status.reason + " " + status.port.portId);
            }

            @Override
            public void message(PofSession session, PofMessage message) {
                events.add("message " + message.type());
            }

            @Override
            public void switchGone(PofSession session) {
                events.add("gone " + session.devId());
            }
        });
        server.start();
    }

    @After
    public void tearDown() {
        server.stop();
    }

    @Test
    public void handshakeRunsInTheReferenceOrderAndEnablesEveryPort() throws Exception {
        try (FakeSwitch sw = new FakeSwitch(server.port(), 7, 3)) {
            sw.handshake();
            List<PofType> seen = sw.handshake.stream().map(PofMessage::type).collect(Collectors.toList());
            assertEquals(List.of(PofType.HELLO, PofType.FEATURES_REQUEST, PofType.SET_CONFIG,
                    PofType.GET_CONFIG_REQUEST, PofType.PORT_MOD, PofType.PORT_MOD, PofType.PORT_MOD), seen);
            for (PofMessage m : sw.handshake.subList(4, 7)) {
                assertEquals(1, m.body(PortStatus.class).port.ofEnable);
            }
            assertEquals(7, m(sw.handshake.get(2)).devId);
            PofSession s = ready.poll(5, TimeUnit.SECONDS);
            assertNotNull("switchReady not called", s);
            assertEquals(3, s.ports().size());
            assertTrue(s.ports().values().stream().allMatch(p -> p.ofEnable == 1));

            PofMessage echo = s.barrier().get(5, TimeUnit.SECONDS);
            assertEquals(PofType.ECHO_REPLY, echo.type());

            sw.send(new PofMessage(PofType.PORT_STATUS, 0, new PortStatus(PortStatus.ADD, sw.port(4))));
            assertNotNull("a new port is enabled", sw.next(PofType.PORT_MOD, 5000));
            assertEquals("ready 7", events.poll(5, TimeUnit.SECONDS));
            assertEquals("port 0 4", events.poll(5, TimeUnit.SECONDS));
        }
        assertEquals("gone 7", events.poll(5, TimeUnit.SECONDS));
    }

    private static PofBody.SwitchConfig m(PofMessage msg) {
        return msg.body(PofBody.SwitchConfig.class);
    }

    @Test
    public void switchEchoIsAnswered() throws Exception {
        try (FakeSwitch sw = new FakeSwitch(server.port(), 1, 1)) {
            sw.handshake();
            ready.poll(5, TimeUnit.SECONDS);
            sw.respondWith(m -> null);
            sw.send(new PofMessage(PofType.ECHO_REQUEST, 99, new PofBody.Echo(new byte[] {1, 2})));
            PofMessage reply = sw.next(PofType.ECHO_REPLY, 5000);
            assertNotNull(reply);
            assertEquals(99, reply.xid());
            assertEquals("0102", Hex.encode(reply.body(PofBody.Echo.class).data));
        }
    }

    @Test
    public void malformedMessageGetsErrorAndClosesOnlyThatConnection() throws Exception {
        try (FakeSwitch good = new FakeSwitch(server.port(), 1, 1);
             FakeSwitch bad = new FakeSwitch(server.port(), 2, 1)) {
            good.handshake();
            bad.handshake();
            bad.sendRaw(Hex.decode("0100000800000066"));
            PofMessage err = bad.next(PofType.ERROR, 5000);
            assertNotNull("ERROR expected for a bad version", err);
            assertEquals(0x66, err.xid());
            assertEquals(1, err.body(PofBody.Error.class).type);
            assertEquals(0, err.body(PofBody.Error.class).code);
            assertTrue(bad.isClosedByPeer());
            good.send(new PofMessage(PofType.ECHO_REQUEST, 5, new PofBody.Echo(new byte[0])));
            assertNotNull("the other switch still works", good.next(PofType.ECHO_REPLY, 5000));
        }
    }

    /** A PORT_STATS reply (flags, entries for the given port ids) to a request's xid. */
    static PofMessage statsReply(long xid, int flags, int... portIds) {
        MultipartReply r = new MultipartReply();
        r.flags = flags;
        for (int p : portIds) {
            MultipartReply.PortStats s = new MultipartReply.PortStats();
            s.portNo = p;
            s.rxPackets = 10L * p;
            r.stats.add(s);
        }
        return new PofMessage(PofType.MULTIPART_REPLY, xid, r);
    }

    @Test
    public void multipartRepliesAreCollectedUntilTheLast() throws Exception {
        try (FakeSwitch sw = new FakeSwitch(server.port(), 3, 3)) {
            sw.handshake();
            PofSession s = ready.poll(5, TimeUnit.SECONDS);
            CompletableFuture<List<MultipartReply>> stats =
                    s.requestMultipart(MultipartRequest.portStats(MultipartRequest.ALL_PORTS));
            PofMessage req = sw.next(PofType.MULTIPART_REQUEST, 5000);
            assertNotNull("MULTIPART_REQUEST sent", req);
            assertEquals(MultipartRequest.PORT_STATS, req.body(MultipartRequest.class).mpType);
            assertEquals(MultipartRequest.ALL_PORTS, req.body(MultipartRequest.class).portNo);

            sw.send(statsReply(req.xid(), MultipartReply.REPLY_MORE, 1, 2));
            // Another message in between, and a reply with another xid: neither belongs to the request.
            sw.send(new PofMessage(PofType.PORT_STATUS, 0, new PortStatus(PortStatus.MODIFY, sw.port(1))));
            sw.send(statsReply(req.xid() + 1000, 0, 9));
            // The ECHO reply comes after all of that: the request must still wait for its last reply.
            s.barrier().get(5, TimeUnit.SECONDS);
            assertFalse("complete before the reply without REPLY_MORE", stats.isDone());

            sw.send(statsReply(req.xid(), 0, 3));
            List<MultipartReply> parts = stats.get(5, TimeUnit.SECONDS);
            assertEquals(2, parts.size());
            assertEquals(List.of(1L, 2L, 3L), parts.stream().flatMap(p -> p.stats.stream())
                    .map(e -> e.portNo).collect(Collectors.toList()));
            assertEquals(30, parts.get(1).stats.get(0).rxPackets);
            assertEquals("ready 3", events.poll(5, TimeUnit.SECONDS));
            assertEquals("port 2 1", events.poll(5, TimeUnit.SECONDS));
            assertEquals("the stray reply goes to the listener", "message MULTIPART_REPLY",
                    events.poll(5, TimeUnit.SECONDS));

            // Each request collects its own replies, however they interleave.
            CompletableFuture<List<MultipartReply>> a = s.requestMultipart(MultipartRequest.portStats(1));
            CompletableFuture<List<MultipartReply>> b = s.requestMultipart(MultipartRequest.portStats(2));
            long xa = sw.next(PofType.MULTIPART_REQUEST, 5000).xid();
            long xb = sw.next(PofType.MULTIPART_REQUEST, 5000).xid();
            sw.send(statsReply(xb, MultipartReply.REPLY_MORE, 2));
            sw.send(statsReply(xa, 0, 1));
            sw.send(statsReply(xb, 0));
            assertEquals(1, a.get(5, TimeUnit.SECONDS).size());
            assertEquals(2, b.get(5, TimeUnit.SECONDS).size());
            assertTrue(s.isReady());
        }
    }

    @Test
    public void errorAnswerFailsTheMultipartRequest() throws Exception {
        try (FakeSwitch sw = new FakeSwitch(server.port(), 4, 1)) {
            sw.handshake();
            PofSession s = ready.poll(5, TimeUnit.SECONDS);
            // As the reference switch: MULTIPART is not a message type it knows.
            sw.respondWith(m -> {
                if (m.type() != PofType.MULTIPART_REQUEST) {
                    return null;
                }
                PofBody.Error e = new PofBody.Error();
                e.type = PofCodecException.BAD_REQUEST;
                e.code = PofCodecException.BAD_TYPE;
                e.string = "message type not supported";
                return new PofMessage(PofType.ERROR, m.xid(), e);
            });
            CompletableFuture<List<MultipartReply>> stats =
                    s.requestMultipart(MultipartRequest.portStats(MultipartRequest.ALL_PORTS));
            try {
                stats.get(5, TimeUnit.SECONDS);
                fail("an ERROR answer must fail the request");
            } catch (ExecutionException e) {
                assertTrue(e.getCause().toString(), e.getCause() instanceof PofErrorException);
                assertEquals(1, ((PofErrorException) e.getCause()).type());
                assertEquals(1, ((PofErrorException) e.getCause()).code());
            }
            assertEquals(PofType.ECHO_REPLY, s.barrier().get(5, TimeUnit.SECONDS).type());
            assertTrue("the session goes on", s.isReady());
            assertEquals("ready 4", events.poll(5, TimeUnit.SECONDS));
            assertNull("the ERROR was the request's answer, not the listener's", events.poll(200,
                    TimeUnit.MILLISECONDS));
        }
    }

    @Test
    public void malformedMultipartReplyFailsTheRequestNotTheSession() throws Exception {
        try (FakeSwitch sw = new FakeSwitch(server.port(), 5, 1)) {
            sw.handshake();
            PofSession s = ready.poll(5, TimeUnit.SECONDS);
            CompletableFuture<List<MultipartReply>> stats =
                    s.requestMultipart(MultipartRequest.portStats(MultipartRequest.ALL_PORTS));
            long xid = sw.next(PofType.MULTIPART_REQUEST, 5000).xid();
            // 8 + 16 bytes: not 8 + 112 n.
            sw.sendRaw(Hex.decode(String.format("04140018%08x", xid) + "0004000000000000" + "0000000100000000"));
            try {
                stats.get(5, TimeUnit.SECONDS);
                fail("a malformed reply must fail the request");
            } catch (ExecutionException e) {
                assertTrue(e.getCause().toString(), e.getCause() instanceof PofCodecException);
            }
            PofMessage err = sw.next(PofType.ERROR, 5000);
            assertNotNull("the switch hears about its malformed reply", err);
            assertEquals(PofCodecException.BAD_LEN, err.body(PofBody.Error.class).code);
            assertEquals(PofType.ECHO_REPLY, s.barrier().get(5, TimeUnit.SECONDS).type());
            assertTrue(s.isReady());

            // A malformed reply nobody waits for is a malformed message like any other.
            sw.sendRaw(Hex.decode(String.format("04140018%08x", xid) + "0004000000000000" + "0000000100000000"));
            assertNotNull(sw.next(PofType.ERROR, 5000));
            assertTrue(sw.isClosedByPeer());
        }
    }

    @Test
    public void pendingMultipartFailsWhenTheSessionCloses() throws Exception {
        FakeSwitch sw = new FakeSwitch(server.port(), 6, 1);
        sw.handshake();
        PofSession s = ready.poll(5, TimeUnit.SECONDS);
        CompletableFuture<List<MultipartReply>> stats =
                s.requestMultipart(MultipartRequest.portStats(MultipartRequest.ALL_PORTS));
        assertNotNull(sw.next(PofType.MULTIPART_REQUEST, 5000));
        sw.close();
        try {
            stats.get(5, TimeUnit.SECONDS);
            fail("the request cannot be answered any more");
        } catch (ExecutionException e) {
            assertTrue(e.getCause().toString(), e.getCause() instanceof IOException);
        }
        assertTrue(s.requestMultipart(MultipartRequest.portStats(1)).isCompletedExceptionally());
    }

    @Test
    public void outOfOrderHandshakeClosesTheConnection() throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write(Hex.decode("0405000800000001"));
            s.setSoTimeout(5000);
            assertEquals(-1, s.getInputStream().read());
        }
        assertEquals(0, ready.size());
    }
}
