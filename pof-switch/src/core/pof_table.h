/* One flow table: entries addressed by their index (the FLOW_MOD entry id), with a lookup structure fit
 * to the table type: priority-ordered masked scan (MM), path-compressed binary trie (LPM), hash (EM),
 * array (LINEAR). */
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

struct pof_table {
    bool in_use;
    uint8_t type, global_id;
    uint32_t size;
    uint16_t key_bits, key_words;
    uint8_t match_num;
    struct pof_match matches[POF_MAX_MATCH];
    struct pof_key_part parts[POF_MAX_MATCH];
    char name[POF_NAME_LEN];
    struct pof_entry **by_index; /* size slots */
    struct pof_entry **order;    /* MM: search order; LPM: the entries whose mask is no prefix, same order */
    uint32_t n_entries;
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
const struct pof_entry *pof_table_lookup(const struct pof_table *t, const struct pof_key *key);

#endif
