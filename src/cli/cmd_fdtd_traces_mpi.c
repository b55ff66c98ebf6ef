/* mpirun -np R streamcl fdtd INPUT -n N --mpi-traces: the N traces of a
 * B-scan farmed over R ranks, as gprMax's MPI task farm farms them. Trace k
 * runs on rank k mod R; each rank has one device (node-local ranks spread
 * over the node's GPUs, as the decomposed run spreads them) set up once for
 * all its traces (the one-rank -n driver's pieces, cmd_fdtd_bscan.c). Each
 * rank writes its traces' files; rank 0 gathers the receivers after the
 * last trace and writes the merged B-scan and the radargram. The files are
 * those the one-rank `streamcl fdtd INPUT -n N` writes.
 * The traces go in rounds, one per rank; the ranks agree after each, so a
 * failure on any rank stops every rank after its round, with its message.
 * Every output is a temporary until all ranks agree at the end (cli_output):
 * a failed run leaves no files. Progress lines come from rank 0, in trace
 * order, after each round. */
#include "commands.h"
#include "fdtd_bscan.h"
#include "fdtd_cli.h"
#include "mpi_grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if STREAMCL_HAVE_MPI
#include <mpi.h>

typedef struct {
    int rank, size, gather; /* gather: rank 0 needs every trace (merge, radargram) */
    fdtd_bscan_args b;
    char *base;
    scl_fdtd_model m;
    scl_context *ctx;
    scl_fdtd *dev;
    scl_receivers *rx;  /* [ntraces]: this rank's traces, on rank 0 all of them when gathering */
    const char **to;    /* [ntraces]: where this rank writes its traces (NULL: another rank's) */
    const char *merged_to, *radargram_to; /* rank 0 */
    char *merged;
    cli_outputs outs;
} farm;

static int owner(const farm *f, int t)
{
    return t % f->size;
}

/* The options of a decomposed run do not go with whole traces per rank:
 * refused by name (rank 0 says so). */
static int refuse_split(const farm *f, int argc, char **argv)
{
    static const char *split[] = {"--decomp", "--halo", "--no-overlap", "--bench"};
    for (int i = 1; i < argc; i++)
        for (size_t k = 0; k < sizeof split / sizeof *split; k++)
            if (!strcmp(argv[i], split[k])) {
                if (f->rank == 0)
                    fprintf(stderr, "streamcl fdtd: --mpi-traces runs whole traces on each rank: %s "
                                    "(the grid split over ranks) does not go with it\n", split[k]);
                return 1;
            }
    return 0;
}

/* The options and model on every rank: rank 0 first, so that a mistake in
 * them is said once; -1 to run, else the exit status (every rank's). */
