package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Schema;
import org.wislice.onos.agent.StateChangedCodec;

import java.util.Map;
import java.util.Set;

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
    public static final StateChangedCodec<Long> VNF_STATE_CHANGED = new StateChangedCodec<>("vnfState", "vnf_id",
            (d, at) -> Fields.integer(d, "vnf_id", at, 0, Schema.U32), JsonNode::asLong,
            Set.of("creating", "running", "stopped", "failed", "removed"));

    /** The data codec of each event a mec-agent sends; the MessageValidator checks events with them. */
    public static final Map<String, AgentCodec<?>> EVENTS = Map.of("vnfState", VNF_STATE_CHANGED, "stats", STATS);

    private MecCodecs() {
    }
}
