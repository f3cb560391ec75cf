/* Big-endian accessors and the match field layouts, shared by the codec's files: pof_codec.c, and the
 * instruction and action bodies in pof_instr.c and pof_action.c. */
#ifndef POF_BYTES_H
#define POF_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pof_wire.h"

static inline uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) << 32 | get32(p + 4); }
static inline void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)(v >> 16)); put16(p + 2, (uint16_t)v); }
static inline void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)(v >> 32)); put32(p + 4, (uint32_t)v); }

/* Copies a fixed-size NUL-padded string field, always terminating the host copy. */
static inline void get_str(char *dst, const uint8_t *src, size_t n)
{
    memcpy(dst, src, n);
    dst[n - 1] = '\0';
}
static inline void put_str(uint8_t *dst, const char *src, size_t n)
{
    size_t l = strnlen(src, n - 1);
    memcpy(dst, src, l);
}

/* A match field: field_id, offset, len (POF_MATCH_SIZE bytes with its pad). */
static inline void dec_match(const uint8_t *p, struct pof_match *m)
{
    m->field_id = get16(p);
    m->offset = get16(p + 2);
    m->len = get16(p + 4);
}
static inline void enc_match(uint8_t *p, const struct pof_match *m)
{
    put16(p, m->field_id);
    put16(p + 2, m->offset);
    put16(p + 4, m->len);
}

/* A match field with its value and mask (POF_MATCH_X_SIZE bytes). */
static inline void dec_match_x(const uint8_t *p, struct pof_match_x *m)
{
    dec_match(p, &m->field);
    memcpy(m->value, p + 8, POF_FIELD_BYTES);
    memcpy(m->mask, p + 24, POF_FIELD_BYTES);
}
static inline void enc_match_x(uint8_t *p, const struct pof_match_x *m)
{
    enc_match(p, &m->field);
    memcpy(p + 8, m->value, POF_FIELD_BYTES);
    memcpy(p + 24, m->mask, POF_FIELD_BYTES);
}

#endif
