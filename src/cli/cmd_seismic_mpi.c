/* streamcl seismic over MPI ranks: the model cut into slabs along one axis
 * (a Cartesian communicator), one rank per device, the halo planes of
 * velocities and of stresses that the neighbours' stencils read swapped
 * through the host every step (the library's slab solver,
 * scl_seis_create_slab, packs and unpacks them; the transport is here). Receivers are gathered on rank 0, which writes the
 * files a one-rank run writes; a failure on any rank stops every rank with
 * its message and no output files. */
#include "mpi_grid.h"
#include "seismic_cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if STREAMCL_HAVE_MPI
#include <mpi.h>

typedef struct {
    MPI_Comm cart;
    int rank, size, axis, below, above, lo, n;
    scl_context *ctx;
    scl_seis *sv;
    cli_halo halo;  /* the swaps' transport */
    size_t bytes;   /* one face's planes */
    long swaps;    /* transports this batch */
    double halo_s; /* MPI time in the swaps (behind the inner planes unless --no-overlap) */
} seis_rank;

/* Options the decomposed run does not take (one-rank outputs of the whole
 * wavefield, the C engine); 0 or -1 after printing. */
static int refuse_options(const seis_args *a, int rank)
{
    const char *o = a->png ? "--png" : a->every ? "--every" : a->plane_index >= 0 ? "--plane"
                    : a->engine && strcmp(a->engine, "opencl") ? "--engine reference"
                    : a->threads ? "--threads" : NULL;
    if (!o)
        return 0;
    if (rank == 0)
        fprintf(stderr, "streamcl seismic: %s is for one-rank runs (not under mpirun); run it "
                        "without mpirun\n", o);
    return -1;
}

/* Swap the planes of both faces: send[0] down and recv[1] from above, then
 * send[1] up and recv[0] from below (MPI_PROC_NULL at the walls). */
static scl_status transport(void *user, int group, void *const send[2], void *const recv[2],
                            const size_t bytes[2])
{
    seis_rank *r = user;
    r->swaps++;
    double t0 = MPI_Wtime();
    cli_halo_swap_sizes(&r->halo, 3, (const void *const *)send, recv, bytes, group);
    r->halo_s += MPI_Wtime() - t0;
    return SCL_OK;
}

/* A failed rank's part of one swap: nothing sent, whatever arrives taken. */
static void company_swap(seis_rank *r, int group)
{
    const void *const send[2] = {NULL, NULL};
    void *const recv[2] = {NULL, NULL};
    cli_halo_swap(&r->halo, 3, send, recv, r->bytes, group);
}

/* steps on every rank; a rank that failed keeps its neighbours' remaining
 * swaps of the batch company (stresses then velocities per step), then
 * all agree. */
static int run_steps(seis_rank *r, long steps, int overlap, int *failed)
{
    r->swaps = 0;
    if (!*failed) {
        scl_status s = r->size == 1 ? scl_seis_step(r->sv, steps)
                                    : scl_seis_step_slab(r->sv, steps, transport, r, overlap);
        if (s != SCL_OK) {
            fprintf(stderr, "streamcl seismic: rank %d: %s\n", r->rank, scl_last_error(r->ctx));
            *failed = 1;
        }
    }
    for (long i = r->swaps; r->size > 1 && i < 2 * steps; i++)
        company_swap(r, i % 2 == 0);
    return cli_mpi_agree(!*failed);
}

/* The run's receivers inside this rank's slab (global positions, c's
 * order): a copy of c with them, their indices in c in *index. */
static int own_receivers(const seis_rank *r, const scl_seis_config *c, scl_seis_config *mine,
                         scl_seis_receiver **rx, int **index)
{
    *mine = *c;
    *rx = malloc(((size_t)c->nreceivers + 1) * sizeof **rx);
    *index = malloc(((size_t)c->nreceivers + 1) * sizeof **index);
    if (!*rx || !*index)
        return fprintf(stderr, "streamcl seismic: rank %d: out of memory\n", r->rank), -1;
    int n = 0;
    for (int q = 0; q < c->nreceivers; q++) {
        const int p[3] = {c->receivers[q].i, c->receivers[q].j, c->receivers[q].k};
        if (p[r->axis] >= r->lo && p[r->axis] < r->lo + r->n) {
            (*rx)[n] = c->receivers[q];
            (*index)[n++] = q;
        }
    }
    mine->receivers = *rx;
    mine->nreceivers = n;
    return 0;
}

