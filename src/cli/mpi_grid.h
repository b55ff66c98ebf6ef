/* What the grid solvers' MPI commands share (streamcl fdtd, lbm, seismic
 * under mpirun): whether a launcher started us, the slab split of one axis
 * (--decomp PxQxR or the longest axis), each rank's device and the
 * agreement on errors. MPI lives in the command; the library never sees
 * it. The functions taking no MPI type work without MPI too. */
#ifndef STREAMCL_CLI_MPI_GRID_H
#define STREAMCL_CLI_MPI_GRID_H

#include <stddef.h>

/* Ranks the launcher (Open MPI's mpirun, a PMI/PMIx launcher such as srun)
 * says it started, from the environment; 0 outside one. */
int cli_mpi_launcher_size(void);
/* 1: started by a launcher and built with MPI; 0: a plain run; -1 after
 * printing why not (several ranks, but built without MPI). */
int cli_mpi_launched(const char *cmd);
/* --decomp PxQxR into dims (-1 after printing). */
int cli_mpi_parse_decomp(const char *cmd, const char *v, int dims[3]);
/* The cut axis for size ranks over n[3] cells: the one factor above 1 of
 * dims (NULL: the axis with the most cells, z on a tie), each rank holding
 * at least min_cells of it; -1 after printing why not. */
int cli_mpi_choose_axis(const char *cmd, int size, const int *dims, const int n[3],
                        int min_cells);
/* Cells of slab c of p along n: the first n % p slabs get one more. */
void cli_mpi_slab(int n, int p, int c, int *lo, int *cells);

/* MPI_Init, body(argc, argv, rank, size), a barrier (every rank has
 * cleaned up, rank 0 removed its uncommitted outputs, before any leaves:
 * mpirun kills the rest when one exits non-zero), MPI_Finalize; body's
 * exit status. Built without MPI: 1 (body may be NULL). */
int cli_mpi_main(const char *cmd, int argc, char **argv,
                 int (*body)(int argc, char **argv, int rank, int size));
#if STREAMCL_HAVE_MPI
/* 0 when ok is non-zero on every rank of MPI_COMM_WORLD, else -1. */
int cli_mpi_agree(int ok);
/* This rank's device: device as given, or with none / "gpu" the node's
 * GPUs round robin by node-local rank (as the LAMMPS pair style spreads
 * its ranks); spec holds the chosen one. Collective. */
const char *cli_mpi_rank_device(const char *device, char *spec, size_t len);
#endif

#endif
