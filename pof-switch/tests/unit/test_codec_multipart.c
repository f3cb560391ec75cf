/* The MULTIPART bodies (WiSlice extensions, spec/pof "Port statistics" and "Port latency"): their vectors decode,
 * re-encode from the wire and from host-order entries to the same bytes, and their bounds hold. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pof_wire.h"
#include "unit.h"
#include "vec.h"

static const char *vector_dir;

/* The hex of vector file `name` (under vector_dir) into raw; 0 when the file does not load (a CHECK fails). */
static size_t load_vector(const char *name, uint8_t *raw, size_t cap)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s.json", vector_dir, name);
    json_t *doc = json_load_file(path, 0, NULL);
    CHECK_MSG(doc != NULL, path);
    if (!doc)
        return 0;
    size_t n = unhex(json_string_value(json_object_get(doc, "hex")), raw, cap);
    json_decref(doc);
    return n;
}

/* The MULTIPART vectors are there and re-encode from host-order entries as well as from the wire. */
static void test_port_stats_vectors_and_host_encode(void)
{
    static const char *names[] = {"multipart_request_port_stats", "multipart_request_port_stats_all",
                                  "multipart_reply_port_stats"};
    static uint8_t raw[4096], again[4096];
    static struct pof_msg msg;
    for (size_t v = 0; v < 3; v++) {
        const char *path = names[v];
        size_t n = load_vector(names[v], raw, sizeof(raw));
        if (!n)
            continue;
        struct pof_status st;
        CHECK_MSG(pof_decode(raw, n, &msg, &st) == 0, path);
        if (msg.hdr.type == POFT_MULTIPART_REQUEST)
            CHECK(msg.u.multipart.port_no == (v == 0 ? 1 : POF_PORT_ALL));
        if (msg.hdr.type == POFT_MULTIPART_REPLY) {
            struct pof_port_stats host[2];
            CHECK(msg.u.multipart.stats_num == 2);
            for (uint16_t i = 0; i < 2; i++)
                pof_port_stats_at(&msg.u.multipart, i, &host[i]);
            CHECK(host[0].rx_bytes == 7512345678ull && host[1].tx_dropped == 3 && host[0].duration_sec == 86400);
            msg.u.multipart.stats = host;
            msg.u.multipart.stats_wire = NULL;
            CHECK(pof_encode(&msg, again, sizeof(again)) == (int)n && memcmp(raw, again, n) == 0);
        }
    }
}

/* PORT_LATENCY (WiSlice, vectors/port_latency/): the requests and the reply decode, re-encode from the wire and
 * from host-order entries to the same bytes, and a reply that is not whole 56-byte entries is refused. */
static void test_port_latency_vectors(void)
{
    static const char *names[] = {"multipart_request_port_latency", "multipart_request_port_latency_all",
                                  "multipart_reply_port_latency", "invalid_reply_short_entry"};
    static uint8_t raw[4096], again[4096];
    static struct pof_msg msg;
    for (size_t v = 0; v < 4; v++) {
        char path[128];
        snprintf(path, sizeof(path), "port_latency/%s", names[v]);
        size_t n = load_vector(path, raw, sizeof(raw));
        if (!n)
            continue;
        struct pof_status st;
        if (v == 3) {
            CHECK_MSG(pof_decode(raw, n, &msg, &st) < 0 && st.type == POFET_BAD_REQUEST && st.code == POFBRC_BAD_LEN,
                      path);
            continue;
        }
        CHECK_MSG(pof_decode(raw, n, &msg, &st) == 0, path);
        CHECK(msg.u.multipart.mp_type == POFMP_PORT_LATENCY);
        CHECK(pof_encode(&msg, again, sizeof(again)) == (int)n && memcmp(raw, again, n) == 0);
        if (msg.hdr.type == POFT_MULTIPART_REQUEST)
            CHECK(msg.u.multipart.port_no == (v == 0 ? 3 : POF_PORT_ALL));
        if (msg.hdr.type == POFT_MULTIPART_REPLY) {
            struct pof_port_latency host[2];
            CHECK(msg.u.multipart.stats_num == 2);
            for (uint16_t i = 0; i < 2; i++)
                pof_port_latency_at(&msg.u.multipart, i, &host[i]);
            CHECK(host[0].port_no == 1 && host[0].cls[0].packets == 600 && host[0].cls[0].p99_ns == 100000);
            CHECK(host[0].cls[1].p99_ns == 218400000 && host[1].port_no == 2 && host[1].cls[1].packets == 5);
            msg.u.multipart.lat = host;
            msg.u.multipart.stats_wire = NULL;
            memset(again, 0xAA, sizeof(again)); /* the pad bytes must be written as zeros */
            CHECK(pof_encode(&msg, again, sizeof(again)) == (int)n && memcmp(raw, again, n) == 0);
        }
    }
}

