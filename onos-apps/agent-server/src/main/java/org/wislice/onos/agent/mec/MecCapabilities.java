package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

import java.util.List;

/** What a mec-agent's hello offers: capacity, the images it can run (catalog), DPDK, a pof-switch. */
public final class MecCapabilities extends AgentValue {

    final Capacity capacity;
    final List<String> catalog;
    final boolean dpdk;
    final boolean pofSwitch;

    public MecCapabilities(Capacity capacity, List<String> catalog, boolean dpdk, boolean pofSwitch) {
        this.capacity = capacity;
        this.catalog = List.copyOf(catalog);
        this.dpdk = dpdk;
        this.pofSwitch = pofSwitch;
    }

    public Capacity capacity() {
        return capacity;
    }

    public List<String> catalog() {
        return catalog;
    }

    public boolean offers(String image) {
        return catalog.contains(image);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {capacity, catalog, dpdk, pofSwitch};
    }
}
