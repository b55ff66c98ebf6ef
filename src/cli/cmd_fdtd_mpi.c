/* streamcl fdtd over MPI ranks: the Yee grid cut into slabs along one axis
 * (a Cartesian communicator, MPI_Cart_create), one rank per device, halo
 * planes staged through the host and swapped twice a step (H before the E
 * update, E before the next H update). The library stays MPI-free (sub-domain
 * models, halo plane reads and writes: include/streamcl/fdtd.h); the split,
 * the transport, the gathering of receivers and the agreement on errors
 * live here. Receivers are gathered to rank 0, which writes the files a
 * one-rank run writes; a failure on any rank stops every rank, with its
 * message and no output files. Compiled always; without MPI, main sends no
 * run here (cli_mpi_launched refuses several ranks). */
#include "commands.h"
#include "fdtd_bscan.h"
#include "fdtd_cli.h"
#include "mpi_grid.h"
#include "streamcl/fdtd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if STREAMCL_HAVE_MPI
#include <mpi.h>

typedef struct {
    const char *input, *out, *text, *device, *plan;
    long steps, pml, bench[3];
    int fp64, no_tune, dims[3], decomp, no_overlap, halo_mpi;
} margs;

/* One rank's state. */
typedef struct {
    MPI_Comm cart;
    int rank, size, axis, below, above; /* neighbours along the cut axis (MPI_PROC_NULL at the walls) */
    int lo, n;                          /* this rank's cells along the axis */
    int overlap;                        /* swaps behind the interior updates (default) */
    scl_context *ctx;
    scl_fdtd *f;
    char *send, *recv; /* the solver's pinned staging */
    cli_halo halo;     /* the swaps' transport */
    size_t bytes;
    long exchanges;
    double halo_s; /* wall time in the exchanges, the device idle before each */
} fdtd_rank;

static int agree(fdtd_rank *r, int ok)
{
    (void)r; /* MPI_COMM_WORLD: also before the Cartesian communicator exists */
    return cli_mpi_agree(ok);
}

static int refuse(const char *opt)
{
    fprintf(stderr, "streamcl fdtd: %s is for one-rank runs (not under mpirun yet); "
                    "run it without mpirun\n", opt);
    return -1;
}

static int parse_decomp(const char *v, margs *a)
{
    if (cli_mpi_parse_decomp("fdtd", v, a->dims))
        return -1;
    a->decomp = 1;
    return 0;
}

static int parse_value(const char *o, const char *v, margs *a)
{
    if (!strcmp(o, "-o"))
        a->out = v;
    else if (!strcmp(o, "--text"))
        a->text = v;
    else if (!strcmp(o, "--device"))
        a->device = v;
    else if (!strcmp(o, "--plan"))
        a->plan = v;
    else if (!strcmp(o, "--decomp"))
        return parse_decomp(v, a);
    else if (!strcmp(o, "--halo"))
        return cli_mpi_parse_halo("fdtd", v, &a->halo_mpi);
    else if (!strcmp(o, "--steps"))
        return cli_parse_long("fdtd", o, v, 1, 100000000, &a->steps);
    else if (!strcmp(o, "--pml"))
        return cli_parse_long("fdtd", o, v, 0, 1000, &a->pml);
    else if (!strcmp(o, "--kernel")) {
        if (strcmp(v, "separate"))
            return refuse("--kernel fused");
    } else if (!strcmp(o, "--engine")) {
        if (strcmp(v, "opencl"))
            return refuse("--engine reference/omp");
    } else
        return refuse(o);
    return 0;
}

