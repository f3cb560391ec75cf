package org.wislice.onos.agent.mec;

import org.wislice.onos.agent.AgentValue;

/** A vNF's port: its name and its port on the node's pof-switch (null when not attached). */
public final class VnfPort extends AgentValue {

    final String name;
    final Integer pofPort;

    public VnfPort(String name, Integer pofPort) {
        this.name = name;
        this.pofPort = pofPort;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {name, pofPort};
    }
}
