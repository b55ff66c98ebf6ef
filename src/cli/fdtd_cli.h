/* streamcl fdtd's pieces that its run over MPI ranks (cmd_fdtd_mpi.c) takes
 * from the one-rank command (cmd_fdtd.c). One way only: the one-rank
 * command knows nothing of the MPI run (main chooses between them). */
#ifndef STREAMCL_CLI_FDTD_CLI_H
#define STREAMCL_CLI_FDTD_CLI_H

/* INPUT with its extension (if any) replaced by .h5 (malloc'ed; NULL out
 * of memory): the receivers' file when -o is not given. */
char *fdtd_default_output(const char *input);

#endif
