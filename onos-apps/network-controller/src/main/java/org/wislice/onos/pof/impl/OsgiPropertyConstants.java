package org.wislice.onos.pof.impl;

/** Component property names and defaults of the network controller. */
public final class OsgiPropertyConstants {
    public static final String POF_PORT = "pofPort";
    public static final int POF_PORT_DEFAULT = 6643;
    public static final String STATS_POLL_SECONDS = "statsPollSeconds";
    public static final int STATS_POLL_SECONDS_DEFAULT = 5;
    public static final String PORT_STATS_POLL_SECONDS = "portStatsPollSeconds";
    public static final int PORT_STATS_POLL_SECONDS_DEFAULT = 5;
    /** "pof:00000002=false,pof:00000003=true": switches known to enforce meter rates or not, whatever they say. */
    public static final String METER_ENFORCEMENT_OVERRIDES = "meterEnforcementOverrides";
    public static final String METER_ENFORCEMENT_OVERRIDES_DEFAULT = "";

    private OsgiPropertyConstants() {
    }
}
