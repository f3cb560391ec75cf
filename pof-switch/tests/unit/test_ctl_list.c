/* A switch with a list of controllers (a cluster's nodes): the list's syntax, and the dialling order over
 * loopback TCP: a controller that refuses is skipped at once, the switch backs off only after a whole round. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl_loop.h"
#include "dummy_io.h"
#include "pof_conn.h"
#include "pof_ctladdr.h"
#include "pof_switch.h"
#include "unit.h"

static void test_parse_lists(void)
{
    struct pof_ctl_addr a[POF_MAX_CONTROLLERS];
    const char *why = NULL;
    CHECK(pof_ctl_addrs_parse("127.0.0.1:6643", a, POF_MAX_CONTROLLERS, &why) == 1);
    CHECK(strcmp(a[0].host, "127.0.0.1") == 0 && a[0].port == 6643);
    CHECK(pof_ctl_addrs_parse("onos-a:6643,10.0.0.2:1,fe80::1:65535", a, POF_MAX_CONTROLLERS, &why) == 3);
    CHECK(strcmp(a[0].host, "onos-a") == 0 && a[1].port == 1);
    CHECK(strcmp(a[2].host, "fe80::1") == 0 && a[2].port == 65535); /* split at the last colon */
    CHECK(pof_ctl_addrs_parse("a:1,a:2,a:3,a:4,a:5,a:6,a:7,a:8", a, POF_MAX_CONTROLLERS, &why) == 8);
    CHECK(pof_ctl_addrs_parse("[fe80::2]:6643", a, POF_MAX_CONTROLLERS, &why) == 1); /* as the agents write it */
    CHECK(strcmp(a[0].host, "fe80::2") == 0 && a[0].port == 6643);
}

static void test_parse_refusals(void)
{
    static const char *const bad[] = {
        "", ",", "a:1,", ",a:1", "a:1,,b:2", "a", ":6643", "a:", "a:0", "a:65536", "a:123456", "a:12x", "a b:1",
        "a;b:1", "a:+1", "[]:1", "[a:1", "[a]]:1", "a:1,a:2,a:3,a:4,a:5,a:6,a:7,a:8,a:9",
    };
    struct pof_ctl_addr a[POF_MAX_CONTROLLERS];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *why = NULL;
        CHECK_MSG(pof_ctl_addrs_parse(bad[i], a, POF_MAX_CONTROLLERS, &why) == -1 && why, bad[i]);
    }
    char longhost[300];
    memset(longhost, 'h', 256);
    strcpy(longhost + 256, ":1");
    const char *why = NULL;
    CHECK(pof_ctl_addrs_parse(longhost, a, POF_MAX_CONTROLLERS, &why) == -1);
}

/* A loopback port nothing listens on: a connect there is refused at once. */
static uint16_t refusing_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    CHECK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&sa, &len) == 0);
    close(fd);
    return ntohs(sa.sin_port);
}

static void test_dials_the_next_at_once_and_backs_off_after_a_round(void)
{
    static struct pof_sw sw;
    struct sw_config cfg = {.n_controllers = 2, .dev_id = 9};
    cfg.controllers[0] = (struct pof_ctl_addr){.host = "127.0.0.1", .port = refusing_port()};
    cfg.controllers[1] = (struct pof_ctl_addr){.host = "127.0.0.1", .port = ctl_listen()};
    CHECK(cfg.controllers[1].port != 0);
    CHECK(pof_sw_init(&sw, &cfg, &dummy_io_ops) == 0);
    uint64_t t0 = pof_now_ns();
    CHECK(ctl_accept(&sw));
    uint64_t first = pof_now_ns() - t0;
    /* The first refused, the second dialled at once: well inside the 0.5 s backoff a round of one would wait. */
    CHECK_MSG(first < 300000000ull, "the second controller was dialled only after a backoff");
    CHECK(ctl_handshake(NULL, 0, NULL, NULL, 0, NULL));
    CHECK(pof_conn_ready(sw.conn) && pof_conn_controller(sw.conn) == 1);

    /* The session ends: the switch dials the first (refused) at once, then, a whole round failed, backs off
     * before the second again. */
    ctl_hang_up();
    t0 = pof_now_ns();
    CHECK(ctl_accept(&sw));
    uint64_t again = pof_now_ns() - t0;
    CHECK_MSG(again >= 400000000ull && again < 3000000000ull, "no backoff after a whole round of failures");
    CHECK(ctl_handshake(NULL, 0, NULL, NULL, 0, NULL));
    CHECK(pof_conn_controller(sw.conn) == 1);
    ctl_close();
    pof_sw_fini(&sw);
}

int main(void)
{
    RUN(test_parse_lists);
    RUN(test_parse_refusals);
    RUN(test_dials_the_next_at_once_and_backs_off_after_a_round);
    return unit_summary();
}
