/* In-memory ports: fixed queues of heap buffers (test code, so malloc per packet is fine). */
#include "dummy_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QLEN 4096
#define MAXP 16

struct pof_io_buf { uint32_t head, len; uint8_t mem[2048 + 128]; };
struct q { uint32_t head, n; struct pof_io_buf *b[QLEN]; };
struct pof_io_port { char name[64], args[256]; struct q rx, tx; int tx_budget; /* < 0: unlimited */ };

static struct pof_io_port *ports[MAXP];
static int live;

static struct pof_io_port *find(const char *name)
{
    for (int i = 0; i < MAXP; i++)
        if (ports[i] && strcmp(ports[i]->name, name) == 0)
            return ports[i];
    return NULL;
}

static void push(struct q *q, struct pof_io_buf *b)
{
    if (q->n == QLEN) {
        free(b);
        live--;
        return;
    }
    q->b[(q->head + q->n++) % QLEN] = b;
}

static struct pof_io_buf *pop(struct q *q)
{
    if (!q->n)
        return NULL;
    struct pof_io_buf *b = q->b[q->head];
    q->head = (q->head + 1) % QLEN;
    q->n--;
    return b;
}

static struct pof_io_buf *d_copy(const uint8_t *data, uint32_t len)
{
    if (len > 2048)
        return NULL;
    struct pof_io_buf *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    live++;
    memcpy(b->mem, data, len);
    b->len = len;
    return b;
}

static void d_free(struct pof_io_buf *b)
{
    free(b);
    live--;
}

static struct pof_io_port *d_open(const char *name, const char *args, uint8_t mac[6], char *err, size_t errlen)
{
    if (strcmp(name, "fail") == 0) {
        snprintf(err, errlen, "dummy port refused");
        return NULL;
    }
    for (int i = 0; i < MAXP; i++)
        if (!ports[i]) {
            ports[i] = calloc(1, sizeof(struct pof_io_port));
            ports[i]->tx_budget = -1;
            snprintf(ports[i]->name, sizeof(ports[i]->name), "%s", name);
            snprintf(ports[i]->args, sizeof(ports[i]->args), "%s", args ? args : "");
            memset(mac, 0, 6);
            mac[5] = (uint8_t)(i + 1);
            return ports[i];
        }
    snprintf(err, errlen, "too many dummy ports");
    return NULL;
}

static void d_close(struct pof_io_port *p)
{
    struct pof_io_buf *b;
    while ((b = pop(&p->rx)) || (b = pop(&p->tx)))
        d_free(b);
    for (int i = 0; i < MAXP; i++)
        if (ports[i] == p)
            ports[i] = NULL;
    free(p);
}

static int d_fd(struct pof_io_port *p)
{
    (void)p;
    return -1;
}

static uint16_t d_rx(struct pof_io_port *p, struct pof_io_buf **bufs, uint16_t n)
{
    uint16_t k = 0;
    while (k < n && (bufs[k] = pop(&p->rx)) != NULL)
        k++;
    return k;
}

/* Like the real backends: a prefix of the burst is sent, the refused rest is freed. */
static uint16_t d_tx(struct pof_io_port *p, struct pof_io_buf **bufs, uint16_t n)
{
    uint16_t sent = p->tx_budget >= 0 && p->tx_budget < n ? (uint16_t)p->tx_budget : n;
    if (p->tx_budget >= 0)
        p->tx_budget -= sent;
    for (uint16_t i = 0; i < n; i++) {
        if (i < sent)
            push(&p->tx, bufs[i]);
        else
            d_free(bufs[i]);
    }
    return sent;
}

static struct pof_io_view d_view(struct pof_io_buf *b)
{
    return (struct pof_io_view){b->mem + b->head, b->len, (uint32_t)sizeof(b->mem) - b->head - b->len};
}

static void d_commit(struct pof_io_buf *b, uint32_t head, uint32_t len)
{
    b->head += head;
    b->len = len;
}

const struct pof_io_ops dummy_io_ops = {
    .name = "dummy", .port_open = d_open, .port_close = d_close, .port_fd = d_fd, .rx = d_rx, .tx = d_tx,
    .view = d_view, .commit = d_commit, .copy = d_copy, .free = d_free,
};

int dummy_inject(const char *name, const uint8_t *data, uint32_t len)
{
    struct pof_io_port *p = find(name);
    struct pof_io_buf *b = p ? d_copy(data, len) : NULL;
    if (!b)
        return -1;
    push(&p->rx, b);
    return 0;
}

int dummy_take(const char *name, uint8_t *out, uint32_t cap)
{
    struct pof_io_port *p = find(name);
    struct pof_io_buf *b = p ? pop(&p->tx) : NULL;
    if (!b)
        return -1;
    uint32_t n = b->len < cap ? b->len : cap;
    memcpy(out, b->mem + b->head, n);
    d_free(b);
    return (int)n;
}

int dummy_sent_count(const char *name)
{
    struct pof_io_port *p = find(name);
    return p ? (int)p->tx.n : -1;
}

void dummy_tx_limit(const char *name, int n)
{
    struct pof_io_port *p = find(name);
    if (p)
        p->tx_budget = n < 0 ? -1 : n;
}

int dummy_live_buffers(void)
{
    return live;
}

const char *dummy_args(const char *name)
{
    struct pof_io_port *p = find(name);
    return p ? p->args : NULL;
}
