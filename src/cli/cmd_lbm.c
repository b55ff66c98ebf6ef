/* streamcl lbm: the D2Q9 benchmark from its parameter and obstacle files, on
 * an OpenCL device (or the serial / OpenMP reference on the host), writing
 * av_vels.dat and final_state.dat and reporting MLUPS and bandwidth. */
#include "commands.h"
#include "lbm_mpi.h"
#include "mpi_grid.h"
#include "streamcl/lbm.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const char *param_path, *obstacle_path, *out_dir, *device, *png, *force;
    const char *reference; /* NULL, "serial" or "omp" */
    long every, steps, warmup, batch;
    int no_output, tune, no_overlap, halo_mpi;
    scl_lbm_options opt;
} lbm_args;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: streamcl lbm PARAMFILE OBSTACLEFILE [options]\n"
            "  --out DIR           where av_vels.dat and final_state.dat go (default .)\n"
            "  --device SPEC       OpenCL device (gpu, cpu, P:D or a name)\n"
            "  --png FILE          colour map of |u| with obstacles (grey)\n"
            "  --every N           also write DIR/state_STEP.dat (and PNGs) every N steps\n"
            "  --steps N           run N steps instead of the file's maxIters\n"
            "  --storage fp32|fp16 lattice storage (arithmetic is float either way)\n"
            "  --inplace           one lattice, AA-pattern streaming (half the memory)\n"
            "  --reference serial|omp   run the host reference instead of OpenCL\n"
            "  --no-output         write no files (benchmarking)\n"
            "  --warmup N          with --no-output: untimed steps first\n"
            "  --batch N           steps per av_vels read-back (default 256)\n"
            "  --force lx=A,ly=B   fix the work-group shape; --no-tune: default shape\n"
            "  --no-overlap        under mpirun: swap halos between steps instead of while\n"
            "                      the interior rows update (for comparison)\n"
            "  --halo shm|mpi      under mpirun: halo rows through a shared memory window\n"
            "                      between ranks of a node (default), or as MPI messages\n");
}

/* An option that takes the value v; 1 when o was one, 0 when not, -1 after
 * printing why v is not valid. */
static int parse_valued(const char *o, const char *v, lbm_args *a)
{
    if (!strcmp(o, "--out")) {
        a->out_dir = v;
    } else if (!strcmp(o, "--device")) {
        a->device = v;
    } else if (!strcmp(o, "--halo")) {
        return cli_mpi_parse_halo("lbm", v, &a->halo_mpi) ? -1 : 1;
    } else if (!strcmp(o, "--png")) {
        a->png = v;
    } else if (!strcmp(o, "--force")) {
        a->force = v;
    } else if (!strcmp(o, "--every")) {
        return cli_parse_long("lbm", o, v, 1, 1L << 40, &a->every) ? -1 : 1;
    } else if (!strcmp(o, "--steps")) {
        return cli_parse_long("lbm", o, v, 0, 1L << 40, &a->steps) ? -1 : 1;
    } else if (!strcmp(o, "--warmup")) {
        return cli_parse_long("lbm", o, v, 0, 1L << 30, &a->warmup) ? -1 : 1;
    } else if (!strcmp(o, "--batch")) {
        return cli_parse_long("lbm", o, v, 1, 1 << 20, &a->batch) ? -1 : 1;
    } else if (!strcmp(o, "--storage")) {
        if (!strcmp(v, "fp32"))
            a->opt.storage = SCL_LBM_FP32;
        else if (!strcmp(v, "fp16"))
            a->opt.storage = SCL_LBM_FP16;
        else {
            fprintf(stderr, "streamcl lbm: --storage must be fp32 or fp16, got '%s'\n", v);
            return -1;
        }
    } else if (!strcmp(o, "--reference")) {
        a->reference = v;
        if (strcmp(a->reference, "serial") && strcmp(a->reference, "omp")) {
            fprintf(stderr, "streamcl lbm: --reference must be serial or omp\n");
            return -1;
        }
    } else {
        return 0;
    }
    return 1;
}

