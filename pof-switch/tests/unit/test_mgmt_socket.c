/* The management socket as a server (spec/switch-mgmt, Transport), against clients that misbehave: connections
 * opened and held without a word (a new client still gets in), a line with a NUL byte (answered, not left
 * waiting), a client that sends many commands and does not read (every reply arrives whole once it reads), and
 * a line over the limit. The switch runs no loop here: the test calls pof_mgmt_service whenever it waits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dummy_io.h"
#include "pof_mgmt.h"
#include "pof_switch.h"
#include "unit.h"

/* Clients in the middle of a line while an agent comes and goes: all slots but one. */
#define SLOTS_IN_USE 7

static struct pof_sw sw;
static char path[108];

static int client(void)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        close(fd);
        return -1;
    }
    if (fd >= 0)
        fcntl(fd, F_SETFL, O_NONBLOCK);
    pof_mgmt_service(sw.mgmt);
    return fd;
}

/* Reads from fd while serving the socket, until `lines` newlines or EOF or 2 s; returns the bytes read. */
static size_t read_lines(int fd, char *buf, size_t cap, int lines)
{
    size_t len = 0;
    int seen = 0;
    for (int i = 0; i < 2000 && seen < lines && len < cap - 1; i++) {
        pof_mgmt_service(sw.mgmt);
        ssize_t n = recv(fd, buf + len, cap - 1 - len, 0);
        if (n == 0)
            break;
        if (n < 0) {
            poll(NULL, 0, 1);
            continue;
        }
        for (ssize_t k = 0; k < n; k++)
            seen += buf[len + (size_t)k] == '\n';
        len += (size_t)n;
    }
    buf[len] = '\0';
    return len;
}

static bool closed_by_server(int fd)
{
    char b[64];
    for (int i = 0; i < 500; i++) {
        pof_mgmt_service(sw.mgmt);
        ssize_t n = recv(fd, b, sizeof(b), 0);
        if (n == 0)
            return true;
        if (n < 0 && errno != EAGAIN)
            return true;
        poll(NULL, 0, 1);
    }
    return false;
}

static void ask(int fd, const char *line, char *reply, size_t cap)
{
    CHECK(send(fd, line, strlen(line), MSG_NOSIGNAL) == (ssize_t)strlen(line));
    read_lines(fd, reply, cap, 1);
}

static void test_held_connections_do_not_lock_out_a_client(void)
{
    int held[40];
    for (int i = 0; i < 40; i++)
        CHECK((held[i] = client()) >= 0);
    struct pollfd fds[64];
    CHECK(pof_mgmt_fds(sw.mgmt, fds, 64) <= 1 + 8); /* the listener and at most 8 clients */
    int fd = client();
    char reply[256];
    ask(fd, "stats\n", reply, sizeof(reply));
    CHECK_MSG(strncmp(reply, "OK processed=", 13) == 0, reply);
    /* The quietest were told why and closed; the newest held ones are still open. */
    char why[64];
    read_lines(held[0], why, sizeof(why), 1);
    CHECK_MSG(strcmp(why, "ERROR too many clients\n") == 0, why);
    CHECK(closed_by_server(held[0]));
    CHECK(!closed_by_server(held[39]));
    for (int i = 0; i < 40; i++)
        close(held[i]);
    close(fd);
}

/* An agent's commands one after another, as fast as it can (another process): each connection is closed before
 * the next opens, so they never need more than one slot, and clients in the middle of a line keep theirs. */
static void test_fast_reconnecting_client_evicts_nobody(void)
{
    int held[SLOTS_IN_USE];
    for (int i = 0; i < SLOTS_IN_USE; i++) {
        CHECK((held[i] = client()) >= 0);
        CHECK(send(held[i], "sta", 3, MSG_NOSIGNAL) == 3);
    }
    pid_t agent = fork();
    if (agent == 0) {
        int ok = 0;
        for (int i = 0; i < 200; i++) {
            struct sockaddr_un a = {.sun_family = AF_UNIX};
            snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
            int fd = socket(AF_UNIX, SOCK_STREAM, 0);
            char buf[256];
            ssize_t n = -1;
            if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && send(fd, "stats\n", 6, MSG_NOSIGNAL) == 6)
                n = recv(fd, buf, sizeof(buf) - 1, 0); /* the reply is one short send */
            ok += n > 13 && strncmp(buf, "OK processed=", 13) == 0;
            close(fd);
        }
        _exit(ok == 200 ? 0 : 1);
    }
    int status = -1;
    while (waitpid(agent, &status, WNOHANG) == 0)
        pof_mgmt_service(sw.mgmt);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the agent missed replies");
    for (int i = 0; i < SLOTS_IN_USE; i++) {
        char reply[256];
        ask(held[i], "ts\n", reply, sizeof(reply));
        CHECK_MSG(strncmp(reply, "OK processed=", 13) == 0, reply);
        close(held[i]);
    }
}

