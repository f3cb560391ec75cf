/* Management socket: non-blocking unix stream server with a small command table. */
#include "pof_mgmt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pof_dp.h"
#include "pof_sched.h"

#define MAX_CLIENTS 8
#define LINE_MAX_LEN 512
#define REPLY_MAX_LEN 49152 /* `ports` with all 254 ports, 63-character names and 20-digit counters */

/* A client's line so far and the reply it has not taken yet: while a reply is pending the client's next lines
 * stay unread (in the kernel), so a client that does not read costs one reply's room, never a cut reply. */
struct client {
    int fd;
    uint64_t active;        /* m->clock when it last sent or took bytes: the quietest client is evicted first */
    size_t len;             /* bytes in line */
    size_t out_len, out_at; /* the pending reply, and how much of it was sent */
    char line[LINE_MAX_LEN];
    char out[REPLY_MAX_LEN];
};

struct pof_mgmt {
    const struct pof_sw_cb *sw;
    int fd;
    char path[108];
    uint64_t clock; /* counts client activity (an order, not a time) */
    struct client clients[MAX_CLIENTS];
};

struct pof_mgmt *pof_mgmt_open(const struct pof_sw_cb *sw, const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(addr.sun_path)) {
        fprintf(stderr, "pofswitch: management socket path too long: %s\n", path);
        return NULL;
    }
    struct pof_mgmt *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->sw = sw;
    for (int i = 0; i < MAX_CLIENTS; i++)
        m->clients[i].fd = -1;
    snprintf(m->path, sizeof(m->path), "%s", path);
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
    m->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m->fd >= 0 && bind(m->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 && errno == EADDRINUSE) {
        unlink(path); /* a stale socket from a previous run */
        if (bind(m->fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
            errno = 0;
    } else if (m->fd >= 0) {
        errno = 0;
    }
    if (m->fd < 0 || errno || listen(m->fd, 64) < 0) {
        fprintf(stderr, "pofswitch: management socket %s: %s\n", path, strerror(errno));
        if (m->fd >= 0)
            close(m->fd);
        free(m);
        return NULL;
    }
    return m;
}

void pof_mgmt_close(struct pof_mgmt *m)
{
    if (!m)
        return;
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (m->clients[i].fd >= 0)
            close(m->clients[i].fd);
    close(m->fd);
    unlink(m->path);
    free(m);
}

int pof_mgmt_fds(const struct pof_mgmt *m, struct pollfd *fds, int max)
{
    int n = 0;
    if (!m || max < 1)
        return 0;
    fds[n++] = (struct pollfd){.fd = m->fd, .events = POLLIN};
    for (int i = 0; i < MAX_CLIENTS && n < max; i++)
        if (m->clients[i].fd >= 0)
            fds[n++] = (struct pollfd){.fd = m->clients[i].fd,
                                       .events = m->clients[i].out_len ? POLLOUT : POLLIN};
    return n;
}

typedef void (*cmd_fn)(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen);

static void cmd_port_add(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen)
{
    char err[200];
    int id = sw->port_add(sw->sw, argv[1], argc > 2 ? argv[2] : "", err, sizeof(err));
    if (id < 0)
        snprintf(out, outlen, "ERROR %s", err);
    else
        snprintf(out, outlen, "OK %d", id);
}

static void cmd_port_del(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen)
{
    (void)argc;
    char err[200];
    if (sw->port_del(sw->sw, argv[1], err, sizeof(err)) < 0)
        snprintf(out, outlen, "ERROR %s", err);
    else
        snprintf(out, outlen, "OK");
}

static void cmd_latency(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen)
{
    uint16_t id = sw->port_by_name(sw->sw, argv[1]);
    if (!id) {
        snprintf(out, outlen, "ERROR no port %s", argv[1]);
        return;
    }
    if (argc < 3 || (strcmp(argv[2], "on") && strcmp(argv[2], "off"))) {
        snprintf(out, outlen, "ERROR usage: latency NAME on|off");
        return;
    }
    sw->port_latency(sw->sw, id, strcmp(argv[2], "on") == 0);
    snprintf(out, outlen, "OK");
}

static void cmd_port_rate(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen)
{
    (void)argc;
    uint16_t id = sw->port_by_name(sw->sw, argv[1]);
    if (!id) {
        snprintf(out, outlen, "ERROR no port %s", argv[1]);
        return;
    }
    char *end, err[200];
    errno = 0;
    unsigned long long v = strtoull(argv[2], &end, 10);
    if (errno || *end || argv[2][0] < '0' || argv[2][0] > '9' || v > POF_METER_MAX_KBPS) {
        snprintf(out, outlen, "ERROR rate must be 0-%u kbit/s", POF_METER_MAX_KBPS);
        return;
    }
    if (sw->port_rate(sw->sw, id, (uint32_t)v, err, sizeof(err)) < 0)
        snprintf(out, outlen, "ERROR %s", err);
    else
        snprintf(out, outlen, "OK");
}

static void cmd_port_stats(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen)
{
    (void)argc;
    uint16_t id = sw->port_by_name(sw->sw, argv[1]);
    struct pof_sw_port_info p;
    if (!id || !sw->port(sw->sw, id, &p)) {
        snprintf(out, outlen, "ERROR no port %s", argv[1]);
        return;
    }
    static const struct pof_sched_queue none;
    const struct pof_sched_queue *g = p.sched ? &p.sched->q[POF_SCHED_GREEN] : &none;
    const struct pof_sched_queue *e = p.sched ? &p.sched->q[POF_SCHED_BE] : &none;
    snprintf(out, outlen,
             "OK rate=%u green_pkts=%llu green_bytes=%llu green_drops=%llu green_queued=%u"
             " be_pkts=%llu be_bytes=%llu be_drops=%llu be_queued=%u tx_dropped=%llu",
             p.sched ? p.sched->rate_kbps : 0, (unsigned long long)g->sent_pkts,
             (unsigned long long)g->sent_bytes, (unsigned long long)g->drop_pkts, g->bytes,
             (unsigned long long)e->sent_pkts, (unsigned long long)e->sent_bytes, (unsigned long long)e->drop_pkts,
             e->bytes, (unsigned long long)p.tx_dropped);
}

/* One port's residence time per class: `id:name` then, for the latency class and the rest, packets:p50:p99:max
 * (ns, over the last 1-2 s; spec/switch-mgmt). */
static int port_latency_item(const struct pof_sw_cb *sw, uint16_t id, const char *name, char *out, size_t outlen)
{
    struct pof_port_latency l;
    sw->port_residence(sw->sw, id, &l);
    const struct pof_port_latency_class *a = &l.cls[0], *b = &l.cls[1];
    return snprintf(out, outlen, " %u:%s:%llu:%u:%u:%u:%llu:%u:%u:%u", id, name, (unsigned long long)a->packets,
                    a->p50_ns, a->p99_ns, a->max_ns, (unsigned long long)b->packets, b->p50_ns, b->p99_ns, b->max_ns);
}

static void cmd_port_latency(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen)
{
    size_t at = (size_t)snprintf(out, outlen, "OK");
    if (argc > 1) {
        uint16_t id = sw->port_by_name(sw->sw, argv[1]);
        if (!id)
            snprintf(out, outlen, "ERROR no port %s", argv[1]);
        else
            port_latency_item(sw, id, argv[1], out + at, outlen - at);
        return;
    }
    for (uint16_t i = 1; i <= POF_MAX_PORTS && at < outlen; i++) {
        struct pof_sw_port_info p;
        if (!sw->port(sw->sw, i, &p))
            continue;
        int n = port_latency_item(sw, i, p.name, out + at, outlen - at);
        if (n < 0 || (size_t)n >= outlen - at) {
            out[at] = '\0'; /* never a cut item */
            break;
        }
        at += (size_t)n;
    }
}

static void cmd_ports(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen)
{
    (void)argc;
    (void)argv;
    size_t at = (size_t)snprintf(out, outlen, "OK");
    for (uint16_t i = 1; i <= POF_MAX_PORTS && at < outlen; i++) {
        struct pof_sw_port_info p;
        if (!sw->port(sw->sw, i, &p))
            continue;
        int n = snprintf(out + at, outlen - at, " %d:%s:%d:%llu:%llu:%llu:%llu", p.id, p.name, p.enabled,
                         (unsigned long long)p.rx_packets, (unsigned long long)p.tx_packets,
                         (unsigned long long)p.rx_bytes, (unsigned long long)p.tx_bytes);
        if (n < 0 || (size_t)n >= outlen - at) {
            out[at] = '\0'; /* never a cut item: parsers would misread it */
            break;
        }
        at += (size_t)n;
    }
}

static void cmd_stats(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen)
{
    (void)argc;
    (void)argv;
    struct pof_dp_stats s;
    pof_dp_get_stats(sw->dp, &s);
    snprintf(out, outlen, "OK processed=%llu miss=%llu dropped=%llu short=%llu tables=%d flows=%d packet_in=%llu",
             (unsigned long long)s.processed, (unsigned long long)s.table_miss, (unsigned long long)s.dropped,
             (unsigned long long)s.short_field, pof_dp_table_count(sw->dp), pof_dp_flow_count(sw->dp),
             (unsigned long long)sw->packet_in_sent(sw->sw));
}

/* What a new controller session does to the switch's state: `on-connect` reads it, `on-connect keep|reset`
 * sets it for the sessions that follow (the one in progress keeps what it found). */
static void cmd_on_connect(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen)
{
    if (argc < 2) {
        snprintf(out, outlen, "OK %s", sw->on_connect(sw->sw, NULL));
        return;
    }
    if (argc > 2 || !sw->on_connect(sw->sw, argv[1]))
        snprintf(out, outlen, "ERROR usage: on-connect [keep|reset]");
    else
        snprintf(out, outlen, "OK");
}

/* probe-start, probe-stats, probe-stop: argv[2] is the rest of the line, parsed by the switch's probe module. */
static void cmd_probe(const struct pof_sw_cb *sw, int argc, char **argv, char *out, size_t outlen)
{
    sw->probe(sw->sw, argv[0], argv[1], argc > 2 ? argv[2] : "", out, outlen);
}

static const struct { const char *name; int min_args; cmd_fn fn; const char *usage; } commands[] = {
    {"port-add", 2, cmd_port_add, "port-add NAME [ARGS]"},
    {"port-del", 2, cmd_port_del, "port-del NAME"},
    {"latency", 2, cmd_latency, "latency NAME on|off"},
    {"port-rate", 3, cmd_port_rate, "port-rate NAME KBPS"},
    {"port-stats", 2, cmd_port_stats, "port-stats NAME"},
    {"ports", 1, cmd_ports, "ports"},
    {"port-latency", 1, cmd_port_latency, "port-latency [NAME]"},
    {"stats", 1, cmd_stats, "stats"},
    {"on-connect", 1, cmd_on_connect, "on-connect [keep|reset]"},
    {"probe-start", 3, cmd_probe,
     "probe-start NAME ID SRC_MAC DST_MAC SRC_IP DST_IP [size=N] [interval_us=N] [count=N]"},
    {"probe-stats", 3, cmd_probe, "probe-stats NAME ID"},
    {"probe-stop", 3, cmd_probe, "probe-stop NAME ID"},
};

void pof_mgmt_command(const struct pof_sw_cb *sw, char *line, char *out, size_t outlen)
{
    char *argv[4] = {0};
    int argc = 0;
    char *save = NULL;
    /* ARGS (the last argument) may contain spaces: split at most three times */
    for (char *tok = strtok_r(line, " \t\r\n", &save); tok && argc < 4;
         tok = argc == 2 ? strtok_r(NULL, "\r\n", &save) : strtok_r(NULL, " \t\r\n", &save))
        argv[argc++] = tok;
    if (argc == 0) {
        snprintf(out, outlen, "ERROR empty command");
        return;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(argv[0], commands[i].name) != 0)
            continue;
        if (argc < commands[i].min_args)
            snprintf(out, outlen, "ERROR usage: %s", commands[i].usage);
        else
            commands[i].fn(sw, argc, argv, out, outlen);
        return;
    }
    snprintf(out, outlen, "ERROR unknown command %.64s", argv[0]);
}

