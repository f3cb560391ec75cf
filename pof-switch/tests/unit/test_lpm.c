/* LPM tables: the trie against a reference linear scan (random prefixes, inserts, deletes and modifies over
 * several key layouts), and the edge cases through the whole datapath. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pof_dp.h"
#include "pof_table.h"
#include "unit.h"

/* ---- a seeded PRNG (splitmix64): the same run every time ----------------------------------------- */

static uint64_t rng_state = 0x5EEDull;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static unsigned rnd_below(unsigned n) { return (unsigned)(rnd() % n); }

/* ---- keys in the table's layout: logical bit j (fields one after another) <-> its key word bit ---- */

static uint64_t *key_word(const struct pof_table *t, struct pof_key *k, unsigned j, unsigned *bit)
{
    for (int i = 0; i < t->match_num; i++) {
        const struct pof_key_part *p = &t->parts[i];
        if (j < p->len) {
            *bit = 63 - j % 64;
            return &k->w[p->word + j / 64];
        }
        j -= p->len;
    }
    abort();
}
static unsigned get_bit(const struct pof_table *t, const struct pof_key *k, unsigned j)
{
    unsigned b;
    uint64_t w = *key_word(t, (struct pof_key *)k, j, &b);
    return (unsigned)(w >> b) & 1;
}
static void set_bit(const struct pof_table *t, struct pof_key *k, unsigned j, unsigned v)
{
    unsigned b;
    uint64_t *w = key_word(t, k, j, &b);
    *w = (*w & ~(1ull << b)) | (uint64_t)v << b;
}

static struct pof_table_mod lpm_mod(uint32_t size, int n, const uint16_t *lens)
{
    struct pof_table_mod tm = {.command = POF_TABLE_ADD, .table_type = POF_LPM, .size = size,
                               .match_num = (uint8_t)n};
    uint16_t off = 3; /* any offset: the table only keeps the layout */
    for (int i = 0; i < n; i++) {
        tm.matches[i] = (struct pof_match){.field_id = (uint16_t)i, .offset = off, .len = lens[i]};
        off = (uint16_t)(off + lens[i]);
    }
    return tm;
}

/* An entry with a prefix of len bits (or, if len < 0, a random mask that is mostly no prefix). */
static struct pof_entry *make_entry(const struct pof_table *t, uint32_t index, uint16_t prio, int len,
                                    const struct pof_key *like)
{
    struct pof_entry *e = calloc(1, sizeof(*e));
    for (unsigned j = 0; j < t->key_bits; j++) {
        unsigned m = len >= 0 ? j < (unsigned)len : rnd_below(4) != 0;
        unsigned v = like ? get_bit(t, like, j) : (unsigned)(rnd() & 1);
        set_bit(t, &e->mask, j, m);
        set_bit(t, &e->key, j, v & m);
        e->mask_bits = (uint16_t)(e->mask_bits + m);
    }
    e->priority = prio;
    e->index = index;
    return e;
}

static bool ref_match(const struct pof_entry *e, const struct pof_key *k, int words)
{
    for (int i = 0; i < words; i++)
        if ((k->w[i] & e->mask.w[i]) != e->key.w[i])
            return false;
    return true;
}

/* The reference: every entry, the most mask bits win, then the higher priority, then the lower index. */
static const struct pof_entry *ref_lookup(const struct pof_table *t, const struct pof_key *k)
{
    const struct pof_entry *best = NULL;
    for (uint32_t i = 0; i < t->size; i++) {
        const struct pof_entry *e = t->by_index[i];
        if (!e || !ref_match(e, k, t->key_words))
            continue;
        if (!best || e->mask_bits > best->mask_bits ||
            (e->mask_bits == best->mask_bits && e->priority > best->priority))
            best = e; /* ascending index: an equal one found later never wins */
    }
    return best;
}

/* A random key: uniform, or near a live entry (its prefix, the rest random, sometimes one bit flipped). */
static void random_key(const struct pof_table *t, const uint32_t *live, uint32_t n_live, struct pof_key *k)
{
    memset(k, 0, sizeof(*k));
    const struct pof_entry *near = n_live && rnd_below(4) ? t->by_index[live[rnd_below(n_live)]] : NULL;
    for (unsigned j = 0; j < t->key_bits; j++)
        set_bit(t, k, j, near && get_bit(t, &near->mask, j) ? get_bit(t, &near->key, j) : (unsigned)(rnd() & 1));
    if (near && rnd_below(8) == 0) {
        unsigned j = rnd_below(t->key_bits);
        set_bit(t, k, j, (unsigned)(rnd() & 1));
    }
}

