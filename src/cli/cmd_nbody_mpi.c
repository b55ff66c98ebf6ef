/* streamcl nbody over MPI ranks: each rank owns a block of the bodies
 * (sizes differ by at most one) on its own device, and every force
 * evaluation walks the blocks in the bodies' order: block b goes round the
 * ring from its owner (each rank takes it from the rank before and hands it
 * to the rank after), its forces are queued on the device as soon as it is
 * here and run while the next blocks travel, and the last block closes the
 * sums with the half kick. The
 * owned bodies' sums thus run over the sources in index order, as one
 * rank's do, so the run equals the one-rank run bit for bit with the same
 * plan. Energies, the final state and its files are gathered on rank 0 and
 * written as one rank writes them; a failure on any rank stops every rank
 * with its message and no output files. */
#include "mpi_grid.h"
#include "nbody_cli.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if STREAMCL_HAVE_MPI
#include <mpi.h>

typedef struct {
    int rank, size;
    size_t n;                /* all bodies */
    int *first, *count;      /* every rank's block */
    scl_context *ctx;
    scl_nbody *nb;
    size_t real_size;        /* bytes of a real of the body precision */
    MPI_Datatype real;       /* its MPI type (a block is 4 * count of them) */
    char *all;               /* every block, packed, at its place (blocks in the bodies' order) */
    MPI_Request *req;        /* a receive and a send per block */
    int failed;              /* this rank's device work stopped (it keeps the ring going) */
    double wait_s;           /* in MPI waiting for blocks (the queued forces run meanwhile) */
    double device_s;         /* in the pack, which waits for the device's queued forces */
} nb_rank;

/* Options the run over ranks does not take; 0 or -1 after printing. */
static int refuse_options(const nbody_args *a, int rank)
{
    if (!strcmp(a->engine, "opencl"))
        return 0;
    if (rank == 0)
        fprintf(stderr, "streamcl nbody: --engine %s is for one-rank runs (not under mpirun); "
                        "run it without mpirun\n", a->engine);
    return -1;
}

/* A device call's failure: the message once, the rank marked failed. */
static void check(nb_rank *r, scl_status s)
{
    if (s == SCL_OK || r->failed)
        return;
    fprintf(stderr, "streamcl nbody: rank %d: %s\n", r->rank, scl_last_error(r->ctx));
    r->failed = 1;
}

/* Block b's place in the host copy of all blocks (each block its own, so
 * that no receive waits for a copy to the device to finish). */
static char *block_at(const nb_rank *r, int b)
{
    return r->all + (size_t)r->first[b] * 4 * r->real_size;
}

/* One force evaluation over all blocks (close: the flags of the last block;
 * SCL_NBODY_CLOSE, with SCL_NBODY_KICK in a step). Every block's receive
 * from the rank before is posted at once; block b, once here, is handed on
 * to the rank after (unless that one owns it) and its copy and forces
 * queued on the device, so the host waits for the device only in the next
 * pack. Every rank makes every MPI call, a failed one too (then with no
 * device work). */
static void evaluate(nb_rank *r, unsigned close)
{
    MPI_Request *rq = r->req, *sq = r->req + r->size;
    const int next = (r->rank + 1) % r->size, prev = (r->rank + r->size - 1) % r->size;
    double t0 = MPI_Wtime();
    if (!r->failed) /* waits for the last evaluation's forces (and the copies from all) */
        check(r, scl_nbody_pack(r->nb, block_at(r, r->rank)));
    r->device_s += MPI_Wtime() - t0;
    for (int b = 0; b < r->size; b++) {
        rq[b] = sq[b] = MPI_REQUEST_NULL;
        if (b != r->rank)
            MPI_Irecv(block_at(r, b), 4 * r->count[b], r->real, prev, b, MPI_COMM_WORLD, &rq[b]);
    }
    for (int b = 0; b < r->size; b++) {
        t0 = MPI_Wtime();
        MPI_Wait(&rq[b], MPI_STATUS_IGNORE); /* while block b - 1's forces run */
        r->wait_s += MPI_Wtime() - t0;
        if (next != b)
            MPI_Isend(block_at(r, b), 4 * r->count[b], r->real, next, b, MPI_COMM_WORLD, &sq[b]);
        const unsigned flags = (b == 0 ? SCL_NBODY_BEGIN : 0u) | (b == r->size - 1 ? close : 0u);
        const size_t f = (size_t)r->first[b], c = (size_t)r->count[b];
        if (!r->failed)
            check(r, scl_nbody_put_sources(r->nb, f, c, block_at(r, b)));
        if (!r->failed)
            check(r, scl_nbody_accumulate(r->nb, f, c, flags));
    }
    MPI_Waitall(r->size, sq, MPI_STATUSES_IGNORE);
}