/* The split, this rank's window and solver; every rank returns the same. */
static int set_up(seis_rank *r, const seis_args *a, const scl_seis_run *run,
                  const scl_seis_config *mine)
{
    const scl_seis_model *gm = &run->model;
    const int n[3] = {a->bench ? (int)a->bench_n[0] : gm->nx, a->bench ? (int)a->bench_n[1] : gm->ny,
                      a->bench ? (int)a->bench_n[2] : gm->nz};
    double vp_max = 0;
    for (size_t q = 0; !a->bench && q < (size_t)gm->nx * gm->ny * gm->nz; q++)
        vp_max = gm->vp[q] > vp_max ? gm->vp[q] : vp_max;
    scl_seis_model w = {0};
    scl_seis_run br;
    int ok = 1;
    if (a->bench) { /* the window of the homogeneous box, built directly */
        int fill[3] = {n[0], n[1], n[2]};
        fill[r->axis] = r->n + 4;
        ok = seis_bench_run(a, fill, &br) == 0;
        w = br.model;
        vp_max = 5000;
    } else if (scl_seis_model_window(gm, r->axis, r->lo, r->n, &w) != SCL_OK) {
        fprintf(stderr, "streamcl seismic: rank %d: out of memory for the model window\n", r->rank);
        ok = 0;
    }
    char spec[64];
    const char *dev = cli_mpi_rank_device(a->device, spec, sizeof spec);
    if (ok)
        ok = (r->ctx = cli_context(dev, 0)) != NULL;
    if (ok) {
        const scl_seis_slab slab = {r->axis, r->lo, r->n, n[0], n[1], n[2], vp_max};
        const scl_seis_options opt = {a->tune, a->plan};
        if (scl_seis_create_slab(r->ctx, &w, mine, &slab, &opt, &r->sv) != SCL_OK) {
            fprintf(stderr, "streamcl seismic: rank %d: %s\n", r->rank, scl_last_error(r->ctx));
            ok = 0;
        }
    }
    if (a->bench)
        scl_seis_run_release(&br);
    else
        scl_seis_model_release(&w);
    if (cli_mpi_agree(ok))
        return -1;
    r->bytes = scl_seis_halo_bytes(r->sv);
    /* not given: the node's share of cores on a GPU; a CPU device's ranks
     * keep their cores for the updates (its kernels run there) */
    const int node_threads = cli_halo_node_threads(r->cart), gpu = scl_device(r->ctx)->is_gpu;
    const int threads = a->halo_threads ? (int)a->halo_threads : gpu ? node_threads : 1;
    /* not given: messages where some rank runs on a GPU with fewer than 4
     * copy threads (its single-threaded window copies lose to the MPI
     * transport's: RESULTS, issue 24), the window otherwise */
    int mpi = a->halo_mpi, here[2] = {gpu, -threads}, any[2];
    MPI_Allreduce(here, any, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    mpi = mpi >= 0 ? mpi : any[0] && -any[1] < 4;
    cli_halo_init(&r->halo, r->cart, r->below, r->above, r->size > 1 ? r->bytes : 0, mpi);
    r->halo.threads = threads;
    r->halo.pieces = a->halo_pieces ? (int)a->halo_pieces : 1;
    /* a neighbour through the window and one copy thread: the device reads
     * the send planes straight into its receive area (one host copy per
     * face, not two; the device's copy from pageable memory is slower).
     * Several threads: the device reads into pinned memory, the threads
     * copy into the window. */
    void *const stage[2] = {r->halo.shm[0] ? r->halo.peer[0] : NULL,
                            r->halo.shm[1] ? r->halo.peer[1] : NULL};
    if (r->size > 1 && threads == 1 && (stage[0] || stage[1]))
        scl_seis_set_halo_staging(r->sv, stage);
    return 0;
}

/* The Cartesian communicator of the cut and this rank's slab. */
static int make_cart(seis_rank *r, const seis_args *a, const int n[3], int order)
{
    const int axis = cli_mpi_choose_axis("seismic", r->size, a->decomp[0] ? a->decomp : NULL, n,
                                         order / 2);
    if (axis < 0) /* the same on every rank */
        return -1;
    int dims[3] = {1, 1, 1}, periods[3] = {0, 0, 0}, coords[3];
    dims[axis] = r->size;
    r->axis = axis;
    if (MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &r->cart) != MPI_SUCCESS)
        return fprintf(stderr, "streamcl seismic: MPI_Cart_create failed\n"), -1;
    MPI_Cart_coords(r->cart, r->rank, 3, coords);
    MPI_Cart_shift(r->cart, axis, 1, &r->below, &r->above);
    cli_mpi_slab(n[axis], r->size, coords[axis], &r->lo, &r->n);
    return 0;
}