/* The options a decomposed run takes; any other is refused by name. */
static int parse_args(int argc, char **argv, margs *a)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--fp64"))
            a->fp64 = 1;
        else if (!strcmp(o, "--no-tune"))
            a->no_tune = 1;
        else if (!strcmp(o, "--no-overlap"))
            a->no_overlap = 1;
        else if (!strcmp(o, "--bench")) {
            for (int q = 0; q < 3; q++)
                if (i + 1 >= argc || cli_parse_long("fdtd", "--bench", argv[++i], 1, 65536, &a->bench[q]))
                    return fprintf(stderr, "streamcl fdtd: --bench needs NX NY NZ\n"), -1;
        } else if (o[0] != '-') {
            if (a->input)
                return fprintf(stderr, "streamcl fdtd: more than one input ('%s', '%s')\n", a->input, o), -1;
            a->input = o;
        } else if (!strcmp(o, "-n")) {
            return fprintf(stderr, "streamcl fdtd: under mpirun, -n's traces are farmed over the "
                                   "ranks with --mpi-traces (or run -n without mpirun)\n"), -1;
        } else if (!strcmp(o, "--png") || !strcmp(o, "--dt") ||
                   !strcmp(o, "--profile") || !strcmp(o, "--radargram") || !strcmp(o, "--no-merge")) {
            return refuse(o);
        } else if (i + 1 >= argc) {
            return fprintf(stderr, "streamcl fdtd: unknown or incomplete option '%s'\n", o), -1;
        } else if (parse_value(o, argv[++i], a)) {
            return -1;
        }
    }
    if (!a->input && !a->bench[0])
        return fprintf(stderr, "streamcl fdtd: no input file (or --bench NX NY NZ)\n"), -1;
    return 0;
}

/* The cut axis and the ranks along it: --decomp (one factor above 1), or
 * the axis with the most cells (the thinnest halo planes per cell). */
static int choose_split(fdtd_rank *r, const margs *a, const int n[3], int dims[3])
{
    int axis = cli_mpi_choose_axis("fdtd", r->size, a->decomp ? a->dims : NULL, n, 1);
    if (axis < 0)
        return -1;
    dims[0] = dims[1] = dims[2] = 1;
    dims[axis] = r->size;
    r->axis = axis;
    return 0;
}

static void free_rank(fdtd_rank *r)
{
    scl_fdtd_free(r->f);
    if (r->ctx)
        scl_context_free(r->ctx);
    cli_halo_free(&r->halo);
    if (r->cart != MPI_COMM_NULL)
        MPI_Comm_free(&r->cart);
}

/* --bench: this rank's slab of the free-space box built directly (the whole
 * box may exceed what one model indexes): CPML of the whole box on every
 * face, the dipole at the box's centre on the rank that owns it. */
static int bench_slab(const margs *a, const fdtd_rank *r, scl_fdtd_model *m)
{
    char err[1024];
    int gn[3] = {(int)a->bench[0], (int)a->bench[1], (int)a->bench[2]}, sn[3] = {gn[0], gn[1], gn[2]};
    sn[r->axis] = r->n;
    if (scl_fdtd_model_init(m, sn[0], sn[1], sn[2], 1e-3, 1e-3, 1e-3, 1.0, err, sizeof err) != SCL_OK)
        return fprintf(stderr, "streamcl fdtd: rank %d: %s\n", r->rank, err), -1;
    for (int q = 0; q < 6; q++)
        m->pml[q] = (int)(a->pml >= 0 ? a->pml : 10);
    m->nwave = 1;
    m->wave = calloc(1, sizeof *m->wave);
    m->src = calloc(1, sizeof *m->src);
    if (!m->wave || !m->src)
        return fprintf(stderr, "streamcl fdtd: rank %d: out of memory\n", r->rank), -1;
    snprintf(m->wave[0].name, sizeof m->wave[0].name, "pulse");
    m->wave[0].w = (scl_wavelet){SCL_WAVE_RICKER, 1, SCL_FDTD_C0 / 20e-3, 0, 0};
    int c[3] = {gn[0] / 2, gn[1] / 2, gn[2] / 2};
    if (c[r->axis] >= r->lo && c[r->axis] < r->lo + r->n) {
        c[r->axis] -= r->lo;
        m->nsrc = 1;
        m->src[0] = (scl_fdtd_source){SCL_FDTD_HERTZIAN, 2, {c[0], c[1], c[2]}, {0, 0, 0}, 0, 0, -1, 0};
    }
    m->iterations = a->steps > 0 ? a->steps : 100;
    if (scl_fdtd_model_finish(m, err, sizeof err) != SCL_OK)
        return fprintf(stderr, "streamcl fdtd: rank %d: %s\n", r->rank, err), -1;
    m->grid.ox = r->axis == 0 ? r->lo : 0;
    m->grid.oy = r->axis == 1 ? r->lo : 0;
    m->grid.oz = r->axis == 2 ? r->lo : 0;
    m->grid.gnx = gn[0];
    m->grid.gny = gn[1];
    m->grid.gnz = gn[2];
    return 0;
}

