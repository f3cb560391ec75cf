package org.wislice.onos.agent;

import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The connections that are not welcomed yet, oldest first, at most a bound of them. A newcomer beyond the bound
 * displaces the oldest instead of being refused: a flood of silent connections then cannot lock agents out, since
 * an agent's handshake takes a round trip while the flood has to open that many connections to displace it.
 *
 * @param <T> what stands for a connection
 */
final class WaitingRoom<T> {

    private final int capacity;
    private final Set<T> waiting = new LinkedHashSet<>();

    WaitingRoom(int capacity) {
        this.capacity = capacity;
    }

    /** Lets the newcomer in; returns the oldest one it displaced (to be closed), or null. */
    synchronized T admit(T newcomer) {
        waiting.add(newcomer);
        if (waiting.size() <= capacity) {
            return null;
        }
        Iterator<T> oldest = waiting.iterator();
        T displaced = oldest.next();
        oldest.remove();
        return displaced;
    }

    /** The connection was welcomed or closed (nothing when it was not waiting). */
    synchronized void leave(T connection) {
        waiting.remove(connection);
    }

    synchronized int size() {
        return waiting.size();
    }
}