/* The steps in chunks (progress on rank 0), timed between barriers; the
 * wavefield checked for non-finite values at the end. */
static int run_all(seis_rank *r, const seis_args *a, long steps, double *secs)
{
    int failed = 0;
    cli_progress p;
    if (r->rank == 0)
        cli_progress_start(&p, "seismic", steps);
    const long every = steps > 100 ? steps / 100 : 1;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    r->halo_s = 0;
    int rc = 0;
    for (long done = 0; done < steps && !rc;) {
        const long chunk = steps - done < every ? steps - done : every;
        rc = run_steps(r, chunk, !a->no_overlap, &failed);
        done += chunk;
        if (r->rank == 0 && !rc)
            cli_progress_update(&p, done);
    }
    if (r->rank == 0)
        cli_progress_end(&p);
    if (rc)
        return -1;
    double mine = MPI_Wtime() - t0;
    MPI_Allreduce(&mine, secs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return 0;
}

/* Every receiver's traces on rank 0 (c's order) in *all. */
static int gather_traces(seis_rank *r, const scl_seis_config *c, const scl_seis_config *mine,
                         const int *index, float **all)
{
    const size_t per = SCL_SEIS_NCOMP * (size_t)c->steps; /* one receiver's samples */
    float *own = malloc(((size_t)mine->nreceivers * per + 1) * sizeof *own);
    float *got = r->rank == 0 ? malloc(((size_t)c->nreceivers * per + 1) * sizeof *got) : NULL;
    *all = r->rank == 0 ? malloc(((size_t)c->nreceivers * per + 1) * sizeof **all) : NULL;
    int *counts = malloc(2 * (size_t)r->size * sizeof *counts);
    int *where = malloc(((size_t)c->nreceivers + 1) * sizeof *where);
    int ok = own && counts && where && (r->rank || (got && *all));
    if (ok && scl_seis_traces(r->sv, own) != SCL_OK) {
        fprintf(stderr, "streamcl seismic: rank %d: %s\n", r->rank, scl_last_error(r->ctx));
        ok = 0;
    }
    const int agreed = cli_mpi_agree(ok) == 0;
    if (agreed) {
        int *displs = counts + r->size;
        MPI_Gather(&mine->nreceivers, 1, MPI_INT, counts, 1, MPI_INT, 0, r->cart);
        for (int q = 0, at = 0; r->rank == 0 && q < r->size; at += counts[q++])
            displs[q] = at;
        MPI_Gatherv(index, mine->nreceivers, MPI_INT, where, counts, displs, MPI_INT, 0, r->cart);
        MPI_Datatype series;
        MPI_Type_contiguous((int)per, MPI_FLOAT, &series);
        MPI_Type_commit(&series);
        MPI_Gatherv(own, mine->nreceivers, series, got, counts, displs, series, 0, r->cart);
        MPI_Type_free(&series);
        for (int q = 0; r->rank == 0 && q < c->nreceivers; q++)
            memcpy(*all + (size_t)where[q] * per, got + (size_t)q * per, per * sizeof *got);
    }
    free(own), free(got), free(counts), free(where);
    if (agreed)
        return 0;
    free(*all);
    *all = NULL;
    return -1;
}

/* Rank 0: the traces checked and written as a one-rank run writes them. */
static int write_all(const seis_args *a, const seis_paths *paths, const scl_seis_run *run,
                     const float *traces, cli_outputs *outs)
{
    const scl_seis_config *c = &run->config;
    const size_t nt = (size_t)c->nreceivers * SCL_SEIS_NCOMP * (size_t)c->steps;
    double peak = 0;
    for (size_t q = 0; q < nt; q++) {
        if (!isfinite(traces[q])) {
            fprintf(stderr, "streamcl seismic: receiver %zu recorded a non-finite value at step "
                    "%zu; nothing written\n", q / (SCL_SEIS_NCOMP * (size_t)c->steps) + 1,
                    q % (size_t)c->steps);
            return -1;
        }
        peak = fabs(traces[q]) > peak ? fabs(traces[q]) : peak;
    }
    printf("peak |receiver value| %.6g\n", peak);
    if (seis_write_outputs(a, paths, run, traces) || cli_outputs_commit(outs))
        return -1;
    seis_report_outputs(a, c);
    return 0;
}

/* One rank's time per step (v: scl_seis_slab_stats as SEIS_NV doubles). */
enum { SEIS_NV = 5 + SCL_SEIS_T_COUNT };
static void breakdown_line(int rank, const double *v)
{
    const double k = v[0] > 0 ? 1e3 / v[0] : 0; /* seconds in all -> ms per step */
    printf("rank %d per step: %.2f ms in the step calls: %.2f waiting for the send planes "
           "(device busy ahead), %.2f in MPI, %.2f other (queuing, the final wait); %.1f MiB sent", rank, k * v[1],
           k * v[2], k * v[3], k * (v[1] - v[2] - v[3]), v[0] > 0 ? v[4] / v[0] / 1048576 : 0.0);
    static const char *names[SCL_SEIS_T_COUNT] = {"interior", "edge", "pack", "read", "write",
                                                  "unpack"};
    double sum = 0;
    printf("; device ms:");
    for (int q = 0; q < SCL_SEIS_T_COUNT; q++) {
        printf(" %s %.2f", names[q], k * v[5 + q]);
        sum += k * v[5 + q];
    }
    printf(", sum %.2f\n", sum);
}

/* Where the steps' time went: rank 0's (every rank's with --verbose). */
static void breakdown(const seis_rank *r, int verbose)
{
    scl_seis_slab_stats s;
    double v[SEIS_NV] = {0}, *all = NULL;
    if (r->size > 1 && scl_seis_slab_stats_get(r->sv, &s) == SCL_OK) {
        const double head[5] = {(double)s.steps, s.wall, s.wait, s.transport, s.bytes};
        memcpy(v, head, sizeof head);
        memcpy(v + 5, s.device, sizeof s.device);
    }
    if (r->rank == 0)
        all = malloc((size_t)r->size * sizeof v);
    MPI_Gather(v, SEIS_NV, MPI_DOUBLE, all, SEIS_NV, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int q = 0; all && r->size > 1 && q < (verbose ? r->size : 1); q++)
        breakdown_line(q, all + (size_t)q * SEIS_NV);
    free(all);
}

static void report(const seis_rank *r, const scl_seis_config *c, const int n[3], double secs)
{
    double halo = 0;
    MPI_Reduce(&r->halo_s, &halo, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (r->rank)
        return;
    const double cells = (double)n[0] * n[1] * n[2];
    int lx, ly, kz;
    scl_seis_work_group(r->sv, &lx, &ly, &kz);
    printf("%ld steps in %.3f s: %.4f Gcells/s on %d MPI ranks (slabs along %c)\n", c->steps, secs,
           cells * (double)c->steps / secs / 1e9, r->size, "xyz"[r->axis]);
    const cli_halo *h = &r->halo;
    char how[96] = "", *at = how; /* the window's copy threads, the messages' pieces */
    if (h->kind != 0)
        at += snprintf(at, 48, "%d copy thread%s, ", h->threads, h->threads > 1 ? "s" : "");
    if (h->kind != 1)
        snprintf(at, 48, "%d message%s a face, ", h->pieces, h->pieces > 1 ? "s" : "");
    printf("rank 0 device %s, work-group %dx%d, kz %d; halo swaps through %s (%sslowest rank, "
           "transport time) %.3f ms/step\n", scl_device(r->ctx)->name, lx, ly, kz,
           cli_halo_transport(h), how, c->steps ? 1e3 * halo / (double)c->steps : 0.0);
}

/* The run file (every rank reads it) or the benchmark's configuration. */
static int read_run(const seis_args *a, int rank, scl_seis_run *run)
{
    char warn[512] = "", err[2048];
    if (a->bench) { /* the configuration; the model is each rank's window */
        const int tiny[3] = {24, 24, 24};
        if (seis_bench_run(a, tiny, run))
            return -1;
        scl_seis_model_release(&run->model);
        run->model.nx = (int)a->bench_n[0];
        run->model.ny = (int)a->bench_n[1];
        run->model.nz = (int)a->bench_n[2];
        return 0;
    }
    if (scl_seis_read_run(a->runfile, run, warn, sizeof warn, err, sizeof err) != SCL_OK)
        return rank == 0 ? fprintf(stderr, "streamcl seismic: %s\n", err), -1 : -1;
    if (warn[0] && rank == 0)
        fprintf(stderr, "streamcl seismic: warning: %s\n", warn);
    return 0;
}

/* Everything between MPI_Init and MPI_Finalize; the exit status. */
static int run_mpi(int argc, char **argv, int rank, int size)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short keeps what it printed */
    seis_rank rs = {.cart = MPI_COMM_NULL, .rank = rank, .size = size, .halo.win = MPI_WIN_NULL};
    seis_rank *r = &rs;
    seis_args a = SEIS_ARGS_DEFAULT;
    const int p = seis_parse_args(argc, argv, &a);
    if (p || refuse_options(&a, r->rank))
        return p > 0 ? 0 : 2; /* the same on every rank */
    cli_outputs outs;
    cli_outputs_init(&outs, "seismic");
    seis_paths paths;
    scl_seis_run run;
    memset(&run, 0, sizeof run);
    scl_seis_config mine;
    scl_seis_receiver *rx = NULL;
    int *index = NULL, status = 1;
    float *traces = NULL;
    cli_input(&outs, a.runfile);
    int ok = r->rank || seis_register_outputs(&a, &outs, &paths) == 0;
    ok = read_run(&a, r->rank, &run) == 0 && ok;
    if (cli_mpi_agree(ok))
        goto done;
    const int n[3] = {run.model.nx, run.model.ny, run.model.nz};
    const double t0 = MPI_Wtime();
    if (make_cart(r, &a, n, run.config.order) ||
        cli_mpi_agree(own_receivers(r, &run.config, &mine, &rx, &index) == 0) ||
        set_up(r, &a, &run, &mine))
        goto done;
    if (r->rank == 0) /* set_up ended in an agreement: every rank's set-up is done */
        printf("grid %d x %d x %d, order %d, %s, dt = %g s, %ld steps, %d sources, %d receivers, "
               "pml %d, %d MPI ranks (set-up %.2f s)\n", n[0], n[1], n[2], run.config.order,
               run.config.fp64 ? "fp64" : "fp32", run.config.dt, run.config.steps,
               run.config.nsources, run.config.nreceivers, run.config.pml, r->size,
               MPI_Wtime() - t0);
    double secs = 0;
    if (run_all(r, &a, run.config.steps, &secs))
        goto done;
    report(r, &run.config, n, secs);
    breakdown(r, a.verbose);
    if (gather_traces(r, &run.config, &mine, index, &traces))
        goto done;
    ok = r->rank || write_all(&a, &paths, &run, traces, &outs) == 0;
    if (cli_mpi_agree(ok))
        goto done;
    status = 0;
done:
    cli_outputs_free(&outs); /* what was not committed: a failed run leaves nothing */
    free(traces), free(rx), free(index);
    scl_seis_free(r->sv);
    cli_halo_free(&r->halo);
    if (r->ctx)
        scl_context_free(r->ctx);
    if (r->cart != MPI_COMM_NULL)
        MPI_Comm_free(&r->cart);
    if (a.bench)
        free(run.receivers);
    else
        scl_seis_run_release(&run);
    return status;
}

#else
#define run_mpi NULL /* main sends no run here without MPI */
#endif

int cmd_seismic_mpi(int argc, char **argv)
{
    return cli_mpi_main("seismic", argc, argv, run_mpi);
}