/* Swap one halo plane: H goes up (the upper neighbour's plane -1), E down
 * (the lower neighbour's plane n). Every rank calls it for every exchange,
 * a failed one too (send, recv NULL), so that no neighbour waits for ever. */
static void swap(fdtd_rank *r, int field, const void *send, void *recv)
{
    const void *const s[2] = {send, send};
    void *const q[2] = {recv, recv};
    cli_halo_swap(&r->halo, field ? 2 : 1, s, q, r->bytes, field);
}

static scl_status exchange(void *user, scl_fdtd *f, int field)
{
    fdtd_rank *r = user;
    r->exchanges++;
    /* the device's update first: what remains is the exchange's own time */
    scl_status s = scl_finish(r->ctx);
    double t0 = MPI_Wtime();
    int to = field ? r->above : r->below, from = field ? r->below : r->above;
    if (s == SCL_OK && to != MPI_PROC_NULL)
        s = scl_fdtd_halo_read(f, field, r->send);
    swap(r, field, r->send, r->recv);
    if (s == SCL_OK && from != MPI_PROC_NULL)
        s = scl_fdtd_halo_write(f, field, r->recv);
    r->halo_s += MPI_Wtime() - t0;
    return s;
}

/* The overlapped run's transport: the planes are in the solver's pinned
 * staging already; the time here is the MPI time the interior update
 * hides (or not). */
static scl_status transport(void *user, int field, const void *send, void *recv)
{
    fdtd_rank *r = user;
    r->exchanges++;
    double t0 = MPI_Wtime();
    swap(r, field, send, recv);
    r->halo_s += MPI_Wtime() - t0;
    return SCL_OK;
}

/* steps on every rank; a rank that failed keeps its neighbours' remaining
 * exchanges of the batch company, then all agree. */
static int run_steps(fdtd_rank *r, long steps, int *failed)
{
    long expected = r->size > 1 ? 2 * steps : 0;
    r->exchanges = 0;
    if (!*failed) {
        scl_status s = r->size == 1 ? scl_fdtd_run(r->f, steps)
                       : r->overlap ? scl_fdtd_run_overlap(r->f, steps, transport, r)
                                    : scl_fdtd_run_exchange(r->f, steps, exchange, r);
        if (s != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: rank %d: %s\n", r->rank, scl_last_error(r->ctx));
            *failed = 1;
        }
    }
    for (long i = r->exchanges; i < expected; i++) /* per step: E then H overlapped, else H then E */
        swap(r, r->overlap ? i % 2 == 1 : i % 2 == 0, NULL, NULL);
    return agree(r, !*failed);
}

