/* The I/O backend interface: a port is opened from a name and an argument string, and moves opaque packet
 * buffers. DPDK ethdevs and plain AF_PACKET sockets are two implementations. The I/O layer (src/io) sees
 * neither the forwarding core nor the switch shell (the build gives it only its own include directory); the
 * shell (src/ctl) drives it through this struct. */
#ifndef POF_IO_H
#define POF_IO_H

#include <stddef.h>
#include <stdint.h>

/* The most buffers one rx or tx call moves: the switch's burst, and the size of the backends' arrays. */
#define POF_IO_BURST_MAX 32

struct pof_io_buf; /* a backend's packet buffer (an rte_mbuf, a pool slot) */
struct pof_io_port;

struct pof_io_view { uint8_t *data; uint32_t len, room; };

struct pof_io_ops {
    const char *name;
    /* Opens a port. args is backend-specific (DPDK devargs; AF_PACKET: an interface name, default = name).
     * On failure returns NULL and writes a reason into err. */
    struct pof_io_port *(*port_open)(const char *name, const char *args, uint8_t mac[6], char *err, size_t errlen);
    void (*port_close)(struct pof_io_port *p);
    /* A file descriptor that becomes readable when packets arrive, or -1 (then the loop polls). */
    int (*port_fd)(struct pof_io_port *p);
    /* Receives up to n (<= POF_IO_BURST_MAX) buffers into bufs; returns how many. */
    uint16_t (*rx)(struct pof_io_port *p, struct pof_io_buf **bufs, uint16_t n);
    /* Sends bufs (n <= POF_IO_BURST_MAX) and takes ownership of all of them (unsent ones are freed). Returns how
     * many were sent. */
    uint16_t (*tx)(struct pof_io_port *p, struct pof_io_buf **bufs, uint16_t n);
    struct pof_io_view (*view)(struct pof_io_buf *b);
    /* Applies the pipeline's edits: strip `head` bytes from the front, new total length len. */
    void (*commit)(struct pof_io_buf *b, uint32_t head, uint32_t len);
    struct pof_io_buf *(*copy)(const uint8_t *data, uint32_t len); /* NULL when out of buffers */
    void (*free)(struct pof_io_buf *b);
};

#endif
