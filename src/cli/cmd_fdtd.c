/* streamcl fdtd: 3D Yee FDTD of a gprMax input file through the offload
 * interface (or the host C reference), receivers to gprMax-style HDF5 / text,
 * field slices as PNG; or a free-space + CPML benchmark (--bench). */
#include "commands.h"
#include "fdtd_bscan.h"
#include "fdtd_mpi.h"
#include "streamcl/fdtd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: streamcl fdtd INPUT.in [-o OUT.h5] [--text FILE] [--png DIR] [--png-every N]\n"
            "                     [--slice x|y|z=INDEX] [--field Ex..Hz] [--fp64] [--dt SECONDS]\n"
            "                     [--engine opencl|reference|omp] [--kernel separate|fused]\n"
            "                     [--threads N] [--no-tune] [--profile]\n"
            "                     [--plan lx=..,ly=..] [--device SPEC]\n"
            "       streamcl fdtd INPUT.in -n N [--no-merge] [--radargram FILE.png] [--field Ez] ...\n"
            "       streamcl fdtd --bench NX NY NZ [--steps N] [--pml N] [--fp64] [--engine ...]\n"
            "  INPUT          gprMax input (subset: #title #domain #dx_dy_dz #time_window\n"
            "                 #time_step_stability_factor #material #waveform #hertzian_dipole\n"
            "                 #magnetic_dipole #voltage_source #rx #rx_array #box #sphere\n"
            "                 #cylinder #plate #edge #triangle #cylindrical_sector\n"
            "                 #excitation_file #pml_cells #pml_cfs\n"
            "                 #messages #domain_mode #src_steps #rx_steps #geometry_view #snapshot\n"
            "                 #add_dispersion_debye/_lorentz/_drude #soil_peplinski #fractal_box);\n"
            "                 a domain one cell thick (or inf with #domain_mode: TM) is 2D TM,\n"
            "                 inf with #domain_mode: TE is 2D TE\n"
            "  -n N           a B-scan of N traces in one process (sources and receivers move\n"
            "                 by #src_steps/#rx_steps): INPUT1.h5 .. INPUTN.h5 and, unless\n"
            "                 --no-merge, INPUT_merged.h5 as gprMax's merge tool writes it\n"
            "  --radargram F  the B-scan of rx1's --field (default Ez) as a PNG (with -n,\n"
            "                 --png F means the same)\n"
            "  -o FILE        receivers as gprMax's HDF5 output (default: INPUT with .h5)\n"
            "  --text FILE    receivers as text columns (time Ex Ey Ez Hx Hy Hz)\n"
            "  --png DIR      field slices DIR/fdtd_NNNNNN.png every --png-every steps\n"
            "                 (default 100), plane --slice (default z=middle), --field (Ez)\n"
            "  --dt SECONDS   time step instead of gprMax's (refused above the Courant limit)\n"
            "  --engine       opencl (default), reference (serial C, double) or omp (C, float,\n"
            "                 --threads N, the CPU baseline)\n"
            "  --kernel       separate H and E kernels (default, 72 B/cell in fp32) or one\n"
            "                 fused kernel between two buffer sets (48 B/cell; PEC box only)\n"
            "  --bench        free space with --pml cells of CPML (default 10), --steps (100);\n"
            "                 prints cell updates per second and the bytes-per-cell model\n"
            "  --profile      print the device time of each kernel over the timed steps\n");
}

typedef struct {
    const char *input, *out, *text, *png, *device, *plan, *engine, *field;
    const char *radargram;
    long png_every, threads, steps, pml, bench[3], ntraces;
    int fp64, no_tune, slice_axis, slice_index, fused, profile, no_merge;
    double dt;
} fdtd_args;

