package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import org.wislice.onos.agent.AgentCall;
import org.wislice.onos.agent.AgentCall.Params;
import org.wislice.onos.agent.AgentCall.Result;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.SyncResult;

import java.util.List;
import java.util.Set;

/** The ap-agent's methods (Table II of ADE2WiNFV plus syncVaps), typed. ALL feeds the MessageValidator. */
public final class ApCalls {

    public static final AgentCall<VapSpec, VapState> CREATE_VAP = AgentCall.of("createVap",
            Params.wrapped("vap", ApCodecs.VAP_SPEC), Result.wrapped("vap", ApCodecs.VAP_STATE));
    public static final AgentCall<String, Void> DEL_VAP = AgentCall.of("delVap",
            Params.ident("vap_id"), Result.none());
    public static final AgentCall<VapUpdate, VapState> UPDATE_VAP = AgentCall.of("updateVap",
            Params.value(ApCodecs.VAP_UPDATE), Result.wrapped("vap", ApCodecs.VAP_STATE));
    public static final AgentCall<Void, List<VapState>> GET_VAPS = AgentCall.of("getVaps",
            Params.none(), Result.list("vaps", ApCodecs.VAP_STATE));
    public static final AgentCall<List<VapSpec>, SyncResult> SYNC_VAPS = AgentCall.of("syncVaps",
            Params.list("vaps", 256, ApCodecs.VAP_SPEC), SyncResult.result("vap_id"));
    /** Not called by the controller (its result stays JSON); listed for the validator. */
    public static final AgentCall<Void, JsonNode> GET_STATUS = AgentCall.of("getStatus",
            Params.none(), Result.of("status", r -> r));
    public static final AgentCall<ChannelChange, Radio> CHANGE_CHANNEL = AgentCall.of("changeChannel",
            Params.value(ApCodecs.CHANNEL_CHANGE), Result.wrapped("radio", ApCodecs.RADIO));
    public static final AgentCall<ClientQuery, List<Client>> GET_CLIENT = AgentCall.of("getClient",
            Params.value(ApCodecs.CLIENT_QUERY), Result.list("clients", ApCodecs.CLIENT));
    public static final AgentCall<ClientRemoval, Void> REMOVE_CLIENT = AgentCall.of("removeClient",
            Params.value(ApCodecs.CLIENT_REMOVAL), Result.none());
    public static final AgentCall<ClientSteering, SteerOutcome> STEER_CLIENT = AgentCall.of("steerClient",
            Params.value(ApCodecs.CLIENT_STEERING),
            Result.of(ApCodecs.STEER_OUTCOME.name(), r -> ApCodecs.STEER_OUTCOME.decode(r, "result")));
    public static final AgentCall<String, Rate> GET_TX_RATE = AgentCall.of("getTxRate",
            Params.ident("vap_id"), Result.of(ApCodecs.RATE.name(), r -> ApCodecs.RATE.decode(r, "result")));
    public static final AgentCall<String, Rate> GET_RX_RATE = AgentCall.of("getRxRate",
            Params.ident("vap_id"), Result.of(ApCodecs.RATE.name(), r -> ApCodecs.RATE.decode(r, "result")));
    /** The latency probes of a vAP created with a probe (not_found for a vAP without one). */
    public static final AgentCall<String, VapLatency> GET_LATENCY = AgentCall.of("getLatency",
            Params.ident("vap_id"),
            Result.of(ApCodecs.VAP_LATENCY.name(), r -> ApCodecs.VAP_LATENCY.decode(r, "result")));
    /** Accepted: the agent downloads, verifies and installs in the background; firmwareProgress events follow. */
    public static final AgentCall<FirmwareUpgrade, Boolean> UPGRADE_FIRMWARE = AgentCall.of("upgradeFirmware",
            Params.value(ApCodecs.FIRMWARE_UPGRADE), Result.of("upgradeFirmware result", r -> {
                Fields.object(r, "result", Set.of("accepted"), Set.of("accepted"));
                Fields.bool(r, "accepted", "result");
                return r.get("accepted").asBoolean();
            }));

    public static final List<AgentCall<?, ?>> ALL = List.of(CREATE_VAP, DEL_VAP, UPDATE_VAP, GET_VAPS, SYNC_VAPS,
            GET_STATUS, CHANGE_CHANNEL, GET_CLIENT, REMOVE_CLIENT, STEER_CLIENT, GET_TX_RATE, GET_RX_RATE,
            GET_LATENCY, UPGRADE_FIRMWARE);

    private ApCalls() {
    }
}
