/* streamcl lbm over MPI ranks: the lattice split into slabs of rows, one
 * rank per device. The library stays MPI-free (it offers row-split solvers,
 * edge reads and halo writes, scl_lbm_create_rows); the decomposition, the
 * transport and the agreement on errors live here, in the command.
 *
 * Every function but lbm_mpi_launched is collective over the ranks and
 * returns the same result on each: 0, or -1 when any rank failed (that rank
 * printed why), so that every rank leaves by the same path and rank 0
 * removes its uncommitted outputs. Built without MPI, only lbm_mpi_launched
 * does anything. */
#ifndef STREAMCL_CLI_LBM_MPI_H
#define STREAMCL_CLI_LBM_MPI_H

#include "streamcl/lbm.h"

typedef struct lbm_mpi lbm_mpi;

/* 1: started by mpirun (Open MPI, or a PMI launcher) and built with MPI;
 * 0: a plain run; -1 after printing why not (launched on several ranks, but
 * this streamcl was built without MPI). */
int lbm_mpi_launched(void);
/* MPI_Init, a periodic 1-D Cartesian communicator; NULL after printing. */
lbm_mpi *lbm_mpi_start(int *argc, char ***argv);
/* MPI_Finalize. */
void lbm_mpi_end(lbm_mpi *mpi);
int lbm_mpi_rank(const lbm_mpi *mpi);
int lbm_mpi_size(const lbm_mpi *mpi);
/* 0 when ok is non-zero on every rank, else -1. */
int lbm_mpi_agree(lbm_mpi *mpi, int ok);
/* This rank's context (device: spec as given, or with none / "gpu" the
 * node's GPUs round robin by node-local rank) and its slab's solver.
 * overlap: exchange the halos while the interior rows update
 * (scl_lbm_step_rows_overlap); 0: read edges, swap, write halos, then the
 * whole step (--no-overlap, for comparison). Same states either way. */
int lbm_mpi_create(lbm_mpi *mpi, const char *device, const char *param_path,
                   const scl_lbm_params *p, const unsigned char *obst,
                   const scl_lbm_options *opt, int overlap, int halo_mpi, scl_context **ctx,
                   scl_lbm **lbm);
/* How the halos travel (after lbm_mpi_create; halo_mpi: MPI messages even
 * between ranks of a node, else a shared memory window there). */
const char *lbm_mpi_transport(const lbm_mpi *mpi);
/* Advance every slab `steps` steps (halos exchanged every step); av (all
 * ranks, optional) receives the mean |u| over the whole lattice per step. */
int lbm_mpi_steps(lbm_mpi *mpi, scl_lbm *lbm, long steps, float *av);
/* The whole natural state (9*nx*ny floats) on rank 0 (f ignored elsewhere). */
int lbm_mpi_gather_speeds(lbm_mpi *mpi, scl_lbm *lbm, float *f);

#endif
