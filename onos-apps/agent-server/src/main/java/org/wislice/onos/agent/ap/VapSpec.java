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
    /** The WMM access category of the vAP's downlink (be, vi, vo); null when absent (be for the agent). */
    final String wmmAc;
    /** The vAP's latency probe; null when absent (no probe). */
    final Probe probe;

    public VapSpec(String vapId, String radio, String ssid, Security security, Boolean hidden, int tenantId,
                   String sliceId, RateLimit rateLimit, Integer maxClients) {
        this(vapId, radio, ssid, security, hidden, tenantId, sliceId, rateLimit, maxClients, null);
    }

    public VapSpec(String vapId, String radio, String ssid, Security security, Boolean hidden, int tenantId,
                   String sliceId, RateLimit rateLimit, Integer maxClients, String wmmAc) {
        this(vapId, radio, ssid, security, hidden, tenantId, sliceId, rateLimit, maxClients, wmmAc, null);
    }

    public VapSpec(String vapId, String radio, String ssid, Security security, Boolean hidden, int tenantId,
                   String sliceId, RateLimit rateLimit, Integer maxClients, String wmmAc, Probe probe) {
        this.vapId = vapId;
        this.radio = radio;
        this.ssid = ssid;
        this.security = security;
        this.hidden = hidden;
        this.tenantId = tenantId;
        this.sliceId = sliceId;
        this.rateLimit = rateLimit;
        this.maxClients = maxClients;
        this.wmmAc = wmmAc;
        this.probe = probe;
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

    /** be, vi or vo (be when absent). */
    public String wmmAc() {
        return wmmAc == null ? "be" : wmmAc;
    }

    /** The vAP's latency probe, empty when it has none. */
    public java.util.Optional<Probe> probe() {
        return java.util.Optional.ofNullable(probe);
    }

    /** This vAP with another latency probe (null: none). */
    public VapSpec withProbe(Probe newProbe) {
        return new VapSpec(vapId, radio, ssid, security, hidden, tenantId, sliceId, rateLimit, maxClients, wmmAc,
                           newProbe);
    }

    /** This vAP in another WMM access category (null: leave it out, be for the agent). */
    public VapSpec withWmmAc(String ac) {
        return new VapSpec(vapId, radio, ssid, security, hidden, tenantId, sliceId, rateLimit, maxClients, ac, probe);
    }

    /** This vAP with other rates (updateVap). */
    public VapSpec withRateLimit(RateLimit newRates) {
        return new VapSpec(vapId, radio, ssid, security, hidden, tenantId, sliceId, newRates, maxClients, wmmAc, probe);
    }

    /** This vAP with another security (the WiFi store keeps it without its passphrase). */
    public VapSpec withSecurity(Security newSecurity) {
        return new VapSpec(vapId, radio, ssid, newSecurity, hidden, tenantId, sliceId, rateLimit, maxClients, wmmAc,
                           probe);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, radio, ssid, security, hidden, tenantId, sliceId, rateLimit, maxClients, wmmAc,
            probe};
    }
}
