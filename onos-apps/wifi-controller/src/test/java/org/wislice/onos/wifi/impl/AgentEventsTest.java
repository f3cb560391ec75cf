package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.store.service.TestStorageService;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.MessageValidator;
import org.wislice.onos.agent.ProtocolException;
import org.wislice.onos.agent.Schema;
import org.wislice.onos.wifi.api.WifiEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/** Stats events into the store (client counters and rates, written only on change) and the last stats per agent. */
public class AgentEventsTest {

    private static final String A = "02:00:00:00:01:00";
    private static final String B = "02:00:00:00:02:00";

    /** The real store, counting the client updates AgentEvents asks for. */
    private static final class CountingStore extends DistributedWifiStore {
        int clientUpdates;

        @Override
        public void updateClient(String agentId, String mac, UnaryOperator<ObjectNode> change) {
            clientUpdates++;
            super.updateClient(agentId, mac, change);
        }
    }

    private CountingStore store;
    private AgentEvents events;
    private final List<WifiEvent> posted = new ArrayList<>();
    private final List<WifiEvent> storeEvents = new ArrayList<>();
    private final WifiStoreDelegate delegate = storeEvents::add;

    @Before
    public void setUp() {
        store = new CountingStore();
        store.storageService = new TestStorageService();
        store.activate();
        store.setDelegate(delegate);
        events = new AgentEvents(store, posted::add, new FirmwareUpgrades(store, null, System::currentTimeMillis));
    }

    @After
    public void tearDown() {
        store.unsetDelegate(delegate);
        store.deactivate();
    }

    private void send(String agentId, String event, ObjectNode data, double ts) throws ProtocolException {
        ObjectNode ev = Json.object().put("type", "event").put("event", event).put("ts", ts);
        ev.set("data", data);
        MessageValidator.validate(ev); // what the agent server checks before the app sees an event
        events.handle(agentId, ev);
    }

    private void associate(String agentId, String vapId, String mac) throws ProtocolException {
        send(agentId, "clientAssociated", Json.object().put("vap_id", vapId).put("mac", mac).put("signal_dbm", -40),
                1);
    }

    private static ObjectNode client(String mac, String vapId, long tx, long rx, Double txBps, Double rxBps) {
        ObjectNode c = Json.object().put("mac", mac).put("vap_id", vapId).put("tx_bytes", tx).put("rx_bytes", rx);
        if (txBps != null) {
            c.put("tx_bps", txBps).put("rx_bps", rxBps);
        }
        return c;
    }

    private static ObjectNode stats(ObjectNode... clients) {
        ObjectNode data = Json.object().put("interval_s", 5);
        data.putArray("vaps").addObject().put("vap_id", "v1").put("tx_bps", 8e6).put("rx_bps", 1e5)
                .put("clients", clients.length);
        data.putArray("radios").addObject().put("name", "phy0").put("capacity_kbps", 27000)
                .put("capacity_source", "measured");
        ArrayNode list = data.putArray("clients");
        for (ObjectNode c : clients) {
            list.add(c);
        }
        return data;
    }

    private ObjectNode stored(String agentId, String mac) {
        return store.clients(agentId).stream().filter(c -> mac.equals(c.get("mac").asText())).findFirst()
                .orElseThrow();
    }

    private long clientUpdatedEvents() {
        return storeEvents.stream().filter(e -> e.type() == WifiEvent.Type.CLIENT_UPDATED).count();
    }

    @Test
    public void storedClientsTakeTheReportedCountersAndRates() throws Exception {
        associate("ap-1", "v1", A);
        associate("ap-1", "v1", B);
        send("ap-1", "stats", stats(client(A, "v1", 1000, 500, null, null), client(B, "v1", 0, 0, null, null)), 10);
        ObjectNode a = stored("ap-1", A);
        assertEquals(1000, a.get("tx_bytes").asLong());
        assertEquals(500, a.get("rx_bytes").asLong());
        assertFalse("no rates on a first report", a.has("tx_bps"));
        assertEquals(10.0, a.get("updated_ts").asDouble(), 0);
        assertEquals(-40, a.get("signal_dbm").asInt()); // the association's other fields stay

        send("ap-1", "stats", stats(client(A, "v1", 626_000, 3000, 1e6, 4000.0), client(B, "v1", 0, 0, 0.0, 0.0)),
                15);
        a = stored("ap-1", A);
        assertEquals(626_000, a.get("tx_bytes").asLong());
        assertEquals(1e6, a.get("tx_bps").asDouble(), 0);
        assertEquals(4000, a.get("rx_bps").asDouble(), 0);
        assertEquals(0.0, stored("ap-1", B).get("tx_bps").asDouble(), 0);

        // A new association on the agent: counters without rates again, and the stored rates go.
        send("ap-1", "stats", stats(client(A, "v1", 10, 10, null, null), client(B, "v1", 0, 0, 0.0, 0.0)), 20);
        assertFalse(stored("ap-1", A).has("tx_bps"));
        assertFalse(stored("ap-1", A).has("rx_bps"));
    }

