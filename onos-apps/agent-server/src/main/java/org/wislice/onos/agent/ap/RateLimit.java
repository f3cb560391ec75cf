package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** A vAP's rate_limit in kbit/s: caps (0 = uncapped) and optional guarantees (absent = 0). */
public final class RateLimit extends AgentValue {

    final long downKbps;
    final long upKbps;
    /** Null when the JSON has none (0 for the scheduler), so an absent guarantee stays absent on the wire. */
    final Long downGuaranteedKbps;
    final Long upGuaranteedKbps;

    public RateLimit(long downKbps, long upKbps, Long downGuaranteedKbps, Long upGuaranteedKbps) {
        this.downKbps = downKbps;
        this.upKbps = upKbps;
        this.downGuaranteedKbps = downGuaranteedKbps;
        this.upGuaranteedKbps = upGuaranteedKbps;
    }

    public long downKbps() {
        return downKbps;
    }

    public long upKbps() {
        return upKbps;
    }

    public long downGuaranteedKbps() {
        return downGuaranteedKbps == null ? 0 : downGuaranteedKbps;
    }

    public long upGuaranteedKbps() {
        return upGuaranteedKbps == null ? 0 : upGuaranteedKbps;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {downKbps, upKbps, downGuaranteedKbps, upGuaranteedKbps};
    }
}
