/* streamcl nbody: all-pairs gravity through the offload interface (or the host
 * C/OpenMP reference with --engine reference): energies, interactions/s,
 * GFLOP/s, final state as CSV and a projected density image. */
#include "nbody_cli.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nbody_usage(FILE *out)
{
    fprintf(out,
            "usage: streamcl nbody [--n N] [--steps S] [--dt DT] [--eps EPS]\n"
            "                      [--init plummer|uniform|FILE] [--seed K]\n"
            "                      [--precision single|double] [--out FILE.csv] [--png FILE]\n"
            "                      [--engine opencl|reference] [--tune 0|1] [--plan V=..,wg=..,tile=..]\n"
            "                      [--device SPEC]\n"
            "  --n N          bodies for plummer/uniform (default 16384)\n"
            "  --steps S      leapfrog steps (default 10)\n"
            "  --dt DT        time step (default 0.001), --eps EPS softening (default 0.01)\n"
            "  --init         plummer (default), uniform (cold sphere) or a body file\n"
            "                 (lines 'x y z vx vy vz m', blanks or commas, '#' comments)\n"
            "  --out FILE     final positions and velocities as CSV (readable by --init)\n"
            "  --png FILE     x-y projected density of the final state (512x512)\n"
            "  --engine       opencl (default) or reference: the host C code in double\n"
            "                 with OpenMP (OMP_NUM_THREADS threads), the CPU baseline\n"
            "  --tune 0|1     time the launch-plan candidates (default 1; cached per device)\n"
            "  --plan SPEC    fix plan parameters, e.g. V=1,wg=256,tile=256\n"
            "Under mpirun (mpirun -np R streamcl nbody ...) each rank owns a block of the\n"
            "bodies on its own device and the blocks travel round the ranks; the result\n"
            "equals one rank's bit for bit with the same --plan.\n"
            "Rates count N^2 interactions per force evaluation and %d FLOPs per interaction\n"
            "(the GPU Gems 3 convention); the OpenCL rate uses kernel event times.\n",
            SCL_NBODY_FLOPS_PER_INTERACTION);
}

/* Returns 0, 1 for --help, or -1 after printing what is wrong. */
int nbody_parse_args(int argc, char **argv, nbody_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--help") || !strcmp(o, "-h"))
            return 1;
        if (!val) {
            fprintf(stderr, "streamcl nbody: unknown or incomplete option '%s'\n", o);
            return -1;
        }
        i++;
        if (!strcmp(o, "--n")) {
            if (cli_parse_long("nbody", o, val, 1, 1L << 28, &a->n))
                return -1;
        } else if (!strcmp(o, "--steps")) {
            if (cli_parse_long("nbody", o, val, 0, 1L << 40, &a->steps))
                return -1;
        } else if (!strcmp(o, "--seed")) {
            if (cli_parse_long("nbody", o, val, 0, 0x7fffffffL, &a->seed))
                return -1;
        } else if (!strcmp(o, "--tune")) {
            if (cli_parse_long("nbody", o, val, 0, 1, &a->tune))
                return -1;
        } else if (!strcmp(o, "--dt")) {
            if (cli_parse_double("nbody", o, val, &a->dt))
                return -1;
            if (a->dt <= 0) {
                fprintf(stderr, "streamcl nbody: --dt must be positive, got '%s'\n", val);
                return -1;
            }
        } else if (!strcmp(o, "--eps")) {
            if (cli_parse_double("nbody", o, val, &a->eps))
                return -1;
            if (a->eps < 0) {
                fprintf(stderr, "streamcl nbody: --eps must be >= 0, got '%s'\n", val);
                return -1;
            }
        } else if (!strcmp(o, "--precision")) {
            if (!strcmp(val, "single"))
                a->precision = SCL_NBODY_SINGLE;
            else if (!strcmp(val, "double"))
                a->precision = SCL_NBODY_DOUBLE;
            else {
                fprintf(stderr, "streamcl nbody: --precision is single or double, got '%s'\n", val);
                return -1;
            }
        } else if (!strcmp(o, "--engine")) {
            if (strcmp(val, "opencl") && strcmp(val, "reference")) {
                fprintf(stderr, "streamcl nbody: --engine is opencl or reference, got '%s'\n", val);
                return -1;
            }
            a->engine = val;
        } else if (!strcmp(o, "--init")) {
            a->init = val;
        } else if (!strcmp(o, "--out")) {
            a->out = val;
        } else if (!strcmp(o, "--png")) {
            a->png = val;
        } else if (!strcmp(o, "--device")) {
            a->device = val;
        } else if (!strcmp(o, "--plan")) {
            a->plan = val;
        } else {
            fprintf(stderr, "streamcl nbody: unknown option '%s'\n", o);
            return -1;
        }
    }
    return 0;
}

