/* Command line and lifetime shared by both binaries. */
#ifndef POF_MAIN_H
#define POF_MAIN_H

#include "pof_io.h"

int pof_main(int argc, char **argv, const struct pof_io_ops *io);

#endif
