/* LPM tables: a path-compressed binary trie, edited one entry at a time in preallocated nodes.
 * The key's fields, one after another, form a string of key_bits bits ("packed": with one field that is the
 * key as it is). An entry whose packed mask is L leading ones is a prefix of length L and lives in the trie
 * node of that prefix; entries with the same prefix hang off the node in (priority desc, index asc) order.
 * Every node either holds entries or branches (two children), so a table of size n needs at most 2n - 1
 * nodes. A lookup walks down the key's bits, checking each node's prefix, and keeps the deepest node with
 * entries: O(key bits) whatever the number of entries. An entry whose mask is not a prefix (allowed by the
 * wire) goes to order[] sorted the old way (mask bits, priority, index), scanned after the trie only while
 * it could still beat the trie's answer: the winner is exactly the old linear scan's. */
#include "pof_table.h"

#include <stdlib.h>
#include <string.h>

/* LPM order: more mask bits first, then higher priority, then lower index (a total order). */
static int cmp_lpm(const struct pof_entry *x, const struct pof_entry *y)
{
    if (x->mask_bits != y->mask_bits)
        return x->mask_bits > y->mask_bits ? -1 : 1;
    return pof_entry_cmp_prio(x, y);
}

struct lpm_node {
    uint32_t child[2];          /* node numbers, 0 = none */
    struct pof_entry *entries;  /* best first; NULL: a branch node */
    uint16_t len;               /* prefix length in bits */
    /* followed by lpm_words prefix words, bits from len on zero */
};

static inline struct lpm_node *lpm_node(const struct pof_table *t, uint32_t i)
{
    return (struct lpm_node *)(void *)(t->lpm_pool + (size_t)i * t->lpm_stride);
}

static inline uint64_t *lpm_prefix(struct lpm_node *n)
{
    return (uint64_t *)(void *)((unsigned char *)n + sizeof(struct lpm_node));
}

static inline unsigned lpm_bit(const uint64_t *p, unsigned i)
{
    return (unsigned)(p[i / 64] >> (63 - i % 64)) & 1;
}

static int lpm_create(struct pof_table *t)
{
    _Static_assert(sizeof(struct lpm_node) % 8 == 0, "prefix words follow the header aligned");
    t->lpm_words = (uint16_t)((t->key_bits + 63) / 64);
    t->lpm_stride = (uint32_t)(sizeof(struct lpm_node) + t->lpm_words * sizeof(uint64_t));
    t->lpm_packed = t->match_num > 1;
    uint32_t nodes = 2 * t->size + 1;
    t->order = calloc(t->size, sizeof(*t->order));
    t->lpm_pool = calloc(nodes, t->lpm_stride);
    if (!t->order || !t->lpm_pool)
        return -1;
    t->lpm_root = 0;
    t->lpm_free = 0; /* free list through child[0]; node 0 is "none" */
    for (uint32_t i = nodes - 1; i >= 1; i--) {
        lpm_node(t, i)->child[0] = t->lpm_free;
        t->lpm_free = i;
    }
    return 0;
}

static uint32_t lpm_alloc(struct pof_table *t, const uint64_t *p, unsigned len, struct pof_entry *e)
{
    uint32_t i = t->lpm_free;
    if (!i)
        return 0;
    struct lpm_node *n = lpm_node(t, i);
    t->lpm_free = n->child[0];
    n->child[0] = n->child[1] = 0;
    n->entries = e;
    if (e)
        e->lpm_next = NULL;
    n->len = (uint16_t)len;
    uint64_t *q = lpm_prefix(n);
    for (unsigned w = 0; w < t->lpm_words; w++) {
        unsigned lo = w * 64;
        q[w] = len >= lo + 64 ? p[w] : len <= lo ? 0 : p[w] & pof_mask64(len - lo);
    }
    return i;
}

static void lpm_release(struct pof_table *t, uint32_t i)
{
    struct lpm_node *n = lpm_node(t, i);
    n->entries = NULL;
    n->child[1] = 0;
    n->child[0] = t->lpm_free;
    t->lpm_free = i;
}

