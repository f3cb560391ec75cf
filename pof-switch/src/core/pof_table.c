/* Flow tables, the part every type shares: the entries by index, the key layout, and the calls into the
 * type's ops (one file per type: pof_table_mm.c, pof_table_lpm.c, pof_table_em.c, pof_table_linear.c). */
#include "pof_table.h"

#include <stdlib.h>
#include <string.h>

static const struct pof_table_ops *const table_types[POF_TABLE_TYPES] = {
    [POF_MM] = &pof_table_mm_ops,
    [POF_LPM] = &pof_table_lpm_ops,
    [POF_EM] = &pof_table_em_ops,
    [POF_LINEAR] = &pof_table_linear_ops,
};

int pof_table_init(struct pof_table *t, const struct pof_table_mod *tm, uint8_t global_id)
{
    memset(t, 0, sizeof(*t));
    t->by_index = calloc(tm->size, sizeof(*t->by_index));
    if (!t->by_index)
        return -1;
    t->in_use = true;
    t->ops = table_types[tm->table_type];
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
    if (t->ops->create(t) < 0) {
        pof_table_free(t);
        return -1;
    }
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
    if (t->ops)
        t->ops->free(t);
    memset(t, 0, sizeof(*t));
}

void pof_entry_free(struct pof_entry *e)
{
    if (e)
        free(e->source);
    free(e);
}

void pof_table_put(struct pof_table *t, struct pof_entry *e)
{
    struct pof_entry *old = t->by_index[e->index];
    t->by_index[e->index] = e;
    if (!old)
        t->n_entries++;
    t->ops->add(t, e, old);
    pof_entry_free(old);
}

void pof_table_remove(struct pof_table *t, uint32_t index)
{
    struct pof_entry *old = t->by_index[index];
    if (!old)
        return;
    t->by_index[index] = NULL;
    t->n_entries--;
    t->ops->del(t, old);
    pof_entry_free(old);
}

/* ---- shared by the table types ---------------------------------------------------------------------- */

int pof_entry_cmp_prio(const struct pof_entry *x, const struct pof_entry *y)
{
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

void pof_table_order_by_index(struct pof_table *t)
{
    t->n_order = 0;
    for (uint32_t i = 0; i < t->size; i++)
        if (t->by_index[i])
            t->order[t->n_order++] = t->by_index[i];
}

const struct pof_entry *pof_table_scan(const struct pof_table *t, const struct pof_key *key)
{
    for (uint32_t i = 0; i < t->n_order; i++)
        if (pof_entry_matches(t->order[i], key, t->key_words))
            return t->order[i];
    return NULL;
}
