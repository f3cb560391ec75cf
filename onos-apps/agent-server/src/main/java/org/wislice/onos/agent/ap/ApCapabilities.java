package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

import java.util.ArrayList;
import java.util.List;

/** What an ap-agent's hello offers: its radios, the security modes it supports, whether it has a pof-switch. */
public final class ApCapabilities extends AgentValue {

    final List<Radio> radios;
    final List<String> security;
    final boolean pofSwitch;

    public ApCapabilities(List<Radio> radios, List<String> security, boolean pofSwitch) {
        this.radios = List.copyOf(radios);
        this.security = List.copyOf(security);
        this.pofSwitch = pofSwitch;
    }

    public List<Radio> radios() {
        return radios;
    }

    public List<String> security() {
        return security;
    }

    public boolean pofSwitch() {
        return pofSwitch;
    }

    /** These capabilities with the radio of that name replaced (changeChannel's answer). */
    public ApCapabilities withRadio(Radio updated) {
        List<Radio> all = new ArrayList<>(radios.size());
        radios.forEach(r -> all.add(r.name.equals(updated.name) ? updated : r));
        return new ApCapabilities(all, security, pofSwitch);
    }

    /** These capabilities with the radios' capacities a stats event reports (this object when none changed). */
    public ApCapabilities withCapacities(List<RadioCapacity> reported) {
        List<Radio> all = new ArrayList<>(radios.size());
        boolean changed = false;
        for (Radio radio : radios) {
            Radio r = radio;
            for (RadioCapacity c : reported) {
                if (c.name.equals(radio.name)) {
                    r = r.withCapacity(c);
                }
            }
            changed |= r != radio;
            all.add(r);
        }
        return changed ? new ApCapabilities(all, security, pofSwitch) : this;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {radios, security, pofSwitch};
    }
}