static int parse_args(int argc, char **argv, fdtd_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h"))
            return 1;
        if (!strcmp(o, "--fp64")) {
            a->fp64 = 1;
            continue;
        }
        if (!strcmp(o, "--profile")) {
            a->profile = 1;
            continue;
        }
        if (!strcmp(o, "--no-tune")) {
            a->no_tune = 1;
            continue;
        }
        if (!strcmp(o, "--no-merge")) {
            a->no_merge = 1;
            continue;
        }
        if (o[0] != '-') {
            if (a->input) {
                fprintf(stderr, "streamcl fdtd: more than one input ('%s', '%s')\n", a->input, o);
                return -1;
            }
            a->input = o;
            continue;
        }
        if (!strcmp(o, "--bench")) {
            if (i + 3 >= argc) {
                fprintf(stderr, "streamcl fdtd: --bench needs NX NY NZ\n");
                return -1;
            }
            for (int q = 0; q < 3; q++)
                if (cli_parse_long("fdtd", "--bench", argv[++i], 1, 4096, &a->bench[q]))
                    return -1;
            continue;
        }
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!val) {
            fprintf(stderr, "streamcl fdtd: unknown or incomplete option '%s'\n", o);
            return -1;
        }
        i++;
        if (!strcmp(o, "-o"))
            a->out = val;
        else if (!strcmp(o, "--text"))
            a->text = val;
        else if (!strcmp(o, "--png"))
            a->png = val;
        else if (!strcmp(o, "--device"))
            a->device = val;
        else if (!strcmp(o, "--radargram"))
            a->radargram = val;
        else if (!strcmp(o, "-n")) {
            if (cli_parse_long("fdtd", o, val, 1, 100000, &a->ntraces))
                return -1;
        }
        else if (!strcmp(o, "--plan"))
            a->plan = val;
        else if (!strcmp(o, "--engine")) {
            if (strcmp(val, "opencl") && strcmp(val, "reference") && strcmp(val, "omp")) {
                fprintf(stderr, "streamcl fdtd: --engine is opencl, reference or omp, got '%s'\n", val);
                return -1;
            }
            a->engine = val;
        } else if (!strcmp(o, "--kernel")) {
            if (strcmp(val, "separate") && strcmp(val, "fused")) {
                fprintf(stderr, "streamcl fdtd: --kernel is separate or fused, got '%s'\n", val);
                return -1;
            }
            a->fused = !strcmp(val, "fused");
        } else if (!strcmp(o, "--field")) {
            static const char *names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
            int ok = 0;
            for (int c = 0; c < 6; c++)
                ok |= !strcmp(val, names[c]);
            if (!ok) {
                fprintf(stderr, "streamcl fdtd: --field is one of Ex Ey Ez Hx Hy Hz, got '%s'\n", val);
                return -1;
            }
            a->field = val;
        } else if (!strcmp(o, "--slice")) {
            long idx;
            if (strlen(val) < 3 || !strchr("xyz", val[0]) || val[1] != '=' ||
                cli_parse_long("fdtd", "--slice", val + 2, 0, 1000000, &idx))
                return fprintf(stderr, "streamcl fdtd: --slice is x=I, y=J or z=K\n"), -1;
            a->slice_axis = val[0] - 'x';
            a->slice_index = (int)idx;
        } else if (!strcmp(o, "--png-every")) {
            if (cli_parse_long("fdtd", o, val, 1, 1L << 30, &a->png_every))
                return -1;
        } else if (!strcmp(o, "--threads")) {
            if (cli_parse_long("fdtd", o, val, 1, 1024, &a->threads))
                return -1;
        } else if (!strcmp(o, "--steps")) {
            if (cli_parse_long("fdtd", o, val, 1, 100000000, &a->steps))
                return -1;
        } else if (!strcmp(o, "--pml")) {
            if (cli_parse_long("fdtd", o, val, 0, 1000, &a->pml))
                return -1;
        } else if (!strcmp(o, "--dt")) {
            if (cli_parse_double("fdtd", o, val, &a->dt) || !(a->dt > 0))
                return fprintf(stderr, "streamcl fdtd: --dt must be positive\n"), -1;
        } else {
            fprintf(stderr, "streamcl fdtd: unknown option '%s'\n", o);
            return -1;
        }
    }
    if (!a->input && !a->bench[0]) {
        fprintf(stderr, "streamcl fdtd: no input file (or --bench NX NY NZ)\n");
        return -1;
    }
    return 0;
}

/* The engines behind one interface. */
typedef struct {
    scl_fdtd_host *host;
    scl_fdtd *dev;
    scl_context *ctx;
} engine;

static int engine_run(engine *e, long steps, scl_receivers *rx)
{
    if (e->host) {
        scl_fdtd_host_run(e->host, steps, rx);
        return 0;
    }
    if (scl_fdtd_run(e->dev, steps) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", scl_last_error(e->ctx));
        return -1;
    }
    return 0;
}