/* The key's fields packed one after another, bits past key_bits zero. */
static void lpm_pack(const struct pof_table *t, const struct pof_key *in, uint64_t out[POF_KEY_WORDS])
{
    memset(out, 0, POF_KEY_WORDS * sizeof(*out));
    unsigned pos = 0;
    for (int i = 0; i < t->match_num; i++) {
        const struct pof_key_part *p = &t->parts[i];
        for (unsigned done = 0; done < p->len; done += 64) {
            unsigned n = p->len - done < 64 ? p->len - done : 64;
            uint64_t v = in->w[p->word + done / 64] & pof_mask64(n);
            unsigned sh = pos % 64;
            out[pos / 64] |= v >> sh;
            if (sh && sh + n > 64)
                out[pos / 64 + 1] |= v << (64 - sh);
            pos += n;
        }
    }
}

/* Length of the common leading bits of a and b, at most limit. */
static unsigned lpm_common(const uint64_t *a, const uint64_t *b, unsigned limit)
{
    for (unsigned w = 0; w * 64 < limit; w++) {
        uint64_t x = a[w] ^ b[w];
        if (x) {
            unsigned c = w * 64 + (unsigned)__builtin_clzll(x);
            return c < limit ? c : limit;
        }
    }
    return limit;
}

/* The entry's packed key and mask; true if the mask is a prefix (its length is then e->mask_bits). */
static bool lpm_entry_prefix(const struct pof_table *t, const struct pof_entry *e, uint64_t key[POF_KEY_WORDS])
{
    uint64_t mask[POF_KEY_WORDS];
    if (t->lpm_packed) {
        lpm_pack(t, &e->key, key);
        lpm_pack(t, &e->mask, mask);
    } else {
        memcpy(key, e->key.w, sizeof(e->key.w));
        memcpy(mask, e->mask.w, sizeof(e->mask.w));
    }
    unsigned len = e->mask_bits;
    for (unsigned w = 0; w < t->lpm_words; w++) {
        unsigned lo = w * 64;
        uint64_t want = len >= lo + 64 ? ~0ull : len <= lo ? 0 : pof_mask64(len - lo);
        if (mask[w] != want)
            return false;
    }
    return true;
}

static void order_insert(struct pof_table *t, struct pof_entry *e)
{
    uint32_t at = t->n_order;
    while (at > 0 && cmp_lpm(e, t->order[at - 1]) < 0) {
        t->order[at] = t->order[at - 1];
        at--;
    }
    t->order[at] = e;
    t->n_order++;
}

static void order_remove(struct pof_table *t, const struct pof_entry *e)
{
    for (uint32_t i = 0; i < t->n_order; i++)
        if (t->order[i] == e) {
            memmove(&t->order[i], &t->order[i + 1], (t->n_order - i - 1) * sizeof(*t->order));
            t->n_order--;
            return;
        }
}

static void lpm_insert(struct pof_table *t, struct pof_entry *e)
{
    uint64_t p[POF_KEY_WORDS];
    e->lpm_next = NULL;
    e->lpm_in_trie = false;
    if (!lpm_entry_prefix(t, e, p)) {
        order_insert(t, e);
        return;
    }
    unsigned len = e->mask_bits;
    uint32_t *slot = &t->lpm_root;
    while (*slot) {
        struct lpm_node *n = lpm_node(t, *slot);
        uint64_t *q = lpm_prefix(n);
        unsigned c = lpm_common(p, q, len < n->len ? len : n->len);
        if (c == n->len) { /* n's prefix is a prefix of e's */
            if (n->len == len) {
                struct pof_entry **at = &n->entries;
                while (*at && pof_entry_cmp_prio(*at, e) < 0)
                    at = &(*at)->lpm_next;
                e->lpm_next = *at;
                *at = e;
                e->lpm_in_trie = true;
                return;
            }
            slot = &n->child[lpm_bit(p, n->len)];
            continue;
        }
        /* they part at bit c < n->len: e's node goes above n (c == len) or a branch node at c does */
        uint32_t x = lpm_alloc(t, p, len, e);
        if (!x)
            break;
        if (c == len) {
            lpm_node(t, x)->child[lpm_bit(q, len)] = *slot;
            *slot = x;
        } else {
            uint32_t b = lpm_alloc(t, p, c, NULL);
            if (!b) {
                lpm_release(t, x);
                break;
            }
            lpm_node(t, b)->child[lpm_bit(p, c)] = x;
            lpm_node(t, b)->child[lpm_bit(q, c)] = *slot;
            *slot = b;
        }
        e->lpm_in_trie = true;
        return;
    }
    if (!*slot && (*slot = lpm_alloc(t, p, len, e)) != 0) {
        e->lpm_in_trie = true;
        return;
    }
    order_insert(t, e); /* out of nodes: cannot happen with 2 * size + 1 of them, but stays correct */
}