/* Receivers of every rank into rx (rank 0; the global model's order). */
static int gather_receivers(fdtd_rank *r, const scl_fdtd_model *gm, const scl_fdtd_model *sm,
                            const int *rx_index, long iters, scl_receivers *rx)
{
    char err[512];
    scl_receivers mine = {0};
    int ok = scl_receivers_create(&mine, sm->nrx, 6, iters, err, sizeof err) == SCL_OK;
    if (ok && scl_fdtd_read_receivers(r->f, &mine) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: rank %d: %s\n", r->rank, scl_last_error(r->ctx));
        ok = 0;
    }
    int *counts = malloc(3 * (size_t)r->size * sizeof *counts), *index = malloc(((size_t)gm->nrx + 1) * sizeof *index);
    double *all = r->rank == 0 ? malloc(((size_t)gm->nrx * 6 * iters + 1) * sizeof *all) : NULL;
    ok = ok && counts && index && (r->rank || all);
    if (r->rank == 0 && ok)
        ok = scl_receivers_create(rx, gm->nrx, 6, iters, err, sizeof err) == SCL_OK;
    if (agree(r, ok)) {
        scl_receivers_free(&mine);
        free(counts), free(index), free(all);
        return -1;
    }
    int *displs = counts + r->size;
    MPI_Gather(&sm->nrx, 1, MPI_INT, counts, 1, MPI_INT, 0, r->cart);
    for (int q = 0, at = 0; r->rank == 0 && q < r->size; at += counts[q++])
        displs[q] = at;
    MPI_Gatherv(rx_index, sm->nrx, MPI_INT, index, counts, displs, MPI_INT, 0, r->cart);
    MPI_Datatype series; /* one receiver's six components */
    MPI_Type_contiguous((int)(6 * iters), MPI_DOUBLE, &series);
    MPI_Type_commit(&series);
    MPI_Gatherv(mine.data, sm->nrx, series, all, counts, displs, series, 0, r->cart);
    MPI_Type_free(&series);
    for (int q = 0; r->rank == 0 && q < gm->nrx; q++)
        memcpy(scl_receivers_series(rx, index[q], 0), all + (size_t)q * 6 * iters,
               6 * (size_t)iters * sizeof *all);
    scl_receivers_free(&mine);
    free(counts), free(index), free(all);
    return 0;
}

/* Rank 0: receivers checked and written as a one-rank run writes them, and
 * the model's #geometry_view files (a one-rank run writes them before its
 * steps; here after them, so that a failed run leaves none). */
static int write_outputs(const margs *a, const scl_fdtd_model *gm, scl_receivers *rx, long iters,
                         cli_outputs *outs, const char *h5, const char *text)
{
    char err[2048];
    for (int v = 0; v < gm->ngview; v++) {
        char path[1100];
        snprintf(path, sizeof path, "%s.vtkhdf", gm->gview[v].file);
        if (scl_fdtd_write_geometry_view(path, gm, v, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: #geometry_view: %s\n", err);
            return -1;
        }
        printf("fdtd: geometry view -> %s\n", path);
    }
    for (long i = 0; i < (long)rx->n * 6 * rx->nt; i++)
        if (!isfinite(rx->data[i])) {
            fprintf(stderr, "streamcl fdtd: receiver %ld has a non-finite value at step %ld\n",
                    i / (6 * rx->nt) + 1, i % rx->nt);
            return -1;
        }
    if (scl_fdtd_write_hdf5(h5, gm, rx, iters, a->fp64, err, sizeof err) != SCL_OK ||
        (text && scl_fdtd_write_text(text, gm, rx, iters, err, sizeof err) != SCL_OK)) {
        fprintf(stderr, "streamcl fdtd: %s\n", err);
        return -1;
    }
    return cli_outputs_commit(outs);
}

/* Rank 0 registers the outputs before anything is computed. */
static int open_outputs(const margs *a, cli_outputs *outs, char **out, const char **h5,
                        const char **text)
{
    cli_input(outs, a->input);
    *out = a->out ? strdup(a->out) : fdtd_default_output(a->input);
    if (!*out)
        return fprintf(stderr, "streamcl fdtd: out of memory\n"), -1;
    if (!(*h5 = cli_output(outs, *out)) || (a->text && !(*text = cli_output(outs, a->text))))
        return -1;
    return 0;
}

/* The cut, this rank's model and solver; every rank returns the same. */
static int set_up(fdtd_rank *r, const margs *a, const scl_fdtd_model *gm, scl_fdtd_model *sm,
                  int **rx_index)
{
    int n[3], dims[3], periods[3] = {0, 0, 0}, coords[3];
    const int gn[3] = {gm->grid.nx, gm->grid.ny, gm->grid.nz};
    for (int q = 0; q < 3; q++)
        n[q] = a->bench[0] ? (int)a->bench[q] : gn[q];
    if (choose_split(r, a, n, dims)) /* the same on every rank: no agreement needed */
        return -1;
    if (MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &r->cart) != MPI_SUCCESS)
        return fprintf(stderr, "streamcl fdtd: MPI_Cart_create failed\n"), -1;
    MPI_Cart_coords(r->cart, r->rank, 3, coords);
    MPI_Cart_shift(r->cart, r->axis, 1, &r->below, &r->above);
    r->overlap = !a->no_overlap;
    cli_mpi_slab(n[r->axis], r->size, coords[r->axis], &r->lo, &r->n);
    char err[1024], spec[64];
    int ok;
    if (a->bench[0]) {
        ok = bench_slab(a, r, sm) == 0;
        *rx_index = NULL;
    } else {
        ok = scl_fdtd_model_subdomain(gm, r->axis, r->lo, r->n, sm, rx_index, err, sizeof err) == SCL_OK;
        if (!ok)
            fprintf(stderr, "streamcl fdtd: rank %d: %s\n", r->rank, err);
    }
    const char *dev = cli_mpi_rank_device(a->device, spec, sizeof spec);
    if (ok)
        ok = (r->ctx = cli_context(dev, 0)) != NULL;
    if (ok) {
        scl_fdtd_options o = {.fp64 = a->fp64, .no_tune = a->no_tune, .force = a->plan,
                              .kernel = SCL_FDTD_SEPARATE};
        if (scl_fdtd_create(r->ctx, sm, &o, &r->f) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: rank %d: %s\n", r->rank, scl_last_error(r->ctx));
            ok = 0;
        }
    }
    if (ok && r->size > 1) { /* the solver's pinned planes: send, then receive */
        r->bytes = scl_fdtd_halo_bytes(r->f);
        r->send = scl_fdtd_halo_staging(r->f);
        r->recv = r->send ? r->send + r->bytes : NULL;
        if (!r->send)
            fprintf(stderr, "streamcl fdtd: rank %d: the slab solver has no halo staging\n", r->rank);
        ok = r->send != NULL;
    }
    if (agree(r, ok))
        return -1;
    cli_halo_init(&r->halo, r->cart, r->below, r->above, r->bytes, a->halo_mpi);
    /* a neighbour through the window: the overlapped run's device reads of
     * E (down) and H (up) land in its receive area (one host copy, not two) */
    void *const stage[2] = {r->halo.shm[0] ? r->halo.peer[0] : NULL,
                            r->halo.shm[1] ? r->halo.peer[1] : NULL};
    if (r->f && (stage[0] || stage[1]))
        scl_fdtd_set_halo_staging(r->f, stage);
    return 0;
}

