package org.wislice.onos.agent;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent server of an app component across its (re)configurations: started on the first configuration,
 * restarted when the configuration changes, kept down (and logged) when it cannot listen, so the component stays
 * active and a corrected setting (onos:cfg) starts it.
 */
public final class ConfiguredAgentServer {

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final String agents;
    private final AgentListener listener;
    private AgentServerConfig config;
    private AgentServer server;

    /**
     * @param agents   what connects, for log lines ("ap-agents")
     * @param listener the app's session callbacks
     */
    public ConfiguredAgentServer(String agents, AgentListener listener) {
        this.agents = agents;
        this.listener = listener;
    }

    /** Starts the server on {@code cfg} unless it already runs on an equal configuration; true if (re)started. */
    public synchronized boolean apply(AgentServerConfig cfg) {
        if (cfg.equals(config)) {
            return false;
        }
        stop();
        config = cfg;
        AgentServer s = new AgentServer(cfg, listener);
        try {
            s.start();
            server = s;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.error("cannot listen for {} on {}:{}: {}", agents, cfg.bindAddress, cfg.port, e.toString());
        }
        if (cfg.unauthenticated()) {
            log.warn("no sharedSecret or tlsClientCaFile configured: {} are accepted without authentication", agents);
        }
        return true;
    }

    /** Stops the server; the next {@link #apply} starts it whatever its configuration. */
    public synchronized void stop() {
        if (server != null) {
            server.stop();
            server = null;
        }
        config = null;
    }

    /** Whether the server is listening. */
    public synchronized boolean listening() {
        return server != null;
    }

    /** The port it listens on (a configured 0 picks a free one), or -1 when it is not listening. */
    public synchronized int port() {
        return server == null ? -1 : server.port();
    }

    /** Connections closed for protocol violations since the server started. */
    public synchronized long violations() {
        return server == null ? 0 : server.violations();
    }
}
