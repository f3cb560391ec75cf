/* LINEAR tables: GOTO_DIRECT_TABLE takes an entry by its index (pof_dp.c reads by_index itself). A lookup by
 * key (a GOTO_TABLE to a LINEAR table) finds the lowest index whose key matches; a LINEAR flow's key and mask
 * are empty, so that is the lowest index in use. */
#include "pof_table.h"

#include <stdlib.h>

static int linear_create(struct pof_table *t)
{
    t->order = calloc(t->size, sizeof(*t->order));
    return t->order ? 0 : -1;
}

static void linear_free(struct pof_table *t)
{
    free(t->order);
}

static void linear_add(struct pof_table *t, struct pof_entry *e, struct pof_entry *old)
{
    (void)e;
    (void)old;
    pof_table_order_by_index(t);
}

static void linear_del(struct pof_table *t, struct pof_entry *old)
{
    (void)old;
    pof_table_order_by_index(t);
}

const struct pof_table_ops pof_table_linear_ops = {
    .create = linear_create,
    .free = linear_free,
    .add = linear_add,
    .del = linear_del,
    .lookup = pof_table_scan,
};
