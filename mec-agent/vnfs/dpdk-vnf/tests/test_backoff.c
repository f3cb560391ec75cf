#include "check.h"
#include "vnf_backoff.h"

int main(void)
{
    struct vnf_backoff b;
    vnf_backoff_init(&b, VNF_SPIN_ROUNDS, 1000, false);
    /* spins VNF_SPIN_ROUNDS - 1 empty polls, then sleeps 1, 2, 4, ... us up to the cap */
    for (int i = 1; i < VNF_SPIN_ROUNDS; i++)
        CHECK(vnf_backoff_after_poll(&b, 0) == 0);
    CHECK(vnf_backoff_after_poll(&b, 0) == 1);
    CHECK(vnf_backoff_after_poll(&b, 0) == 2);
    CHECK(vnf_backoff_after_poll(&b, 0) == 4);
    uint32_t last = 0;
    for (int i = 0; i < 100; i++)
        last = vnf_backoff_after_poll(&b, 0);
    CHECK(last == 1000); /* 1 << 10 = 1024 capped at max_sleep_us */
    /* traffic resets: no sleep, and spinning starts over */
    CHECK(vnf_backoff_after_poll(&b, 5) == 0);
    CHECK(b.idle_rounds == 0);
    CHECK(vnf_backoff_after_poll(&b, 0) == 0);

    /* a cap below 1024 us holds; the exponent stops at 10 (never 1 << 32) */
    vnf_backoff_init(&b, VNF_SPIN_ROUNDS, 300, false);
    b.idle_rounds = UINT32_MAX - 1;
    CHECK(vnf_backoff_after_poll(&b, 0) == 300);
    CHECK(vnf_backoff_after_poll(&b, 0) == 300 && b.idle_rounds == UINT32_MAX);
    vnf_backoff_init(&b, VNF_SPIN_ROUNDS, 1000000, false);
    b.idle_rounds = VNF_SPIN_ROUNDS + 40;
    CHECK(vnf_backoff_after_poll(&b, 0) == 1024);

    /* busy poll never sleeps */
    vnf_backoff_init(&b, VNF_SPIN_ROUNDS, 1000, true);
    for (int i = 0; i < 10000; i++)
        CHECK(vnf_backoff_after_poll(&b, 0) == 0);
    /* spin_rounds 0: the first empty poll already sleeps */
    vnf_backoff_init(&b, 0, 1000, false);
    CHECK(vnf_backoff_after_poll(&b, 0) == 2); /* idle_rounds 1 -> over 1 */
    puts("test_backoff: ok");
    return 0;
}
