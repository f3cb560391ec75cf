package org.wislice.onos.wifi.impl;

import org.wislice.onos.agent.AgentValue;
import org.wislice.onos.agent.ap.Security;
import org.wislice.onos.agent.ap.VapSpec;
import org.wislice.onos.agent.ap.VapUpdate;

/**
 * A desired vAP as the store keeps it: its VapSpec without the passphrase, and the passphrase sealed (null for an
 * open vAP). {@link #open} gives back the VapSpec to push to the agent.
 */
public final class DesiredVap extends AgentValue {

    private final VapSpec spec;
    private final SealedPassphrase passphrase;

    DesiredVap(VapSpec specWithoutPassphrase, SealedPassphrase passphrase) {
        this.spec = specWithoutPassphrase;
        this.passphrase = passphrase;
    }

    /** The spec with its passphrase sealed by cipher. */
    public static DesiredVap seal(VapSpec spec, PassphraseCipher cipher) {
        Security security = spec.security();
        if (security.passphrase() == null) {
            return new DesiredVap(spec, null);
        }
        return new DesiredVap(spec.withSecurity(security.withPassphrase(null)),
                              cipher.seal(security.passphrase()));
    }

    /** The spec to push, passphrase opened (ControllerException when cipher's key cannot open it). */
    public VapSpec open(PassphraseCipher cipher) {
        if (passphrase == null) {
            return spec;
        }
        return spec.withSecurity(spec.security().withPassphrase(cipher.open(passphrase)));
    }

    public String vapId() {
        return spec.vapId();
    }

    /** The spec without its passphrase. */
    public VapSpec spec() {
        return spec;
    }

    /** Null for an open vAP. */
    public SealedPassphrase passphrase() {
        return passphrase;
    }

    /** This vAP with an updateVap's changes (the passphrase stays sealed as it is). */
    public DesiredVap with(VapUpdate update) {
        return new DesiredVap(update.applyTo(spec), passphrase);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {spec, passphrase};
    }
}
