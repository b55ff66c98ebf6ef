/* streamcl seismic's pieces that its run over MPI ranks (cmd_seismic_mpi.c)
 * takes from the one-rank command (cmd_seismic.c): the options, the
 * benchmark box and the receiver outputs. One way only: the one-rank
 * command knows nothing of the MPI run (main chooses between them). */
#ifndef STREAMCL_CLI_SEISMIC_H
#define STREAMCL_CLI_SEISMIC_H

#include "commands.h"
#include "streamcl/seismic.h"

typedef struct {
    const char *runfile, *segy, *csv, *gather, *png, *device, *plan, *engine;
    int comp, plane_axis, fp64;
    long plane_index, every, decimate, threads, tune, bench, steps, order, pml;
    long bench_n[3];  /* --bench box (bench: nonzero when given) */
    long halo_threads; /* --halo-threads: the window's copy threads (0: cli_halo_node_threads) */
    long halo_pieces;  /* --halo-pieces: messages per face and swap (0: 1) */
    int decomp[3];    /* --decomp (0 0 0: not given) */
    int no_overlap;
    int halo_mpi;     /* --halo: 1 mpi (messages even between ranks of a node), 0 shm,
                         -1 not given: messages where a rank's device is a GPU */
    int verbose;      /* --verbose: every rank's time per step, not rank 0's only */
} seis_args;

#define SEIS_ARGS_DEFAULT \
    {.comp = SCL_SEIS_VZ, .plane_index = -1, .decimate = 1, .tune = 1, .pml = -1, .halo_mpi = -1}

/* Where each output goes (temporaries from cli_output, committed together). */
typedef struct {
    const char *segy[SCL_SEIS_NCOMP], *csv, *gather;
} seis_paths;

/* 0, 1 for --help, -1 after printing. */
int seis_parse_args(int argc, char **argv, seis_args *a);
/* The --bench run; the model holds fill[3] cells (the whole box or a
 * slab's window), positions are the whole box's. */
int seis_bench_run(const seis_args *a, const int fill[3], scl_seis_run *run);
int seis_register_outputs(const seis_args *a, cli_outputs *out, seis_paths *p);
/* traces of every receiver of run's config (scl_seis_traces' layout). */
int seis_write_outputs(const seis_args *a, const seis_paths *p, const scl_seis_run *run,
                       const float *traces);
void seis_report_outputs(const seis_args *a, const scl_seis_config *c);

#endif
