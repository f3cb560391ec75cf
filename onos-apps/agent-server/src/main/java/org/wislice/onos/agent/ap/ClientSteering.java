package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/**
 * steerClient's params: ask the station of a vAP to move to another BSS (802.11v BSS Transition Management), on
 * the target's channel if given, with Disassociation Imminent after that many beacon intervals if given.
 */
public final class ClientSteering extends AgentValue {

    final String vapId;
    final String mac;
    final String targetBssid;
    final Integer targetChannel;
    final Integer disassocTimerTbtt;

    public ClientSteering(String vapId, String mac, String targetBssid, Integer targetChannel,
                          Integer disassocTimerTbtt) {
        this.vapId = vapId;
        this.mac = mac;
        this.targetBssid = targetBssid;
        this.targetChannel = targetChannel;
        this.disassocTimerTbtt = disassocTimerTbtt;
    }

    public String vapId() {
        return vapId;
    }

    public String mac() {
        return mac;
    }

    public String targetBssid() {
        return targetBssid;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {vapId, mac, targetBssid, targetChannel, disassocTimerTbtt};
    }
}
