package org.wislice.onos.agent;

import java.util.Dictionary;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/** Settings of one agent server (an app's component configuration maps onto these). */
public final class AgentServerConfig {

    /** Component property names shared by the apps that run an agent server (their defaults differ). */
    public static final String AGENT_PORT = "agentPort";
    public static final String BIND_ADDRESS = "bindAddress";
    public static final String SHARED_SECRET = "sharedSecret";
    public static final String TLS_CERT_FILE = "tlsCertFile";
    public static final String TLS_KEY_FILE = "tlsKeyFile";
    public static final String TLS_CLIENT_CA_FILE = "tlsClientCaFile";
    public static final String REQUEST_TIMEOUT_MS = "requestTimeoutMs";
    public static final String STATS_INTERVAL_S = "statsIntervalS";

    public final String role;
    public final String bindAddress;
    public final int port;
    public final String controllerId;
    /** Shared secret for hmac-sha256; empty means auth "none" is accepted (never the testbed default). */
    public final String secret;
    public final long requestTimeoutMs;
    public final int statsIntervalS;
    public final int idleTimeoutS;
    /** Server certificate chain (PEM); with tlsKeyFile set, every connection is TLS. Empty = plain TCP. */
    public final String tlsCertFile;
    /** The server certificate's private key (PEM, unencrypted PKCS#8). */
    public final String tlsKeyFile;
    /** CA certificates (PEM) that client certificates must chain to; empty = no client certificates asked. */
    public final String tlsClientCaFile;

    public AgentServerConfig(String role, String bindAddress, int port, String controllerId, String secret,
                             long requestTimeoutMs, int statsIntervalS, int idleTimeoutS) {
        this(role, bindAddress, port, controllerId, secret, requestTimeoutMs, statsIntervalS, idleTimeoutS,
             "", "", "");
    }

    private AgentServerConfig(String role, String bindAddress, int port, String controllerId, String secret,
                              long requestTimeoutMs, int statsIntervalS, int idleTimeoutS,
                              String tlsCertFile, String tlsKeyFile, String tlsClientCaFile) {
        this.role = role;
        this.bindAddress = bindAddress;
        this.port = port;
        this.controllerId = controllerId;
        this.secret = secret == null ? "" : secret;
        this.requestTimeoutMs = requestTimeoutMs;
        this.statsIntervalS = statsIntervalS;
        this.idleTimeoutS = idleTimeoutS;
        this.tlsCertFile = tlsCertFile == null ? "" : tlsCertFile;
        this.tlsKeyFile = tlsKeyFile == null ? "" : tlsKeyFile;
        this.tlsClientCaFile = tlsClientCaFile == null ? "" : tlsClientCaFile;
    }

    /** This configuration with TLS files (empty strings = unset); checked when the server starts. */
    public AgentServerConfig withTls(String certFile, String keyFile, String clientCaFile) {
        return new AgentServerConfig(role, bindAddress, port, controllerId, secret, requestTimeoutMs,
                                     statsIntervalS, idleTimeoutS, certFile, keyFile, clientCaFile);
    }

    /** This configuration for another controller node: controllerId as the welcome names it. */
    public AgentServerConfig withControllerId(String id) {
        return new AgentServerConfig(role, bindAddress, port, id, secret, requestTimeoutMs, statsIntervalS,
                                     idleTimeoutS, tlsCertFile, tlsKeyFile, tlsClientCaFile);
    }

    /**
     * This configuration with the values the component properties {@code p} set (this one's for the unset ones).
     * Numbers may come as numbers or strings (onos:cfg sets strings); a malformed one keeps this one's value.
     */
    public AgentServerConfig withProperties(Dictionary<?, ?> p) {
        if (p == null) {
            return this;
        }
        return new AgentServerConfig(role, text(p, BIND_ADDRESS, bindAddress), integer(p, AGENT_PORT, port),
                                     controllerId, text(p, SHARED_SECRET, secret),
                                     integer(p, REQUEST_TIMEOUT_MS, (int) requestTimeoutMs),
                                     integer(p, STATS_INTERVAL_S, statsIntervalS), idleTimeoutS,
                                     text(p, TLS_CERT_FILE, tlsCertFile), text(p, TLS_KEY_FILE, tlsKeyFile),
                                     text(p, TLS_CLIENT_CA_FILE, tlsClientCaFile));
    }

    /**
     * The environment variable that gives one controller node its own agentPort (WISLICE_AP_AGENT_PORT,
     * WISLICE_MEC_AGENT_PORT): component configuration is the same on every node of a cluster, and nodes that
     * share a host cannot share a port (docs/onos-cluster.md).
     */
    public String nodePortVariable() {
        return "WISLICE_" + role.toUpperCase(Locale.ROOT) + "_AGENT_PORT";
    }

    /**
     * This configuration with the node's own port when env has one; IllegalArgumentException naming the variable
     * when its value is not a port (0-65535).
     */
    public AgentServerConfig withNodePort(Function<String, String> env) {
        String value = env.apply(nodePortVariable());
        if (value == null || value.isBlank()) {
            return this;
        }
        int p;
        try {
            p = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            p = -1;
        }
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException(nodePortVariable() + " must be a port (0-65535), not \"" + value
                    + "\"");
        }
        return new AgentServerConfig(role, bindAddress, p, controllerId, secret, requestTimeoutMs, statsIntervalS,
                                     idleTimeoutS, tlsCertFile, tlsKeyFile, tlsClientCaFile);
    }

    private static String text(Dictionary<?, ?> p, String name, String otherwise) {
        Object v = p.get(name);
        return v == null ? otherwise : v.toString().trim();
    }

    private static int integer(Dictionary<?, ?> p, String name, int otherwise) {
        Object v = p.get(name);
        if (v instanceof Number) {
            return ((Number) v).intValue();
        }
        try {
            return v == null ? otherwise : Integer.parseInt(v.toString().trim());
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    /** Whether agents may connect without proving who they are (no shared secret, no client certificates). */
    public boolean unauthenticated() {
        return secret.isEmpty() && tlsClientCaFile.isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof AgentServerConfig)) {
            return false;
        }
        AgentServerConfig c = (AgentServerConfig) o;
        return port == c.port && requestTimeoutMs == c.requestTimeoutMs && statsIntervalS == c.statsIntervalS
                && idleTimeoutS == c.idleTimeoutS && role.equals(c.role) && bindAddress.equals(c.bindAddress)
                && controllerId.equals(c.controllerId) && secret.equals(c.secret)
                && tlsCertFile.equals(c.tlsCertFile) && tlsKeyFile.equals(c.tlsKeyFile)
                && tlsClientCaFile.equals(c.tlsClientCaFile);
    }

    @Override
    public int hashCode() {
        return Objects.hash(role, bindAddress, port, controllerId, secret, requestTimeoutMs, statsIntervalS,
                            idleTimeoutS, tlsCertFile, tlsKeyFile, tlsClientCaFile);
    }
}