/* The blocks, this rank's device, system and sources, the initial forces;
 * every rank returns the same. */
static int set_up(nb_rank *r, const nbody_args *a, const double *pos, const double *vel,
                  const double *mass)
{
    r->first = malloc(2 * (size_t)r->size * sizeof *r->first);
    if (!r->first)
        fprintf(stderr, "streamcl nbody: rank %d: out of memory\n", r->rank);
    if (cli_mpi_agree(r->first != NULL))
        return -1;
    r->count = r->first + r->size;
    for (int q = 0; q < r->size; q++)
        cli_mpi_slab((int)r->n, r->size, q, &r->first[q], &r->count[q]);
    const size_t lo = (size_t)r->first[r->rank], cnt = (size_t)r->count[r->rank];
    char spec[64];
    const char *dev = cli_mpi_rank_device(a->device, spec, sizeof spec);
    int ok = (r->ctx = cli_context(dev, 0)) != NULL;
    scl_nbody_options opt = {.G = 1.0, .eps = a->eps, .dt = a->dt, .precision = a->precision,
                             .tune = (int)a->tune, .force = a->plan};
    if (ok) {
        scl_status s = scl_nbody_create(r->ctx, &opt, cnt, pos + 3 * lo, vel + 3 * lo, mass + lo,
                                        &r->nb);
        if (s == SCL_OK)
            s = scl_nbody_sources_create(r->nb, r->n);
        check(r, s);
        ok = !r->failed;
    }
    if (ok) {
        r->real_size = scl_nbody_block_bytes(r->nb, 1) / 4;
        r->real = a->precision == SCL_NBODY_DOUBLE ? MPI_DOUBLE : MPI_FLOAT;
        r->all = calloc(r->n, 4 * r->real_size);
        r->req = malloc(2 * (size_t)r->size * sizeof *r->req);
        if (!r->all || !r->req)
            ok = fprintf(stderr, "streamcl nbody: rank %d: out of memory\n", r->rank) < 0;
    }
    if (cli_mpi_agree(ok))
        return -1;
    evaluate(r, SCL_NBODY_CLOSE); /* the initial accelerations: no kick */
    if (!r->failed)
        check(r, scl_finish(r->ctx));
    return cli_mpi_agree(!r->failed);
}

/* Rank 0 gets every rank's per-body values (per of them a body) in all;
 * rank 0's own are in place there already when mine is NULL. */