/* 584 entries is the most a 16-bit length holds; a reply must be whole entries; a request needs port_no. */
static void test_port_stats_bounds(void)
{
    static struct pof_port_stats stats[POF_PORT_STATS_MAX + 1];
    static uint8_t out[65536 + 256];
    static struct pof_msg msg, back;
    struct pof_status st;
    for (int i = 0; i <= POF_PORT_STATS_MAX; i++)
        stats[i] = (struct pof_port_stats){.port_no = (uint32_t)i + 1, .rx_packets = (uint64_t)i << 40};
    msg.hdr.type = POFT_MULTIPART_REPLY;
    msg.u.multipart = (struct pof_multipart){.mp_type = POFMP_PORT_STATS, .flags = POFMPF_REPLY_MORE,
                                             .stats_num = POF_PORT_STATS_MAX, .stats = stats};
    int n = pof_encode(&msg, out, sizeof(out));
    CHECK(n == 8 + 8 + 112 * POF_PORT_STATS_MAX && n <= UINT16_MAX);
    CHECK(pof_decode(out, (size_t)n, &back, &st) == 0 && back.u.multipart.stats_num == POF_PORT_STATS_MAX &&
          back.u.multipart.flags == POFMPF_REPLY_MORE);
    struct pof_port_stats last;
    pof_port_stats_at(&back.u.multipart, POF_PORT_STATS_MAX - 1, &last);
    CHECK(last.port_no == POF_PORT_STATS_MAX && last.rx_packets == (uint64_t)(POF_PORT_STATS_MAX - 1) << 40);
    msg.u.multipart.stats_num = POF_PORT_STATS_MAX + 1;
    CHECK(pof_encode(&msg, out, sizeof(out)) < 0);
    msg.u.multipart.stats_num = 1;
    msg.u.multipart.stats = NULL; /* nothing to encode from */
    CHECK(pof_encode(&msg, out, sizeof(out)) < 0);

    /* A reply with a partial entry, and one with another multipart type. */
    msg.u.multipart.stats = stats;
    n = pof_encode(&msg, out, sizeof(out));
    out[3] = (uint8_t)(n - 1);
    CHECK(pof_decode(out, (size_t)n - 1, &back, &st) < 0 && st.type == POFET_BAD_REQUEST && st.code == POFBRC_BAD_LEN);
    out[3] = (uint8_t)n;
    out[9] = 1;
    CHECK(pof_decode(out, (size_t)n, &back, &st) < 0 && st.code == POFBRC_BAD_MULTIPART);
    /* Every prefix of a request is refused, never read past. */
    msg.hdr.type = POFT_MULTIPART_REQUEST;
    msg.u.multipart = (struct pof_multipart){.mp_type = POFMP_PORT_STATS, .port_no = 7};
    n = pof_encode(&msg, out, sizeof(out));
    CHECK(n == 24);
    for (int l = 8; l < n; l++) {
        uint8_t *cut = malloc((size_t)l);
        memcpy(cut, out, (size_t)l);
        cut[3] = (uint8_t)l;
        CHECK(pof_decode(cut, (size_t)l, &back, &st) < 0 && st.code == POFBRC_BAD_LEN);
        free(cut);
    }
}

int main(int argc, char **argv)
{
    vector_dir = argc > 1 ? argv[1] : "../../spec/pof/vectors";
    RUN(test_port_stats_vectors_and_host_encode);
    RUN(test_port_stats_bounds);
    RUN(test_port_latency_vectors);
    return unit_summary();
}