/* A switch (an option without value); 1 when o was one. */
static int parse_switch(const char *o, lbm_args *a)
{
    if (!strcmp(o, "--inplace"))
        a->opt.streaming = SCL_LBM_IN_PLACE;
    else if (!strcmp(o, "--no-output"))
        a->no_output = 1;
    else if (!strcmp(o, "--no-overlap"))
        a->no_overlap = 1;
    else if (!strcmp(o, "--no-tune"))
        a->tune = 0;
    else
        return 0;
    return 1;
}

static int parse_args(int argc, char **argv, lbm_args *a)
{
    memset(a, 0, sizeof *a);
    a->out_dir = ".";
    a->steps = -1;
    a->tune = 1;
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        int r = i + 1 < argc ? parse_valued(o, argv[i + 1], a) : 0;
        if (r < 0)
            return -1;
        if (r > 0) {
            i++;
        } else if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            exit(0);
        } else if (parse_switch(o, a)) {
            continue;
        } else if (o[0] == '-' && o[1]) {
            fprintf(stderr, "streamcl lbm: unknown or incomplete option '%s'\n", o);
            return -1;
        } else if (positional == 0) {
            a->param_path = o;
            positional++;
        } else if (positional == 1) {
            a->obstacle_path = o;
            positional++;
        } else {
            fprintf(stderr, "streamcl lbm: unexpected argument '%s'\n", o);
            return -1;
        }
    }
    if (positional != 2) {
        fprintf(stderr, "streamcl lbm: PARAMFILE and OBSTACLEFILE are required\n");
        return -1;
    }
    if (a->warmup && !a->no_output) {
        fprintf(stderr, "streamcl lbm: --warmup changes the simulated steps; use it with "
                        "--no-output\n");
        return -1;
    }
    a->opt.tune = a->tune;
    a->opt.force = a->force;
    a->opt.batch = (int)a->batch;
    return 0;
}

/* |u| as colours, y up, obstacles grey; complete file or none. */
static int write_png(const char *path, const scl_lbm_params *p, const unsigned char *obst,
                     const float *speed)
{
    size_t n = (size_t)p->nx * (size_t)p->ny;
    unsigned char *rgb = malloc(n * 3);
    if (!rgb) {
        fprintf(stderr, "streamcl lbm: out of memory for %s\n", path);
        return -1;
    }
    float top = 0.0f;
    for (size_t i = 0; i < n; i++)
        if (!obst[i] && speed[i] > top)
            top = speed[i];
    for (int y = 0; y < p->ny; y++)
        for (int x = 0; x < p->nx; x++) {
            size_t i = (size_t)x + (size_t)y * (size_t)p->nx;
            unsigned char *px = rgb + 3 * ((size_t)(p->ny - 1 - y) * (size_t)p->nx + (size_t)x);
            if (obst[i])
                px[0] = px[1] = px[2] = 96;
            else
                cli_colormap(top > 0 ? speed[i] / top : 0.0, px);
        }
    int rc = cli_write_png(path, p->nx, p->ny, rgb);
    free(rgb);
    return rc;
}

typedef struct {
    float *ux, *uy, *speed, *pressure;
} fields;

/* A state file and, optionally, its PNG (paths from cli_output). */
static int write_state_files(const scl_lbm_params *p, const unsigned char *obst,
                             const fields *fl, const char *state_path, const char *png_path)
{
    char err[4400];
    if (scl_lbm_write_state(state_path, p, obst, fl->ux, fl->uy, fl->speed, fl->pressure, err,
                            sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl lbm: %s\n", err);
        return -1;
    }
    if (png_path && write_png(png_path, p, obst, fl->speed))
        return -1;
    return 0;
}

/* DIR/NAME, registered as an output; NULL after printing why not. */
static const char *output_in(cli_outputs *out, const char *dir, const char *name)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
        fprintf(stderr, "streamcl lbm: output path %s/%s too long\n", dir, name);
        return NULL;
    }
    return cli_output(out, path);
}

