/* Flow table storage and lookup. Edits rebuild the search structure (control path, not per packet). */
#include "pof_table.h"

#include <stdlib.h>
#include <string.h>

int pof_table_init(struct pof_table *t, const struct pof_table_mod *tm, uint8_t global_id)
{
    memset(t, 0, sizeof(*t));
    t->by_index = calloc(tm->size, sizeof(*t->by_index));
    t->order = calloc(tm->size, sizeof(*t->order));
    uint32_t slots = 2;
    while (slots < 2 * tm->size)
        slots *= 2;
    t->hash = calloc(slots, sizeof(*t->hash));
    if (!t->by_index || !t->order || !t->hash) {
        pof_table_free(t);
        return -1;
    }
    t->hash_mask = slots - 1;
    t->in_use = true;
    t->type = tm->table_type;
    t->global_id = global_id;
    t->size = tm->size;
    t->match_num = tm->match_num;
    memcpy(t->matches, tm->matches, sizeof(t->matches));
    memcpy(t->name, tm->name, sizeof(t->name));
    int word = 0;
    for (int i = 0; i < tm->match_num; i++) {
        const struct pof_match *m = &tm->matches[i];
        t->parts[i] = (struct pof_key_part){
            .from_metadata = m->field_id == POF_METADATA_FIELD,
            .shift = (uint8_t)(m->offset % 8),
            .word = (uint8_t)word,
            .len = m->len,
            .byte_off = (uint16_t)(m->offset / 8),
            .end_bits = (uint32_t)m->offset + m->len,
        };
        word += m->len > 64 ? 2 : 1;
        t->key_bits = (uint16_t)(t->key_bits + m->len);
    }
    t->key_words = (uint16_t)word;
    return 0;
}

int pof_table_key_words(const struct pof_match *matches, int n)
{
    int words = 0;
    for (int i = 0; i < n; i++)
        words += matches[i].len > 64 ? 2 : 1;
    return words > POF_KEY_WORDS ? -1 : words;
}

void pof_table_free(struct pof_table *t)
{
    if (t->by_index)
        for (uint32_t i = 0; i < t->size; i++)
            pof_entry_free(t->by_index[i]);
    free(t->by_index);
    free(t->order);
    free(t->hash);
    memset(t, 0, sizeof(*t));
}

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

static int cmp_priority(const void *a, const void *b)
{
    const struct pof_entry *x = *(struct pof_entry *const *)a, *y = *(struct pof_entry *const *)b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_mask_bits(const void *a, const void *b)
{
    const struct pof_entry *x = *(struct pof_entry *const *)a, *y = *(struct pof_entry *const *)b;
    if (x->mask_bits != y->mask_bits)
        return x->mask_bits > y->mask_bits ? -1 : 1;
    return cmp_priority(a, b);
}

/* Rebuilds the search order (MM, LPM) or the hash (EM) from by_index. */
static void rebuild(struct pof_table *t)
{
    t->n_entries = 0;
    memset(t->hash, 0, (size_t)(t->hash_mask + 1) * sizeof(*t->hash));
    for (uint32_t i = 0; i < t->size; i++) {
        struct pof_entry *e = t->by_index[i];
        if (!e)
            continue;
        t->order[t->n_entries++] = e;
        if (t->type == POF_EM) {
            uint32_t h = key_hash(&e->key, t->key_words) & t->hash_mask;
            while (t->hash[h]) /* a duplicate key shadows: first index wins */
                h = (h + 1) & t->hash_mask;
            t->hash[h] = e;
        }
    }
    if (t->type == POF_MM)
        qsort(t->order, t->n_entries, sizeof(*t->order), cmp_priority);
    else if (t->type == POF_LPM)
        qsort(t->order, t->n_entries, sizeof(*t->order), cmp_mask_bits);
}

void pof_entry_free(struct pof_entry *e)
{
    if (e)
        free(e->source);
    free(e);
}

void pof_table_put(struct pof_table *t, struct pof_entry *e)
{
    pof_entry_free(t->by_index[e->index]);
    t->by_index[e->index] = e;
    rebuild(t);
}

void pof_table_remove(struct pof_table *t, uint32_t index)
{
    pof_entry_free(t->by_index[index]);
    t->by_index[index] = NULL;
    rebuild(t);
}

static bool masked_equal(const struct pof_entry *e, const struct pof_key *k, int words)
{
    for (int i = 0; i < words; i++)
        if ((k->w[i] & e->mask.w[i]) != e->key.w[i])
            return false;
    return true;
}

const struct pof_entry *pof_table_lookup(const struct pof_table *t, const struct pof_key *key)
{
    int words = t->key_words;
    if (t->type == POF_EM) {
        uint32_t h = key_hash(key, words) & t->hash_mask;
        for (struct pof_entry *e; (e = t->hash[h]) != NULL; h = (h + 1) & t->hash_mask)
            if (masked_equal(e, key, words))
                return e;
        return NULL;
    }
    for (uint32_t i = 0; i < t->n_entries; i++)
        if (masked_equal(t->order[i], key, words))
            return t->order[i];
    return NULL;
}
