package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/** A vAP's security: mode and, in a VapSpec that is not open, the passphrase (a VapState never has it). */
public final class Security extends AgentValue {

    final String mode;
    final String passphrase;

    public Security(String mode, String passphrase) {
        this.mode = mode;
        this.passphrase = passphrase;
    }

    public String mode() {
        return mode;
    }

    /** Null when there is none (open, or as the agent reports it). */
    public String passphrase() {
        return passphrase;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {mode, passphrase};
    }

    @Override
    public String toString() {
        return "Security[" + mode + (passphrase == null ? "" : ", passphrase set") + "]";
    }
}
