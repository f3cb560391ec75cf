package org.wislice.onos.nfv.impl;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.JsonRecordMap;
import org.wislice.onos.agent.Placed;
import org.wislice.onos.agent.mec.MecCapabilities;
import org.wislice.onos.agent.mec.MecCodecs;
import org.wislice.onos.agent.mec.VnfSpec;
import org.wislice.onos.agent.mec.VnfState;
import org.wislice.onos.nfv.api.NfvEvent;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** NfvStore on ONOS ConsistentMaps of JSON records (NfvRecords); map changes become NfvEvents on every node. */
@Component(immediate = true, service = NfvStore.class)
public class DistributedNfvStore extends AbstractStore<NfvEvent, NfvStoreDelegate> implements NfvStore {

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    private JsonRecordMap<String> nodes;
    /** {node, vnf_id, spec} by vnf_id. */
    private JsonRecordMap<Long> desired;
    private JsonRecordMap<Long> vnfs;

    @Activate
    protected void activate() {
        nodes = new JsonRecordMap<>(storageService, "wislice-nfv-nodes");
        desired = new JsonRecordMap<>(storageService, "wislice-nfv-desired-vnfs");
        vnfs = new JsonRecordMap<>(storageService, "wislice-nfv-vnfs");
        nodes.listen((type, record, time) -> relay(type, record, time, NfvEvent.Type.NODE_UPDATED,
                                                   NfvEvent.Type.NODE_REMOVED));
        vnfs.listen((type, record, time) -> relay(type, record, time, NfvEvent.Type.VNF_UPDATED,
                                                  NfvEvent.Type.VNF_REMOVED));
    }

    @Deactivate
    protected void deactivate() {
        nodes.unlisten();
        vnfs.unlisten();
    }

    private void relay(MapEvent.Type type, ObjectNode record, long time, NfvEvent.Type update, NfvEvent.Type remove) {
        notifyDelegate(new NfvEvent(type == MapEvent.Type.REMOVE ? remove : update, record, time));
    }

    private static ObjectNode desiredRecord(Placed<VnfSpec> d) {
        ObjectNode record = Json.object().put("node", d.agentId()).put("vnf_id", d.value().vnfId());
        record.set("spec", MecCodecs.VNF_SPEC.encode(d.value()));
        return record;
    }

    private static Placed<VnfSpec> desired(JsonNode record) {
        return new Placed<>(record.get("node").asText(), MecCodecs.VNF_SPEC.read(record.get("spec")));
    }

    @Override
    public void putNode(AgentRecord<MecCapabilities> node) {
        nodes.put(node.agentId(), NfvRecords.NODE_RECORD.encode(node));
    }

    @Override
    public Optional<AgentRecord<MecCapabilities>> node(String agentId) {
        return nodes.get(agentId).map(NfvRecords.NODE_RECORD::read);
    }

    @Override
    public List<AgentRecord<MecCapabilities>> nodes() {
        return nodes.values().stream().map(NfvRecords.NODE_RECORD::read).collect(Collectors.toList());
    }

    @Override
    public boolean putDesiredVnfIfAbsent(Placed<VnfSpec> d) {
        return desired.putIfAbsent(d.value().vnfId(), desiredRecord(d));
    }

    @Override
    public Optional<Placed<VnfSpec>> desiredVnf(long vnfId) {
        return desired.get(vnfId).map(DistributedNfvStore::desired);
    }

    @Override
    public boolean removeDesiredVnf(long vnfId) {
        return desired.remove(vnfId);
    }

    @Override
    public List<Placed<VnfSpec>> desiredVnfs() {
        return desired.values().stream().map(DistributedNfvStore::desired).collect(Collectors.toList());
    }

    @Override
    public void putVnf(Placed<VnfState> vnf) {
        vnfs.put(vnf.value().vnfId(), NfvRecords.VNF.encode(vnf));
    }

    @Override
    public void updateVnfState(String node, long vnfId, String state, double ts) {
        vnfs.update(vnfId, vnf -> node.equals(vnf.path("node").asText())
                ? vnf.put("state", state).put("updated_ts", ts) : null);
    }

    @Override
    public void removeVnf(long vnfId) {
        vnfs.remove(vnfId);
    }

    @Override
    public Optional<Placed<VnfState>> vnf(long vnfId) {
        return vnfs.get(vnfId).map(NfvRecords.VNF::read);
    }

    @Override
    public List<Placed<VnfState>> vnfs() {
        return vnfs.values().stream().map(NfvRecords.VNF::read).collect(Collectors.toList());
    }
}
