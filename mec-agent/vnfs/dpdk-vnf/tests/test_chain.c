#include <string.h>

#include "check.h"
#include "vnf_args.h"
#include "vnf_chain.h"
#include "vnf_stats.h"

int main(void)
{
    struct vnf_chain_line lines[3];
    memset(lines, 0, sizeof(lines));
    CHECK(!vnf_chain_downstream_over(lines, 3, 0));

    /* a downstream vNF's ring of 1024 with watermarks 80/20 %: over above 819, cleared only under 204 */
    struct vnf_watermark wm;
    vnf_watermark_init(&wm, 1024, 80, 20);
    uint32_t samples[] = {100, 819, 820, 500, 205, 204, 203, 900};
    bool want[] = {false, false, true, true, true, true, false, true};
    for (unsigned i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
        bool over = vnf_watermark_update(&wm, samples[i]);
        CHECK(over == want[i]);
        vnf_chain_publish(lines, 2, over, samples[i], wm.episodes);
        CHECK(lines[2].over == (uint32_t)want[i] && lines[2].occupancy == samples[i]);
        /* the head sees it, the middle vNF too; the last has no downstream */
        CHECK(vnf_chain_downstream_over(lines, 3, 0) == want[i]);
        CHECK(vnf_chain_downstream_over(lines, 3, 1) == want[i]);
        CHECK(!vnf_chain_downstream_over(lines, 3, 2));
    }
    CHECK(lines[2].episodes == 2);

    /* the head's own line does not stop it; any downstream one does; a shorter chain looks no further */
    memset(lines, 0, sizeof(lines));
    vnf_chain_publish(lines, 0, true, 1000, 1);
    CHECK(!vnf_chain_downstream_over(lines, 3, 0));
    vnf_chain_publish(lines, 1, true, 1000, 1);
    CHECK(vnf_chain_downstream_over(lines, 3, 0));
    CHECK(!vnf_chain_downstream_over(lines, 1, 0));
    vnf_chain_publish(lines, 1, false, 10, 1);
    CHECK(!vnf_chain_downstream_over(lines, 3, 0));

    /* the file: one cache line per vNF, the flag at offset 0 and the occupancy at 4 (README.md "Chain file") */
    CHECK(sizeof(struct vnf_chain_line) == 64);
    unsigned char *raw = (unsigned char *)lines;
    memset(lines, 0, sizeof(lines));
    vnf_chain_publish(lines, 1, true, 0x01020304, 7);
    CHECK(raw[64] == 1 && raw[68] == 4 && raw[71] == 1 && raw[72] == 7);
    vnf_chain_publish_rx(lines, 1, 9);
    CHECK(raw[80] == 9);

    /* arguments: a chain file needs a length of 2+ and a position inside it */
    struct vnf_args a;
    char err[160];
    char *ok[] = {"vnf", "--chain-file", "/run/vnf/chain", "--chain-pos", "0", "--chain-len", "3"};
    vnf_args_defaults(&a);
    CHECK(vnf_args_parse(&a, 7, ok, err, sizeof(err)) == 0);
    CHECK(a.chain_pos == 0 && a.chain_len == 3 && !strcmp(a.chain_file, "/run/vnf/chain"));
    char *outside[] = {"vnf", "--chain-file", "/run/vnf/chain", "--chain-pos", "3", "--chain-len", "3"};
    vnf_args_defaults(&a);
    CHECK(vnf_args_parse(&a, 7, outside, err, sizeof(err)) == -1);
    char *no_len[] = {"vnf", "--chain-file", "/run/vnf/chain"};
    vnf_args_defaults(&a);
    CHECK(vnf_args_parse(&a, 3, no_len, err, sizeof(err)) == -1);
    char *too_long[] = {"vnf", "--chain-len", "17"};
    vnf_args_defaults(&a);
    CHECK(vnf_args_parse(&a, 3, too_long, err, sizeof(err)) == -1);
    /* the next ring, estimated: it last said 100 and took nothing since we sent 800 more -> full (over 819);
     * it runs (its rx moves) and says 150: 150 < 204 clears; it says 300 and we send 600: over again */
    struct vnf_chain_next nx = {.high = 819, .low = 204};
    memset(lines, 0, sizeof(lines));
    vnf_chain_publish(lines, 1, false, 100, 0);
    vnf_chain_publish_rx(lines, 1, 5000);
    CHECK(!vnf_chain_next_full(&nx, &lines[1], 10000)); /* first look: counts from here */
    CHECK(!vnf_chain_next_full(&nx, &lines[1], 10719));  /* 100 + 719 = 819: not over */
    CHECK(vnf_chain_next_full(&nx, &lines[1], 10720));   /* 820 */
    vnf_chain_publish(lines, 1, false, 250, 0);
    vnf_chain_publish_rx(lines, 1, 5100);
    CHECK(vnf_chain_next_full(&nx, &lines[1], 10720));   /* it ran: 250 left, still >= low: hysteresis holds */
    vnf_chain_publish(lines, 1, false, 150, 0);
    vnf_chain_publish_rx(lines, 1, 5200);
    CHECK(!vnf_chain_next_full(&nx, &lines[1], 10720));  /* 150 < 204 */
    CHECK(vnf_chain_next_full(&nx, &lines[1], 11400));   /* 150 + 680 = 830 */
    /* a line nobody fills (we are the last vNF, or the next is gone: the agent zeroed it) is never full */
    memset(lines, 0, sizeof(lines));
    CHECK(!vnf_chain_next_full(&nx, &lines[1], 1000000));
    CHECK(!vnf_chain_next_full(&nx, &lines[1], 2000000));
    puts("test_chain: ok");
    return 0;
}