static int engine_get(engine *e, int c, double *out)
{
    if (e->host) {
        scl_fdtd_host_get(e->host, c, out);
        return 0;
    }
    if (scl_fdtd_get(e->dev, c, out) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", scl_last_error(e->ctx));
        return -1;
    }
    return 0;
}

static int component(const char *name)
{
    static const char *names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
    for (int c = 0; c < 6; c++)
        if (name && !strcmp(name, names[c]))
            return c;
    return SCL_EZ;
}

/* A free-space box with CPML on every face and a dipole at the centre. */
static int bench_model(const fdtd_args *a, scl_fdtd_model *m)
{
    char err[1024];
    if (scl_fdtd_model_init(m, (int)a->bench[0], (int)a->bench[1], (int)a->bench[2], 1e-3, 1e-3,
                            1e-3, 1.0, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", err);
        return -1;
    }
    for (int f = 0; f < 6; f++)
        m->pml[f] = (int)(a->pml >= 0 ? a->pml : 10);
    m->nwave = 1;
    m->wave = calloc(1, sizeof *m->wave);
    m->nsrc = 1;
    m->src = calloc(1, sizeof *m->src);
    if (!m->wave || !m->src)
        return -1;
    snprintf(m->wave[0].name, sizeof m->wave[0].name, "pulse");
    m->wave[0].w = (scl_wavelet){SCL_WAVE_RICKER, 1, SCL_FDTD_C0 / 20e-3, 0, 0};
    m->src[0] = (scl_fdtd_source){SCL_FDTD_HERTZIAN, 2, {m->grid.nx / 2, m->grid.ny / 2, m->grid.nz / 2},
                                  {0, 0, 0}, 0, 0, -1, 0};
    m->iterations = a->steps > 0 ? a->steps : 100;
    snprintf(m->title, sizeof m->title, "free space %dx%dx%d, CPML %ld", m->grid.nx, m->grid.ny,
             m->grid.nz, a->pml);
    if (scl_fdtd_model_finish(m, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", err);
        return -1;
    }
    return 0;
}

static char *default_output(const char *input)
{
    size_t n = strlen(input);
    char *out = malloc(n + 4);
    if (!out)
        return NULL;
    strcpy(out, input);
    char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (dot && (!slash || dot > slash))
        *dot = '\0';
    strcat(out, ".h5");
    return out;
}

/* Snapshot v from the engine's fields now. */
static int take_snapshot(const scl_fdtd_model *m, engine *e, int v)
{
    long pts = scl_grid3d_points(&m->grid);
    double *buf = malloc(6 * (size_t)pts * sizeof *buf);
    const double *f[6];
    char err[2048];
    int rc = buf ? 0 : -1;
    for (int c = 0; c < 6 && rc == 0; c++) {
        f[c] = buf + (size_t)c * pts;
        rc = engine_get(e, c, buf + (size_t)c * pts);
    }
    if (rc == 0 && scl_fdtd_write_snapshot(m->snap[v].file, m, v, f, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: #snapshot: %s\n", err);
        rc = -1;
    }
    if (!buf)
        fprintf(stderr, "streamcl fdtd: #snapshot: out of memory\n");
    free(buf);
    return rc;
}

/* The directories of the model's snapshots (INPUT_snaps), made if missing. */
static int snapshot_dirs(const scl_fdtd_model *m)
{
    for (int v = 0; v < m->nsnap; v++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", m->snap[v].file);
        char *slash = strrchr(dir, '/');
        if (!slash)
            continue;
        *slash = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "streamcl fdtd: #snapshot: cannot make %s: %s\n", dir, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* The model's #geometry_view files, FILE.vtkhdf, before the run (as gprMax). */
static int write_geometry_views(const scl_fdtd_model *m)
{
    char err[2048];
    for (int v = 0; v < m->ngview; v++) {
        char path[1100];
        snprintf(path, sizeof path, "%s.vtkhdf", m->gview[v].file);
        if (scl_fdtd_write_geometry_view(path, m, v, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: #geometry_view: %s\n", err);
            return -1;
        }
        printf("fdtd: geometry view -> %s\n", path);
    }
    return 0;
}

static int run_bscan(const fdtd_args *a, scl_fdtd_model *m)
{
    char *base = a->out ? strdup(a->out) : default_output(a->input);
    if (!base) {
        fprintf(stderr, "streamcl fdtd: out of memory\n");
        return 1;
    }
    size_t len = strlen(base);
    if (len > 3 && !strcmp(base + len - 3, ".h5"))
        base[len - 3] = '\0'; /* MODEL.h5 -> MODEL1.h5 .. and MODEL_merged.h5 */
    fdtd_bscan_args b = {a->input, base, a->device, a->plan, a->engine ? a->engine : "opencl",
                         a->radargram, (int)a->ntraces, !a->no_merge, a->fp64, a->no_tune,
                         a->fused, (int)(a->threads ? a->threads : 1), component(a->field)};
    int rc = fdtd_bscan_run(&b, m);
    free(base);
    return rc;
}

int cmd_fdtd(int argc, char **argv)
{
    /* under mpirun: the decomposed run (cmd_fdtd_mpi.c) */
    int launched = fdtd_mpi_launched();
    if (launched != 0)
        return launched < 0 ? 1 : cmd_fdtd_mpi(argc, argv);
    fdtd_args a = {0};
    a.png_every = 100;
    a.pml = -1;
    a.slice_axis = 2;
    a.slice_index = -1;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc > 0 ? (usage(stdout), 0) : (usage(stderr), 2);
    char err[2048];
    scl_fdtd_model m;
    int bench = a.bench[0] > 0;
    if (bench ? bench_model(&a, &m) != 0 : scl_fdtd_read_input(a.input, &m, err, sizeof err) != SCL_OK) {
        if (!bench)
            fprintf(stderr, "streamcl fdtd: %s\n", err);
        return 1;
    }
    int status = 1;
    char *out = NULL;
    engine e = {0};
    if (!bench && write_geometry_views(&m) != 0) {
        scl_fdtd_model_free(&m);
        return 1;
    }
    if (!bench && a.ntraces > 1 && m.nsnap > 0) {
        fprintf(stderr, "streamcl fdtd: #snapshot is written by single runs, not by -n\n");
        scl_fdtd_model_free(&m);
        return 2;
    }
    if (!bench && a.ntraces <= 1 && snapshot_dirs(&m) != 0) {
        scl_fdtd_model_free(&m);
        return 1;
    }
    if (!bench && a.ntraces > 1) {
        if (a.png && !a.radargram) /* a B-scan's picture is its radargram */
            a.radargram = a.png;
        else if (a.png) {
            fprintf(stderr, "streamcl fdtd: -n: give --png or --radargram, not both\n");
            scl_fdtd_model_free(&m);
            return 2;
        }
        if (a.dt > 0 || a.steps > 0 || a.text || a.profile) {
            fprintf(stderr, "streamcl fdtd: -n runs the model as written: --dt, --steps, "
                            "--text and --profile are for single runs\n");
            scl_fdtd_model_free(&m);
            return 2;
        }
        status = run_bscan(&a, &m);
        scl_fdtd_model_free(&m);
        return status;
    }
    if (a.radargram || a.no_merge) {
        fprintf(stderr, "streamcl fdtd: --radargram and --no-merge need -n N with N > 1\n");
        scl_fdtd_model_free(&m);
        return 2;
    }
    scl_receivers rx = {0};
    double *field = NULL;
    float *plane = NULL;
    cli_outputs outs;
    cli_outputs_init(&outs, "fdtd");
    const char *h5_path = NULL, *text_path = NULL;
    if (a.dt > 0 && scl_fdtd_model_set_dt(&m, a.dt, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: --dt: %s\n", err);
        goto done;
    }
    long iters = bench ? m.iterations : (a.steps > 0 ? a.steps : m.iterations);
    /* outputs are checked before anything is computed: none may be the input
     * or another output; HDF5 needs a regular file */
    if (!bench) {
        cli_input(&outs, a.input);
        out = a.out ? strdup(a.out) : default_output(a.input);
        if (!out) {
            fprintf(stderr, "streamcl fdtd: out of memory\n");
            goto done;
        }
        char target[4096];
        int direct = 0;
        if (scl_output_resolve(out, target, sizeof target, &direct, err, sizeof err) == SCL_OK && direct) {
            fprintf(stderr, "streamcl fdtd: -o %s: HDF5 output needs a regular file, not a device or FIFO\n",
                    out);
            goto done;
        }
        if (!(h5_path = cli_output(&outs, out)) || (a.text && !(text_path = cli_output(&outs, a.text))))
            goto done;
    }
    int n[3] = {m.grid.nx, m.grid.ny, m.grid.nz};
    if (a.png) {
        char probe[1200];
        snprintf(probe, sizeof probe, "%s/fdtd_000000.png", a.png);
        if (scl_output_path_check(probe, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: --png: %s\n", err);
            goto done;
        }
        if (a.slice_index < 0)
            a.slice_index = n[a.slice_axis] / 2;
        if (a.slice_index > n[a.slice_axis]) {
            fprintf(stderr, "streamcl fdtd: --slice %c=%d is outside [0, %d]\n", "xyz"[a.slice_axis],
                    a.slice_index, n[a.slice_axis]);
            goto done;
        }
        field = malloc((size_t)scl_grid3d_points(&m.grid) * sizeof(double));
        plane = malloc((size_t)(n[0] + 1 > n[1] + 1 ? n[0] + 1 : n[1] + 1) *
                       (size_t)((n[1] > n[2] ? n[1] : n[2]) + 1) * sizeof(float) * 2);
        if (!field || !plane) {
            fprintf(stderr, "streamcl fdtd: out of memory for slices\n");
            goto done;
        }
    }
    const char *engine_name = a.engine ? a.engine : "opencl";
    if (!strcmp(engine_name, "opencl")) {
        e.ctx = cli_context(a.device, a.profile);
        if (!e.ctx)
            goto done;
        scl_fdtd_options o = {.fp64 = a.fp64, .no_tune = a.no_tune, .force = a.plan,
                              .kernel = a.fused ? SCL_FDTD_FUSED : SCL_FDTD_SEPARATE};
        if (scl_fdtd_create(e.ctx, &m, &o, &e.dev) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", scl_last_error(e.ctx));
            goto done;
        }
    } else {
        int omp = !strcmp(engine_name, "omp");
        if (scl_fdtd_host_create(&m, omp ? a.fp64 : 1, omp ? (int)(a.threads ? a.threads : 1) : 1,
                                 &e.host, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", err);
            goto done;
        }
    }
    if (scl_receivers_create(&rx, m.nrx, 6, iters, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", err);
        goto done;
    }
    if (bench && engine_run(&e, 2, NULL) != 0) /* warm-up: builds, first launches */
        goto done;
    for (int v = 0; e.dev && v < 3; v++) { /* what the tuner measured per CPML variant */
        static const char *what[3] = {"slab passes", "inline, edge walks apart", "inline, one kernel"};
        int sh[3], refused;
        size_t limit;
        const char *why;
        double t = scl_fdtd_cpml_variant(e.dev, v, sh, &refused, &limit, &why);
        if (t > 0)
            printf("fdtd: tuned cpml=%d (%s): %.4f ms/step = %.2f Gcells/s, work-group %dx%d, %d planes/work-item; "
                   "%d shapes refused, kernel work-group limit %zu\n",
                   v, what[v], 1e3 * t, (double)n[0] * n[1] * n[2] * 1e-9 / t, sh[0], sh[1], sh[2], refused, limit);
        else if (t == 0)
            printf("fdtd: tuned cpml=%d (%s): not run: %s (kernel work-group limit %zu)\n", v, what[v],
                   why, limit);
    }
    if (a.profile && e.ctx)
        scl_profile_reset(e.ctx); /* the table covers the timed steps only */
    cli_progress p;
    cli_progress_start(&p, "fdtd", iters);
    long every = a.png ? a.png_every : bench ? iters : (iters > 100 ? iters / 100 : 1);
    /* without slices, one field is checked for non-finite values after chunks
     * 1, 2, 4, 8 ... and at the end: a blow-up stops the run within twice its
     * step count for about log2(100) full-field reads (not in the timing) */
    if (!bench && !field && !(field = malloc((size_t)scl_grid3d_points(&m.grid) * sizeof(double)))) {
        fprintf(stderr, "streamcl fdtd: out of memory for the finiteness check\n");
        goto done;
    }
    long chunks = 0;
    double checking = 0;
    double t0 = cli_now();
    for (long done_steps = 0; done_steps < iters;) {
        long chunk = iters - done_steps < every ? iters - done_steps : every;
        /* #snapshot: stop at its iteration (E at n dt, H at (n - 1/2) dt) */
        for (int v = 0; v < m.nsnap; v++) {
            long at = m.snap[v].iteration;
            if (at == done_steps && take_snapshot(&m, &e, v) != 0) {
                cli_progress_end(&p);
                goto done;
            }
            if (at > done_steps && at - done_steps < chunk)
                chunk = at - done_steps;
        }
        if (engine_run(&e, chunk, e.host ? &rx : NULL) != 0)
            goto done;
        done_steps += chunk;
        cli_progress_update(&p, done_steps);
        const int check = !bench && (cli_check_due(&chunks) || done_steps == iters);
        if (a.png || check) {
            double c0 = cli_now();
            if (engine_get(&e, a.png ? component(a.field) : SCL_EZ, field) != 0)
                goto done;
            const long np = scl_grid3d_points(&m.grid);
            for (long q = 0; q < np; q++)
                if (!isfinite(field[q])) {
                    cli_progress_end(&p);
                    fprintf(stderr, "streamcl fdtd: the field is not finite at step %ld (point %ld); "
                            "stopped, nothing written\n", done_steps, q);
                    goto done;
                }
            if (!a.png)
                checking += cli_now() - c0;
        }
        if (a.png) {
            int w, h;
            scl_grid3d_slice_double(&m.grid, field, a.slice_axis, a.slice_index, plane, &w, &h);
            char name[1200];
            snprintf(name, sizeof name, "%s/fdtd_%06ld.png", a.png, done_steps);
            const char *path = cli_output(&outs, name);
            if (!path || scl_png_slice(path, plane, w, h, 0, 1, err, sizeof err) != SCL_OK) {
                cli_progress_end(&p);
                if (path)
                    fprintf(stderr, "streamcl fdtd: %s\n", err);
                goto done;
            }
        }
    }
    if (e.dev && scl_finish(e.ctx) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", scl_last_error(e.ctx));
        goto done;
    }
    double secs = cli_now() - t0 - checking;
    cli_progress_end(&p);
    if (e.dev && scl_fdtd_read_receivers(e.dev, &rx) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", scl_last_error(e.ctx));
        goto done;
    }
    /* a non-finite receiver sample means the run blew up: no output */
    for (long i = 0; i < (long)rx.n * 6 * rx.nt; i++)
        if (!isfinite(rx.data[i])) {
            fprintf(stderr, "streamcl fdtd: receiver %ld has a non-finite value at step %ld\n",
                    i / (6 * rx.nt) + 1, i % rx.nt);
            goto done;
        }
    double cells = (double)n[0] * n[1] * n[2];
    printf("fdtd: %d x %d x %d cells, %ld steps, dt %.6e s, %s%s: %.3f s, %.3f Gcells/s\n", n[0],
           n[1], n[2], iters, m.dt, engine_name, a.fp64 ? " fp64" : "", secs,
           cells * iters / secs * 1e-9);
    if (e.dev) {
        int lx, ly, kz;
        scl_fdtd_work_group(e.dev, &lx, &ly, &kz);
        double bpc = scl_fdtd_bytes_per_cell(e.dev);
        int inl = scl_fdtd_cpml_inline(e.dev);
        printf("fdtd: device %s, %s kernels%s, work-group %dx%d, %d planes/work-item, %.0f bytes/cell update -> %.1f GB/s\n",
               scl_device(e.ctx)->name, a.fused ? "fused" : "separate",
               inl < 0 ? "" : inl == 1 ? ", CPML inline (edge walks apart)" : inl == 2 ? ", CPML inline" : ", CPML slab passes", lx, ly, kz, bpc,
               bpc * cells * iters / secs * 1e-9);
    }
    if (a.profile && e.ctx)
        scl_profile_report(e.ctx, stdout);
    if (!bench) {
        if (scl_fdtd_write_hdf5(h5_path, &m, &rx, iters, a.fp64, err, sizeof err) != SCL_OK ||
            (a.text && scl_fdtd_write_text(text_path, &m, &rx, iters, err, sizeof err) != SCL_OK)) {
            fprintf(stderr, "streamcl fdtd: %s\n", err);
            goto done;
        }
        if (cli_outputs_commit(&outs) != 0)
            goto done;
        printf("fdtd: %d receivers -> %s%s%s\n", m.nrx, out, a.text ? ", " : "", a.text ? a.text : "");
    }
    status = 0;
done:
    cli_outputs_free(&outs); /* what was not committed: a failed run leaves nothing */
    scl_receivers_free(&rx);
    scl_fdtd_free(e.dev);
    scl_fdtd_host_free(e.host);
    if (e.ctx)
        scl_context_free(e.ctx);
    scl_fdtd_model_free(&m);
    free(out);
    free(field);
    free(plane);
    return status;
}
