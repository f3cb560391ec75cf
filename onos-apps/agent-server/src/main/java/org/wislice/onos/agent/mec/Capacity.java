package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

/** Capacity: CPU cores and memory, offered by a MEC node or used on it. */
public final class Capacity extends AgentValue {

    public static final Capacity NONE = new Capacity(0.0, 0);

    final Number cpu;
    final long memoryMib;

    public Capacity(Number cpu, long memoryMib) {
        this.cpu = cpu;
        this.memoryMib = memoryMib;
    }

    public double cpu() {
        return cpu.doubleValue();
    }

    public long memoryMib() {
        return memoryMib;
    }

    /** This capacity plus a vNF's (cpu adds up as a double, memory as an integer). */
    public Capacity plus(VnfSpec spec) {
        return new Capacity(cpu() + spec.cpu(), memoryMib + spec.memoryMib);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {cpu, memoryMib};
    }
}