/* The steps in chunks (progress on rank 0), timed between barriers. */
static int run_all(fdtd_rank *r, long iters, double *secs)
{
    int failed = 0;
    cli_progress p;
    if (r->rank == 0)
        cli_progress_start(&p, "fdtd", iters);
    long every = iters > 100 ? iters / 100 : 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    r->halo_s = 0;
    for (long done = 0; done < iters;) {
        long chunk = iters - done < every ? iters - done : every;
        if (run_steps(r, chunk, &failed)) {
            if (r->rank == 0)
                cli_progress_end(&p);
            return -1;
        }
        done += chunk;
        if (r->rank == 0)
            cli_progress_update(&p, done);
    }
    if (!failed && scl_finish(r->ctx) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: rank %d: %s\n", r->rank, scl_last_error(r->ctx));
        failed = 1;
    }
    if (agree(r, !failed))
        return -1;
    double mine = MPI_Wtime() - t0;
    MPI_Allreduce(&mine, secs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r->rank == 0)
        cli_progress_end(&p);
    return 0;
}

static void report(const fdtd_rank *r, const margs *a, const int n[3], long iters, double secs,
                   double dt)
{
    double halo = 0;
    MPI_Reduce(&r->halo_s, &halo, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (r->rank)
        return;
    double cells = (double)n[0] * n[1] * n[2];
    printf("fdtd: %d x %d x %d cells, %ld steps, dt %.6e s, opencl%s on %d MPI ranks (slabs along "
           "%c): %.3f s, %.3f Gcells/s\n", n[0], n[1], n[2], iters, dt, a->fp64 ? " fp64" : "",
           r->size, "xyz"[r->axis], secs, cells * iters / secs * 1e-9);
    int lx, ly, kz;
    scl_fdtd_work_group(r->f, &lx, &ly, &kz);
    printf("fdtd: rank 0 device %s, separate kernels, work-group %dx%d, %d planes/work-item; "
           "halo through %s, %s (slowest rank) %.3f ms/step\n", scl_device(r->ctx)->name, lx,
           ly, kz, cli_halo_transport(&r->halo),
           r->overlap ? "behind the interior update" : "exchange not hidden",
           iters ? 1e3 * halo / (double)iters : 0.0);
}

/* Everything between MPI_Init and MPI_Finalize; the exit status. */
static int run_mpi(int argc, char **argv, fdtd_rank *r)
{
    margs a = {0};
    a.pml = -1;
    if (parse_args(argc, argv, &a))
        return 2; /* the same on every rank */
    char err[2048];
    scl_fdtd_model gm = {0}, sm = {0};
    int *rx_index = NULL, status = 1;
    char *out = NULL;
    const char *h5 = NULL, *text = NULL;
    scl_receivers rx = {0};
    cli_outputs outs;
    cli_outputs_init(&outs, "fdtd");
    if (!a.bench[0]) {
        scl_status s = scl_fdtd_read_input(a.input, &gm, err, sizeof err);
        if (s != SCL_OK || gm.nsnap > 0) {
            if (r->rank == 0)
                fprintf(stderr, "streamcl fdtd: %s\n",
                        s != SCL_OK ? err : "#snapshot is written by one-rank runs (not under mpirun yet)");
            goto done;
        }
    }
    if (r->rank == 0 && !a.bench[0] && open_outputs(&a, &outs, &out, &h5, &text))
        a.input = NULL; /* failed: agreed below */
    if (agree(r, a.input || a.bench[0]) || set_up(r, &a, &gm, &sm, &rx_index))
        goto done;
    /* the whole model's per-cell arrays are cut: what outputs still need is
     * the cells of #geometry_view, on rank 0 */
    for (int c = 0; c < 6; c++) {
        free(gm.id[c]);
        gm.id[c] = NULL;
    }
    free(gm.rigid);
    gm.rigid = NULL;
    if (r->rank != 0 || gm.ngview == 0) {
        free(gm.solid);
        gm.solid = NULL;
    }
    long iters = a.bench[0] ? sm.iterations : a.steps > 0 ? a.steps : gm.iterations;
    const int n[3] = {a.bench[0] ? (int)a.bench[0] : gm.grid.nx, a.bench[0] ? (int)a.bench[1] : gm.grid.ny,
                      a.bench[0] ? (int)a.bench[2] : gm.grid.nz};
    int failed = 0;
    if (a.bench[0] && run_steps(r, 2, &failed)) /* warm-up: builds, first launches */
        goto done;
    double secs = 0;
    if (run_all(r, iters, &secs))
        goto done;
    report(r, &a, n, iters, secs, sm.dt);
    if (!a.bench[0]) {
        if (gather_receivers(r, &gm, &sm, rx_index, iters, &rx))
            goto done;
        int ok = r->rank || write_outputs(&a, &gm, &rx, iters, &outs, h5, text) == 0;
        if (agree(r, ok))
            goto done;
        if (r->rank == 0)
            printf("fdtd: %d receivers -> %s%s%s\n", gm.nrx, out, a.text ? ", " : "",
                   a.text ? a.text : "");
    }
    status = 0;
done:
    cli_outputs_free(&outs); /* what was not committed: a failed run leaves nothing */
    scl_receivers_free(&rx);
    free_rank(r);
    scl_fdtd_model_free(&sm);
    scl_fdtd_model_free(&gm);
    free(rx_index);
    free(out);
    return status;
}

static int body(int argc, char **argv, int rank, int size)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--mpi-traces")) /* whole traces per rank, no split */
            return fdtd_traces_mpi(argc, argv, rank, size);
    fdtd_rank r = {.cart = MPI_COMM_NULL, .rank = rank, .size = size, .halo.win = MPI_WIN_NULL};
    return run_mpi(argc, argv, &r);
}

#else
#define body NULL /* main sends no run here without MPI */
#endif

int cmd_fdtd_mpi(int argc, char **argv)
{
    return cli_mpi_main("fdtd", argc, argv, body);
}
