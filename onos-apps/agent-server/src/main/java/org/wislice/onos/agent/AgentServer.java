package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.handler.codec.string.StringEncoder;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * TCP server for agent connections (spec/agent/PROTOCOL.md): optional TLS (client certificates required when
 * a client CA is configured), line framing capped at 1 MiB, challenge, hello validation and authentication,
 * welcome, then requests/replies/events/keepalive. Every line is validated; a violation closes that connection
 * only. Listener callbacks run on per-agent ordered executors.
 */
public final class AgentServer {

    static final int MAX_LINE = 1_048_576;
    // Before an agent is welcomed it is nobody: its lines are at most MAX_HELLO_LINE (a hello is well under 4 KiB),
    // it has HELLO_DEADLINE_MS to be welcomed, and at most MAX_UNWELCOMED such connections are held at once (a
    // newcomer displaces the oldest, see WaitingRoom). So anonymous peers (slow senders, floods of connections)
    // hold at most MAX_UNWELCOMED x 64 KiB of buffers.
    static final int MAX_HELLO_LINE = 65_536;
    static final long HELLO_DEADLINE_MS = 10_000;
    static final int MAX_UNWELCOMED = 256;
    // A connection is read only while the listener keeps up with it (at most MAX_QUEUED of its messages wait for
    // the listener) and while its peer reads what it is sent (netty's write buffer below its high water mark):
    // otherwise TCP flow control holds the sender back instead of the controller's heap.
    static final int MAX_QUEUED = 256;
    private static final String FRAMES = "frames";
    private static final int LISTENER_THREADS = 4;

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final AgentServerConfig config;
    private final AgentListener listener;
    private final ExecutorService[] executors = new ExecutorService[LISTENER_THREADS];
    private final AtomicLong violations = new AtomicLong();
    private final WaitingRoom<ConnectionHandler> waitingRoom = new WaitingRoom<>(MAX_UNWELCOMED);
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel serverChannel;
    /** Null for plain TCP. */
    private SslContext ssl;

    public AgentServer(AgentServerConfig config, AgentListener listener) {
        this.config = config;
        this.listener = listener;
    }

