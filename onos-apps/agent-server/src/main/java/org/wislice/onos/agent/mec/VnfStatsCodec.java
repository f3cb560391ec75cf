package org.wislice.onos.agent.mec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;

import java.util.ArrayList;
import java.util.List;

/**
 * VnfStats: {vnf_id, cpu_pct, memory_mib, ports: [{name, rx_packets, rx_bytes, tx_packets, tx_bytes}],
 * queue_bytes?, throttled?, backpressure_drops?, proc_p99_us?}.
 */
public final class VnfStatsCodec extends AgentCodec<VnfStats> {

    VnfStatsCodec() {
        super("VnfStats");
    }

    @Override
    public void check(JsonNode json, String path) throws ProtocolException {
        Schema.vnfStats(json, path);
    }

    @Override
    public VnfStats read(JsonNode j) {
        List<PortCounters> ports = new ArrayList<>();
        j.get("ports").forEach(p -> ports.add(new PortCounters(text(p, "name"), p.get("rx_packets").asLong(),
                p.get("rx_bytes").asLong(), p.get("tx_packets").asLong(), p.get("tx_bytes").asLong())));
        return new VnfStats(j.get("vnf_id").asLong(), number(j, "cpu_pct"), number(j, "memory_mib"), ports,
                            longOrNull(j, "queue_bytes"), j.has("throttled") ? j.get("throttled").asBoolean() : null,
                            longOrNull(j, "backpressure_drops"),
                            j.has("proc_p99_us") ? number(j, "proc_p99_us") : null);
    }

    @Override
    public ObjectNode encode(VnfStats s) {
        ObjectNode j = Json.object().put("vnf_id", s.vnfId);
        putNumber(j, "cpu_pct", s.cpuPct);
        putNumber(j, "memory_mib", s.memoryMib);
        ArrayNode ports = j.putArray("ports");
        s.ports.forEach(p -> ports.addObject().put("name", p.name).put("rx_packets", p.rxPackets)
                .put("rx_bytes", p.rxBytes).put("tx_packets", p.txPackets).put("tx_bytes", p.txBytes));
        putIfSet(j, "queue_bytes", s.queueBytes);
        putIfSet(j, "throttled", s.throttled);
        putIfSet(j, "backpressure_drops", s.backpressureDrops);
        putNumber(j, "proc_p99_us", s.procP99Us);
        return j;
    }
}
