package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.Test;
import org.wislice.onos.agent.ap.ApCalls;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.ap.ApStats;
import org.wislice.onos.agent.ap.VapLatency;
import org.wislice.onos.agent.ap.VapSpec;

import java.io.File;
import java.io.IOException;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

/** The probe parts of the protocol read into their typed values (the round trips are CodecVectorTest's). */
public class ProbeVectorTest {

    private static JsonNode vector(String name) throws IOException, ProtocolException {
        return Json.parseLine(VectorTest.read(new File(VectorTest.vectors(), "valid/" + name)).trim());
    }

    @Test
    public void createVapCarriesTheProbe() throws Exception {
        JsonNode vap = vector("req-createVap-probe.json").get("params").get("vap");
        VapSpec spec = ApCodecs.VAP_SPEC.decode(vap, "vap");
        assertEquals("10.63.1.250", spec.probe().get().sourceIp());
        assertEquals("10.63.1.1", spec.probe().get().targetIp());
        assertEquals(50, spec.probe().get().intervalMs());
        assertFalse(spec.withProbe(null).probe().isPresent());
    }

    @Test
    public void getLatencyAndStatsReadTheCounters() throws Exception {
        VapLatency l = ApCalls.GET_LATENCY.result(vector("reply-ok-getLatency.json").get("result"));
        assertEquals("ctl", l.vapId());
        assertEquals(600, l.sent());
        assertEquals(1320, l.p99Us());
        assertEquals(598, l.samples());
        ApStats stats = ApCodecs.STATS.decode(vector("event-stats-latency.json").get("data"), "data");
        assertEquals(l, stats.latency().get().get(0));
    }
}