static int check_keys(const struct pof_table *t, const uint32_t *live, uint32_t n_live, int n)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        struct pof_key k;
        random_key(t, live, n_live, &k);
        if (pof_table_lookup(t, &k) != ref_lookup(t, &k))
            bad++;
    }
    return bad;
}

/* Inserts, deletes and modifies a few thousand random prefixes; after each batch the trie and the
 * reference agree on many keys. nonprefix_pct of the entries get masks that are no prefix. */
static void differential(int n_fields, const uint16_t *lens, uint32_t size, unsigned nonprefix_pct)
{
    struct pof_table_mod tm = lpm_mod(size, n_fields, lens);
    struct pof_table t;
    CHECK(pof_table_init(&t, &tm, 10) == 0);
    uint32_t *live = calloc(size, sizeof(*live)), n_live = 0;
    int bad = 0;
    for (int batch = 0; batch < 8; batch++) {
        /* grow towards the table size in the first batches, then churn */
        uint32_t inserts = batch < 4 ? size / 4 : size / 8, deletes = batch < 4 ? size / 16 : size / 8;
        for (uint32_t n = 0; n < inserts && n_live < size; n++) {
            uint32_t idx;
            do
                idx = rnd_below(size);
            while (t.by_index[idx]);
            /* short prefixes are few: lengths are uniform, so many collide (same prefix, other index) */
            int len = rnd_below(100) < nonprefix_pct ? -1 : (int)rnd_below(t.key_bits + 1u);
            const struct pof_key *like = n_live && rnd_below(3) == 0 ? &t.by_index[live[rnd_below(n_live)]]->key
                                                                      : NULL;
            pof_table_put(&t, make_entry(&t, idx, (uint16_t)rnd_below(3), len, like));
            live[n_live++] = idx;
        }
        for (uint32_t n = 0; n < deletes && n_live; n++) {
            uint32_t at = rnd_below(n_live);
            pof_table_remove(&t, live[at]);
            live[at] = live[--n_live];
        }
        for (uint32_t n = 0; n < size / 32 && n_live; n++) { /* modify: same index, new prefix/priority */
            uint32_t idx = live[rnd_below(n_live)];
            int len = rnd_below(100) < nonprefix_pct ? -1 : (int)rnd_below(t.key_bits + 1u);
            pof_table_put(&t, make_entry(&t, idx, (uint16_t)rnd_below(3), len, NULL));
        }
        CHECK(t.n_entries == n_live);
        CHECK(nonprefix_pct || t.n_order == 0); /* every prefix found a node */
        bad += check_keys(&t, live, n_live, 600);
    }
    /* fill every index (the most nodes the trie can need: 2 * size - 1) */
    for (uint32_t idx = 0; idx < size; idx++)
        if (!t.by_index[idx]) {
            uint16_t prio = (uint16_t)rnd_below(3); /* one call a statement: the same stream with any compiler */
            pof_table_put(&t, make_entry(&t, idx, prio, (int)rnd_below(t.key_bits + 1u), NULL));
            live[n_live++] = idx;
        }
    CHECK(t.n_entries == size && (nonprefix_pct || t.n_order == 0));
    bad += check_keys(&t, live, n_live, 600);
    /* delete everything: the trie is empty again, and lookups miss */
    while (n_live) {
        uint32_t at = rnd_below(n_live);
        pof_table_remove(&t, live[at]);
        live[at] = live[--n_live];
        if (n_live % 256 == 0)
            bad += check_keys(&t, live, n_live, 50);
    }
    CHECK(t.n_entries == 0 && t.lpm_root == 0 && t.n_order == 0);
    struct pof_key k;
    random_key(&t, live, 0, &k);
    CHECK(pof_table_lookup(&t, &k) == NULL);
    char msg[64];
    snprintf(msg, sizeof(msg), "%d keys disagree, first field %u bits", bad, lens[0]);
    CHECK_MSG(bad == 0, msg);
    free(live);
    pof_table_free(&t);
}

