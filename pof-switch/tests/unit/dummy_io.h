/* An in-memory I/O backend for unit tests: inject frames into a port, capture what it sends. */
#ifndef DUMMY_IO_H
#define DUMMY_IO_H

#include <stdint.h>

#include "pof_io.h"

extern const struct pof_io_ops dummy_io_ops;

/* Queues a frame for reception on the dummy port named name. Returns 0, or -1 if there is no such port. */
int dummy_inject(const char *name, const uint8_t *data, uint32_t len);
/* Pops the oldest frame sent by port name into out; returns its length, or -1 if none. */
int dummy_take(const char *name, uint8_t *out, uint32_t cap);
int dummy_sent_count(const char *name);
/* Port name's tx accepts at most n more frames (the rest of a burst is refused); n < 0 = no limit again. */
void dummy_tx_limit(const char *name, int n);
int dummy_live_buffers(void);
/* The ARGS the backend was given when port name was opened (after the switch took its own items out). */
const char *dummy_args(const char *name);

#endif