static void lpm_remove(struct pof_table *t, struct pof_entry *e)
{
    if (!e->lpm_in_trie) {
        order_remove(t, e);
        return;
    }
    uint64_t p[POF_KEY_WORDS];
    lpm_entry_prefix(t, e, p);
    unsigned len = e->mask_bits;
    uint32_t *slot = &t->lpm_root, *parent = NULL;
    while (*slot && lpm_node(t, *slot)->len < len) {
        parent = slot;
        slot = &lpm_node(t, *slot)->child[lpm_bit(p, lpm_node(t, *slot)->len)];
    }
    if (!*slot || lpm_node(t, *slot)->len != len)
        return; /* not there: cannot happen */
    struct lpm_node *n = lpm_node(t, *slot);
    struct pof_entry **at = &n->entries;
    while (*at && *at != e)
        at = &(*at)->lpm_next;
    if (!*at)
        return;
    *at = e->lpm_next;
    e->lpm_next = NULL;
    e->lpm_in_trie = false;
    if (n->entries || (n->child[0] && n->child[1]))
        return; /* still holds entries, or becomes a branch node */
    uint32_t gone = *slot;
    *slot = n->child[0] | n->child[1]; /* its only child, or none */
    lpm_release(t, gone);
    if (!*slot && parent && !lpm_node(t, *parent)->entries) {
        /* the parent was a branch node and has one child left: splice it out too */
        struct lpm_node *pn = lpm_node(t, *parent);
        uint32_t pgone = *parent;
        *parent = pn->child[0] | pn->child[1];
        lpm_release(t, pgone);
    }
}

/* The best trie entry for the packed key k: the one at the deepest node on k's path that holds entries. */
static const struct pof_entry *lpm_lookup(const struct pof_table *t, const uint64_t *k)
{
    const struct pof_entry *best = NULL;
    unsigned from = 0; /* words before this one were checked by the ancestors */
    for (uint32_t i = t->lpm_root; i;) {
        struct lpm_node *n = lpm_node(t, i);
        const uint64_t *q = lpm_prefix(n);
        unsigned len = n->len;
        if (len) {
            unsigned last = (len - 1) / 64;
            for (unsigned w = from; w < last; w++)
                if (k[w] != q[w])
                    return best;
            if ((k[last] ^ q[last]) & pof_mask64(len - last * 64))
                return best;
        }
        if (n->entries)
            best = n->entries;
        if (len >= t->key_bits)
            break;
        from = len / 64;
        i = n->child[lpm_bit(k, len)];
    }
    return best;
}

static void lpm_free(struct pof_table *t)
{
    free(t->order);
    free(t->lpm_pool);
}

static void lpm_add(struct pof_table *t, struct pof_entry *e, struct pof_entry *old)
{
    if (old)
        lpm_remove(t, old);
    lpm_insert(t, e);
}

/* The trie's best entry, unless an entry whose mask is no prefix beats it (order[] is scanned only while
 * one still could). */
static const struct pof_entry *lpm_find(const struct pof_table *t, const struct pof_key *key)
{
    uint64_t packed[POF_KEY_WORDS];
    const uint64_t *k = key->w;
    if (t->lpm_packed) {
        lpm_pack(t, key, packed);
        k = packed;
    }
    const struct pof_entry *best = lpm_lookup(t, k);
    for (uint32_t i = 0; i < t->n_order; i++) {
        const struct pof_entry *o = t->order[i];
        if (best && cmp_lpm(o, best) > 0)
            break;
        if (pof_entry_matches(o, key, t->key_words))
            return o;
    }
    return best;
}

const struct pof_table_ops pof_table_lpm_ops = {
    .create = lpm_create,
    .free = lpm_free,
    .add = lpm_add,
    .del = lpm_remove,
    .lookup = lpm_find,
};
