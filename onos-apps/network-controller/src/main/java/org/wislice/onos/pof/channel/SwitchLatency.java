package org.wislice.onos.pof.channel;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.pof.wire.MultipartReply;
import org.wislice.onos.pof.wire.MultipartReply.PortLatency;

import java.util.ArrayList;
import java.util.List;

/**
 * A switch's latest PORT_LATENCY answer (spec/pof "Port latency"): the residence time of packets in it per output
 * port and class over its last 1-2 s, and when it was read. The switch's cost is its worst port's p99: of the
 * latency class where any port carried latency packets (what a latency slice will get), else of the rest (the
 * latency class is served first, so that bounds it from above). Immutable.
 */
public final class SwitchLatency {
    private final List<PortLatency> ports;
    private final long readAtMillis;

    public SwitchLatency(List<MultipartReply> replies, long readAtMillis) {
        List<PortLatency> all = new ArrayList<>();
        replies.forEach(r -> all.addAll(r.latencyEntries()));
        this.ports = List.copyOf(all);
        this.readAtMillis = readAtMillis;
    }

    public List<PortLatency> ports() {
        return ports;
    }

    public long readAtMillis() {
        return readAtMillis;
    }

    /** The class the switch's cost is taken from: LATENCY where any port sent latency packets, else OTHER. */
    public int costClass() {
        return ports.stream().anyMatch(p -> p.packets[PortLatency.LATENCY] > 0)
                ? PortLatency.LATENCY : PortLatency.OTHER;
    }

    /** The worst port's p99 of the cost class, in ns (0 when no port sent anything). */
    public long p99Ns() {
        int c = costClass();
        return ports.stream().mapToLong(p -> p.p99Ns[c]).max().orElse(0);
    }

    /**
     * {p99_us, p50_us, packets, class, age_ms, ports: [{port_id, latency: {...}, other: {...}}]}, each class
     * {packets, p50_us, p99_us, max_us}: p50_us the worst port's p50 of the cost class, packets its sum over the
     * ports; microseconds with ns precision.
     */
    public ObjectNode toJson(ObjectMapper mapper, long nowMillis) {
        int c = costClass();
        ObjectNode n = mapper.createObjectNode();
        n.put("p99_us", p99Ns() / 1000.0);
        n.put("p50_us", ports.stream().mapToLong(p -> p.p50Ns[c]).max().orElse(0) / 1000.0);
        n.put("packets", ports.stream().mapToLong(p -> p.packets[c]).sum());
        n.put("class", c == PortLatency.LATENCY ? "latency" : "other");
        n.put("age_ms", Math.max(0, nowMillis - readAtMillis));
        ArrayNode arr = n.putArray("ports");
        for (PortLatency p : ports) {
            ObjectNode o = arr.addObject();
            o.put("port_id", p.portId());
            classJson(o.putObject("latency"), p, PortLatency.LATENCY);
            classJson(o.putObject("other"), p, PortLatency.OTHER);
        }
        return n;
    }

    private static void classJson(ObjectNode o, PortLatency p, int c) {
        o.put("packets", p.packets[c]);
        o.put("p50_us", p.p50Ns[c] / 1000.0);
        o.put("p99_us", p.p99Ns[c] / 1000.0);
        o.put("max_us", p.maxNs[c] / 1000.0);
    }
}