    @Test
    public void unchangedClientsAreNotWrittenAgain() throws Exception {
        associate("ap-1", "v1", A);
        associate("ap-1", "v1", B);
        ObjectNode idle = stats(client(A, "v1", 1000, 500, 0.0, 0.0), client(B, "v1", 7, 7, 0.0, 0.0));
        send("ap-1", "stats", idle, 10);
        assertEquals(2, store.clientUpdates);
        long updated = clientUpdatedEvents();
        send("ap-1", "stats", idle, 15);
        send("ap-1", "stats", idle, 20);
        assertEquals("idle clients cost no store write", 2, store.clientUpdates);
        assertEquals(updated, clientUpdatedEvents());
        send("ap-1", "stats", stats(client(A, "v1", 2000, 500, 1600.0, 0.0), client(B, "v1", 7, 7, 0.0, 0.0)), 25);
        assertEquals("only the client that moved", 3, store.clientUpdates);
        assertEquals(updated + 1, clientUpdatedEvents());
        // A re-association rewrites the record (counters 0): the next stats event writes the numbers again.
        associate("ap-1", "v1", B);
        send("ap-1", "stats", stats(client(A, "v1", 2000, 500, 1600.0, 0.0), client(B, "v1", 7, 7, 0.0, 0.0)), 30);
        assertEquals(4, store.clientUpdates);
        assertEquals(7, stored("ap-1", B).get("tx_bytes").asLong());
    }

    @Test
    public void statsCreateNoClientAndLeaveOtherVapsAlone() throws Exception {
        send("ap-1", "stats", stats(client(A, "v1", 1000, 500, null, null)), 10);
        assertTrue("membership is the association events' job", store.clients("ap-1").isEmpty());
        associate("ap-1", "v2", B);
        send("ap-1", "stats", stats(client(B, "v1", 1000, 500, 8.0, 8.0)), 15);
        assertEquals("a record of another vAP is not touched", 0, stored("ap-1", B).get("tx_bytes").asLong());
        // Removed meanwhile (a kick): an update never brings it back.
        associate("ap-1", "v1", A);
        store.removeClient("ap-1", A);
        send("ap-1", "stats", stats(client(A, "v1", 5, 5, 8.0, 8.0)), 20);
        assertEquals(1, store.clients("ap-1").size());
    }

    @Test
    public void lastStatsPerAgentUntilItsSessionEnds() throws Exception {
        send("ap-2", "stats", stats(client(A, "v1", 1, 2, null, null)), 10);
        send("ap-1", "stats", Json.object().put("interval_s", 5), 11); // an older agent: nothing but the interval
        send("ap-2", "stats", stats(client(A, "v1", 3, 4, 3.2, 3.2)), 15);
        List<ObjectNode> last = events.lastStats();
        assertEquals(2, last.size());
        assertEquals("ap-1", last.get(0).get("agent_id").asText());
        assertFalse(last.get(0).has("vaps"));
        ObjectNode ap2 = last.get(1);
        assertEquals(15.0, ap2.get("ts").asDouble(), 0);
        assertEquals(5, ap2.get("interval_s").asInt());
        assertEquals(8e6, ap2.at("/vaps/0/tx_bps").asDouble(), 0);
        assertEquals(27000, ap2.at("/radios/0/capacity_kbps").asLong());
        assertEquals(3, ap2.at("/clients/0/tx_bytes").asLong());
        assertEquals("vAP samples are still posted", 2,
                posted.stream().filter(e -> e.type() == WifiEvent.Type.STATS).count());
        events.forget("ap-2");
        assertEquals(1, events.lastStats().size());
    }

    @Test
    public void aFullEventIsWithinTheBound() throws Exception {
        ObjectNode[] clients = new ObjectNode[Schema.MAX_STATS_CLIENTS];
        for (int i = 0; i < clients.length; i++) {
            String mac = String.format("02:00:00:00:%02x:%02x", i >> 8, i & 255);
            associate("ap-1", "v1", mac);
            clients[i] = client(mac, "v1", i, i, null, null);
        }
        send("ap-1", "stats", stats(clients), 10);
        send("ap-1", "stats", stats(clients), 15);
        assertEquals(Schema.MAX_STATS_CLIENTS, store.clientUpdates);
        assertEquals(77, stored("ap-1", "02:00:00:00:00:4d").get("rx_bytes").asLong());
    }
}
