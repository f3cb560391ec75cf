package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** updateVap's params: a running vAP's new rate_limit. */
public final class VapRateLimit extends AgentValue {

    final String vapId;
    final RateLimit rateLimit;

    public VapRateLimit(String vapId, RateLimit rateLimit) {
        this.vapId = vapId;
        this.rateLimit = rateLimit;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, rateLimit};
    }
}