static void drop_client(struct client *c)
{
    close(c->fd);
    c->fd = -1;
    c->len = c->out_len = c->out_at = 0;
}

/* Sends what is left of the pending reply; true once nothing is pending (false: later, or the client is gone). */
static bool flush_reply(struct pof_mgmt *m, struct client *c)
{
    while (c->out_at < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_at, c->out_len - c->out_at, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                drop_client(c);
            return false;
        }
        c->out_at += (size_t)n;
        c->active = ++m->clock;
    }
    c->out_len = c->out_at = 0;
    return true;
}

/* Answers the complete lines received so far, one reply at a time. */
static void answer_lines(struct pof_mgmt *m, struct client *c)
{
    char *nl;
    while (c->fd >= 0 && c->out_len == 0 && (nl = memchr(c->line, '\n', c->len)) != NULL) {
        *nl = '\0';
        size_t used = (size_t)(nl + 1 - c->line);
        if (strlen(c->line) != used - 1) /* C would read the line only up to the NUL */
            snprintf(c->out, sizeof(c->out), "ERROR line contains a NUL byte");
        else
            pof_mgmt_command(m->sw, c->line, c->out, sizeof(c->out) - 1);
        c->out_len = strlen(c->out);
        c->out[c->out_len++] = '\n';
        memmove(c->line, c->line + used, c->len - used);
        c->len -= used;
        flush_reply(m, c);
    }
}

