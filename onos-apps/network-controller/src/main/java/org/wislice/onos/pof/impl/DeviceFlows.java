package org.wislice.onos.pof.impl;

import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.wislice.onos.pof.wire.FlowMod;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The flow entries the provider has put on one switch: which table index and counter each uses, and the
 * last counter values. POF addresses entries by index, so indexes are allocated here. Also the entries an earlier
 * session left on the switch ({@link #hold}): they keep their index and counter until ONOS claims them by flow id
 * (the POF cookie) or they are dropped. Thread-safe.
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

    /** An entry the switch held when this session started, not yet claimed by ONOS. */
    static final class Held {
        final FlowMod mod;
        final int table;

        Held(FlowMod mod, int table) {
            this.mod = mod;
            this.table = table;
        }
    }

    private final Map<FlowId, Entry> entries = new HashMap<>();
    private final Map<FlowId, Held> held = new HashMap<>();
    /** Held entries a batch on its way will claim (the master found their rules in ONOS's flow store). */
    private final Map<FlowId, Held> claiming = new HashMap<>();
    private int pollsAsMasterWithHeld;
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

    /** Records an entry the switch already holds (QUERYALL) in global table {@code table}: its index and counter
     *  stay taken. False (nothing recorded) when its flow id or index is taken twice, which this provider never
     *  does: such an entry is not ours to keep. */
    synchronized boolean hold(FlowMod mod, int table) {
        FlowId id = FlowId.valueOf(mod.cookie);
        BitSet used = usedIndexes.computeIfAbsent(table, t -> new BitSet());
        if (held.containsKey(id) || entries.containsKey(id) || mod.index < 0
                || mod.index >= tableSizes.getOrDefault(table, DEFAULT_TABLE_SIZE) || used.get((int) mod.index)) {
            return false;
        }
        used.set((int) mod.index);
        if (inRange(mod.counterId)) {
            usedCounters.set((int) mod.counterId);
        }
        held.put(id, new Held(mod, table));
        return true;
    }

    /** Takes the held entry with this flow id out of the held ones (its index and counter stay taken), or null. */
    synchronized Held claim(FlowId id) {
        Held h = held.remove(id);
        return h != null ? h : claiming.remove(id);
    }

    /** Marks held entries as being claimed by a batch on its way: no later poll counts or claims them again. */
    synchronized void claiming(List<FlowId> ids) {
        for (FlowId id : ids) {
            Held h = held.remove(id);
            if (h != null) {
                claiming.put(id, h);
            }
        }
    }

    /** Makes a claimed held entry this rule's installed entry, at the index and with the counter it has. */
    synchronized Entry adopt(FlowRule rule, Held h) {
        long counter = inRange(h.mod.counterId) ? h.mod.counterId : 0;
        Entry e = new Entry(rule, h.mod.index, counter, System.currentTimeMillis());
        entries.put(rule.id(), e);
        return e;
    }

    /** Frees a held entry's index and counter (it was deleted from the switch, or claimed by another table). */
    synchronized void free(Held h) {
        BitSet used = usedIndexes.get(h.table);
        if (used != null) {
            used.clear((int) h.mod.index);
        }
        if (inRange(h.mod.counterId)) {
            usedCounters.clear((int) h.mod.counterId);
        }
    }

    /**
     * Counts a poll in which the switch's master read ONOS's flow store ({@code stored}: the rules it has) while
     * entries are still held; once {@code polls} such reads lacked a held entry's rule, returns the held entries
     * whose rule the last read lacked (taken out of the held ones), else none. A read that has every held rule
     * (they are being claimed) restarts the count.
     */
    synchronized List<Held> unclaimedAfter(int polls, Set<FlowId> stored) {
        List<FlowId> absent = held.keySet().stream().filter(id -> !stored.contains(id)).collect(Collectors.toList());
        if (absent.isEmpty()) {
            pollsAsMasterWithHeld = 0;
            return List.of();
        }
        if (++pollsAsMasterWithHeld < polls) {
            return List.of();
        }
        return absent.stream().map(held::remove).collect(Collectors.toList());
    }

    /** A counter id this provider allocates (1 .. counterLimit - 1); a held entry's other ids are not tracked. */
    private boolean inRange(long counterId) {
        return counterId > 0 && counterId < counterLimit;
    }

    synchronized List<FlowId> heldIds() {
        return List.copyOf(held.keySet());
    }

    synchronized int heldCount() {
        return held.size();
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
