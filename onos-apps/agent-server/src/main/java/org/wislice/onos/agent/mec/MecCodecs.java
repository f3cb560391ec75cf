package org.wislice.onos.agent.mec;

/** The codecs of the mec-agent side's values, one instance each (what an ONOS CodecService would register). */
public final class MecCodecs {

    /** Offered capacity (cpu > 0). */
    public static final CapacityCodec CAPACITY = new CapacityCodec(false);
    /** Used capacity (cpu >= 0). */
    public static final CapacityCodec USED = new CapacityCodec(true);
    public static final MecCapabilitiesCodec CAPABILITIES = new MecCapabilitiesCodec();
    public static final VnfSpecCodec VNF_SPEC = new VnfSpecCodec();
    public static final VnfStateCodec VNF_STATE = new VnfStateCodec();
    public static final VnfStatsCodec VNF_STATS = new VnfStatsCodec();
    public static final NodeStatsCodec NODE_STATS = new NodeStatsCodec();
    public static final StatisticsCodec STATISTICS = new StatisticsCodec();
    public static final MecStatsCodec STATS = new MecStatsCodec();
    public static final VnfStateChangedCodec VNF_STATE_CHANGED = new VnfStateChangedCodec();

    private MecCodecs() {
    }
}
