package org.wislice.onos.agent;

/** Settings of one agent server (an app's component configuration maps onto these). */
public final class AgentServerConfig {

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
}