static void serve_client(struct pof_mgmt *m, struct client *c)
{
    if (!flush_reply(m, c))
        return;
    answer_lines(m, c); /* lines that waited behind a reply */
    if (c->fd < 0 || c->out_len)
        return;
    ssize_t n = recv(c->fd, c->line + c->len, sizeof(c->line) - 1 - c->len, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        drop_client(c);
        return;
    }
    if (n < 0)
        return;
    c->len += (size_t)n;
    c->active = ++m->clock;
    answer_lines(m, c);
    if (c->fd >= 0 && c->out_len == 0 && c->len == sizeof(c->line) - 1) {
        send(c->fd, "ERROR line too long\n", 20, MSG_NOSIGNAL | MSG_DONTWAIT);
        drop_client(c);
    }
}

static struct client *free_slot(struct pof_mgmt *m)
{
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (m->clients[i].fd < 0)
            return &m->clients[i];
    return NULL;
}

/* A free slot, or the one of the client that has been quiet longest, which is closed: a new client always gets
 * in, so connections that are opened and held (or fed a byte now and then) cannot lock the agents out. */
static struct client *take_slot(struct pof_mgmt *m)
{
    struct client *c = free_slot(m);
    if (c)
        return c;
    /* A client that has closed is noticed only when served: one that reconnects at once (an agent's next command)
     * would otherwise be accepted again before its last connection is seen to end, and evict the others. */
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (m->clients[i].fd >= 0)
            serve_client(m, &m->clients[i]);
    c = free_slot(m);
    if (c)
        return c;
    struct client *quietest = &m->clients[0];
    for (int i = 1; i < MAX_CLIENTS; i++)
        if (m->clients[i].active < quietest->active)
            quietest = &m->clients[i];
    send(quietest->fd, "ERROR too many clients\n", 23, MSG_NOSIGNAL | MSG_DONTWAIT);
    drop_client(quietest);
    return quietest;
}

void pof_mgmt_service(struct pof_mgmt *m)
{
    if (!m)
        return;
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (m->clients[i].fd >= 0)
            serve_client(m, &m->clients[i]);
    int fd;
    while ((fd = accept4(m->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
        struct client *c = take_slot(m);
        c->fd = fd;
        c->active = ++m->clock;
        serve_client(m, c); /* a client's line is often there already: answered before a flood can evict it */
    }
}
