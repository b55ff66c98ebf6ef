/* The B-scan driver of streamcl fdtd (cmd_fdtd_bscan.c). */
#ifndef STREAMCL_CLI_FDTD_BSCAN_H
#define STREAMCL_CLI_FDTD_BSCAN_H

#include "streamcl/fdtd.h"

typedef struct {
    const char *input, *base;      /* input file; outputs BASE1.h5 .. BASEN.h5, BASE_merged.h5 */
    const char *device, *plan, *engine, *radargram;
    int ntraces, merge, fp64, no_tune, fused, threads, component;
} fdtd_bscan_args;

/* Runs the traces (the model is moved per trace); 0 on success, 1 on error
 * (message on stderr). */
int fdtd_bscan_run(const fdtd_bscan_args *b, scl_fdtd_model *m);

/* Its pieces, which the traces farmed over MPI ranks (--mpi-traces,
 * cmd_fdtd_traces_mpi.c) share. Those returning int: 0 on success, 1 after
 * printing the error. */
/* BASE<t+1>.h5, or BASE_merged.h5 for t < 0 (malloc'ed; NULL out of memory) */
char *fdtd_bscan_path(const fdtd_bscan_args *b, int t);
/* Every trace's sources and receivers inside the domain; m left at trace 0. */
int fdtd_bscan_positions(const fdtd_bscan_args *b, scl_fdtd_model *m);
/* The device solver for b's engine opencl on device (*ctx, *dev; both NULL
 * for the C engines), made with m at trace 0; *ctx is set when made, also on
 * a failure. */
int fdtd_bscan_solver(const fdtd_bscan_args *b, const scl_fdtd_model *m, const char *device,
                      scl_context **ctx, scl_fdtd **dev);
/* Trace t into rx (m moved to it): on dev, restarted from rest unless t is
 * 0, or a fresh C engine when dev is NULL; refused when non-finite. */
int fdtd_bscan_trace(const fdtd_bscan_args *b, scl_fdtd_model *m, scl_context *ctx, scl_fdtd *dev,
                     int t, scl_receivers *rx);
/* A trace's receivers (m at that trace) as gprMax's HDF5 into path. */
int fdtd_bscan_write_trace(const fdtd_bscan_args *b, const scl_fdtd_model *m,
                           const scl_receivers *rx, const char *path);
/* The line of trace t (m at it), its seconds and file. */
void fdtd_bscan_say(const fdtd_bscan_args *b, const scl_fdtd_model *m, int t, double secs,
                    const char *path);
/* With -n's merge the merged file into merged_to (merged named in the line),
 * with --radargram the picture into radargram_to; m at the last trace. */
int fdtd_bscan_write(const fdtd_bscan_args *b, const scl_fdtd_model *m, const scl_receivers *rx,
                     const char *merged, const char *merged_to, const char *radargram_to);

/* mpirun ... streamcl fdtd INPUT -n N --mpi-traces: the traces farmed over
 * the ranks (cmd_fdtd_traces_mpi.c; MPI builds only), between MPI_Init and
 * MPI_Finalize; the exit status. */
int fdtd_traces_mpi(int argc, char **argv, int rank, int size);

#endif
