package org.wislice.onos.agent;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/** What an agent reported it runs (getVaps, getClient, getVnfs) replacing what the store had of it. */
public final class ReportedState {

    private ReportedState() {
    }

    /**
     * Puts every reported value, then removes each stored key the report does not have.
     *
     * @param reported what the agent runs
     * @param key      a value's key (vap_id, mac, vnf_id)
     * @param stored   the keys the store has for this agent now
     */
    public static <T, K> void replace(List<T> reported, Function<T, K> key, Consumer<T> put, Collection<K> stored,
                                      Consumer<K> remove) {
        Set<K> present = new HashSet<>();
        for (T value : reported) {
            put.accept(value);
            present.add(key.apply(value));
        }
        stored.stream().filter(k -> !present.contains(k)).forEach(remove);
    }
}
