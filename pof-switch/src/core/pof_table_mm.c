/* MM (masked match) tables: the entries sorted by priority, then index, and scanned in that order: the first
 * that matches wins. An edit re-sorts the whole table (O(size log size), control path only). */
#include "pof_table.h"

#include <stdlib.h>

static int cmp_priority(const void *a, const void *b)
{
    return pof_entry_cmp_prio(*(struct pof_entry *const *)a, *(struct pof_entry *const *)b);
}

static void mm_rebuild(struct pof_table *t)
{
    pof_table_order_by_index(t);
    qsort(t->order, t->n_order, sizeof(*t->order), cmp_priority);
}

static int mm_create(struct pof_table *t)
{
    t->order = calloc(t->size, sizeof(*t->order));
    return t->order ? 0 : -1;
}

static void mm_free(struct pof_table *t)
{
    free(t->order);
}

static void mm_add(struct pof_table *t, struct pof_entry *e, struct pof_entry *old)
{
    (void)e;
    (void)old;
    mm_rebuild(t);
}

static void mm_del(struct pof_table *t, struct pof_entry *old)
{
    (void)old;
    mm_rebuild(t);
}

const struct pof_table_ops pof_table_mm_ops = {
    .create = mm_create,
    .free = mm_free,
    .add = mm_add,
    .del = mm_del,
    .lookup = pof_table_scan,
};
