package org.wislice.onos.pof.channel;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.wislice.onos.pof.wire.Hex;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;
import org.wislice.onos.pof.wire.PortStatus;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

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
