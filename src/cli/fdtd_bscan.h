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

#endif
