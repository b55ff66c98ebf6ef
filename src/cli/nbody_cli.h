/* streamcl nbody's pieces that its run over MPI ranks (cmd_nbody_mpi.c)
 * takes from the one-rank command (cmd_nbody.c): the options, the bodies,
 * the energy lines and the outputs. One way only: the one-rank command
 * knows nothing of the MPI run (main chooses between them). */
#ifndef STREAMCL_CLI_NBODY_H
#define STREAMCL_CLI_NBODY_H

#include "commands.h"
#include "streamcl/nbody.h"

#include <stdio.h>

typedef struct {
    long n, steps, seed, tune;
    double dt, eps;
    const char *init, *out, *png, *device, *plan, *engine;
    scl_nbody_precision precision;
} nbody_args;

#define NBODY_ARGS_DEFAULT                                                                   \
    {.n = 16384, .steps = 10, .seed = 1, .tune = 1, .dt = 1e-3, .eps = 0.01,                 \
     .init = "plummer", .engine = "opencl", .precision = SCL_NBODY_SINGLE}

/* Where the outputs go (temporaries from cli_output, committed together). */
typedef struct {
    const char *out, *png;
} nbody_paths;

void nbody_usage(FILE *out);
/* 0, 1 for --help, or -1 after printing what is wrong. */
int nbody_parse_args(int argc, char **argv, nbody_args *a);
/* The bodies of --init: generated (*np of them) or read from the file (*np
 * set), checked against single precision's range; 0, or 1 after printing. */
int nbody_load_bodies(const nbody_args *a, size_t *np, double **pos, double **vel,
                      double **mass);
/* The input and the outputs claimed before computing; -1 after printing. */
int nbody_claim_outputs(const nbody_args *a, cli_outputs *out, nbody_paths *paths);
/* "nbody: N bodies (...), ..." */
void nbody_print_header(const nbody_args *a, size_t n);
/* energy: kinetic, potential at the start; at the end. 1 when both totals
 * are finite, else 0 after printing. */
int nbody_energy_finite(const double energy[4]);
void nbody_print_energies(const double energy[4]);
/* The first body whose position or velocity is not finite, or -1; the
 * message for it (p, v: its position and velocity; no output written). */
long nbody_first_non_finite(size_t n, const double *pos, const double *vel);
void nbody_report_non_finite(long body, long step, const double *p, const double *v);
/* The CSV and the PNG of the final state, committed; 0 or 1 after printing. */
int nbody_write_outputs(const nbody_args *a, const nbody_paths *paths, cli_outputs *out,
                        size_t n, const double *pos, const double *vel, const double *mass);
int nbody_write_png(const char *path, size_t n, const double *pos, const double *mass);

#endif
