package org.wislice.onos.pof.impl;

import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The flow entries the provider has put on one switch: which table index and counter each uses, and the
 * last counter values. POF addresses entries by index, so indexes are allocated here. Thread-safe.
 */
final class DeviceFlows {
    /** Index bound when the table is not one the controller created: the reference's table size. */
    static final int DEFAULT_TABLE_SIZE = 8000;

    /** One installed entry. */
    static final class Entry {
        final FlowRule rule;
        final long index;
        final long counterId;
        final long installedMillis;
        volatile long packets;
        volatile long bytes;

        Entry(FlowRule rule, long index, long counterId, long installedMillis) {
            this.rule = rule;
            this.index = index;
            this.counterId = counterId;
            this.installedMillis = installedMillis;
        }
    }

    private final Map<FlowId, Entry> entries = new HashMap<>();
    private final Map<Integer, BitSet> usedIndexes = new HashMap<>();
    private final BitSet usedCounters = new BitSet();
    private final int counterLimit;
    private final Map<Integer, Integer> tableSizes;

    DeviceFlows(int counterLimit, Map<Integer, Integer> tableSizes) {
        this.counterLimit = counterLimit;
        this.tableSizes = Map.copyOf(tableSizes);
        usedCounters.set(0);
    }

    synchronized Entry get(FlowId id) {
        return entries.get(id);
    }

    /** Reserves an index and (when one is free) a counter; 0 counter means "no statistics". */
    synchronized Entry reserve(FlowRule rule) {
        BitSet used = usedIndexes.computeIfAbsent(rule.tableId(), t -> new BitSet());
        int index = used.nextClearBit(0);
        if (index >= tableSizes.getOrDefault(rule.tableId(), DEFAULT_TABLE_SIZE)) {
            throw new IllegalStateException("table " + rule.tableId() + " is full");
        }
        used.set(index);
        int counter = usedCounters.nextClearBit(1);
        if (counter >= counterLimit) {
            counter = 0;
        } else {
            usedCounters.set(counter);
        }
        Entry e = new Entry(rule, index, counter, System.currentTimeMillis());
        entries.put(rule.id(), e);
        return e;
    }

    /** Replaces the rule of an installed entry (MODIFY keeps index and counter). */
    synchronized Entry replace(Entry old, FlowRule rule) {
        Entry e = new Entry(rule, old.index, old.counterId, old.installedMillis);
        e.packets = old.packets;
        e.bytes = old.bytes;
        entries.put(rule.id(), e);
        return e;
    }

    synchronized void release(FlowId id) {
        release(id, false);
    }

    /**
     * Forgets the entry; {@code keepIndex}: its index stays taken, because the switch holds an entry there that is
     * not this one (it refused the ADD with ENTRY_EXIST): handing the index out again would be refused forever.
     */
    synchronized void release(FlowId id, boolean keepIndex) {
        Entry e = entries.remove(id);
        if (e == null) {
            return;
        }
        BitSet used = usedIndexes.get(e.rule.tableId());
        if (used != null && !keepIndex) {
            used.clear((int) e.index);
        }
        if (e.counterId != 0) {
            usedCounters.clear((int) e.counterId);
        }
    }

    synchronized List<Entry> all() {
        return List.copyOf(entries.values());
    }
}