/* Log-scaled surface density (3 decades) of the x-y projection, centred on
 * the origin, spanning the 99th percentile of max(|x|, |y|). */
int nbody_write_png(const char *path, size_t n, const double *pos, const double *mass)
{
    enum { W = 512 };
    double *extent = malloc(n * sizeof *extent);
    double *grid = calloc((size_t)W * W, sizeof *grid);
    unsigned char *rgb = malloc((size_t)W * W * 3);
    int rc = -1;
    if (!extent || !grid || !rgb) {
        fprintf(stderr, "streamcl nbody: out of memory for the image\n");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        extent[i] = fmax(fabs(pos[3 * i]), fabs(pos[3 * i + 1]));
    double half = 0;
    for (size_t i = 0; i < n; i++)
        half = fmax(half, extent[i]);
    /* bisect for the radius that holds 99% of the bodies */
    double lo = 0, hi = half;
    for (int it = 0; it < 50 && hi > 0; it++) {
        double mid = 0.5 * (lo + hi);
        size_t inside = 0;
        for (size_t i = 0; i < n; i++)
            inside += extent[i] <= mid;
        if ((double)inside >= 0.99 * (double)n)
            hi = mid;
        else
            lo = mid;
    }
    half = hi > 0 ? hi : 1.0;
    /* cells of W/G pixels, G chosen for about 4 bodies per cell on average */
    int G = 32;
    while (G < W && (double)G * G * 4.0 < (double)n)
        G *= 2;
    double peak = 0;
    for (size_t i = 0; i < n; i++) {
        int px = (int)floor((pos[3 * i] / half + 1.0) * 0.5 * G);
        int py = (int)floor((1.0 - pos[3 * i + 1] / half) * 0.5 * G);
        if (px >= 0 && px < G && py >= 0 && py < G) {
            double *cell = &grid[(size_t)py * G + (size_t)px];
            *cell += mass[i] > 0 ? mass[i] : 0;
            peak = fmax(peak, *cell);
        }
    }
    for (size_t k = 0; k < (size_t)W * W; k++) {
        double v = grid[(k / W) * (size_t)G / W * G + (k % W) * (size_t)G / W];
        double t = v > 0 && peak > 0 ? 1.0 + log10(v / peak) / 3.0 : 0.0;
        cli_colormap(t < 0 ? 0 : t, rgb + 3 * k);
    }
    rc = cli_write_png(path, W, W, rgb);
done:
    free(extent);
    free(grid);
    free(rgb);
    return rc;
}

long nbody_first_non_finite(size_t n, const double *pos, const double *vel)
{
    for (size_t i = 0; i < 3 * n; i++)
        if (!isfinite(pos[i]) || !isfinite(vel[i]))
            return (long)(i / 3);
    return -1;
}

void nbody_report_non_finite(long body, long step, const double *p, const double *v)
{
    fprintf(stderr, "streamcl nbody: the state became non-finite by step %ld (body %ld: x %g, "
                    "vx %g); try a smaller --dt or a larger --eps; no output written\n",
            step, body, p[0], v[0]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The host reference engine: steps in double with OpenMP, timed by the wall
 * clock around the force evaluations. */
static void run_reference(const nbody_args *a, size_t n, double *pos, double *vel,
                          const double *mass, double energy[4], double *force_seconds,
                          double *median, long *evaluations)
{
    scl_nbody_ref_energy(n, pos, vel, mass, 1.0, a->eps, 1, &energy[0], &energy[1]);
    double *acc = malloc(3 * n * sizeof *acc);
    double *times = malloc((size_t)(a->steps + 1) * sizeof *times);
    if (!acc || !times) {
        free(acc);
        free(times);
        *evaluations = -1;
        return;
    }
    double t0 = cli_now();
    int failed = scl_nbody_ref_accel(n, pos, mass, 1.0, a->eps, 1, acc) != SCL_OK;
    times[0] = cli_now() - t0;
    *force_seconds = times[0];
    *evaluations = 1;
    cli_progress progress;
    cli_progress_start(&progress, "nbody (reference)", a->steps);
    int diverged = 0;
    for (long s = 0; s < a->steps && !failed && !diverged; s++) {
        t0 = cli_now();
        failed = scl_nbody_ref_step(n, pos, vel, acc, mass, 1.0, a->eps, a->dt, 1) != SCL_OK;
        times[*evaluations] = cli_now() - t0;
        *force_seconds += times[(*evaluations)++];
        cli_progress_update(&progress, s + 1);
        long bad = nbody_first_non_finite(n, pos, vel);
        if (bad >= 0) {
            cli_progress_end(&progress);
            nbody_report_non_finite(bad, s + 1, pos + 3 * bad, vel + 3 * bad);
            diverged = 1;
        }
    }
    cli_progress_end(&progress);
    qsort(times, (size_t)*evaluations, sizeof *times, cmp_double);
    *median = times[*evaluations / 2];
    free(times);
    free(acc);
    if (failed)
        *evaluations = -1;
    if (diverged)
        *evaluations = -2;
    scl_nbody_ref_energy(n, pos, vel, mass, 1.0, a->eps, 1, &energy[2], &energy[3]);
}

/* The OpenCL engine; returns 0 or 1 after printing the library's message. */
static int run_opencl(const nbody_args *a, size_t n, double *pos, double *vel,
                      const double *mass, double energy[4], double *force_seconds,
                      double *median, long *evaluations)
{
    scl_context *ctx = cli_context(a->device, 1);
    if (!ctx)
        return 1;
    const scl_device_info *dev = scl_device(ctx);
    printf("device: %s [%s]\n", dev->name, dev->platform);
    scl_nbody_options opt = {.G = 1.0, .eps = a->eps, .dt = a->dt, .precision = a->precision,
                             .tune = (int)a->tune, .force = a->plan};
    scl_nbody *nb = NULL;
    double t0 = cli_now();
    scl_status s = scl_nbody_create(ctx, &opt, n, pos, vel, mass, &nb);
    if (s == SCL_OK) {
        const scl_plan *plan = scl_nbody_plan(nb);
        printf("plan: V=%d wg=%d tile=%d (%s), setup %.2f s\n", scl_plan_value(plan, "V", 0),
               scl_plan_value(plan, "wg", 0), scl_plan_value(plan, "tile", 0),
               scl_plan_tuned(plan) ? "tuned now" : scl_plan_from_cache(plan) ? "cached" : "defaults/forced",
               cli_now() - t0);
        s = scl_nbody_energy(nb, &energy[0], &energy[1]);
    }
    cli_progress progress;
    cli_progress_start(&progress, "nbody", a->steps);
    /* queue in small batches so that the progress line moves */
    long chunk = n > 65536 ? 1 : n > 8192 ? 10 : 100;
    int diverged = 0;
    for (long done = 0; s == SCL_OK && done < a->steps && !diverged;) {
        long k = a->steps - done < chunk ? a->steps - done : chunk;
        s = scl_nbody_step(nb, k);
        if (s == SCL_OK) /* read back to stop at the first chunk that diverged */
            s = scl_nbody_read(nb, pos, vel, NULL);
        done += k;
        cli_progress_update(&progress, done);
        long bad = s == SCL_OK ? nbody_first_non_finite(n, pos, vel) : -1;
        if (bad >= 0) {
            cli_progress_end(&progress);
            nbody_report_non_finite(bad, done, pos + 3 * bad, vel + 3 * bad);
            diverged = 1;
        }
    }
    cli_progress_end(&progress);
    if (diverged) {
        scl_nbody_free(nb);
        scl_context_free(ctx);
        return 1;
    }
    if (s == SCL_OK)
        s = scl_nbody_read(nb, pos, vel, NULL);
    if (s == SCL_OK)
        s = scl_nbody_energy(nb, &energy[2], &energy[3]);
    if (s == SCL_OK)
        s = scl_nbody_force_time(nb, force_seconds, median, evaluations);
    if (s != SCL_OK)
        fprintf(stderr, "streamcl nbody: %s\n", scl_last_error(ctx));
    scl_nbody_free(nb);
    scl_context_free(ctx);
    return s == SCL_OK ? 0 : 1;
}

/* The bodies from --init: generated (n of them) or read from a file (n
 * set); 0, or 1 after printing why not. */
int nbody_load_bodies(const nbody_args *a, size_t *np, double **pos_out, double **vel_out,
                       double **mass_out)
{
    size_t n = *np;
    double *pos = NULL, *vel = NULL, *mass = NULL;
    if (!strcmp(a->init, "plummer") || !strcmp(a->init, "uniform")) {
        pos = malloc(3 * n * sizeof *pos);
        vel = malloc(3 * n * sizeof *vel);
        mass = malloc(n * sizeof *mass);
        if (!pos || !vel || !mass) {
            fprintf(stderr, "streamcl nbody: cannot allocate %zu bodies\n", n);
            free(pos);
            free(vel);
            free(mass);
            return 1;
        }
        if (!strcmp(a->init, "plummer"))
            scl_nbody_plummer(n, (uint64_t)a->seed, pos, vel, mass);
        else
            scl_nbody_uniform(n, (uint64_t)a->seed, pos, vel, mass);
    } else {
        char err[512];
        if (scl_nbody_load(a->init, &n, &pos, &vel, &mass, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl nbody: %s\n", err);
            return 1;
        }
    }
    int reference = !strcmp(a->engine, "reference");
    if (!reference && a->precision == SCL_NBODY_SINGLE)
        for (size_t i = 0; i < 3 * n; i++) {
            double v = fmax(fmax(fabs(pos[i]), fabs(vel[i])), fabs(mass[i / 3]));
            if (v > FLT_MAX) {
                fprintf(stderr, "streamcl nbody: %s: body %zu has a value %g beyond single "
                                "precision (%g); use --precision double\n",
                        a->init, i / 3 + 1, v, (double)FLT_MAX);
                free(pos);
                free(vel);
                free(mass);
                return 1;
            }
        }
    *np = n;
    *pos_out = pos;
    *vel_out = vel;
    *mass_out = mass;
    return 0;
}

/* The energies at the start and end and the drift. */
void nbody_print_energies(const double energy[4])
{
    double e0 = energy[0] + energy[1], e1 = energy[2] + energy[3];
    printf("energy start: kinetic %.10g potential %.10g total %.10g\n", energy[0],
           energy[1], e0);
    printf("energy end:   kinetic %.10g potential %.10g total %.10g\n", energy[2],
           energy[3], e1);
    printf("relative energy drift: %.3e\n", e0 != 0 ? fabs(e1 - e0) / fabs(e0) : fabs(e1));
}

/* Energies at the start and end, the drift and the force rate. */
static void print_summary(int reference, size_t n, const double energy[4], double median,
                          long evaluations, double force_seconds, double wall)
{
    nbody_print_energies(energy);
    double inter = (double)n * (double)n; /* per evaluation */
    if (median > 0)
        printf("force: %ld evaluations, median %.6f s -> %.4e interactions/s, %.2f GFLOP/s "
               "(%d FLOPs per interaction); %s; total %.4f s, wall %.3f s\n",
               evaluations, median, inter / median,
               inter * SCL_NBODY_FLOPS_PER_INTERACTION / median * 1e-9,
               SCL_NBODY_FLOPS_PER_INTERACTION,
               reference ? "host wall clock per step" : "kernel event times", force_seconds,
               wall);
    else
        printf("force: no kernel times (profiling unavailable); wall %.3f s\n", wall);
}

int nbody_claim_outputs(const nbody_args *a, cli_outputs *out, nbody_paths *paths)
{
    paths->out = paths->png = NULL;
    if (strcmp(a->init, "plummer") && strcmp(a->init, "uniform"))
        cli_input(out, a->init);
    if ((a->out && !(paths->out = cli_output(out, a->out))) ||
        (a->png && !(paths->png = cli_output(out, a->png))))
        return -1;
    return 0;
}

void nbody_print_header(const nbody_args *a, size_t n)
{
    const int reference = !strcmp(a->engine, "reference");
    printf("nbody: %zu bodies (%s), %ld steps, dt %g, eps %g, %s precision, engine %s\n", n,
           a->init, a->steps, a->dt, a->eps,
           reference || a->precision == SCL_NBODY_DOUBLE ? "double" : "single", a->engine);
}

int nbody_write_outputs(const nbody_args *a, const nbody_paths *paths, cli_outputs *out,
                        size_t n, const double *pos, const double *vel, const double *mass)
{
    int rc = 0;
    if (paths->out) {
        char err[512];
        if (scl_nbody_save(paths->out, n, pos, vel, mass, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl nbody: %s\n", err);
            rc = 1;
        }
    }
    if (rc == 0 && paths->png && nbody_write_png(paths->png, n, pos, mass))
        rc = 1;
    if (rc == 0 && cli_outputs_commit(out))
        rc = 1;
    if (rc == 0 && a->out)
        printf("wrote %s\n", a->out);
    if (rc == 0 && a->png)
        printf("wrote %s\n", a->png);
    return rc;
}

int nbody_energy_finite(const double energy[4])
{
    double e0 = energy[0] + energy[1], e1 = energy[2] + energy[3];
    if (isfinite(e0) && isfinite(e1))
        return 1;
    fprintf(stderr, "streamcl nbody: energy is not finite (start %g, end %g); no output "
                    "written\n", e0, e1);
    return 0;
}

int cmd_nbody(int argc, char **argv)
{
    nbody_args a = NBODY_ARGS_DEFAULT;
    int p = nbody_parse_args(argc, argv, &a);
    if (p != 0) {
        nbody_usage(p > 0 ? stdout : stderr);
        return p > 0 ? 0 : 2;
    }
    size_t n = (size_t)a.n;
    double *pos = NULL, *vel = NULL, *mass = NULL;
    if (nbody_load_bodies(&a, &n, &pos, &vel, &mass) != 0)
        return 1;
    int reference = !strcmp(a.engine, "reference");
    /* output paths are checked (and claimed) before computing */
    cli_outputs out;
    cli_outputs_init(&out, "nbody");
    nbody_paths paths;
    if (nbody_claim_outputs(&a, &out, &paths)) {
        cli_outputs_free(&out);
        free(pos);
        free(vel);
        free(mass);
        return 1;
    }
    nbody_print_header(&a, n);
    double energy[4] = {0, 0, 0, 0}; /* kinetic, potential at the start; at the end */
    double t0 = cli_now(), force_seconds = 0, median = 0;
    long evaluations = 0;
    int rc = 0;
    if (reference)
        run_reference(&a, n, pos, vel, mass, energy, &force_seconds, &median, &evaluations);
    else
        rc = run_opencl(&a, n, pos, vel, mass, energy, &force_seconds, &median, &evaluations);
    if (evaluations == -1)
        fprintf(stderr, "streamcl nbody: out of host memory\n");
    if (evaluations < 0)
        rc = 1;
    double wall = cli_now() - t0;
    if (rc == 0 && !nbody_energy_finite(energy))
        rc = 1;
    if (rc == 0)
        print_summary(reference, n, energy, median, evaluations, force_seconds, wall);
    if (rc == 0)
        rc = nbody_write_outputs(&a, &paths, &out, n, pos, vel, mass);
    cli_outputs_free(&out);
    free(pos);
    free(vel);
    free(mass);
    return rc;
}
