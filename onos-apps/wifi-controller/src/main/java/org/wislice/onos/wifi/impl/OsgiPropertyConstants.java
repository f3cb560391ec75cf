package org.wislice.onos.wifi.impl;

/** Component configuration of the WiFi controller (onos:cfg set org.wislice.onos.wifi.impl.WifiManager ...). */
public final class OsgiPropertyConstants {

    // The agent server's property names are AgentServerConfig's; repeated here as literals because the
    // onos-maven-plugin reads the property catalog from literal constants only.
    public static final String AGENT_PORT = "agentPort";
    public static final int AGENT_PORT_DEFAULT = 6690;
    public static final String BIND_ADDRESS = "bindAddress";
    public static final String BIND_ADDRESS_DEFAULT = "0.0.0.0";
    /** Shared secret for hmac-sha256 agent auth; empty (no secret, auth "none" accepted) unless configured. */
    public static final String SHARED_SECRET = "sharedSecret";
    public static final String SHARED_SECRET_DEFAULT = "";
    /** Server certificate chain (PEM file); with tlsKeyFile set, agent connections are TLS. Empty = plain TCP. */
    public static final String TLS_CERT_FILE = "tlsCertFile";
    public static final String TLS_CERT_FILE_DEFAULT = "";
    /** Private key of tlsCertFile (PEM file, unencrypted PKCS#8). */
    public static final String TLS_KEY_FILE = "tlsKeyFile";
    public static final String TLS_KEY_FILE_DEFAULT = "";
    /** CA (PEM file) that ap-agents' client certificates must chain to; set = client certificates required. */
    public static final String TLS_CLIENT_CA_FILE = "tlsClientCaFile";
    public static final String TLS_CLIENT_CA_FILE_DEFAULT = "";
    public static final String REQUEST_TIMEOUT_MS = "requestTimeoutMs";
    public static final int REQUEST_TIMEOUT_MS_DEFAULT = 10000;
    public static final String STATS_INTERVAL_S = "statsIntervalS";
    public static final int STATS_INTERVAL_S_DEFAULT = 5;

    private OsgiPropertyConstants() {
    }
}