/* The first step in av[0..count) whose mean |u| is not finite, or -1. */
static long first_non_finite(const float *av, long count)
{
    for (long t = 0; t < count; t++)
        if (!isfinite(av[t]))
            return t;
    return -1;
}

/* FILE.png -> FILE_000100.png for snapshots */
static void snapshot_png_name(const char *png, long step, char *out, size_t len)
{
    const char *dot = strrchr(png, '.');
    int stem = dot ? (int)(dot - png) : (int)strlen(png);
    snprintf(out, len, "%.*s_%06ld%s", stem, png, step, dot ? dot : ".png");
}

/* The run itself: either the OpenCL solver or a host reference. */
typedef struct {
    const lbm_args *a;
    const scl_lbm_params *p;
    const unsigned char *obst;
    scl_context *ctx;
    scl_lbm *lbm;          /* OpenCL */
    float *f, *tmp;        /* host reference state */
    fields fl;
    lbm_mpi *mpi;          /* under mpirun: lbm is this rank's slab */
    float *whole;          /* with mpi, rank 0: the gathered state */
} runner;

/* 0 when ok on every rank (the one rank without MPI), else -1. */
static int all_ok(runner *r, int ok)
{
    return r->mpi ? lbm_mpi_agree(r->mpi, ok) : ok ? 0 : -1;
}

static int is_root(const runner *r)
{
    return lbm_mpi_rank(r->mpi) == 0;
}

static int runner_fields(runner *r)
{
    if (r->mpi) { /* collective: the fields exist on rank 0 only */
        if (lbm_mpi_gather_speeds(r->mpi, r->lbm, r->whole))
            return -1;
        if (is_root(r))
            scl_lbm_fields(r->p, r->obst, r->whole, r->fl.ux, r->fl.uy, r->fl.speed,
                           r->fl.pressure);
    } else if (r->lbm) {
        if (scl_lbm_read_fields(r->lbm, r->fl.ux, r->fl.uy, r->fl.speed, r->fl.pressure)) {
            fprintf(stderr, "streamcl lbm: %s\n", scl_last_error(r->ctx));
            return -1;
        }
    } else {
        scl_lbm_fields(r->p, r->obst, r->f, r->fl.ux, r->fl.uy, r->fl.speed, r->fl.pressure);
    }
    return 0;
}

static int runner_steps(runner *r, long steps, float *av)
{
    if (r->mpi)
        return lbm_mpi_steps(r->mpi, r->lbm, steps, av);
    if (r->lbm) {
        if (scl_lbm_step(r->lbm, steps, av) != SCL_OK) {
            fprintf(stderr, "streamcl lbm: %s\n", scl_last_error(r->ctx));
            return -1;
        }
        return 0;
    }
    int omp = !strcmp(r->a->reference, "omp");
    for (long t = 0; t < steps; t++) {
        float v = omp ? scl_lbm_omp_step(r->p, r->obst, &r->f, &r->tmp)
                      : scl_lbm_ref_step(r->p, r->obst, r->f, r->tmp);
        if (av)
            av[t] = v;
    }
    return 0;
}

/* One mean |u| per step, for av_vels.dat: refused up front when it could
 * not fit in the host's memory (malloc may not fail before it is touched);
 * 0, or -1 after printing. */
static int alloc_av(const lbm_args *a, long steps, float **av_out)
{
    float *av = NULL;
    double av_bytes = ((double)steps + 1.0) * sizeof *av;
    double host_bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (host_bytes <= 0)
        host_bytes = 1e18; /* unknown: let malloc decide */
    if (av_bytes > 0.5 * host_bytes || !(av = malloc((size_t)av_bytes))) {
        char what[600];
        if (a->steps >= 0)
            snprintf(what, sizeof what, "--steps %ld", steps);
        else
            snprintf(what, sizeof what, "%s:3: maxIters %ld", a->param_path, steps);
        fprintf(stderr, "streamcl lbm: %s: out of host memory for its av_vels (%.3g GiB, the host "
                        "has %.3g GiB)\n", what, av_bytes / 1073741824.0, host_bytes / 1073741824.0);
        return -1;
    }
    *av_out = av;
    return 0;
}