static void gather(const nb_rank *r, const double *mine, double *all, int per)
{
    int *counts = malloc(2 * (size_t)r->size * sizeof *counts);
    if (!counts) { /* tiny; a rank out of memory here has nothing better to do */
        MPI_Abort(MPI_COMM_WORLD, 1);
        return;
    }
    for (int q = 0; q < r->size; q++) {
        counts[q] = per * r->count[q];
        counts[r->size + q] = per * r->first[q];
    }
    const void *send = mine ? (const void *)mine : MPI_IN_PLACE;
    MPI_Gatherv(send, counts[r->rank], MPI_DOUBLE, all, counts, counts + r->size, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    free(counts);
}

/* The kinetic and potential energy on rank 0, summed as one rank sums them
 * (velocities and potentials gathered in the bodies' order); 0, or -1 on
 * every rank. */
static int energies(nb_rank *r, const double *mass, double *kinetic, double *potential)
{
    const size_t cnt = (size_t)r->count[r->rank];
    double *mine = malloc(4 * cnt * sizeof *mine);
    double *all = r->rank == 0 ? malloc(4 * r->n * sizeof *all) : NULL;
    if ((!mine || (r->rank == 0 && !all)) && !r->failed) {
        fprintf(stderr, "streamcl nbody: rank %d: out of host memory\n", r->rank);
        r->failed = 1;
    }
    if (!r->failed)
        check(r, scl_nbody_potentials(r->nb, mine + 3 * cnt));
    if (!r->failed)
        check(r, scl_nbody_read(r->nb, NULL, mine, NULL));
    int rc = cli_mpi_agree(!r->failed);
    if (rc == 0) {
        gather(r, mine, all, 3);
        gather(r, mine + 3 * cnt, all ? all + 3 * r->n : NULL, 1);
        if (r->rank == 0)
            scl_nbody_energy_sum(r->n, all, mass, all + 3 * r->n, kinetic, potential);
    }
    free(mine);
    free(all);
    return rc;
}

/* Stop at the first body (in the bodies' order) that went non-finite, as
 * the one-rank run does after each batch; its owner says so. 0 or -1. */
static int diverged(nb_rank *r, double *pos, double *vel, long done)
{
    const size_t cnt = (size_t)r->count[r->rank];
    if (!r->failed)
        check(r, scl_nbody_read(r->nb, pos, vel, NULL));
    if (cli_mpi_agree(!r->failed))
        return -1;
    const long bad = nbody_first_non_finite(cnt, pos, vel);
    long mine = bad >= 0 ? r->first[r->rank] + bad : LONG_MAX, first = LONG_MAX;
    MPI_Allreduce(&mine, &first, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (first == LONG_MAX)
        return 0;
    if (first == mine)
        nbody_report_non_finite(first, done, pos + 3 * bad, vel + 3 * bad);
    return -1;
}

/* The steps in batches (the one-rank run's, so that a divergence stops at
 * the same step), progress on rank 0; pos, vel: this rank's block, read
 * back after each batch. The wall time in *secs (the slowest rank's). */
static int run_steps(nb_rank *r, const nbody_args *a, double *pos, double *vel, double *secs)
{
    cli_progress p;
    if (r->rank == 0)
        cli_progress_start(&p, "nbody", a->steps);
    const long chunk = r->n > 65536 ? 1 : r->n > 8192 ? 10 : 100;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    r->wait_s = r->device_s = 0;
    int rc = 0;
    for (long done = 0; done < a->steps && !rc;) {
        const long k = a->steps - done < chunk ? a->steps - done : chunk;
        for (long i = 0; i < k; i++) {
            if (!r->failed)
                check(r, scl_nbody_drift(r->nb));
            evaluate(r, SCL_NBODY_CLOSE | SCL_NBODY_KICK);
        }
        done += k;
        rc = diverged(r, pos, vel, done);
        if (r->rank == 0 && !rc)
            cli_progress_update(&p, done);
    }
    if (r->rank == 0)
        cli_progress_end(&p);
    const double mine = MPI_Wtime() - t0;
    MPI_Allreduce(&mine, secs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return rc;
}

/* Rank 0: the bodies (generated or read, checked) for every rank; 0, or -1
 * on every rank. */
static int share_bodies(nb_rank *r, nbody_args *a, double **pos, double **vel, double **mass)
{
    size_t n = (size_t)a->n;
    int ok = r->rank != 0 || nbody_load_bodies(a, &n, pos, vel, mass) == 0;
    if (cli_mpi_agree(ok))
        return -1;
    unsigned long count = (unsigned long)n;
    MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    r->n = (size_t)count;
    if (r->rank != 0) {
        *pos = malloc(3 * r->n * sizeof **pos);
        *vel = malloc(3 * r->n * sizeof **vel);
        *mass = malloc(r->n * sizeof **mass);
        ok = *pos && *vel && *mass;
        if (!ok)
            fprintf(stderr, "streamcl nbody: rank %d: cannot allocate %zu bodies\n", r->rank,
                    r->n);
    }
    if (cli_mpi_agree(ok))
        return -1;
    MPI_Bcast(*pos, (int)(3 * r->n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(*vel, (int)(3 * r->n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(*mass, (int)r->n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (r->n >= (size_t)r->size)
        return 0;
    if (r->rank == 0)
        fprintf(stderr, "streamcl nbody: %zu bodies cannot be split over %d MPI ranks (at least "
                        "one body per rank)\n", r->n, r->size);
    return -1;
}

/* The force rate over the run (wall time of the slowest rank, drift and
 * transfers included) and where the host waited: in MPI for blocks (while
 * the last block's forces run) and for the device (the forces outlasting
 * the transfer): the most over the ranks. */
static void print_rate(const nb_rank *r, const nbody_args *a, double secs)
{
    double mine[2] = {r->wait_s, r->device_s}, most[2] = {0, 0};
    MPI_Reduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (r->rank != 0 || a->steps == 0)
        return;
    const double per = secs / (double)a->steps, inter = (double)r->n * (double)r->n;
    printf("force: %ld steps on %d MPI ranks, %.6f s per step (wall, slowest rank) -> %.4e "
           "interactions/s, %.2f GFLOP/s (%d FLOPs per interaction); per step, most of a rank: "
           "waiting for blocks %.6f s, for the device %.6f s\n", a->steps, r->size, per,
           inter / per, inter * SCL_NBODY_FLOPS_PER_INTERACTION / per * 1e-9,
           SCL_NBODY_FLOPS_PER_INTERACTION, most[0] / (double)a->steps,
           most[1] / (double)a->steps);
}

/* Rank 0: the state gathered, checked and written as one rank writes it. */
static int finish(nb_rank *r, const nbody_args *a, const nbody_paths *paths, cli_outputs *outs,
                  double *pos, double *vel, const double *mass, double energy[4], double secs)
{
    const size_t lo = (size_t)r->first[r->rank];
    if (!r->failed) /* this rank's block, at its place */
        check(r, scl_nbody_read(r->nb, pos + 3 * lo, vel + 3 * lo, NULL));
    if (cli_mpi_agree(!r->failed) || energies(r, mass, &energy[2], &energy[3]))
        return -1;
    gather(r, r->rank ? pos + 3 * lo : NULL, pos, 3);
    gather(r, r->rank ? vel + 3 * lo : NULL, vel, 3);
    int ok = 1;
    if (r->rank == 0) {
        ok = nbody_energy_finite(energy);
        if (ok)
            nbody_print_energies(energy);
    }
    print_rate(r, a, secs);
    if (r->rank == 0 && ok)
        ok = nbody_write_outputs(a, paths, outs, r->n, pos, vel, mass) == 0;
    return cli_mpi_agree(ok);
}

/* Everything between MPI_Init and MPI_Finalize; the exit status. */
static int run_mpi(int argc, char **argv, int rank, int size)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short keeps what it printed */
    nb_rank rs = {.rank = rank, .size = size};
    nb_rank *r = &rs;
    nbody_args a = NBODY_ARGS_DEFAULT;
    const int p = nbody_parse_args(argc, argv, &a);
    if (p != 0 && rank == 0)
        nbody_usage(p > 0 ? stdout : stderr);
    if (p || refuse_options(&a, rank))
        return p > 0 ? 0 : 2; /* the same on every rank */
    cli_outputs outs;
    cli_outputs_init(&outs, "nbody");
    nbody_paths paths = {NULL, NULL};
    double *pos = NULL, *vel = NULL, *mass = NULL, *scratch = NULL, energy[4] = {0, 0, 0, 0};
    int status = 1;
    if (cli_mpi_agree(rank || nbody_claim_outputs(&a, &outs, &paths) == 0) ||
        share_bodies(r, &a, &pos, &vel, &mass))
        goto done;
    if (rank == 0)
        nbody_print_header(&a, r->n);
    const double t0 = MPI_Wtime();
    if (set_up(r, &a, pos, vel, mass) || energies(r, mass, &energy[0], &energy[1]))
        goto done;
    if (rank == 0) {
        const scl_plan *plan = scl_nbody_plan(r->nb);
        printf("rank 0 device: %s [%s]; plan: V=%d wg=%d tile=%d (%s)\n",
               scl_device(r->ctx)->name, scl_device(r->ctx)->platform,
               scl_plan_value(plan, "V", 0), scl_plan_value(plan, "wg", 0),
               scl_plan_value(plan, "tile", 0),
               scl_plan_tuned(plan) ? "tuned now" : scl_plan_from_cache(plan) ? "cached"
                                                                              : "defaults/forced");
        printf("%d MPI ranks, blocks of %d..%d bodies going round the ring, set-up %.2f s\n",
               size, r->count[size - 1], r->count[0], MPI_Wtime() - t0);
    }
    /* the batches read this rank's block back into a scratch of its size */
    const size_t cnt = (size_t)r->count[rank];
    scratch = malloc(6 * cnt * sizeof *scratch);
    if (cli_mpi_agree(scratch != NULL))
        goto done;
    double secs = 0;
    if (run_steps(r, &a, scratch, scratch + 3 * cnt, &secs) ||
        finish(r, &a, &paths, &outs, pos, vel, mass, energy, secs))
        goto done;
    status = 0;
done:
    cli_outputs_free(&outs); /* what was not committed: a failed run leaves nothing */
    if (r->ctx) /* copies from all may be queued on a failed run */
        scl_finish(r->ctx);
    free(pos), free(vel), free(mass), free(scratch), free(r->first), free(r->all), free(r->req);
    scl_nbody_free(r->nb);
    if (r->ctx)
        scl_context_free(r->ctx);
    return status;
}

#else
#define run_mpi NULL /* main sends no run here without MPI */
#endif

int cmd_nbody_mpi(int argc, char **argv)
{
    return cli_mpi_main("nbody", argc, argv, run_mpi);
}
