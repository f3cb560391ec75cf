package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import org.wislice.onos.agent.AgentCall;
import org.wislice.onos.agent.AgentCall.Params;
import org.wislice.onos.agent.AgentCall.Result;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.Schema;
import org.wislice.onos.agent.SyncResult;

import java.util.List;
import java.util.Set;

/** The mec-agent's methods, typed. ALL feeds the MessageValidator. */
public final class MecCalls {

    public static final AgentCall<VnfSpec, VnfState> CREATE_VNF = AgentCall.of("createVnf",
            Params.wrapped("vnf", MecCodecs.VNF_SPEC), Result.wrapped("vnf", MecCodecs.VNF_STATE));
    public static final AgentCall<Long, Void> DEL_VNF = AgentCall.of("delVnf",
            Params.of((p, at) -> {
                Fields.object(p, at, Set.of("vnf_id"), Set.of("vnf_id"));
                Fields.integer(p, "vnf_id", at, 0, Schema.U32);
            }, id -> Json.object().put("vnf_id", id), p -> p.get("vnf_id").asLong()), Result.none());
    public static final AgentCall<Void, List<VnfState>> GET_VNFS = AgentCall.of("getVnfs",
            Params.none(), Result.list("vnfs", MecCodecs.VNF_STATE));
    public static final AgentCall<List<VnfSpec>, SyncResult> SYNC_VNFS = AgentCall.of("syncVnfs",
            Params.list("vnfs", 1024, MecCodecs.VNF_SPEC), SyncResult.result("vnf_id"));
    /** Not called by the controller (its result stays JSON); listed for the validator. */
    public static final AgentCall<Void, JsonNode> GET_STATUS = AgentCall.of("getStatus",
            Params.none(), Result.of("status", r -> r));
    /** Stats of one vNF (a vnf_id) or of all (null). */
    public static final AgentCall<Long, Statistics> GET_STATISTICS = AgentCall.of("getStatistics",
            Params.of((p, at) -> {
                Fields.object(p, at, Set.of("vnf_id"), Set.of());
                Fields.integer(p, "vnf_id", at, 0, Schema.U32);
            }, id -> id == null ? Json.object() : Json.object().put("vnf_id", id),
                    p -> p.has("vnf_id") ? p.get("vnf_id").asLong() : null),
            Result.of(MecCodecs.STATISTICS.name(), r -> MecCodecs.STATISTICS.decode(r, "result")));

    public static final List<AgentCall<?, ?>> ALL = List.of(CREATE_VNF, DEL_VNF, GET_VNFS, SYNC_VNFS, GET_STATUS,
            GET_STATISTICS);

    private MecCalls() {
    }
}
