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

    public AgentServerConfig(String role, String bindAddress, int port, String controllerId, String secret,
                             long requestTimeoutMs, int statsIntervalS, int idleTimeoutS) {
        this.role = role;
        this.bindAddress = bindAddress;
        this.port = port;
        this.controllerId = controllerId;
        this.secret = secret == null ? "" : secret;
        this.requestTimeoutMs = requestTimeoutMs;
        this.statsIntervalS = statsIntervalS;
        this.idleTimeoutS = idleTimeoutS;
    }
}
