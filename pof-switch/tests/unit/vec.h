/* Reading spec/pof vectors in the C unit tests (jansson): hex strings, JSON fields, a directory's files. */
#ifndef VEC_H
#define VEC_H

#include <dirent.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Hex string s into out (at most cap bytes); returns the byte count, 0 if it does not fit. */
static inline size_t unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = s ? strlen(s) / 2 : 0;
    if (n > cap)
        return 0;
    for (size_t i = 0; i < n; i++)
        sscanf(s + 2 * i, "%2hhx", &out[i]);
    return n;
}

/* Integer field k of o, or -1 (and a note) if it is missing. */
static inline json_int_t ival(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    if (!json_is_integer(v)) {
        fprintf(stderr, "  field %s missing\n", k);
        return -1;
    }
    return json_integer_value(v);
}

/* Does hex string field k hold exactly these n bytes? */
static inline int hexeq(json_t *o, const char *k, const uint8_t *b, size_t n)
{
    uint8_t tmp[64] = {0};
    const char *s = json_string_value(json_object_get(o, k));
    return s && unhex(s, tmp, sizeof(tmp)) == n && memcmp(tmp, b, n) == 0;
}

static inline int streq(json_t *o, const char *k, const char *s)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v && strcmp(v, s) == 0;
}

/* Calls fn with the path of every *.json file directly in dir; returns how many, or -1 if dir cannot be read. */
static inline int vec_each(const char *dir, void (*fn)(const char *path, void *arg), void *arg)
{
    DIR *d = opendir(dir);
    int count = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        char path[2048];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        fn(path, arg);
        count++;
    }
    closedir(d);
    return count;
}

#endif
