/* The management socket against spec/switch-mgmt/vectors: each vector file is one session replayed on a fresh
 * switch over the dummy backend with its ports enabled (--enable-ports); every `send` goes through
 * pof_mgmt_command as the socket passes a line, and its output must equal `reply` exactly. */
#include <dirent.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dummy_io.h"
#include "pof_mgmt.h"
#include "pof_switch.h"
#include "unit.h"

/* What the socket gives a reply (REPLY_MAX_LEN in pof_mgmt.c; the spec's 49151 bytes, plus the '\n' it adds). */
#define REPLY_CAP 49152

static const char *vector_dir;

/* A step's string field, or NULL if it is missing, not a string, or holds a NUL (C would cut it there). */
static const char *str_field(json_t *step, const char *key)
{
    json_t *v = json_object_get(step, key);
    if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
        return NULL;
    return json_string_value(v);
}

/* Replays one session (doc's "steps") on a fresh switch. Returns the number of steps whose reply differs, or
 * -1 if the document is malformed; with report, each difference or flaw is printed with label and the step. */
static int replay(json_t *doc, const char *label, bool report)
{
    json_t *steps = json_object_get(doc, "steps");
    if (!json_is_array(steps) || json_array_size(steps) == 0) {
        if (report)
            fprintf(stderr, "%s: no steps\n", label);
        return -1;
    }
    static struct pof_sw sw;
    struct sw_config cfg = {.all_ports_enabled = true};
    if (pof_sw_init(&sw, &cfg, &dummy_io_ops) != 0) {
        fprintf(stderr, "%s: switch init failed\n", label); /* not the vector's fault: always said */
        return -1;
    }
    static char out[REPLY_CAP];
    int bad = 0;
    size_t i;
    json_t *step;
    json_array_foreach(steps, i, step) {
        const char *send = str_field(step, "send"), *want = str_field(step, "reply");
        if (!send || !want) {
            if (report)
                fprintf(stderr, "%s step %zu: send and reply must be strings\n", label, i);
            bad = -1;
            break;
        }
        char *line = strdup(send); /* the command is split in place, and may be longer than a socket line */
        if (!line) {
            bad = -1;
            break;
        }
        snprintf(out, sizeof(out), "(no reply)");
        pof_mgmt_command(&sw.cb, line, out, sizeof(out) - 1);
        free(line);
        if (strcmp(out, want) != 0) {
            if (report)
                fprintf(stderr, "%s step %zu: send \"%s\"\n  got  \"%s\"\n  want \"%s\"\n", label, i, send, out,
                        want);
            bad++;
        }
    }
    pof_sw_fini(&sw);
    return bad;
}

static void replay_file(const char *path)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    CHECK_MSG(doc != NULL, path);
    if (!doc) {
        fprintf(stderr, "%s:%d: %s\n", path, jerr.line, jerr.text);
        return;
    }
    CHECK_MSG(replay(doc, path, true) == 0, path);
    CHECK_MSG(dummy_live_buffers() == 0, path);
    json_decref(doc);
}

static int is_vector(const struct dirent *e)
{
    size_t l = strlen(e->d_name);
    return l > 5 && strcmp(e->d_name + l - 5, ".json") == 0;
}

/* Every vector file, in name order; the directory holds six today, so fewer means a wrong path or lost files. */
static void test_all_vectors(void)
{
    struct dirent **names;
    int n = scandir(vector_dir, &names, is_vector, alphasort);
    CHECK_MSG(n >= 6, vector_dir);
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", vector_dir, names[i]->d_name);
        replay_file(path);
        free(names[i]);
    }
    if (n >= 0)
        free(names);
}

/* The replay itself tells a changed reply, a missing one and a malformed session from a good one, and each
 * session starts from a fresh switch (the same port gets id 1 twice). */
static void test_replay_detects_differences(void)
{
    json_t *doc = json_pack("{s:[{s:s,s:s},{s:s,s:s}]}", "steps", "send", "port-add a", "reply", "OK 1", "send",
                            "ports", "reply", "OK 1:a:1:0:0:0:0");
    CHECK(replay(doc, "good", true) == 0);
    CHECK(replay(doc, "good again", true) == 0);
    json_object_set_new(json_array_get(json_object_get(doc, "steps"), 1), "reply", json_string("OK 1:a:0:0:0:0:0"));
    CHECK(replay(doc, "changed", false) == 1);
    json_object_set_new(json_array_get(json_object_get(doc, "steps"), 0), "reply", json_string("OK 1 "));
    CHECK(replay(doc, "two changed", false) == 2);
    json_object_del(json_array_get(json_object_get(doc, "steps"), 0), "reply");
    CHECK(replay(doc, "no reply", false) < 0);
    json_decref(doc);
    doc = json_pack("{s:[]}", "steps");
    CHECK(replay(doc, "no steps", false) < 0);
    json_decref(doc);
    CHECK(dummy_live_buffers() == 0);
}

int main(int argc, char **argv)
{
    vector_dir = argc > 1 ? argv[1] : "../../spec/switch-mgmt/vectors";
    RUN(test_all_vectors);
    RUN(test_replay_detects_differences);
    return unit_summary();
}
