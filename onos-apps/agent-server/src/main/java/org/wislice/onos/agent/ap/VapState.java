package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/**
 * VapState: a vAP as its ap-agent runs it: the spec it runs (never with a passphrase) plus ifname, bssid, state
 * (up, down, failed), its client count and its pof-switch port.
 */
public final class VapState extends AgentValue {

    final VapSpec spec;
    final String ifname;
    final String bssid;
    final String state;
    final long clients;
    /** Null when the AP has no switch port for it (an agent that leaves pof_port out reads as null too). */
    final Integer pofPort;

    public VapState(VapSpec spec, String ifname, String bssid, String state, long clients, Integer pofPort) {
        this.spec = spec;
        this.ifname = ifname;
        this.bssid = bssid;
        this.state = state;
        this.clients = clients;
        this.pofPort = pofPort;
    }

    public VapSpec spec() {
        return spec;
    }

    public String vapId() {
        return spec.vapId;
    }

    public String ifname() {
        return ifname;
    }

    public String bssid() {
        return bssid;
    }

    public String state() {
        return state;
    }

    public long clients() {
        return clients;
    }

    public Integer pofPort() {
        return pofPort;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {spec, ifname, bssid, state, clients, pofPort};
    }
}
