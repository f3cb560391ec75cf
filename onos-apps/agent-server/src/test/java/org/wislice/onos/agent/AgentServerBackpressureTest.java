package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * What a peer can make the server hold: a flood of silent connections does not lock agents out, and a welcomed
 * agent that sends faster than the server handles, or never reads what it is sent, is held back by TCP instead
 * of filling the heap.
 */
public class AgentServerBackpressureTest {

    private static final String SECRET = "s3cret";
    private static final String PING = "{\"type\":\"ping\",\"id\":1}\n";
    private static final String EVENT = "{\"type\":\"event\",\"event\":\"clientAssociated\",\"ts\":1,"
            + "\"data\":{\"vap_id\":\"v1\",\"mac\":\"02:00:00:00:00:01\"}}\n";

    private AgentServer server;
    /** Open while the listener may handle events; tests close it to make a slow listener. */
    private volatile CountDownLatch listenerGate = new CountDownLatch(0);
    private final AtomicInteger events = new AtomicInteger();
    private final List<Socket> sockets = new ArrayList<>();

    @Before
    public void setUp() throws Exception {
        AgentServerConfig cfg = new AgentServerConfig("ap", "127.0.0.1", 0, "onos-test", SECRET, 500, 5, 30);
        server = new AgentServer(cfg, new NoopAgentListener() {
            @Override
            public void onEvent(AgentSession session, JsonNode event) {
                try {
                    listenerGate.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                events.incrementAndGet();
            }
        });
        server.start();
    }

    @After
    public void tearDown() throws IOException {
        listenerGate = new CountDownLatch(0);
        for (Socket s : sockets) {
            s.close();
        }
        server.stop();
    }

    private Socket socket(int bufferBytes) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        if (bufferBytes > 0) {
            // Small client buffers, so what the server refuses to read shows up at the client quickly.
            s.setReceiveBufferSize(bufferBytes);
            s.setSendBufferSize(bufferBytes);
        }
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
        return s;
    }

    private TestAgentClient welcomedAgent(String agentId, int bufferBytes) throws Exception {
        TestAgentClient agent = new TestAgentClient(socket(bufferBytes));
        JsonNode welcome = agent.hello("ap", agentId, SECRET, AgentControllerTest.capabilities());
        assertEquals("welcome", welcome.get("type").asText());
        return agent;
    }

    /** Writes `line` repeatedly up to `total` bytes on its own thread; counts what the socket took. */
    private static final class Writer extends Thread {
        final AtomicLong written = new AtomicLong();
        final CountDownLatch done = new CountDownLatch(1);
        private final OutputStream out;
        private final byte[] chunk;
        private final long total;

        Writer(OutputStream out, String line, long total) {
            this.out = out;
            this.total = total;
            this.chunk = line.repeat(Math.max(1, 16_384 / line.length())).getBytes(StandardCharsets.UTF_8);
            setDaemon(true);
        }

        @Override
        public void run() {
            try {
                while (written.get() < total) {
                    out.write(chunk);
                    written.addAndGet(chunk.length);
                }
                out.flush();
            } catch (IOException e) {
                // closed by the test or the server
            } finally {
                done.countDown();
            }
        }
    }

    @Test
    public void aNewAgentIsWelcomedDuringAFloodOfSilentConnections() throws Exception {
        List<Socket> flood = new ArrayList<>();
        for (int i = 0; i < AgentServer.MAX_UNWELCOMED + 20; i++) {
            flood.add(socket(0));
        }
        // The flood's first connection got its challenge, then was displaced: a bye, then the end.
        InputStream first = flood.get(0).getInputStream();
        flood.get(0).setSoTimeout(5000);
        String said = new String(first.readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(said, said.contains("\"challenge\"") && said.contains("\"bye\""));
        // A well-behaved agent arriving now is welcomed (it displaces the oldest silent one).
        try (TestAgentClient late = welcomedAgent("ap-late", 0)) {
            assertTrue(server.unwelcomed() <= AgentServer.MAX_UNWELCOMED);
            assertTrue(server.unwelcomed() >= AgentServer.MAX_UNWELCOMED - 2);
        }
    }

    @Test
    public void aPeerThatNeverReadsIsNotReadEither() throws Exception {
        TestAgentClient deaf = welcomedAgent("ap-deaf", 16_384);
        long total = 32L << 20;  // 32 MiB of pings: 1.4 M pongs the server would otherwise queue in its heap
        Writer writer = new Writer(deaf.outputStream(), PING, total);
        writer.start();
        // Parsing alone keeps a writer from finishing in seconds: what shows the server stopped reading is that
        // the writer hardly progresses once the kernel's buffers between them are full (the old server read
        // 2.4 MB of pings in such 2 s, queueing their pongs).
        assertTrue(!writer.done.await(4, TimeUnit.SECONDS));
        long before = writer.written.get();
        boolean finished = writer.done.await(2, TimeUnit.SECONDS);
        long progress = writer.written.get() - before;
        assertTrue("the server kept reading pings whose pongs nobody reads: " + progress + " bytes in 2 s",
                   !finished && progress <= 256 * 1024);
        assertTrue(before + " bytes", before > 64 * 1024);  // it was read for a while
        // Another agent is served meanwhile.
        try (TestAgentClient other = welcomedAgent("ap-other", 0)) {
            other.sendLine("{\"type\":\"ping\",\"id\":7}");
            assertEquals("pong", other.read().get("type").asText());
        }
        deaf.close();
    }

    @Test
    public void aFastSenderWaitsForASlowListenerAndLosesNothing() throws Exception {
        listenerGate = new CountDownLatch(1);
        TestAgentClient fast = welcomedAgent("ap-fast", 16_384);
        int lines = 200_000;  // 20 MB of events
        Writer writer = new Writer(fast.outputStream(), EVENT, (long) lines * EVENT.length());
        writer.start();
        boolean finished = writer.done.await(3, TimeUnit.SECONDS);
        long written = writer.written.get();
        assertTrue("the server queued all " + written + " bytes of events for a listener that waits", !finished);
        assertTrue(written + " bytes", written < (long) lines * EVENT.length() / 2);
        listenerGate.countDown();
        assertTrue("writer still blocked after the listener caught up", writer.done.await(60, TimeUnit.SECONDS));
        long sent = writer.written.get() / EVENT.length();
        for (int i = 0; i < 600 && events.get() < sent; i++) {
            Thread.sleep(100);
        }
        assertEquals(sent, events.get());
        fast.sendLine("{\"type\":\"ping\",\"id\":8}");
        JsonNode msg = fast.read();
        while (msg != null && !"pong".equals(msg.get("type").asText())) {
            msg = fast.read();  // the server's own keepalive pings
        }
        assertEquals(8, msg.get("id").asInt());
        fast.close();
    }
}
