/* pofswitch command line: ports, controller, management socket, polling mode; runs until SIGINT/SIGTERM. */
#include "pof_main.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pof_switch.h"

static struct pof_sw the_switch;

static void on_signal(int sig)
{
    (void)sig;
    the_switch.quit = 1;
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--controller HOST:PORT[,HOST:PORT...]|none] [--mgmt PATH] [--port NAME[=ARGS]]...\n"
            "          [--dev-id N]\n"
            "          [--busy-poll] [--max-sleep-us N] [--enable-ports] [--latency-port NAME]...\n"
            "          [--reset-on-connect] [--controller-timeout S]\n"
            "  --controller   POF controller to dial (default 127.0.0.1:6643), or a comma-separated list:\n"
            "                 the next one is dialled when a connection fails or ends (a cluster's nodes)\n"
            "  --port         a port; ARGS are DPDK devargs (pofswitch) or the netdev (pofswitch-afp), plus an\n"
            "                 optional item rate=KBPS: the port sends at that rate, green first (e.g. eth1,rate=20000)\n"
            "  --busy-poll    never sleep when idle (reference for adaptive polling)\n"
            "  --enable-ports start ports enabled instead of waiting for PORT_MOD\n"
            "  --reset-on-connect  a controller's HELLO clears tables, flows, meters and counters and disables\n"
            "                 ports, as the reference switch does (default: they stay; the controller reconciles)\n"
            "  --controller-timeout  seconds (default 15) for the handshake; a controller silent this long is\n"
            "                 dropped and dialled again (an ECHO_REQUEST goes out after a third of it)\n",
            prog);
}

static int parse_u32(const char *s, uint32_t max, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v > max)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int pof_main(int argc, char **argv, const struct pof_io_ops *io)
{
    static const struct option opts[] = {
        {"controller", required_argument, NULL, 'c'}, {"mgmt", required_argument, NULL, 'm'},
        {"port", required_argument, NULL, 'p'},       {"dev-id", required_argument, NULL, 'd'},
        {"busy-poll", no_argument, NULL, 'b'},        {"max-sleep-us", required_argument, NULL, 's'},
        {"enable-ports", no_argument, NULL, 'e'},     {"latency-port", required_argument, NULL, 'l'},
        {"reset-on-connect", no_argument, NULL, 'r'}, {"help", no_argument, NULL, 'h'},
        {"controller-timeout", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    struct sw_config cfg = {.controllers = {{.host = "127.0.0.1", .port = 6643}}, .n_controllers = 1, .dev_id = 1};
    const char *ports[POF_MAX_PORTS], *latency[POF_MAX_PORTS];
    int nports = 0, nlat = 0, opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 'c': {
            if (strcmp(optarg, "none") == 0) {
                cfg.n_controllers = 0;
                break;
            }
            const char *why = NULL;
            int n = pof_ctl_addrs_parse(optarg, cfg.controllers, POF_MAX_CONTROLLERS, &why);
            if (n < 0) {
                fprintf(stderr, "pofswitch: --controller wants HOST:PORT[,HOST:PORT...] (at most %d): %s in %s\n",
                        POF_MAX_CONTROLLERS, why, optarg);
                return 2;
            }
            cfg.n_controllers = n;
            break;
        }
        case 'm': cfg.mgmt_path = optarg; break;
        case 'p':
            if (nports == POF_MAX_PORTS)
                return 2;
            ports[nports++] = optarg;
            break;
        case 'l':
            if (nlat == POF_MAX_PORTS)
                return 2;
            latency[nlat++] = optarg;
            break;
        case 'd':
            if (parse_u32(optarg, UINT32_MAX, &cfg.dev_id) < 0) {
                fprintf(stderr, "pofswitch: bad --dev-id %s\n", optarg);
                return 2;
            }
            break;
        case 'b': cfg.busy_poll = true; break;
        case 'e': cfg.all_ports_enabled = true; break;
        case 'r': cfg.on_connect = SW_ON_CONNECT_RESET; break;
        case 't':
            if (parse_u32(optarg, 3600, &cfg.controller_timeout_s) < 0 || cfg.controller_timeout_s == 0) {
                fprintf(stderr, "pofswitch: --controller-timeout wants 1-3600 seconds\n");
                return 2;
            }
            break;
        case 's':
            if (parse_u32(optarg, 1000000, &cfg.max_sleep_us) < 0 || cfg.max_sleep_us == 0) {
                fprintf(stderr, "pofswitch: --max-sleep-us wants 1-1000000\n");
                return 2;
            }
            break;
        default:
            usage(argv[0]);
            return opt == 'h' ? 0 : 2;
        }
    }
    if (optind != argc) {
        usage(argv[0]);
        return 2;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (pof_sw_init(&the_switch, &cfg, io) < 0) {
        fprintf(stderr, "pofswitch: initialisation failed\n");
        pof_sw_fini(&the_switch);
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < nports && rc == 0; i++) {
        char spec[512], err[256];
        snprintf(spec, sizeof(spec), "%s", ports[i]);
        char *eq = strchr(spec, '=');
        if (eq)
            *eq = '\0';
        if (pof_sw_port_add(&the_switch, spec, eq ? eq + 1 : "", err, sizeof(err)) < 0) {
            fprintf(stderr, "pofswitch: port %s: %s\n", spec, err);
            rc = 1;
        }
    }
    for (int i = 0; i < nlat && rc == 0; i++) {
        struct sw_port *p = pof_sw_port_by_name(&the_switch, latency[i]);
        if (!p) {
            fprintf(stderr, "pofswitch: --latency-port %s: no such port\n", latency[i]);
            rc = 1;
        } else {
            p->latency_mode = true;
        }
    }
    if (rc == 0) {
        fprintf(stderr, "pofswitch: running (%s backend, %d ports)\n", io->name, nports);
        pof_sw_run(&the_switch);
        fprintf(stderr, "pofswitch: stopping\n");
    }
    pof_sw_fini(&the_switch);
    return rc;
}