static void test_differential_8(void) { differential(1, (const uint16_t[]){8}, 3000, 0); }
static void test_differential_13(void) { differential(1, (const uint16_t[]){13}, 3000, 0); }
static void test_differential_32(void) { differential(1, (const uint16_t[]){32}, 4000, 0); }
static void test_differential_48(void) { differential(1, (const uint16_t[]){48}, 3000, 0); }
static void test_differential_64(void) { differential(1, (const uint16_t[]){64}, 2000, 0); }
static void test_differential_128(void) { differential(1, (const uint16_t[]){128}, 2000, 0); }
/* several fields: the trie runs over them packed, across word boundaries */
static void test_differential_fields(void) { differential(3, (const uint16_t[]){13, 61, 100}, 2000, 0); }
/* masks that are no prefix (the wire allows them) mix with prefixes */
static void test_differential_nonprefix(void)
{
    differential(1, (const uint16_t[]){13}, 1000, 10);
    differential(2, (const uint16_t[]){20, 50}, 1000, 5);
}

/* Same prefix at several indexes: priority, then index decides; deleting the winner promotes the next. */
static void test_equal_prefixes(void)
{
    struct pof_table_mod tm = lpm_mod(16, 1, (const uint16_t[]){32});
    struct pof_table t;
    CHECK(pof_table_init(&t, &tm, 10) == 0);
    struct pof_key k = {{0x0A000002ull << 32}};
    struct pof_entry *a = make_entry(&t, 5, 1, 8, &k), *b = make_entry(&t, 3, 1, 8, &k),
                     *c = make_entry(&t, 9, 2, 8, &k), *d = make_entry(&t, 1, 0, 8, &k);
    pof_table_put(&t, a);
    pof_table_put(&t, b);
    CHECK(pof_table_lookup(&t, &k) == b); /* equal priority: the lower index */
    pof_table_put(&t, c);
    pof_table_put(&t, d);
    CHECK(pof_table_lookup(&t, &k) == c); /* the higher priority */
    pof_table_remove(&t, 9);
    CHECK(pof_table_lookup(&t, &k) == b);
    pof_table_remove(&t, 3);
    CHECK(pof_table_lookup(&t, &k) == a);
    /* a non-prefix mask with more bits beats the prefix, one with as many bits and a lower priority not */
    struct pof_entry *np = make_entry(&t, 7, 0, 8, &k);
    set_bit(&t, &np->mask, 20, 1); /* 9 bits, not a prefix */
    np->mask_bits++;
    pof_table_put(&t, np);
    CHECK(pof_table_lookup(&t, &k) == np && t.n_order == 1);
    pof_table_remove(&t, 7);
    np = make_entry(&t, 7, 0, 7, &k);
    set_bit(&t, &np->mask, 20, 1); /* 8 bits, not a prefix, priority 0 < 1 */
    np->mask_bits++;
    pof_table_put(&t, np);
    CHECK(pof_table_lookup(&t, &k) == a);
    pof_table_remove(&t, 5);
    CHECK(pof_table_lookup(&t, &k) == d); /* 8 bits each, priority 0 each: index 1 before 7 */
    pof_table_remove(&t, 1);
    CHECK(pof_table_lookup(&t, &k) == np);
    CHECK(t.n_entries == 1 && t.lpm_root == 0);
    pof_table_free(&t);
}

/* A full table of distinct /32s is all leaves: it needs every one of the 2 * size - 1 nodes. Twice over. */
static void test_full_table_of_leaves(void)
{
    struct pof_table_mod tm = lpm_mod(512, 1, (const uint16_t[]){32});
    struct pof_table t;
    CHECK(pof_table_init(&t, &tm, 10) == 0);
    for (int round = 0; round < 2; round++) {
        for (uint32_t i = 0; i < 512; i++) {
            struct pof_key k = {{(uint64_t)(i * 2654435761u) << 32}}; /* distinct: the multiplier is odd */
            pof_table_put(&t, make_entry(&t, i, 0, 32, &k));
        }
        CHECK(t.n_entries == 512 && t.n_order == 0);
        for (uint32_t i = 0; i < 512; i++) {
            struct pof_key k = {{(uint64_t)(i * 2654435761u) << 32}};
            CHECK(pof_table_lookup(&t, &k) == t.by_index[i]);
        }
        for (uint32_t i = 0; i < 512; i++)
            pof_table_remove(&t, i);
        CHECK(t.n_entries == 0 && t.lpm_root == 0);
    }
    pof_table_free(&t);
}

