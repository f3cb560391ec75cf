package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** VapSpec: a vAP as the controller wants it on an ap-agent (createVap, syncVaps), passphrase included. */
public final class VapSpec extends AgentValue {

    final String vapId;
    final String radio;
    final String ssid;
    final Security security;
    /** Null when absent (false for the agent). */
    final Boolean hidden;
    final int tenantId;
    final String sliceId;
    final RateLimit rateLimit;
    /** Null when absent (no limit). */
    final Integer maxClients;

    public VapSpec(String vapId, String radio, String ssid, Security security, Boolean hidden, int tenantId,
                   String sliceId, RateLimit rateLimit, Integer maxClients) {
        this.vapId = vapId;
        this.radio = radio;
        this.ssid = ssid;
        this.security = security;
        this.hidden = hidden;
        this.tenantId = tenantId;
        this.sliceId = sliceId;
        this.rateLimit = rateLimit;
        this.maxClients = maxClients;
    }

    public String vapId() {
        return vapId;
    }

    public String radio() {
        return radio;
    }

    public String ssid() {
        return ssid;
    }

    public Security security() {
        return security;
    }

    public boolean hidden() {
        return Boolean.TRUE.equals(hidden);
    }

    public int tenantId() {
        return tenantId;
    }

    public String sliceId() {
        return sliceId;
    }

    public RateLimit rateLimit() {
        return rateLimit;
    }

    /** This vAP with other rates (updateVap). */
    public VapSpec withRateLimit(RateLimit newRates) {
        return new VapSpec(vapId, radio, ssid, security, hidden, tenantId, sliceId, newRates, maxClients);
    }

    /** This vAP with another security (the WiFi store keeps it without its passphrase). */
    public VapSpec withSecurity(Security newSecurity) {
        return new VapSpec(vapId, radio, ssid, newSecurity, hidden, tenantId, sliceId, rateLimit, maxClients);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, radio, ssid, security, hidden, tenantId, sliceId, rateLimit, maxClients};
    }
}
