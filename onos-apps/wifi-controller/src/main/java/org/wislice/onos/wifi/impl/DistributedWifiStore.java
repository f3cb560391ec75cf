package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.store.AbstractStore;
import org.onosproject.store.service.MapEvent;
import org.onosproject.store.service.StorageService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.wislice.onos.agent.AgentRecord;
import org.wislice.onos.agent.JsonRecordMap;
import org.wislice.onos.agent.Placed;
import org.wislice.onos.agent.ap.ApCapabilities;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.ap.Client;
import org.wislice.onos.agent.ap.VapState;
import org.wislice.onos.wifi.api.WifiEvent;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * WifiStore on ONOS ConsistentMaps of JSON records (WifiRecords, the protocol's own objects + agent_id), so the
 * store needs no Kryo registrations and stays readable across versions. Map changes become WifiEvents on every
 * node, the record as subject.
 */
@Component(immediate = true, service = WifiStore.class)
public class DistributedWifiStore extends AbstractStore<WifiEvent, WifiStoreDelegate> implements WifiStore {

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    private JsonRecordMap<String> agents;
    private JsonRecordMap<String> desired;
    private JsonRecordMap<String> vaps;
    private JsonRecordMap<String> clients;
    private JsonRecordMap<String> upgrades;

    @Activate
    protected void activate() {
        agents = new JsonRecordMap<>(storageService, "wislice-wifi-agents");
        desired = new JsonRecordMap<>(storageService, "wislice-wifi-desired-vaps");
        vaps = new JsonRecordMap<>(storageService, "wislice-wifi-vaps");
        clients = new JsonRecordMap<>(storageService, "wislice-wifi-clients");
        upgrades = new JsonRecordMap<>(storageService, "wislice-wifi-upgrades");
        agents.listen((type, record, time) -> relay(type, record, time, WifiEvent.Type.AGENT_UPDATED,
                                                    WifiEvent.Type.AGENT_UPDATED, WifiEvent.Type.AGENT_REMOVED));
        vaps.listen((type, record, time) -> relay(type, record, time, WifiEvent.Type.VAP_UPDATED,
                                                  WifiEvent.Type.VAP_UPDATED, WifiEvent.Type.VAP_REMOVED));
        clients.listen((type, record, time) -> relay(type, record, time, WifiEvent.Type.CLIENT_ASSOCIATED,
                                                     WifiEvent.Type.CLIENT_UPDATED,
                                                     WifiEvent.Type.CLIENT_DISASSOCIATED));
    }

    @Deactivate
    protected void deactivate() {
        agents.unlisten();
        vaps.unlisten();
        clients.unlisten();
    }

    private void relay(MapEvent.Type type, ObjectNode record, long time, WifiEvent.Type insert,
                       WifiEvent.Type update, WifiEvent.Type remove) {
        WifiEvent.Type event = type == MapEvent.Type.INSERT ? insert : type == MapEvent.Type.UPDATE ? update : remove;
        notifyDelegate(new WifiEvent(event, record, time));
    }

    private static String key(String agentId, String id) {
        return agentId + "/" + id;
    }

    /** The keys of one agent's records, or (agentId null) of all. */
    private static boolean of(String agentId, String key) {
        return agentId == null || key.startsWith(agentId + "/");
    }

    @Override
    public void putAgent(AgentRecord<ApCapabilities> agent) {
        agents.put(agent.agentId(), WifiRecords.AGENT.encode(agent));
    }

    @Override
    public Optional<AgentRecord<ApCapabilities>> agent(String agentId) {
        return agents.get(agentId).map(WifiRecords.AGENT::read);
    }

    @Override
    public List<AgentRecord<ApCapabilities>> agents() {
        return agents.values().stream().map(WifiRecords.AGENT::read).collect(Collectors.toList());
    }

    @Override
    public void putDesiredVap(String agentId, DesiredVap vap) {
        desired.put(key(agentId, vap.vapId()), DesiredVapCodec.INSTANCE.encode(vap));
    }

    @Override
    public Optional<DesiredVap> desiredVap(String agentId, String vapId) {
        return desired.get(key(agentId, vapId)).map(DesiredVapCodec.INSTANCE::read);
    }

    @Override
    public boolean removeDesiredVap(String agentId, String vapId) {
        return desired.remove(key(agentId, vapId));
    }

    @Override
    public List<DesiredVap> desiredVaps(String agentId) {
        return desired.values(k -> of(agentId, k)).stream().map(DesiredVapCodec.INSTANCE::read)
                .collect(Collectors.toList());
    }

    @Override
    public void putVap(String agentId, VapState vap) {
        vaps.put(key(agentId, vap.vapId()), WifiRecords.VAP.encode(new Placed<>(agentId, vap)));
    }

    @Override
    public void updateVapState(String agentId, String vapId, String state, double ts) {
        vaps.update(key(agentId, vapId), vap -> vap.put("state", state).put("updated_ts", ts));
    }

    @Override
    public void removeVap(String agentId, String vapId) {
        vaps.remove(key(agentId, vapId));
    }

    @Override
    public Optional<VapState> vap(String agentId, String vapId) {
        return vaps.get(key(agentId, vapId)).map(ApCodecs.VAP_STATE::read);
    }

    @Override
    public List<Placed<VapState>> vaps(String agentId) {
        return vaps.values(k -> of(agentId, k)).stream().map(WifiRecords.VAP::read).collect(Collectors.toList());
    }

    @Override
    public void putClient(String agentId, Client client) {
        clients.put(key(agentId, client.mac()), ApCodecs.CLIENT.encode(client).put("agent_id", agentId));
    }

    @Override
    public void putClient(String agentId, Client client, double ts) {
        ObjectNode record = ApCodecs.CLIENT.encode(client).put("updated_ts", ts);
        clients.put(key(agentId, client.mac()), record.put("agent_id", agentId));
    }

    @Override
    public void removeClient(String agentId, String mac) {
        clients.remove(key(agentId, mac));
    }

    @Override
    public void updateClient(String agentId, String mac, UnaryOperator<ObjectNode> change) {
        clients.update(key(agentId, mac), change);
    }

    @Override
    public List<ObjectNode> clients(String agentId) {
        return clients.values(k -> of(agentId, k));
    }

    @Override
    public void putUpgrade(String agentId, ObjectNode upgrade) {
        upgrades.put(agentId, upgrade);
    }

    @Override
    public Optional<ObjectNode> upgrade(String agentId) {
        return upgrades.get(agentId);
    }

    @Override
    public void removeUpgrade(String agentId) {
        upgrades.remove(agentId);
    }
}
