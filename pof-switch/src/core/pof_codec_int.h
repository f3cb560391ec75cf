/* Internal to the codec, which is two files: pof_codec.c (the header, the length rules and one case per message
 * type) and pof_codec_body.c (the bodies with a structure of their own, so that neither file grows past what a
 * reader can hold). Byte offsets are spec/pof/README.md's. */
#ifndef POF_CODEC_INT_H
#define POF_CODEC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pof_wire.h"

/* The 120-byte port of PORT_STATUS and PORT_MOD. */
void codec_dec_port(const uint8_t *p, struct pof_port *o);
void codec_enc_port(uint8_t *p, const struct pof_port *o);
/* FLOW_MOD: matches and instructions (through pof_instr.c). 0, or -1 with err. */
int codec_dec_flow_mod(const uint8_t *b, struct pof_flow_mod *f, struct pof_status *err);
void codec_enc_flow_mod(uint8_t *b, const struct pof_flow_mod *f);
/* MULTIPART_REQUEST / _REPLY (PORT_STATS only); blen is the whole body's. 0, or -1 with err. */
int codec_dec_multipart(const uint8_t *b, size_t blen, bool reply, struct pof_multipart *mp, struct pof_status *err);
void codec_enc_multipart(uint8_t *b, uint8_t type, const struct pof_multipart *mp);
/* GROUP_MOD: the fixed fields; the actions stay on the wire. */
void codec_dec_group_mod(const uint8_t *b, struct pof_group_mod *g);
void codec_enc_group_mod(uint8_t *b, const struct pof_group_mod *g);

#endif
