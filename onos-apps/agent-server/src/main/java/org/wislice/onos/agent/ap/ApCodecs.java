package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.StateChangedCodec;

import java.util.Map;
import java.util.Set;

/** The codecs of the ap-agent side's values, one instance each (what an ONOS CodecService would register). */
public final class ApCodecs {

    public static final RateLimitCodec RATE_LIMIT = new RateLimitCodec();
    public static final SecurityCodec SECURITY = new SecurityCodec();
    public static final VapSpecCodec VAP_SPEC = new VapSpecCodec();
    public static final VapStateCodec VAP_STATE = new VapStateCodec();
    public static final RadioCodec RADIO = new RadioCodec();
    public static final ClientCodec CLIENT = new ClientCodec();
    public static final ApCapabilitiesCodec CAPABILITIES = new ApCapabilitiesCodec();
    public static final RateCodec RATE = new RateCodec();
    public static final ChannelChangeCodec CHANNEL_CHANGE = new ChannelChangeCodec();
    public static final VapUpdateCodec VAP_UPDATE = new VapUpdateCodec();
    public static final ClientQueryCodec CLIENT_QUERY = new ClientQueryCodec();
    public static final ClientRemovalCodec CLIENT_REMOVAL = new ClientRemovalCodec();
    public static final ClientSteeringCodec CLIENT_STEERING = new ClientSteeringCodec();
    public static final SteerOutcomeCodec STEER_OUTCOME = new SteerOutcomeCodec();
    public static final FirmwareUpgradeCodec FIRMWARE_UPGRADE = new FirmwareUpgradeCodec();
    public static final ProbeCodec PROBE = new ProbeCodec();
    public static final VapLatencyCodec VAP_LATENCY = new VapLatencyCodec();
    // The stats event and its parts.
    public static final ApStatsCodec STATS = new ApStatsCodec();
    public static final VapSampleCodec VAP_SAMPLE = new VapSampleCodec();
    public static final RadioCapacityCodec RADIO_CAPACITY = new RadioCapacityCodec();
    public static final StatsClientCodec STATS_CLIENT = new StatsClientCodec();
    // The other events' data.
    public static final ClientAssociatedCodec CLIENT_ASSOCIATED = new ClientAssociatedCodec();
    public static final ClientDisassociatedCodec CLIENT_DISASSOCIATED = new ClientDisassociatedCodec();
    public static final FirmwareProgressCodec FIRMWARE_PROGRESS = new FirmwareProgressCodec();
    public static final StateChangedCodec<String> VAP_STATE_CHANGED = new StateChangedCodec<>("vapState", "vap_id",
            (d, at) -> Fields.string(d, "vap_id", at, Fields.IDENT), JsonNode::asText,
            Set.of("up", "down", "failed", "removed"));

    /** The data codec of each event an ap-agent sends; the MessageValidator checks events with them. */
    public static final Map<String, AgentCodec<?>> EVENTS = Map.of("clientAssociated", CLIENT_ASSOCIATED,
            "clientDisassociated", CLIENT_DISASSOCIATED, "vapState", VAP_STATE_CHANGED, "stats", STATS,
            "firmwareProgress", FIRMWARE_PROGRESS);

    private ApCodecs() {
    }
}
