package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.Test;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

/** The guaranteed-rate additions: rate_limit guarantees, radio capacity, stats radios and clients, updateVap. */
public class SchemaTest {

    private static JsonNode parse(String s) throws ProtocolException {
        return Json.parseLine(s);
    }

    private static void accepted(String msg) throws ProtocolException {
        MessageValidator.validate(parse(msg));
    }

    private static void rejected(String msg, String code) throws ProtocolException {
        try {
            MessageValidator.validate(parse(msg));
            fail("accepted: " + msg);
        } catch (ProtocolException e) {
            assertEquals(msg, code, e.code());
        }
    }

    private static String updateVap(String rateLimit) {
        return "{\"type\":\"request\",\"id\":3,\"method\":\"updateVap\",\"params\":{\"vap_id\":\"t1-cafe\","
                + "\"rate_limit\":" + rateLimit + "}}";
    }

    @Test
    public void rateLimitTakesGuaranteesWithinTheCaps() throws ProtocolException {
        accepted(updateVap("{\"down_kbps\":5000,\"up_kbps\":2000}"));
        accepted(updateVap("{\"down_kbps\":5000,\"up_kbps\":2000,\"down_guaranteed_kbps\":5000,"
                + "\"up_guaranteed_kbps\":1000}"));
        // Uncapped (0) with a guarantee.
        accepted(updateVap("{\"down_kbps\":0,\"up_kbps\":0,\"down_guaranteed_kbps\":10000000}"));
        rejected(updateVap("{\"down_kbps\":5000,\"up_kbps\":2000,\"down_guaranteed_kbps\":5001}"), "bad_request");
        rejected(updateVap("{\"down_kbps\":5000,\"up_kbps\":2000,\"up_guaranteed_kbps\":2001}"), "bad_request");
        rejected(updateVap("{\"down_kbps\":0,\"up_kbps\":0,\"up_guaranteed_kbps\":10000001}"), "bad_request");
        rejected(updateVap("{\"down_kbps\":0,\"up_kbps\":0,\"up_guaranteed_kbps\":-1}"), "bad_request");
        rejected(updateVap("{\"down_kbps\":0,\"up_guaranteed_kbps\":1}"), "bad_request");
        rejected(updateVap("{\"down_kbps\":0,\"up_kbps\":0,\"burst\":1}"), "bad_request");
        rejected("{\"type\":\"request\",\"id\":3,\"method\":\"updateVap\",\"params\":{\"vap_id\":\"t1-cafe\"}}",
                "bad_request");
        rejected("{\"type\":\"request\",\"id\":3,\"method\":\"updateVap\",\"params\":{\"vap_id\":\"a/b\","
                + "\"rate_limit\":{\"down_kbps\":0,\"up_kbps\":0}}}", "bad_request");
        // The same rule inside a VapSpec.
        try {
            Schema.vapSpec(parse("{\"vap_id\":\"v\",\"radio\":\"phy0\",\"ssid\":\"s\",\"security\":{\"mode\":"
                    + "\"open\"},\"tenant_id\":1,\"slice_id\":\"s\",\"rate_limit\":{\"down_kbps\":10,"
                    + "\"up_kbps\":10,\"down_guaranteed_kbps\":11}}"), "vap");
            fail("guarantee above the cap accepted in a VapSpec");
        } catch (ProtocolException e) {
            assertEquals("bad_request", e.code());
        }
    }

    private static String hello(String radioExtra) {
        return "{\"type\":\"hello\",\"version\":1,\"role\":\"ap\",\"agent_id\":\"ap-1\",\"software\":\"x\","
                + "\"auth\":{\"scheme\":\"none\"},\"capabilities\":{\"radios\":[{\"name\":\"phy0\","
                + "\"mac\":\"02:00:00:00:00:00\",\"channel\":6,\"hw_mode\":\"g\",\"max_vaps\":8,\"vaps_used\":1"
                + radioExtra + "}],\"security\":[\"open\"],\"pof_switch\":true}}";
    }

    @Test
    public void radiosMayCarryTheirCapacity() throws ProtocolException {
        accepted(hello(""));
        accepted(hello(",\"capacity_kbps\":54000,\"capacity_source\":\"measured\""));
        accepted(hello(",\"capacity_kbps\":0,\"capacity_source\":\"default\""));
        rejected(hello(",\"capacity_kbps\":-1,\"capacity_source\":\"default\""), "bad_request");
        rejected(hello(",\"capacity_kbps\":1.5,\"capacity_source\":\"default\""), "bad_request");
        rejected(hello(",\"capacity_kbps\":1,\"capacity_source\":\"guessed\""), "bad_request");
        rejected(hello(",\"capacity_kbps\":1"), "bad_request");
        rejected(hello(",\"capacity_source\":\"measured\""), "bad_request");
    }

    private static String stats(String radios) {
        return "{\"type\":\"event\",\"event\":\"stats\",\"ts\":1,\"data\":{\"interval_s\":5,\"radios\":" + radios
                + "}}";
    }

    @Test
    public void statsMayCarryRadioCapacities() throws ProtocolException {
        accepted(stats("[]"));
        accepted(stats("[{\"name\":\"phy0\",\"capacity_kbps\":80000,\"capacity_source\":\"operator\"}]"));
        rejected(stats("[{\"name\":\"phy0\",\"capacity_kbps\":80000}]"), "bad_request");
        rejected(stats("[{\"name\":\"phy0\",\"capacity_kbps\":80000,\"capacity_source\":\"operator\","
                + "\"channel\":6}]"), "bad_request");
        rejected(stats("{\"phy0\":1}"), "bad_request");
    }

    private static String statsClients(String clients) {
        return "{\"type\":\"event\",\"event\":\"stats\",\"ts\":1,\"data\":{\"interval_s\":5,\"clients\":"
                + clients + "}}";
    }

    private static String client(String extra) {
        return "{\"mac\":\"02:00:00:00:01:00\",\"vap_id\":\"v1\",\"tx_bytes\":1000,\"rx_bytes\":20" + extra + "}";
    }

    @Test
    public void statsMayCarryClientCountersAndRates() throws ProtocolException {
        accepted(statsClients("[]"));
        accepted(statsClients("[" + client("") + "," + client(",\"tx_bps\":8000.5,\"rx_bps\":0") + "]"));
        rejected(statsClients("[" + client(",\"tx_bps\":8000") + "]"), "bad_request");
        rejected(statsClients("[" + client(",\"rx_bps\":8000") + "]"), "bad_request");
        rejected(statsClients("[" + client(",\"tx_bps\":-1,\"rx_bps\":0") + "]"), "bad_request");
        rejected(statsClients("[" + client(",\"tx_bps\":\"fast\",\"rx_bps\":0") + "]"), "bad_request");
        rejected(statsClients("[" + client(",\"signal_dbm\":-40") + "]"), "bad_request");
        rejected(statsClients("[{\"mac\":\"02:00:00:00:01:00\",\"vap_id\":\"v1\",\"tx_bytes\":1}]"), "bad_request");
        rejected(statsClients("[" + client("").replace("02:00", "02:0G") + "]"), "bad_request");
        rejected(statsClients("[" + client("").replace("1000", "1.5") + "]"), "bad_request");
        StringBuilder many = new StringBuilder("[");
        for (int i = 0; i <= Schema.MAX_STATS_CLIENTS; i++) {
            many.append(i == 0 ? "" : ",").append(client(""));
        }
        rejected(statsClients(many.append("]").toString()), "bad_request");
        many.setLength(many.lastIndexOf(",{")); // drop the last client
        accepted(statsClients(many.append("]").toString()));
    }
}
