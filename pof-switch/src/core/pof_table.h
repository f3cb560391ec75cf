/* One flow table: entries addressed by their index (the FLOW_MOD entry id), with a lookup structure fit
 * to the table type behind struct pof_table_ops (as DPDK's rte_table_ops): priority-ordered masked scan
 * (MM, pof_table_mm.c), path-compressed binary trie (LPM, pof_table_lpm.c), hash (EM, pof_table_em.c),
 * index order (LINEAR, pof_table_linear.c). pof_table.c holds what they share: the entries by index, the key
 * layout, and the calls into the type's ops. */
#ifndef POF_TABLE_H
#define POF_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "pof_wire.h"

#include <string.h>

#define POF_KEY_WORDS 8 /* each field takes one 64-bit word (two if longer than 64 bits) */

/* A lookup key: field i's bits left-aligned, as a number, in word(s) parts[i].word. */
struct pof_key { uint64_t w[POF_KEY_WORDS]; };

/* How to copy one match field into the key, worked out once when the table is created. */
struct pof_key_part {
    bool from_metadata;
    uint8_t shift;       /* bit offset within the first source byte */
    uint8_t word;        /* first key word */
    uint16_t len;        /* bits */
    uint16_t byte_off;   /* first source byte */
    uint32_t end_bits;   /* offset + length: the source must be at least this long */
};

static inline uint64_t pof_load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint64_t pof_mask64(unsigned len)
{
    return len >= 64 ? ~0ull : len == 0 ? 0 : ~0ull << (64 - len);
}

/* Key words a table with these matches needs, or -1 if more than POF_KEY_WORDS. */
int pof_table_key_words(const struct pof_match *matches, int n);

struct pof_entry {
    struct pof_key key, mask; /* key is pre-masked */
    uint16_t priority;
    uint16_t mask_bits;       /* LPM order */
    bool lpm_in_trie;         /* LPM: in the trie (a prefix mask), else in the table's order[] */
    uint32_t index;
    uint32_t counter_id;
    uint64_t cookie;
    uint8_t instruction_num;
    struct pof_instruction instructions[POF_MAX_INS];
    struct pof_flow_mod *source; /* the FLOW_MOD as installed, for QUERYALL */
    struct pof_entry *lpm_next;  /* LPM: the next entry with the same prefix, worse (priority, index) */
};

struct pof_table;

/* One table type. pof_table.c keeps by_index and n_entries; the type keeps its search structure in step. */
struct pof_table_ops {
    /* Allocates the search structure of t, whose generic part (size, matches, key layout) is set. 0 or -1. */
    int (*create)(struct pof_table *t);
    /* Frees what create allocated (also after a failed create); the entries are pof_table.c's. */
    void (*free)(struct pof_table *t);
    /* e now sits at by_index[e->index], in place of old (NULL if none; freed after this returns). */
    void (*add)(struct pof_table *t, struct pof_entry *e, struct pof_entry *old);
    /* old has left by_index (freed after this returns). */
    void (*del)(struct pof_table *t, struct pof_entry *old);
    /* The entry the key selects, or NULL. Per packet: must not allocate. */
    const struct pof_entry *(*lookup)(const struct pof_table *t, const struct pof_key *key);
};

extern const struct pof_table_ops pof_table_mm_ops, pof_table_lpm_ops, pof_table_em_ops, pof_table_linear_ops;

struct pof_table {
    bool in_use;
    const struct pof_table_ops *ops;
    uint8_t type, global_id;
    uint32_t size;
    uint16_t key_bits, key_words;
    uint8_t match_num;
    struct pof_match matches[POF_MAX_MATCH];
    struct pof_key_part parts[POF_MAX_MATCH];
    char name[POF_NAME_LEN];
    struct pof_entry **by_index; /* size slots */
    uint32_t n_entries;
    /* The types' search structures. MM: order[] by priority; LINEAR: order[] by index; LPM: the trie below,
     * and order[] for the entries whose mask is no prefix (by mask bits, then priority); EM: the hash. */
    struct pof_entry **order;    /* size slots */
    uint32_t n_order;            /* entries in order[] */
    struct pof_entry **hash;     /* EM: open addressing, hash_mask + 1 slots */
    uint32_t hash_mask;
    /* LPM: a path-compressed binary trie over the key's bits (the fields one after another), its nodes
     * preallocated (2 * size + 1, node 0 = none), each lpm_stride bytes: a header and the prefix words. */
    unsigned char *lpm_pool;
    uint32_t lpm_stride, lpm_root, lpm_free;
    uint16_t lpm_words;          /* prefix words: (key_bits + 63) / 64 */
    bool lpm_packed;             /* fields must be packed together (more than one field) */
};

int pof_table_init(struct pof_table *t, const struct pof_table_mod *tm, uint8_t global_id);
void pof_table_free(struct pof_table *t);
void pof_entry_free(struct pof_entry *e);
/* Inserts or replaces the entry at e->index; takes ownership of e. Never fails, never allocates. */
void pof_table_put(struct pof_table *t, struct pof_entry *e);
void pof_table_remove(struct pof_table *t, uint32_t index);

static inline const struct pof_entry *pof_table_lookup(const struct pof_table *t, const struct pof_key *key)
{
    return t->ops->lookup(t, key);
}

/* ---- shared by the table types ---------------------------------------------------------------------- */

/* Does the key fall under e's (pre-masked) key and mask? */
static inline bool pof_entry_matches(const struct pof_entry *e, const struct pof_key *k, int words)
{
    for (int i = 0; i < words; i++)
        if ((k->w[i] & e->mask.w[i]) != e->key.w[i])
            return false;
    return true;
}
/* Higher priority first, then lower index: < 0 if x comes before y. */
int pof_entry_cmp_prio(const struct pof_entry *x, const struct pof_entry *y);
/* order[] = the entries in index order (n_order of them). */
void pof_table_order_by_index(struct pof_table *t);
/* The first entry of order[] the key matches, or NULL. */
const struct pof_entry *pof_table_scan(const struct pof_table *t, const struct pof_key *key);

#endif
