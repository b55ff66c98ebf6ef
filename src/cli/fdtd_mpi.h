/* streamcl fdtd over MPI ranks: the Yee grid cut into slabs along one axis
 * (a Cartesian communicator, MPI_Cart_create), one rank per device, halo
 * planes staged through the host and swapped twice a step (H before the E
 * update, E before the next H update). The library stays MPI-free (sub-domain
 * models, halo plane reads and writes: include/streamcl/fdtd.h); the split,
 * the transport, the gathering of receivers and the agreement on errors
 * live here. Receivers are gathered to rank 0, which writes the files a
 * one-rank run writes; a failure on any rank stops every rank, with its
 * message and no output files. */
#ifndef STREAMCL_CLI_FDTD_MPI_H
#define STREAMCL_CLI_FDTD_MPI_H

/* 1: started by mpirun (or a PMI launcher) and built with MPI; 0: a plain
 * run; -1 after printing why not (several ranks, built without MPI). */
int fdtd_mpi_launched(void);
/* INPUT with its extension (if any) replaced by .h5 (malloc'ed; NULL out
 * of memory): the receivers' file when -o is not given. */
char *fdtd_default_output(const char *input);
/* The whole command under MPI (MPI_Init .. MPI_Finalize); exit status. */
int cmd_fdtd_mpi(int argc, char **argv);

#endif
