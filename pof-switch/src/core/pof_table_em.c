/* EM (exact match) tables: open addressing over the entries' keys, twice as many slots as entries or more.
 * An edit rebuilds the hash from by_index (O(size), control path only); of two entries with the same key the
 * lower index wins, as it comes first. */
#include "pof_table.h"

#include <stdlib.h>
#include <string.h>

static uint32_t key_hash(const struct pof_key *k, int words)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < words; i++) {
        h ^= k->w[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
    }
    return (uint32_t)h;
}

static void em_rebuild(struct pof_table *t)
{
    memset(t->hash, 0, (size_t)(t->hash_mask + 1) * sizeof(*t->hash));
    for (uint32_t i = 0; i < t->size; i++) {
        struct pof_entry *e = t->by_index[i];
        if (!e)
            continue;
        uint32_t h = key_hash(&e->key, t->key_words) & t->hash_mask;
        while (t->hash[h]) /* a duplicate key shadows: first index wins */
            h = (h + 1) & t->hash_mask;
        t->hash[h] = e;
    }
}

static int em_create(struct pof_table *t)
{
    uint32_t slots = 2;
    while (slots < 2 * t->size)
        slots *= 2;
    t->hash = calloc(slots, sizeof(*t->hash));
    if (!t->hash)
        return -1;
    t->hash_mask = slots - 1;
    return 0;
}

static void em_free(struct pof_table *t)
{
    free(t->hash);
}

static void em_add(struct pof_table *t, struct pof_entry *e, struct pof_entry *old)
{
    (void)e;
    (void)old;
    em_rebuild(t);
}

static void em_del(struct pof_table *t, struct pof_entry *old)
{
    (void)old;
    em_rebuild(t);
}

static const struct pof_entry *em_lookup(const struct pof_table *t, const struct pof_key *key)
{
    int words = t->key_words;
    uint32_t h = key_hash(key, words) & t->hash_mask;
    for (struct pof_entry *e; (e = t->hash[h]) != NULL; h = (h + 1) & t->hash_mask)
        if (pof_entry_matches(e, key, words))
            return e;
    return NULL;
}

const struct pof_table_ops pof_table_em_ops = {
    .create = em_create,
    .free = em_free,
    .add = em_add,
    .del = em_del,
    .lookup = em_lookup,
};