static void test_nul_byte_is_answered(void)
{
    int fd = client();
    char reply[256];
    CHECK(send(fd, "stats\0junk\n", 11, MSG_NOSIGNAL) == 11);
    read_lines(fd, reply, sizeof(reply), 1);
    CHECK_MSG(strcmp(reply, "ERROR line contains a NUL byte\n") == 0, reply);
    ask(fd, "on-connect\n", reply, sizeof(reply)); /* the connection goes on */
    CHECK_MSG(strcmp(reply, "OK keep\n") == 0, reply);
    close(fd);
}

static void test_client_that_does_not_read_gets_whole_replies(void)
{
    enum { PORTS = 16 }; /* as many as the dummy backend opens: a `ports` reply of ~1.2 KiB */
    char err[128], name[64];
    for (int i = 0; i < PORTS; i++) {
        snprintf(name, sizeof(name), "port-with-a-long-name-to-make-the-ports-reply-large-%011d", i);
        CHECK(pof_sw_port_add(&sw, name, "", err, sizeof(err)) == i + 1);
    }
    int fd = client();
    enum { ASKS = 2000 }; /* ~2.4 MiB of replies: far more than the socket holds */
    static char lines[ASKS * 6 + 1];
    for (int i = 0; i < ASKS; i++)
        strcat(lines, "ports\n");
    CHECK(send(fd, lines, strlen(lines), MSG_NOSIGNAL) == (ssize_t)strlen(lines));
    for (int i = 0; i < 50; i++) { /* the switch goes on while the client reads nothing */
        pof_mgmt_service(sw.mgmt);
        poll(NULL, 0, 1);
    }
    static char buf[ASKS * 1400];
    size_t len = read_lines(fd, buf, sizeof(buf), ASKS);
    int replies = 0;
    size_t first_len = 0;
    bool same = true;
    for (char *at = buf, *nl; (nl = memchr(at, '\n', len - (size_t)(at - buf))) != NULL; at = nl + 1) {
        size_t l = (size_t)(nl - at);
        if (replies == 0)
            first_len = l;
        same = same && l == first_len && strncmp(at, "OK 1:port-with", 14) == 0;
        replies++;
    }
    CHECK_MSG(replies == ASKS, "not every reply arrived");
    CHECK_MSG(same && first_len > 1000, "a reply was cut");
    CHECK(len > 0 && buf[len - 1] == '\n');
    close(fd);
    for (int i = 0; i < PORTS; i++) {
        snprintf(name, sizeof(name), "port-with-a-long-name-to-make-the-ports-reply-large-%011d", i);
        CHECK(pof_sw_port_del(&sw, name, err, sizeof(err)) == 0);
    }
}

static void test_line_over_the_limit_closes(void)
{
    int fd = client();
    char line[600];
    memset(line, 'x', sizeof(line));
    CHECK(send(fd, line, sizeof(line), MSG_NOSIGNAL) == (ssize_t)sizeof(line));
    char reply[64];
    read_lines(fd, reply, sizeof(reply), 1);
    CHECK_MSG(strcmp(reply, "ERROR line too long\n") == 0, reply);
    CHECK(closed_by_server(fd));
    close(fd);
    /* the limit itself: 510 bytes and the newline are one line */
    fd = client();
    char longest[512];
    memset(longest, ' ', 510);
    memcpy(longest, "stats", 5);
    longest[510] = '\n';
    longest[511] = '\0';
    ask(fd, longest, reply, sizeof(reply));
    CHECK_MSG(strncmp(reply, "OK processed=", 13) == 0, reply);
    close(fd);
}

int main(void)
{
    snprintf(path, sizeof(path), "/tmp/pofswitch-unit-mgmt-%d.sock", (int)getpid());
    struct sw_config cfg = {.mgmt_path = path, .dev_id = 1, .all_ports_enabled = true};
    CHECK(pof_sw_init(&sw, &cfg, &dummy_io_ops) == 0);
    CHECK(sw.mgmt != NULL);
    RUN(test_held_connections_do_not_lock_out_a_client);
    RUN(test_fast_reconnecting_client_evicts_nobody);
    RUN(test_nul_byte_is_answered);
    RUN(test_client_that_does_not_read_gets_whole_replies);
    RUN(test_line_over_the_limit_closes);
    pof_sw_fini(&sw);
    return unit_summary();
}
