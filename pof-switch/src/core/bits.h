/* Bit fields at any bit offset and length (MSB first), as POF matches name them.
 * Every access is bounds-checked against the buffer's length in bits: a field that does not fit fails. */
#ifndef POF_BITS_H
#define POF_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Copies len bits starting at bit off of src (src_bytes long) into out, left-aligned, trailing bits zero.
 * out must hold (len + 7) / 8 bytes. Returns false if the field reaches past the buffer. */
static inline bool pof_bits_get(const uint8_t *src, size_t src_bytes, uint32_t off, uint32_t len, uint8_t *out)
{
    if (len == 0 || (uint64_t)off + len > (uint64_t)src_bytes * 8)
        return false;
    const uint8_t *p = src + off / 8;
    unsigned sh = off % 8;
    uint32_t nout = (len + 7) / 8;
    size_t last = (size_t)(off + len - 1) / 8; /* last source byte that holds field bits */
    for (uint32_t i = 0; i < nout; i++) {
        uint8_t hi = p[i];
        uint8_t lo = (sh && (size_t)(p - src) + i + 1 <= last) ? p[i + 1] : 0;
        out[i] = sh ? (uint8_t)(hi << sh | lo >> (8 - sh)) : hi;
    }
    if (len % 8)
        out[nout - 1] &= (uint8_t)(0xFF << (8 - len % 8));
    return true;
}

/* Writes len bits of val (left-aligned) at bit off of dst; where mask (left-aligned, may be NULL = all ones)
 * has a zero bit, the destination bit is kept. Returns false if the field reaches past the buffer. */
static inline bool pof_bits_set(uint8_t *dst, size_t dst_bytes, uint32_t off, uint32_t len, const uint8_t *val,
                                const uint8_t *mask)
{
    if (len == 0 || (uint64_t)off + len > (uint64_t)dst_bytes * 8)
        return false;
    for (uint32_t i = 0; i < len; i++) {
        uint8_t vbit = (uint8_t)(val[i / 8] >> (7 - i % 8) & 1);
        if (mask && !(mask[i / 8] >> (7 - i % 8) & 1))
            continue;
        uint32_t d = off + i;
        uint8_t bit = (uint8_t)(0x80 >> (d % 8));
        dst[d / 8] = vbit ? (uint8_t)(dst[d / 8] | bit) : (uint8_t)(dst[d / 8] & ~bit);
    }
    return true;
}

#endif