/* The engine: the host reference, this rank's slab under MPI, or the whole
 * lattice on one device (r->ctx set for the last two); 0, or -1 after
 * printing. */
static int runner_start(runner *r, double *bytes_per_cell)
{
    const lbm_args *a = r->a;
    const scl_lbm_params *p = r->p;
    size_t n = (size_t)p->nx * (size_t)p->ny;
    int root = is_root(r);
    if (a->reference) {
        r->f = malloc(n * SCL_LBM_Q * sizeof(float));
        r->tmp = malloc(n * SCL_LBM_Q * sizeof(float));
        if (!r->f || !r->tmp) {
            fprintf(stderr, "streamcl lbm: out of host memory\n");
            return -1;
        }
        scl_lbm_ref_init(p, r->f);
        printf("device: host, %s reference\n", a->reference);
    } else if (r->mpi) {
        lbm_mpi *mpi = r->mpi;
        if (lbm_mpi_create(mpi, a->device, a->param_path, p, r->obst, &a->opt, !a->no_overlap,
                           a->halo_mpi, &r->ctx, &r->lbm))
            return -1;
        scl_context *ctx = r->ctx;
        *bytes_per_cell = scl_lbm_bytes_per_cell(r->lbm);
        int y0, rows;
        scl_lbm_rows(r->lbm, &y0, &rows, NULL);
        if (root)
            printf("device: %s [%s] (rank 0 of %d)\nlattice: %dx%d, %s storage, slabs of %d or "
                   "fewer rows over %d MPI ranks, halo exchange %s through %s\n", scl_device(ctx)->name,
                   scl_device(ctx)->platform, lbm_mpi_size(mpi), p->nx, p->ny,
                   a->opt.storage == SCL_LBM_FP16 ? "fp16" : "fp32", rows, lbm_mpi_size(mpi),
                   a->no_overlap ? "between steps (--no-overlap)" : "overlapped with the interior",
                   lbm_mpi_transport(mpi));
    } else {
        scl_context *ctx = r->ctx = cli_context(a->device, 0);
        if (!ctx)
            return -1;
        scl_status cs = scl_lbm_create(ctx, p, r->obst, &a->opt, &r->lbm);
        if (cs == SCL_ERR_TOO_LARGE) {
            /* the grid size is the user's input: point at it */
            fprintf(stderr, "streamcl lbm: %s:1: nx %d, ny %d too large for the device: %s\n",
                    a->param_path, p->nx, p->ny, scl_last_error(ctx));
            return -1;
        } else if (cs != SCL_OK) {
            fprintf(stderr, "streamcl lbm: %s\n", scl_last_error(ctx));
            return -1;
        }
        int lx, ly;
        scl_lbm_work_group(r->lbm, &lx, &ly);
        *bytes_per_cell = scl_lbm_bytes_per_cell(r->lbm);
        printf("device: %s [%s]\n", scl_device(ctx)->name, scl_device(ctx)->platform);
        printf("lattice: %dx%d, %s storage, %s, work-group %dx%d\n", p->nx, p->ny,
               a->opt.storage == SCL_LBM_FP16 ? "fp16" : "fp32",
               a->opt.streaming == SCL_LBM_IN_PLACE ? "in place (AA pattern)" : "two lattices",
               lx, ly);
    }
    return 0;
}

/* The timed steps in chunks (snapshots every --every steps, their time in
 * *io_seconds), stopping at the first non-finite mean |u|; 0, or -1 after
 * printing (on every rank alike). */