/* ---- through the datapath ---------------------------------------------------------------------- */

static const struct pof_match IP_DST = {5, 240, 32};
static const struct pof_match ODD13 = {7, 99, 13}; /* 13 bits starting 3 bits into byte 12 */

static uint8_t frame[64];
static void set_dst(uint32_t ip)
{
    memset(frame, 0, sizeof(frame));
    frame[12] = 0x08;
    for (int i = 0; i < 4; i++)
        frame[30 + i] = (uint8_t)(ip >> (24 - 8 * i));
}

static struct pof_table_mod dp_table(struct pof_match m, uint32_t size)
{
    struct pof_table_mod t = {.command = POF_TABLE_ADD, .table_id = 0, .table_type = POF_LPM, .match_num = 1,
                              .size = size};
    t.matches[0] = m;
    return t;
}

/* A FLOW_MOD for LPM 0: value/len as a prefix of the field, OUTPUT to port. */
static struct pof_flow_mod route(struct pof_match m, uint32_t index, uint64_t value, unsigned len, uint16_t prio,
                                 uint32_t port)
{
    struct pof_flow_mod f = {.command = POF_FLOW_ADD, .table_type = POF_LPM, .table_id = 0, .index = index,
                             .priority = prio, .match_num = 1};
    f.matches[0].field = m;
    for (unsigned b = 0; b < m.len; b++) { /* value is right-aligned in m.len bits */
        uint8_t bit = (uint8_t)(0x80 >> (b % 8));
        if (value >> (m.len - 1 - b) & 1)
            f.matches[0].value[b / 8] |= bit;
        if (b < len)
            f.matches[0].mask[b / 8] |= bit;
    }
    f.instruction_num = 1;
    f.instructions[0].type = POFIT_APPLY_ACTIONS;
    f.instructions[0].u.apply_actions.action_num = 1;
    f.instructions[0].u.apply_actions.actions[0].type = POFAT_OUTPUT;
    f.instructions[0].u.apply_actions.actions[0].u.output.port_id = port;
    return f;
}

static int flow_mod(struct pof_dp *dp, struct pof_flow_mod f)
{
    struct pof_status st;
    return pof_dp_flow_mod(dp, &f, &st);
}

/* A datapath whose first table (MM 0) sends every packet on to LPM 0, created from tm. */
static struct pof_dp *lpm_dp(const struct pof_table_mod *tm)
{
    struct pof_dp *dp = pof_dp_create();
    struct pof_status st;
    struct pof_table_mod mm = {.command = POF_TABLE_ADD, .table_type = POF_MM, .match_num = 1, .size = 1};
    mm.matches[0] = (struct pof_match){0, 0, 8};
    CHECK(pof_dp_table_mod(dp, &mm, &st) == 0 && pof_dp_table_mod(dp, tm, &st) == 0);
    struct pof_flow_mod any = {.command = POF_FLOW_ADD, .table_type = POF_MM, .match_num = 1, .instruction_num = 1};
    any.matches[0].field = mm.matches[0]; /* mask 0: matches any packet of at least a byte */
    any.instructions[0].type = POFIT_GOTO_TABLE;
    any.instructions[0].u.goto_table.next_table_id = (uint8_t)pof_dp_global_table_id(POF_LPM, 0);
    CHECK(flow_mod(dp, any) == 0);
    return dp;
}

/* The port a packet goes to, 0 for a drop. */
static uint32_t out(struct pof_dp *dp, const uint8_t *data, uint32_t len)
{
    uint8_t *p = malloc(len ? len : 1); /* exact size: ASan sees overreads */
    memcpy(p, data, len);
    struct pof_pkt pkt = {.data = p, .len = len, .room = 0, .in_port = 1};
    struct pof_verdict v;
    pof_dp_process(dp, &pkt, &v);
    free(p);
    return v.kind == POF_V_OUTPUT ? v.out_port : 0;
}
static uint32_t to(struct pof_dp *dp, uint32_t ip)
{
    set_dst(ip);
    return out(dp, frame, 64);
}

