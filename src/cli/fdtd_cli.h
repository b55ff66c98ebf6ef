/* streamcl fdtd's pieces that its run over MPI ranks (cmd_fdtd_mpi.c) takes
 * from the one-rank command (cmd_fdtd.c). One way only: the one-rank
 * command knows nothing of the MPI run (main chooses between them). */
#ifndef STREAMCL_CLI_FDTD_CLI_H
#define STREAMCL_CLI_FDTD_CLI_H

#include "fdtd_bscan.h"

/* INPUT with its extension (if any) replaced by .h5 (malloc'ed; NULL out
 * of memory): the receivers' file when -o is not given. */
char *fdtd_default_output(const char *input);

/* streamcl fdtd INPUT -n N ... (--mpi-traces): the options taken and checked
 * as the one-rank command takes -n's, the model read into m, the B-scan
 * driver's arguments in b (b->base is *base, malloc'ed). -1 to run (free
 * *base and m after), else the exit status after printing why not (0 after
 * --help); m is then freed. */
int fdtd_bscan_setup(int argc, char **argv, fdtd_bscan_args *b, char **base, scl_fdtd_model *m);

#endif