static int run_steps(runner *r, cli_outputs *out, long steps, float *av, double *io_seconds)
{
    const lbm_args *a = r->a;
    const scl_lbm_params *p = r->p;
    int root = is_root(r);
    cli_progress prog;
    if (root)
        cli_progress_start(&prog, "lbm", steps);
    long chunk = a->every ? a->every : (steps > 100 ? steps / 100 : 1);
    for (long done = 0; done < steps;) {
        long c = steps - done < chunk ? steps - done : chunk;
        if (runner_steps(r, c, av + done))
            return -1;
        long bad = first_non_finite(av + done, c);
        if (bad >= 0) {
            if (root)
                cli_progress_end(&prog);
            if (root)
                fprintf(stderr, "streamcl lbm: the flow became non-finite at step %ld (mean |u| %g); "
                            "no output written (density %g, accel %g, omega %g from %s)\n",
                    done + bad + 1, (double)av[done + bad], (double)p->density, (double)p->accel,
                    (double)p->omega, a->param_path);
            return -1;
        }
        done += c;
        if (root)
            cli_progress_update(&prog, done);
        if (a->every && !a->no_output && done % a->every == 0 && done < steps) {
            double s0 = cli_now();
            char name[64], png[4200];
            snprintf(name, sizeof name, "state_%06ld.dat", done);
            if (a->png)
                snapshot_png_name(a->png, done, png, sizeof png);
            const char *snap = root ? output_in(out, a->out_dir, name) : NULL;
            const char *snap_png = root && a->png ? cli_output(out, png) : NULL;
            if (all_ok(r, !root || (snap && (!a->png || snap_png))) || runner_fields(r) ||
                all_ok(r, !root || !write_state_files(p, r->obst, &r->fl, snap, snap_png)))
                return -1;
            *io_seconds += cli_now() - s0;
        }
    }
    if (all_ok(r, !r->lbm || scl_finish(r->ctx) == SCL_OK))
        return -1;
    if (root)
        cli_progress_end(&prog);
    return 0;
}

/* The benchmark's report (rank 0). */
static void print_summary(const scl_lbm_params *p, double last, double init, double compute,
                          double mlups, double bytes_per_cell)
{
    printf("==done==\n");
    printf("Reynolds number:\t\t%.12E\n", scl_lbm_reynolds(p, last));
    printf("Elapsed init time:\t\t%.6f (s)\n", init);
    printf("Elapsed compute time:\t\t%.6f (s)\n", compute);
    printf("MLUPS:\t\t\t\t%.1f\n", mlups);
    printf("Bandwidth:\t\t\t%.1f GB/s (%.0f bytes per cell update)\n",
           mlups * bytes_per_cell * 1e-3, bytes_per_cell);
}

/* The output paths, claimed before computing (snapshots go beside these);
 * rank 0 writes them all. 1, or 0 after printing why one cannot be written. */
static int claim_outputs(const lbm_args *a, cli_outputs *out, const char **av_path,
                         const char **state_path, const char **png_path)
{
    if (!a->no_output && (cli_output_dir("lbm", a->out_dir) ||
                          !(*av_path = output_in(out, a->out_dir, "av_vels.dat")) ||
                          !(*state_path = output_in(out, a->out_dir, "final_state.dat"))))
        return 0;
    if (a->png && !(*png_path = cli_output(out, a->png)))
        return 0;
    return 1;
}

