package org.wislice.onos.agent.ap;

import org.wislice.onos.agent.AgentValue;

/**
 * upgradeFirmware's params: the firmware an AP is to install (an OpenWrt sysupgrade image or a package set), where
 * it downloads it from, its sha256 and usign signature, and how long it may take to come back on it.
 */
public final class FirmwareUpgrade extends AgentValue {

    final String version;
    final String kind;
    final String url;
    final String sha256;
    final String signature;
    final int timeoutS;

    public FirmwareUpgrade(String version, String kind, String url, String sha256, String signature, int timeoutS) {
        this.version = version;
        this.kind = kind;
        this.url = url;
        this.sha256 = sha256;
        this.signature = signature;
        this.timeoutS = timeoutS;
    }

    public String version() {
        return version;
    }

    public String kind() {
        return kind;
    }

    public int timeoutS() {
        return timeoutS;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {version, kind, url, sha256, signature, timeoutS};
    }
}
