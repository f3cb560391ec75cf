/* The AF_PACKET backend's ops table. */
#ifndef PORT_AFPACKET_H
#define PORT_AFPACKET_H

#include "pof_io.h"

extern const struct pof_io_ops pof_afpacket_ops;

#endif