static int take_args(farm *f, int argc, char **argv)
{
    int st = -1;
    if (f->rank == 0)
        st = fdtd_bscan_setup(argc, argv, &f->b, &f->base, &f->m);
    MPI_Bcast(&st, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (st >= 0)
        return st;
    if (f->rank != 0)
        st = fdtd_bscan_setup(argc, argv, &f->b, &f->base, &f->m);
    if (cli_mpi_agree(st < 0)) {
        if (st < 0) { /* set up here, failed elsewhere */
            scl_fdtd_model_free(&f->m);
            free(f->base);
            f->base = NULL;
        }
        return 1;
    }
    return -1;
}

/* Rank 0: the model's #geometry_view files, as the one-rank -n writes them
 * before its traces (temporaries here until the end). */
static int geometry_views(farm *f)
{
    char err[2048];
    for (int v = 0; v < f->m.ngview; v++) {
        char path[1100];
        snprintf(path, sizeof path, "%s.vtkhdf", f->m.gview[v].file);
        const char *to = cli_output(&f->outs, path);
        if (!to)
            return 1;
        if (scl_fdtd_write_geometry_view(to, &f->m, v, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: #geometry_view: %s\n", err);
            return 1;
        }
        printf("fdtd: geometry view -> %s\n", path);
    }
    return 0;
}

/* This rank's outputs registered and its receivers made. 0 on success. */
static int outputs(farm *f)
{
    char err[2048];
    int n = f->b.ntraces;
    cli_input(&f->outs, f->b.input);
    for (int t = 0; t < n; t++) {
        int mine = owner(f, t) == f->rank;
        if (mine) {
            char *path = fdtd_bscan_path(&f->b, t);
            f->to[t] = path ? cli_output(&f->outs, path) : NULL;
            if (!path)
                fprintf(stderr, "streamcl fdtd: out of memory\n");
            free(path);
            if (!f->to[t])
                return 1;
        }
        if ((mine || (f->rank == 0 && f->gather)) &&
            scl_receivers_create(&f->rx[t], f->m.nrx + scl_fdtd_model_tlines(&f->m), 6,
                                 f->m.iterations, err, sizeof err) != SCL_OK)
            return fprintf(stderr, "streamcl fdtd: %s\n", err), 1;
    }
    if (f->rank != 0)
        return 0;
    if (f->b.merge && !(f->merged_to = cli_output(&f->outs, f->merged)))
        return 1;
    if (f->b.radargram && !(f->radargram_to = cli_output(&f->outs, f->b.radargram)))
        return 1;
    return geometry_views(f);
}

/* Positions, outputs, receivers and the device on every rank. 0 when all
 * ranks are ready, -1 (agreed) otherwise. */
static int set_up(farm *f)
{
    int n = f->b.ntraces;
    f->gather = f->rank == 0 && (f->b.merge || f->b.radargram);
    f->rx = calloc((size_t)n, sizeof *f->rx);
    f->to = calloc((size_t)n, sizeof *f->to);
    f->merged = fdtd_bscan_path(&f->b, -1);
    int ok = f->rx && f->to && f->merged;
    if (!ok)
        fprintf(stderr, "streamcl fdtd: out of memory\n");
    /* every trace inside the domain: the same on every rank, said by rank 0 */
    ok = ok && (f->rank != 0 || fdtd_bscan_positions(&f->b, &f->m) == 0);
    ok = cli_mpi_agree(ok) == 0 && outputs(f) == 0;
    char spec[64];
    const char *dev = cli_mpi_rank_device(f->b.device, spec, sizeof spec); /* collective */
    ok = ok && fdtd_bscan_solver(&f->b, &f->m, dev, &f->ctx, &f->dev) == 0;
    return cli_mpi_agree(ok);
}

/* Round k: trace k R + rank here, then the agreement; rank 0 says the
 * round's lines. 0, or -1 (agreed) after a failure on any rank. */
static int round_of_traces(farm *f, int k, double *secs)
{
    int t = k * f->size + f->rank, ok = 1;
    double mine = 0;
    if (t < f->b.ntraces) {
        double t0 = MPI_Wtime();
        ok = fdtd_bscan_trace(&f->b, &f->m, f->ctx, f->dev, t, &f->rx[t]) == 0 &&
             fdtd_bscan_write_trace(&f->b, &f->m, &f->rx[t], f->to[t]) == 0;
        mine = MPI_Wtime() - t0;
    }
    MPI_Gather(&mine, 1, MPI_DOUBLE, secs, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (cli_mpi_agree(ok))
        return -1;
    char err[2048];
    for (int q = 0; f->rank == 0 && q < f->size && k * f->size + q < f->b.ntraces; q++) {
        int u = k * f->size + q;
        char *path = fdtd_bscan_path(&f->b, u);
        if (scl_fdtd_model_trace(&f->m, u, err, sizeof err) == SCL_OK) /* checked in set_up */
            fdtd_bscan_say(&f->b, &f->m, u, secs[q], path ? path : "?");
        free(path);
    }
    return 0;
}

/* Every trace's receivers to rank 0, in trace order. */
static void gather_traces(farm *f)
{
    int any = f->rank == 0 && f->gather;
    MPI_Bcast(&any, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int nser = f->m.nrx + scl_fdtd_model_tlines(&f->m); /* receivers, then the lines' V, I */
    if (!any || nser == 0)
        return;
    MPI_Datatype series; /* one receiver's six components */
    MPI_Type_contiguous((int)(6 * f->m.iterations), MPI_DOUBLE, &series);
    MPI_Type_commit(&series);
    for (int t = 0; t < f->b.ntraces; t++) {
        int from = owner(f, t);
        if (from == 0)
            continue;
        if (f->rank == from)
            MPI_Send(f->rx[t].data, nser, series, 0, t, MPI_COMM_WORLD);
        else if (f->rank == 0)
            MPI_Recv(f->rx[t].data, nser, series, from, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&series);
}

/* The rounds, the gathering, rank 0's merged file and radargram. 0, or -1
 * (agreed). */
static int run_farm(farm *f)
{
    int n = f->b.ntraces, rounds = (n + f->size - 1) / f->size;
    double *secs = malloc((size_t)f->size * sizeof *secs);
    if (cli_mpi_agree(secs != NULL)) {
        fprintf(stderr, "streamcl fdtd: out of memory\n");
        free(secs);
        return -1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < rounds; k++)
        if (round_of_traces(f, k, secs)) {
            free(secs);
            return -1;
        }
    free(secs);
    double wall = MPI_Wtime() - t0;
    if (f->rank == 0)
        printf("fdtd: B-scan of %d traces, %d x %d x %d cells, %ld steps each, %s on %d MPI ranks: "
               "%.3f s, %.2f traces/s\n", n, f->m.grid.nx, f->m.grid.ny, f->m.grid.nz,
               f->m.iterations, f->b.engine, f->size, wall, n / wall);
    gather_traces(f);
    char err[2048];
    int ok = 1;
    if (f->rank == 0 && f->gather) /* the merged file's positions are the last trace's */
        ok = scl_fdtd_model_trace(&f->m, n - 1, err, sizeof err) == SCL_OK &&
             fdtd_bscan_write(&f->b, &f->m, f->rx, f->merged, f->merged_to, f->radargram_to) == 0;
    if (cli_mpi_agree(ok))
        return -1;
    return cli_mpi_agree(cli_outputs_commit(&f->outs) == 0);
}

static void free_farm(farm *f)
{
    cli_outputs_free(&f->outs); /* what was not committed: a failed run leaves nothing */
    for (int t = 0; f->rx && t < f->b.ntraces; t++)
        scl_receivers_free(&f->rx[t]);
    free(f->rx);
    free((void *)f->to);
    free(f->merged);
    scl_fdtd_free(f->dev);
    if (f->ctx)
        scl_context_free(f->ctx);
    scl_fdtd_model_free(&f->m);
    free(f->base);
}

int fdtd_traces_mpi(int argc, char **argv, int rank, int size)
{
    farm f;
    memset(&f, 0, sizeof f);
    f.rank = rank;
    f.size = size;
    if (refuse_split(&f, argc, argv))
        return 2;
    int st = take_args(&f, argc, argv);
    if (st >= 0)
        return st;
    cli_outputs_init(&f.outs, "fdtd");
    st = set_up(&f) == 0 && run_farm(&f) == 0 ? 0 : 1;
    free_farm(&f);
    return st;
}

#endif