static void test_routes(void)
{
    struct pof_status st;
    struct pof_table_mod tm = dp_table(IP_DST, 64);
    struct pof_dp *dp = lpm_dp(&tm);
    CHECK(to(dp, 0x0A000002) == 0); /* empty table: miss */
    CHECK(flow_mod(dp, route(IP_DST, 0, 0, 0, 0, 2)) == 0);            /* 0/0 default */
    CHECK(to(dp, 0x0A000002) == 2 && to(dp, 0xFFFFFFFF) == 2 && to(dp, 0) == 2);
    CHECK(flow_mod(dp, route(IP_DST, 4, 0x0A000002, 32, 0, 5)) == 0);  /* 10.0.0.2/32, before its covers */
    CHECK(flow_mod(dp, route(IP_DST, 1, 0x0A000000, 8, 0, 3)) == 0);   /* 10/8 */
    CHECK(flow_mod(dp, route(IP_DST, 2, 0x0A000000, 24, 0, 4)) == 0);  /* 10.0.0/24 */
    CHECK(flow_mod(dp, route(IP_DST, 3, 0x0A010000, 16, 0, 6)) == 0);  /* 10.1/16 */
    CHECK(flow_mod(dp, route(IP_DST, 5, 0x0A0000FF, 32, 0, 7)) == 0);  /* 10.0.0.255/32 */
    CHECK(to(dp, 0x0A000002) == 5 && to(dp, 0x0A000003) == 4 && to(dp, 0x0A0000FF) == 7);
    CHECK(to(dp, 0x0A000101) == 3 && to(dp, 0x0A010203) == 6 && to(dp, 0x0B000000) == 2);
    CHECK(pof_dp_flow_count(dp) == 7 /* and MM 0's */);
    /* the field ends at byte 34: a shorter packet misses even with a default route */
    set_dst(0x0A000002);
    CHECK(out(dp, frame, 34) == 5);
    for (uint32_t len = 0; len < 34; len++)
        CHECK(out(dp, frame, len) == 0);
    /* modify keeps the entry found, with its new actions; a modify may move the prefix too */
    struct pof_flow_mod m = route(IP_DST, 1, 0x0A000000, 8, 0, 9);
    m.command = POF_FLOW_MODIFY;
    CHECK(flow_mod(dp, m) == 0 && to(dp, 0x0A000101) == 9 && to(dp, 0x0A000002) == 5);
    m = route(IP_DST, 4, 0x0A000002, 32, 0, 8);
    m.command = POF_FLOW_MODIFY_STRICT;
    CHECK(flow_mod(dp, m) == 0 && to(dp, 0x0A000002) == 8);
    m = route(IP_DST, 3, 0x0A020000, 16, 0, 6);
    m.command = POF_FLOW_MODIFY;
    CHECK(flow_mod(dp, m) == 0 && to(dp, 0x0A010203) == 9 && to(dp, 0x0A020203) == 6);
    CHECK(pof_dp_flow_count(dp) == 7 /* and MM 0's */);
    /* deleting the longest match falls back to the next longest, down to the default, then nothing */
    struct pof_flow_mod d = {.command = POF_FLOW_DELETE, .table_type = POF_LPM, .table_id = 0};
    d.index = 4;
    CHECK(flow_mod(dp, d) == 0 && to(dp, 0x0A000002) == 4 && to(dp, 0x0A0000FF) == 7);
    d.index = 2;
    CHECK(flow_mod(dp, d) == 0 && to(dp, 0x0A000002) == 9 && to(dp, 0x0A0000FF) == 7);
    d.index = 1;
    CHECK(flow_mod(dp, d) == 0 && to(dp, 0x0A000002) == 2 && to(dp, 0x0A0000FF) == 7);
    d.index = 0;
    CHECK(flow_mod(dp, d) == 0 && to(dp, 0x0A000002) == 0 && to(dp, 0x0A0000FF) == 7);
    d.index = 5;
    CHECK(flow_mod(dp, d) == 0 && to(dp, 0x0A0000FF) == 0 && to(dp, 0x0A020203) == 6);
    d.index = 3; /* the only entry */
    CHECK(flow_mod(dp, d) == 0 && to(dp, 0x0A020203) == 0 && pof_dp_flow_count(dp) == 1);
    CHECK(flow_mod(dp, d) != 0); /* already gone */
    CHECK(flow_mod(dp, route(IP_DST, 3, 0xC0A80000, 16, 0, 4)) == 0 && to(dp, 0xC0A80101) == 4);
    /* deleting and re-adding the table starts empty */
    tm.command = POF_TABLE_DELETE;
    CHECK(pof_dp_table_mod(dp, &tm, &st) == 0);
    tm.command = POF_TABLE_ADD;
    CHECK(pof_dp_table_mod(dp, &tm, &st) == 0 && to(dp, 0xC0A80101) == 0 && pof_dp_flow_count(dp) == 1);
    pof_dp_destroy(dp);
}

