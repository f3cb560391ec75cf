package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/**
 * updateVap's params: what changes in a running vAP, in place. Each of rateLimit, wmmAc and probe is null when it
 * does not change; dropProbe: the vAP's probe stops (the wire's "probe": null).
 */
public final class VapUpdate extends AgentValue {

    final String vapId;
    final RateLimit rateLimit;
    final String wmmAc;
    final Probe probe;
    final boolean dropProbe;

    public VapUpdate(String vapId, RateLimit rateLimit, String wmmAc, Probe probe, boolean dropProbe) {
        if (rateLimit == null && wmmAc == null && probe == null && !dropProbe) {
            throw new IllegalArgumentException("updateVap changes nothing");
        }
        if (probe != null && dropProbe) {
            throw new IllegalArgumentException("updateVap cannot both set and drop the probe");
        }
        this.vapId = vapId;
        this.rateLimit = rateLimit;
        this.wmmAc = wmmAc;
        this.probe = probe;
        this.dropProbe = dropProbe;
    }

    /** New rates only. */
    public static VapUpdate rates(String vapId, RateLimit rateLimit) {
        return new VapUpdate(vapId, rateLimit, null, null, false);
    }

    public String vapId() {
        return vapId;
    }

    /** spec as it is once this update is applied. */
    public VapSpec applyTo(VapSpec spec) {
        VapSpec s = rateLimit == null ? spec : spec.withRateLimit(rateLimit);
        s = wmmAc == null ? s : s.withWmmAc(wmmAc);
        return probe == null && !dropProbe ? s : s.withProbe(probe);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, rateLimit, wmmAc, probe, dropProbe};
    }
}
