package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** changeChannel's params: move a radio to a channel, optionally after cs_count beacons. */
public final class ChannelChange extends AgentValue {

    final String radio;
    final int channel;
    final Integer csCount;

    public ChannelChange(String radio, int channel, Integer csCount) {
        this.radio = radio;
        this.channel = channel;
        this.csCount = csCount;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {radio, channel, csCount};
    }
}
