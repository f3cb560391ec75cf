package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

import java.util.Set;

/** vnfState's data: {vnf_id, state: creating|running|stopped|failed|removed}. */
public final class VnfStateChangedCodec extends AgentCodec<VnfStateChanged> {

    VnfStateChangedCodec() {
        super("vnfState");
    }

    @Override
    public void check(JsonNode d, String at) throws ProtocolException {
        Fields.object(d, at, Set.of("vnf_id", "state"), Set.of("vnf_id", "state"));
        Fields.integer(d, "vnf_id", at, 0, Schema.U32);
        Fields.oneOf(d, "state", at, Set.of("creating", "running", "stopped", "failed", "removed"));
    }

    @Override
    public VnfStateChanged read(JsonNode j) {
        return new VnfStateChanged(j.get("vnf_id").asLong(), text(j, "state"));
    }

    @Override
    public ObjectNode encode(VnfStateChanged e) {
        return Json.object().put("vnf_id", e.vnfId).put("state", e.state);
    }
}
