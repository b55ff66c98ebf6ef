/* What the grid solvers' MPI commands share (streamcl fdtd, lbm, seismic
 * under mpirun; nbody's ring takes the launcher check, the slab sizes, the
 * rank's device and the agreement): whether a launcher started us, the slab split of one axis
 * (--decomp PxQxR or the longest axis), each rank's device and the
 * agreement on errors. MPI lives in the command; the library never sees
 * it. The functions taking no MPI type work without MPI too. */
#ifndef STREAMCL_CLI_MPI_GRID_H
#define STREAMCL_CLI_MPI_GRID_H

#include <stddef.h>
#if STREAMCL_HAVE_MPI
#include <mpi.h>
#endif

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

/* --halo shm|mpi: *mpi 1 for messages only, 0 for shared memory where the
 * neighbours share a node (-1 after printing). */
int cli_mpi_parse_halo(const char *cmd, const char *v, int *mpi);
/* The most messages a face's planes may be cut into (cli_halo.pieces). */
#define CLI_HALO_MAX_PIECES 64

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

/* Halo swaps with the two neighbours of a slab along one axis of comm
 * (below, above; MPI_PROC_NULL at a wall, either may be this rank): through
 * an MPI-3 shared memory window where the neighbour runs on this node (one
 * memcpy into its receive area, one out, instead of a message through the
 * shared-memory transport's small fragments), as messages otherwise. */
typedef struct {
    MPI_Comm comm;  /* the caller's */
    MPI_Win win;    /* MPI_WIN_NULL: messages only */
    int nb[2];      /* below, above */
    int shm[2];     /* that neighbour's planes go through the window */
    char *mine[2];  /* my receive areas: [0] from below, [1] from above */
    char *peer[2];  /* what I write: below's area from above, above's from below */
    size_t cap;     /* bytes of each area */
    int kind;       /* over all ranks: 0 messages only, 1 windows only, 2 both */
    int threads;    /* threads of the window's copies (1 after init; cli_halo_node_threads) */
    int pieces;     /* messages per face and swap, 1..CLI_HALO_MAX_PIECES (1 after init;
                       the same on every rank) */
} cli_halo;
/* Collective over comm: cap is the most bytes one face moves (the areas get
 * the largest over the ranks); messages only when mpi is set, or where a
 * window could not be made on some rank. */
void cli_halo_init(cli_halo *h, MPI_Comm comm, int below, int above, size_t cap, int mpi);
/* "shared memory", "MPI messages", or "shared memory within nodes, MPI
 * messages across" (the same on every rank). */
const char *cli_halo_transport(const cli_halo *h);
/* One swap, both ways when dirs is 3: dirs & 1 sends send[0] down and takes
 * recv[1] from above, dirs & 2 sends send[1] up and takes recv[0] from
 * below; bytes each (at most cap), tag < 1000 told apart from other swaps.
 * send[d] may be peer[d] itself (a solver staged its planes there): then
 * nothing is copied (the area is free from one swap's return to the next
 * swap's note).
 * A NULL send sends nothing (a failed rank's part), a NULL recv discards
 * what arrives. Every rank calls it for every swap. */
void cli_halo_swap(cli_halo *h, int dirs, const void *const send[2], void *const recv[2],
                   size_t bytes, int tag);
/* The same with size[d] bytes going in direction d (send[d] and recv[1 - d]:
 * size[0] down, size[1] up; each at most cap). */
void cli_halo_swap_sizes(cli_halo *h, int dirs, const void *const send[2], void *const recv[2],
                         const size_t size[2], int tag);
void cli_halo_free(cli_halo *h);
/* Copy threads a rank may take on its node: the cores it may run on, at
 * most the node's cores over its ranks there (ranks unbound, or bound to a
 * socket each share it), at most 16 (more add little once the memory's
 * bandwidth is taken, and would crowd a node whose CPU count overstates
 * the cores given); 1 without OpenMP. Collective over comm. */
int cli_halo_node_threads(MPI_Comm comm);
#endif

#endif