/* av_vels.dat, final_state.dat and the PNG; 0, or -1 after printing. */
static int write_results(const runner *r, const float *av, long steps, const char *av_path,
                         const char *state_path, const char *png_path)
{
    char err[4400];
    if (scl_lbm_write_av_vels(av_path, av, steps, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl lbm: %s\n", err);
        return -1;
    }
    return write_state_files(r->p, r->obst, &r->fl, state_path, png_path) ? -1 : 0;
}

/* The run; with mpi, one rank's part of it (every rank takes the same path). */
static int run_lbm(int argc, char **argv, lbm_mpi *mpi)
{
    lbm_args a;
    if (parse_args(argc, argv, &a)) {
        if (!lbm_mpi_rank(mpi))
            usage(stderr);
        return 2;
    }
    if (mpi && a.reference) {
        if (!lbm_mpi_rank(mpi))
            fprintf(stderr, "streamcl lbm: --reference runs on one host; start it without "
                            "mpirun\n");
        return 2;
    }
    char err[4400];
    scl_lbm_params p;
    if (scl_lbm_read_params(a.param_path, &p, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl lbm: %s\n", err);
        return 1;
    }
    long steps = a.steps >= 0 ? a.steps : p.max_iters;
    size_t n = (size_t)p.nx * (size_t)p.ny;
    int root = !lbm_mpi_rank(mpi); /* prints, writes files; other ranks compute */
    unsigned char *obst = malloc(n);
    float *fieldbuf = malloc(4 * (root ? n : 1) * sizeof *fieldbuf);
    float *av = NULL;
    runner r = {.a = &a, .p = &p, .obst = obst, .mpi = mpi};
    scl_context *ctx = NULL;
    cli_outputs out;
    cli_outputs_init(&out, "lbm");
    cli_input(&out, a.param_path);
    cli_input(&out, a.obstacle_path);
    const char *av_path = NULL, *state_path = NULL, *png_path = NULL;
    int rc = 1;
    if (mpi && root && !(r.whole = malloc(n * SCL_LBM_Q * sizeof *r.whole)))
        fieldbuf = (free(fieldbuf), NULL);
    if (!obst || !fieldbuf) {
        fprintf(stderr, "streamcl lbm: %s:1: out of host memory for a %dx%d grid\n",
                a.param_path, p.nx, p.ny);
        goto done;
    }
    if (alloc_av(&a, steps, &av))
        goto done;
    if (root)
        r.fl = (fields){fieldbuf, fieldbuf + n, fieldbuf + 2 * n, fieldbuf + 3 * n};
    if (scl_lbm_read_obstacles(a.obstacle_path, &p, obst, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl lbm: %s\n", err);
        goto done;
    }
    /* every output path is checked before computing (snapshots go beside these);
     * rank 0 writes them all */
    if (all_ok(&r, !root || claim_outputs(&a, &out, &av_path, &state_path, &png_path)))
        goto done; /* agreed on by every rank */

    double t0 = cli_now();
    double bytes_per_cell = 2.0 * SCL_LBM_Q * sizeof(float) + 1.0;
    int started = runner_start(&r, &bytes_per_cell);
    ctx = r.ctx;
    if (started)
        goto done;
    if (a.warmup && runner_steps(&r, a.warmup, NULL))
        goto done;
    double t1 = cli_now();

    double io_seconds = 0; /* snapshots are not compute */
    if (run_steps(&r, &out, steps, av, &io_seconds))
        goto done;
    double t2 = cli_now();
    if (runner_fields(&r))
        goto done;

    /* the benchmark's Reynolds number uses the last step's mean |u| */
    double last = steps > 0 ? av[steps - 1] : 0.0;
    if (steps == 0 && root) {
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += obst[i] ? 0.0 : r.fl.speed[i];
        last = sum / (double)scl_lbm_fluid_cells(&p, obst);
    }
    double compute = t2 - t1 - io_seconds;
    double mlups = compute > 0 ? (double)n * (double)steps / compute * 1e-6 : 0.0;
    if (!root) {
        rc = 0;
        goto agree_outputs;
    }
    print_summary(&p, last, t1 - t0, compute, mlups, bytes_per_cell);

    rc = 0;
    if (a.no_output ? png_path && write_png(png_path, &p, obst, r.fl.speed)
                    : write_results(&r, av, steps, av_path, state_path, png_path))
        rc = 1;
    if (rc == 0 && cli_outputs_commit(&out))
        rc = 1;
agree_outputs: /* the other ranks learn whether rank 0's files were written */
    rc = all_ok(&r, rc == 0) ? 1 : 0;
done:
    cli_outputs_free(&out);
    scl_lbm_free(r.lbm);
    scl_context_free(ctx);
    free(r.f);
    free(r.tmp);
    free(obst);
    free(av);
    free(fieldbuf);
    free(r.whole);
    return rc;
}

int cmd_lbm(int argc, char **argv)
{
    int launched = lbm_mpi_launched();
    if (launched <= 0)
        return launched < 0 ? 1 : run_lbm(argc, argv, NULL);
    lbm_mpi *mpi = lbm_mpi_start(&argc, &argv);
    if (!mpi)
        return 1;
    int rc = run_lbm(argc, argv, mpi);
    lbm_mpi_end(mpi);
    return rc;
}