    /**
     * Binds the port; throws (and releases its threads) if it cannot, e.g. BindException, or
     * IllegalArgumentException for unusable TLS settings.
     */
    public synchronized void start() throws Exception {
        ssl = sslContext(config);
        for (int i = 0; i < executors.length; i++) {
            executors[i] = Executors.newSingleThreadExecutor(r -> new Thread(r, "wislice-" + config.role + "-agents"));
        }
        boss = new NioEventLoopGroup(1);
        workers = new NioEventLoopGroup(2);
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32_768, 65_536))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (ssl != null) {
                            ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                        }
                        ch.pipeline()
                                .addLast(new IdleStateHandler(config.idleTimeoutS, config.idleTimeoutS / 3, 0))
                                .addLast(FRAMES, new LineBasedFrameDecoder(MAX_HELLO_LINE, true, true))
                                .addLast(new StringDecoder(StandardCharsets.UTF_8))
                                .addLast(new StringEncoder(StandardCharsets.UTF_8))
                                .addLast(new ConnectionHandler());
                    }
                });
        try {
            serverChannel = b.bind(new InetSocketAddress(config.bindAddress, config.port)).sync().channel();
        } catch (Exception e) {
            stop();
            throw e;
        }
        log.info("{} agent server listening on {}:{}{}", config.role, config.bindAddress, config.port,
                 ssl == null ? "" : config.tlsClientCaFile.isEmpty() ? " (TLS)" : " (TLS, client certificates)");
    }

    /** The TLS context for the config's files, or null when none is set (plain TCP). */
    static SslContext sslContext(AgentServerConfig c) {
        if (c.tlsCertFile.isEmpty() && c.tlsKeyFile.isEmpty() && c.tlsClientCaFile.isEmpty()) {
            return null;
        }
        if (c.tlsCertFile.isEmpty() || c.tlsKeyFile.isEmpty()) {
            throw new IllegalArgumentException("TLS needs both a certificate file and a key file");
        }
        try {
            // The JDK provider: the ONOS runtime has no netty-tcnative, and tests then run what production runs.
            SslContextBuilder b = SslContextBuilder.forServer(readable(c.tlsCertFile, "TLS certificate"),
                                                              readable(c.tlsKeyFile, "TLS key"))
                    .sslProvider(SslProvider.JDK);
            if (!c.tlsClientCaFile.isEmpty()) {
                b.trustManager(readable(c.tlsClientCaFile, "TLS client CA")).clientAuth(ClientAuth.REQUIRE);
            }
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            // netty's message names the file; its cause says what is wrong with it (e.g. a PKCS#1 key).
            throw new IllegalArgumentException("unusable TLS settings: " + e.getMessage()
                    + (e.getCause() == null ? "" : " (" + e.getCause() + ")"), e);
        }
    }

    private static File readable(String path, String what) {
        File f = new File(path);
        if (!f.isFile() || !f.canRead()) {
            throw new IllegalArgumentException(what + " file " + path + " is missing or unreadable");
        }
        return f;
    }

    public synchronized void stop() {
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly();
            serverChannel = null;
        }
        if (workers != null) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            workers = null;
        }
        for (int i = 0; i < executors.length; i++) {
            if (executors[i] != null) {
                executors[i].shutdownNow();
                executors[i] = null;
            }
        }
    }

    /** The bound port (useful when configured with port 0 in tests). */
    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Connections closed for protocol violations since start. */
    public long violations() {
        return violations.get();
    }

    /** Connections not welcomed yet. */
    int unwelcomed() {
        return waitingRoom.size();
    }

    private ExecutorService executorFor(AgentSession s) {
        String key = s.agentId() == null ? s.remoteAddress() : s.agentId();
        return executors[Math.floorMod(key.hashCode(), executors.length)];
    }

    /** Runs r on the session's ordered executor; false when the server is stopping (r is dropped). */
    private boolean dispatch(AgentSession s, Runnable r) {
        ExecutorService e = executorFor(s);
        if (e == null || e.isShutdown()) {
            return false;
        }
        e.execute(() -> {
            try {
                r.run();
            } catch (RuntimeException ex) {
                log.warn("agent listener failed for {}", s.agentId(), ex);
            }
        });
        return true;
    }

    /** Per-connection protocol state machine: challenge sent -> hello -> welcomed. */
    private final class ConnectionHandler extends SimpleChannelInboundHandler<String> {
        private AgentSession session;
        /** CN of the verified client certificate, when client certificates are required. */
        private String clientCn;
        /** This connection's messages handed to the listener and not handled yet. */
        private final AtomicInteger queued = new AtomicInteger();
        private Channel channel;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            session = new AgentSession(channel, Hmac.nonce(), config.requestTimeoutMs);
            ConnectionHandler displaced = waitingRoom.admit(this);
            if (displaced != null) {
                displaced.displaced();
            }
            ctx.executor().schedule(() -> {
                if (!session.isWelcomed() && ctx.channel().isActive()) {
                    violation("not welcomed within " + HELLO_DEADLINE_MS + " ms");
                }
            }, HELLO_DEADLINE_MS, TimeUnit.MILLISECONDS);
            if (ssl == null) {
                sendChallenge();
            }
            // With TLS the challenge waits for the handshake: nothing is said to an unverified peer.
        }

        private void sendChallenge() {
            ObjectNode challenge = Json.object().put("type", "challenge").put("version", 1)
                    .put("nonce", session.nonce()).put("controller_id", config.controllerId);
            session.send(challenge);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, String line) {
            ObjectNode msg;
            try {
                msg = Json.parseLine(line);
                MessageValidator.validate(msg);
            } catch (ProtocolException e) {
                answerOrClose(line, e);
                return;
            }
            String type = msg.get("type").asText();
            if (session.agentId() == null) {
                onHello(msg, type);
                return;
            }
            if (!session.isWelcomed()) {
                violation("message before welcome");
                return;
            }
            switch (type) {
                case "reply":
                    session.onReply(msg);
                    break;
                case "event":
                    toListener(() -> listener.onEvent(session, msg));
                    break;
                case "ping":
                    session.send(Json.object().put("type", "pong").put("id", msg.get("id").asLong()));
                    break;
                case "pong":
                    break;
                case "request":
                    // The controllers serve no agent-initiated methods.
                    session.send(errorReply(msg.get("id").asLong(), "unknown_method",
                                            "the controller serves no methods"));
                    break;
                case "bye":
                    ctx.close();
                    break;
                default:
                    violation("unexpected " + type);
            }
        }

        private void onHello(ObjectNode msg, String type) {
            if (!"hello".equals(type)) {
                violation("hello expected, got " + type);
                return;
            }
            String agentId = msg.get("agent_id").asText();
            if (!config.role.equals(msg.get("role").asText())) {
                refuse("this server takes role " + config.role);
                return;
            }
            String refusal = authenticate(msg.get("auth"), agentId);
            if (refusal != null) {
                refuse(refusal);
                return;
            }
            session.identify(agentId, msg);
            toListener(() -> {
                String reason = listener.onHello(session, msg);
                if (reason != null) {
                    refuse(reason);
                    return;
                }
                welcomed();
                session.send(Json.object().put("type", "welcome").put("controller_id", config.controllerId)
                                     .put("stats_interval_s", config.statsIntervalS));
                listener.onWelcomed(session);
            });
        }

        /** Marks the session welcomed and lets its lines grow to MAX_LINE; the decoder is swapped on the channel's
         * own thread before the welcome is written there, so no line is split across the two decoders. */
        private void welcomed() {
            session.markWelcomed();
            channel.eventLoop().execute(() -> {
                waitingRoom.leave(this);
                if (channel.pipeline().get(FRAMES) != null) {
                    channel.pipeline().replace(FRAMES, FRAMES, new LineBasedFrameDecoder(MAX_LINE, true, true));
                }
            });
        }

        /** Hands a message to the listener (called on the channel's thread); reading pauses while MAX_QUEUED of
         * this connection's messages wait, and resumes when half of them are handled. */
        private void toListener(Runnable r) {
            if (queued.incrementAndGet() >= MAX_QUEUED) {
                updateReading();
            }
            boolean accepted = dispatch(session, () -> {
                try {
                    r.run();
                } finally {
                    if (queued.decrementAndGet() == MAX_QUEUED / 2) {
                        channel.eventLoop().execute(this::updateReading);
                    }
                }
            });
            if (!accepted) {
                queued.decrementAndGet();
            }
        }

        /** Reads while the listener keeps up and the peer reads its answers (on the channel's thread). */
        private void updateReading() {
            channel.config().setAutoRead(channel.isWritable() && queued.get() < MAX_QUEUED);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            updateReading();
            ctx.fireChannelWritabilityChanged();
        }

        private String authenticate(JsonNode auth, String agentId) {
            String scheme = auth.get("scheme").asText();
            if ("tls-client-cert".equals(scheme) && config.secret.isEmpty()) {
                // spec/agent: the verified client certificate's CN names the agent.
                if (clientCn == null) {
                    return "no verified client certificate";
                }
                return clientCn.equals(agentId) ? null : "client certificate is not for " + agentId;
            }
            if (config.secret.isEmpty()) {
                return "none".equals(scheme) || "hmac-sha256".equals(scheme) ? null : "auth scheme unsupported";
            }
            if (!"hmac-sha256".equals(scheme)) {
                return "hmac-sha256 required";
            }
            return Hmac.verify(config.secret, session.nonce(), agentId, auth.get("mac").asText())
                    ? null : "bad hmac";
        }

        /** A malformed request still gets an error reply when its id is readable; anything else closes. */
        private void answerOrClose(String line, ProtocolException e) {
            try {
                JsonNode raw = Json.MAPPER.readTree(line);
                JsonNode id = raw == null ? null : raw.get("id");
                if (session.isWelcomed() && raw.isObject() && "request".equals(raw.path("type").asText())
                        && id != null && id.isIntegralNumber() && id.asLong() > 0) {
                    session.send(errorReply(id.asLong(), e.code(), e.getMessage()));
                    return;
                }
            } catch (java.io.IOException | RuntimeException | StackOverflowError ignored) {
                // not even JSON: fall through and close
            }
            violation(e.getMessage());
        }

        /** Closed for a newer connection (on the newcomer's thread; a flood would flood the log at info). */
        private void displaced() {
            violations.incrementAndGet();
            log.debug("closing {}: {} newer connections are waiting for their welcome", session.remoteAddress(),
                      MAX_UNWELCOMED);
            session.close("too many connections waiting for their welcome");
        }

        private void refuse(String reason) {
            log.info("refusing agent {} from {}: {}", session.agentId(), session.remoteAddress(), reason);
            session.close(reason);
        }

        private void violation(String what) {
            violations.incrementAndGet();
            log.warn("protocol violation from {} ({}): {}; closing", session.remoteAddress(),
                     session.agentId(), what);
            session.close("protocol violation: " + (what.length() > 200 ? what.substring(0, 200) : what));
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof SslHandshakeCompletionEvent) {
                if (((SslHandshakeCompletionEvent) evt).isSuccess()) {
                    clientCn = config.tlsClientCaFile.isEmpty() ? null : peerCn(ctx);
                    sendChallenge();
                } else {
                    // A peer's bad handshake also reaches exceptionCaught, which logs it.
                    ctx.close();
                }
            } else if (evt instanceof IdleStateEvent) {
                IdleState state = ((IdleStateEvent) evt).state();
                if (state == IdleState.READER_IDLE) {
                    session.close("idle for " + config.idleTimeoutS + " s");
                } else if (state == IdleState.WRITER_IDLE && session.isWelcomed()) {
                    session.send(Json.object().put("type", "ping").put("id", System.nanoTime() & 0xffffffffL | 1));
                }
            }
        }

        private String peerCn(ChannelHandlerContext ctx) {
            String cn = null;
            try {
                Certificate[] chain = ctx.pipeline().get(SslHandler.class).engine().getSession()
                        .getPeerCertificates();
                String dn = ((X509Certificate) chain[0]).getSubjectX500Principal().getName();
                for (Rdn rdn : new LdapName(dn).getRdns()) {
                    if ("CN".equalsIgnoreCase(rdn.getType())) {
                        cn = rdn.getValue().toString();
                    }
                }
            } catch (SSLPeerUnverifiedException | InvalidNameException | ClassCastException e) {
                log.info("no usable client certificate from {}: {}", session.remoteAddress(), e.toString());
            }
            return cn;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            waitingRoom.leave(this);
            session.failPending("connection to " + session.agentId() + " closed");
            if (session.agentId() != null) {
                dispatch(session, () -> listener.onClosed(session, "connection closed"));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // Too long lines, decoding errors, resets: this connection only.
            violations.incrementAndGet();
            log.info("closing agent connection {} ({}): {}", session.remoteAddress(), session.agentId(),
                     cause.toString());
            ctx.close();
        }
    }

    static ObjectNode errorReply(long id, String code, String message) {
        ObjectNode reply = Json.object().put("type", "reply").put("id", id).put("ok", false);
        reply.putObject("error").put("code", code)
                .put("message", message.length() > 4096 ? message.substring(0, 4096) : message);
        return reply;
    }
}