/* A 13-bit field 3 bits into a byte, end to end: random routes, random packets, the reference decides. */
static void test_odd_field_end_to_end(void)
{
    struct pof_table_mod tm = dp_table(ODD13, 256);
    struct pof_dp *dp = lpm_dp(&tm);
    uint16_t val[256], len[256], prio[256];
    bool used[256] = {false};
    for (uint32_t i = 0; i < 256; i++) {
        if (rnd_below(4) == 0)
            continue;
        val[i] = (uint16_t)rnd_below(1 << 13);
        len[i] = (uint16_t)rnd_below(14);
        prio[i] = (uint16_t)rnd_below(2);
        used[i] = true;
        CHECK(flow_mod(dp, route(ODD13, i, val[i], len[i], prio[i], 1000 + i)) == 0);
    }
    int bad = 0;
    uint8_t pkt[64] = {0};
    for (int n = 0; n < 3000; n++) {
        for (int b = 0; b < 16; b++)
            pkt[b] = (uint8_t)rnd();
        uint32_t field = ((uint32_t)pkt[12] << 16 | (uint32_t)pkt[13] << 8 | pkt[14]) >> (24 - 3 - 13) & 0x1FFF;
        int best = -1;
        for (int i = 0; i < 256; i++) {
            if (!used[i] || (len[i] && (field ^ val[i]) >> (13 - len[i]) != 0))
                continue;
            if (best < 0 || len[i] > len[best] || (len[i] == len[best] && prio[i] > prio[best]))
                best = i;
        }
        uint32_t want = best < 0 ? 0 : 1000u + (uint32_t)best;
        bad += out(dp, pkt, 14) != want; /* the field ends with byte 13: 14 bytes are enough */
        bad += out(dp, pkt, 13) != 0;
    }
    CHECK_MSG(bad == 0, "datapath and reference disagree");
    pof_dp_destroy(dp);
}

/* Not a test: one line of lookup cost, trie vs the number of entries (a few ms). */
static void bench_line(void)
{
    static const uint32_t sizes[] = {16, 256, 8000};
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        uint32_t size = sizes[s];
        struct pof_table_mod tm = lpm_mod(size, 1, (const uint16_t[]){32});
        struct pof_table t;
        if (pof_table_init(&t, &tm, 10) < 0)
            return;
        for (uint32_t i = 0; i < size; i++)
            pof_table_put(&t, make_entry(&t, i, 0, 8 + (int)rnd_below(25), NULL));
        enum { KEYS = 1024, ROUNDS = 200 };
        static struct pof_key keys[KEYS];
        uint32_t live[1] = {0};
        for (int i = 0; i < KEYS; i++) {
            live[0] = rnd_below(size);
            random_key(&t, live, 1, &keys[i]);
        }
        struct timespec a, b;
        uintptr_t sink = 0;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int r = 0; r < ROUNDS; r++)
            for (int i = 0; i < KEYS; i++)
                sink += (uintptr_t)pof_table_lookup(&t, &keys[i]);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (KEYS * ROUNDS);
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int i = 0; i < KEYS; i++) /* the reference scan does the old O(n) work */
            sink += (uintptr_t)ref_lookup(&t, &keys[i]);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ref = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / KEYS;
        fprintf(stderr, "lpm lookup, %u /8-/32 prefixes: trie %.1f ns, linear scan %.1f ns (%s)\n", size, ns, ref,
                sink ? "hit" : "miss");
        pof_table_free(&t);
    }
}

int main(void)
{
    RUN(test_differential_8);
    RUN(test_differential_13);
    RUN(test_differential_32);
    RUN(test_differential_48);
    RUN(test_differential_64);
    RUN(test_differential_128);
    RUN(test_differential_fields);
    RUN(test_differential_nonprefix);
    RUN(test_equal_prefixes);
    RUN(test_full_table_of_leaves);
    RUN(test_routes);
    RUN(test_odd_field_end_to_end);
    bench_line();
    return unit_summary();
}
