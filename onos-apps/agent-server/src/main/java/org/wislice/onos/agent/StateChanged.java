package org.wislice.onos.agent;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The data of a vapState or vnfState event: which object (vap_id, vnf_id) and its new state, "removed" once
 * the agent took it away (delVap, delVnf, or a sync).
 *
 * @param <K> the id's type (String vap_id, Long vnf_id)
 */
public final class StateChanged<K> extends AgentValue {

    final K id;
    final String state;

    public StateChanged(K id, String state) {
        this.id = id;
        this.state = state;
    }

    public K id() {
        return id;
    }

    public String state() {
        return state;
    }

    public boolean removed() {
        return "removed".equals(state);
    }

    /**
     * What the event means for the controller's record of the object: removed drops it (if still desired, the
     * next sync brings it back), any other state is stored with the event's time.
     */
    public void applyTo(Consumer<K> remove, BiConsumer<K, String> updateState) {
        if (removed()) {
            remove.accept(id);
        } else {
            updateState.accept(id, state);
        }
    }

    @Override
    protected Object[] fields() {
        return new Object[] {id, state};
    }
}
