package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Set;
import java.util.function.Function;

/** {ID_KEY: id, state}: the data of a vapState (vap_id) or vnfState (vnf_id) event. */
public final class StateChangedCodec<K> extends AgentCodec<StateChanged<K>> {

    private final String idKey;
    private final JsonCheck idCheck;
    private final Function<JsonNode, K> readId;
    private final Set<String> states;

    /**
     * @param event   the event's name
     * @param idKey   the id's field
     * @param idCheck checks the id field of the data object
     * @param readId  reads a checked id
     * @param states  the states the event may carry
     */
    public StateChangedCodec(String event, String idKey, JsonCheck idCheck, Function<JsonNode, K> readId,
                             Set<String> states) {
        super(event);
        this.idKey = idKey;
        this.idCheck = idCheck;
        this.readId = readId;
        this.states = Set.copyOf(states);
    }

    @Override
    public void check(JsonNode d, String at) throws ProtocolException {
        Fields.object(d, at, Set.of(idKey, "state"), Set.of(idKey, "state"));
        idCheck.check(d, at);
        Fields.oneOf(d, "state", at, states);
    }

    @Override
    public StateChanged<K> read(JsonNode j) {
        return new StateChanged<>(readId.apply(j.get(idKey)), text(j, "state"));
    }

    @Override
    public ObjectNode encode(StateChanged<K> e) {
        ObjectNode j = Json.object();
        putIfSet(j, idKey, e.id);
        return j.put("state", e.state);
    }
}
