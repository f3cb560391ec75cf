package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/**
 * A vAP's security: mode, in a VapSpec that is not open the passphrase (a VapState never has it), and whether
 * the vAP offers 802.11r fast transition (FT-PSK, wpa2-psk only).
 */
public final class Security extends AgentValue {

    final String mode;
    final String passphrase;
    final boolean fastTransition;

    public Security(String mode, String passphrase) {
        this(mode, passphrase, false);
    }

    public Security(String mode, String passphrase, boolean fastTransition) {
        this.mode = mode;
        this.passphrase = passphrase;
        this.fastTransition = fastTransition;
    }

    /** The same security with another passphrase (null: none, as the WiFi store keeps it). */
    public Security withPassphrase(String newPassphrase) {
        return new Security(mode, newPassphrase, fastTransition);
    }

    public boolean fastTransition() {
        return fastTransition;
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
        return new Object[] {mode, passphrase, fastTransition};
    }

    @Override
    public String toString() {
        return "Security[" + mode + (passphrase == null ? "" : ", passphrase set") + (fastTransition ? ", FT" : "") + "]";
    }
}
