/* streamcl fdtd: 3D Yee FDTD of a gprMax input file through the offload
 * interface (or the host C reference), receivers to gprMax-style HDF5 / text,
 * field slices as PNG; or a free-space + CPML benchmark (--bench). */
#include "commands.h"
#include "fdtd_bscan.h"
#include "fdtd_cli.h"
#include "mpi_grid.h"
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
            "       mpirun -np R streamcl fdtd INPUT.in -n N --mpi-traces ...\n"
            "       streamcl fdtd --bench NX NY NZ [--steps N] [--pml N] [--fp64] [--engine ...]\n"
            "  INPUT          gprMax input (subset: #title #domain #dx_dy_dz #time_window\n"
            "                 #time_step_stability_factor #material #material_from_database\n"
            "                 #waveform #hertzian_dipole\n"
            "                 #magnetic_dipole #voltage_source #transmission_line #rx #rx_array\n"
            "                 #box #sphere #cylinder #plate #edge #triangle #cylindrical_sector\n"
            "                 #excitation_file #pml_cells #pml_cfs\n"
            "                 #messages #domain_mode #src_steps #rx_steps #geometry_view #snapshot\n"
            "                 #add_dispersion_debye/_lorentz/_drude #soil_peplinski #fractal_box\n"
            "                 #add_surface_roughness #add_grass #geometry_objects_read\n"
            "                 #magnetic_averaging #include_file #omp_threads #study; ## comments);\n"
            "                 a domain one cell thick (or inf with #domain_mode: TM) is 2D TM,\n"
            "                 inf with #domain_mode: TE is 2D TE\n"
            "  -n N           a B-scan of N traces in one process (sources and receivers move\n"
            "                 by #src_steps/#rx_steps, or to a #study's cases: all of them\n"
            "                 without -n): INPUT1.h5 .. INPUTN.h5 and, unless\n"
            "                 --no-merge, INPUT_merged.h5 as gprMax's merge tool writes it\n"
            "  --mpi-traces   under mpirun: -n's traces farmed over the ranks (trace k on\n"
            "                 rank k mod R, one device each), the same files\n"
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
    int fp64, no_tune, slice_axis, slice_index, fused, profile, no_merge, mpi_traces;
    double dt;
} fdtd_args;

/* An option with a value that picks one of a set: 1 taken, -1 bad, 0 not one of these. */
static int parse_choice(const char *o, const char *val, fdtd_args *a)
{
    if (!strcmp(o, "--engine")) {
        if (strcmp(val, "opencl") && strcmp(val, "reference") && strcmp(val, "omp"))
            return fprintf(stderr, "streamcl fdtd: --engine is opencl, reference or omp, got '%s'\n", val), -1;
        a->engine = val;
    } else if (!strcmp(o, "--kernel")) {
        if (strcmp(val, "separate") && strcmp(val, "fused"))
            return fprintf(stderr, "streamcl fdtd: --kernel is separate or fused, got '%s'\n", val), -1;
        a->fused = !strcmp(val, "fused");
    } else if (!strcmp(o, "--field")) {
        static const char *names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
        int ok = 0;
        for (int c = 0; c < 6; c++)
            ok |= !strcmp(val, names[c]);
        if (!ok)
            return fprintf(stderr, "streamcl fdtd: --field is one of Ex Ey Ez Hx Hy Hz, got '%s'\n", val), -1;
        a->field = val;
    } else if (!strcmp(o, "--slice")) {
        long idx;
        if (strlen(val) < 3 || !strchr("xyz", val[0]) || val[1] != '=' ||
            cli_parse_long("fdtd", "--slice", val + 2, 0, 1000000, &idx))
            return fprintf(stderr, "streamcl fdtd: --slice is x=I, y=J or z=K\n"), -1;
        a->slice_axis = val[0] - 'x';
        a->slice_index = (int)idx;
    } else
        return 0;
    return 1;
}

/* An option with a value: a string, a number in its range or a choice. 0
 * taken, -1 bad or unknown. */
static int parse_value(const char *o, const char *val, fdtd_args *a)
{
    const struct {
        const char *name;
        const char **to;
    } strs[] = {{"-o", &a->out},           {"--text", &a->text}, {"--png", &a->png},
                {"--device", &a->device}, {"--radargram", &a->radargram}, {"--plan", &a->plan}};
    const struct {
        const char *name;
        long *to, lo, hi;
    } nums[] = {{"-n", &a->ntraces, 1, 100000},        {"--png-every", &a->png_every, 1, 1L << 30},
                {"--threads", &a->threads, 1, 1024},  {"--steps", &a->steps, 1, 100000000},
                {"--pml", &a->pml, 0, 1000}};
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
        if (!strcmp(o, strs[k].name)) {
            *strs[k].to = val;
            return 0;
        }
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
        if (!strcmp(o, nums[k].name))
            return cli_parse_long("fdtd", o, val, nums[k].lo, nums[k].hi, nums[k].to) ? -1 : 0;
    if (!strcmp(o, "--dt")) {
        if (cli_parse_double("fdtd", o, val, &a->dt) || !(a->dt > 0))
            return fprintf(stderr, "streamcl fdtd: --dt must be positive\n"), -1;
        return 0;
    }
    int c = parse_choice(o, val, a);
    if (c == 0)
        fprintf(stderr, "streamcl fdtd: unknown option '%s'\n", o);
    return c == 1 ? 0 : -1;
}

static int parse_args(int argc, char **argv, fdtd_args *a)
{
    const struct {
        const char *name;
        int *to;
    } flags[] = {{"--fp64", &a->fp64}, {"--profile", &a->profile}, {"--no-tune", &a->no_tune},
                 {"--no-merge", &a->no_merge}, {"--mpi-traces", &a->mpi_traces}};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        int flag = 0;
        if (!strcmp(o, "--help") || !strcmp(o, "-h"))
            return 1;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (!strcmp(o, flags[k].name))
                flag = *flags[k].to = 1;
        if (flag)
            continue;
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
        if (parse_value(o, val, a) != 0)
            return -1;
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

char *fdtd_default_output(const char *input)
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

/* -n's checks on a and m (a B-scan's picture is its radargram), then its
 * driver's arguments in b (*base malloc'ed). 0, or the exit status after
 * printing why not. */
static int bscan_args(fdtd_args *a, const scl_fdtd_model *m, fdtd_bscan_args *b, char **base)
{
    if (m->nsnap > 0)
        return fprintf(stderr, "streamcl fdtd: #snapshot is written by single runs, not by -n\n"), 2;
    if (a->png && !a->radargram)
        a->radargram = a->png;
    else if (a->png)
        return fprintf(stderr, "streamcl fdtd: -n: give --png or --radargram, not both\n"), 2;
    if (a->dt > 0 || a->steps > 0 || a->text || a->profile)
        return fprintf(stderr, "streamcl fdtd: -n runs the model as written: --dt, --steps, "
                               "--text and --profile are for single runs\n"), 2;
    *base = a->out ? strdup(a->out) : fdtd_default_output(a->input);
    if (!*base)
        return fprintf(stderr, "streamcl fdtd: out of memory\n"), 1;
    size_t len = strlen(*base);
    if (len > 3 && !strcmp(*base + len - 3, ".h5"))
        (*base)[len - 3] = '\0'; /* MODEL.h5 -> MODEL1.h5 .. and MODEL_merged.h5 */
    *b = (fdtd_bscan_args){a->input, *base, a->device, a->plan, a->engine ? a->engine : "opencl",
                           a->radargram, (int)a->ntraces, !a->no_merge, a->fp64, a->no_tune,
                           a->fused, (int)(a->threads ? a->threads : 1), component(a->field)};
    return 0;
}

static int run_bscan(fdtd_args *a, scl_fdtd_model *m)
{
    fdtd_bscan_args b;
    char *base = NULL;
    int rc = bscan_args(a, m, &b, &base);
    if (rc == 0)
        rc = fdtd_bscan_run(&b, m);
    free(base);
    return rc;
}

/* What one run (not -n) holds between its stages. */
typedef struct {
    fdtd_args *a;
    scl_fdtd_model *m;
    int bench, n[3];
    long iters;
    engine e;
    scl_receivers rx;
    double *field;
    float *plane;
    cli_outputs outs;
    char *out;
    const char *h5_path, *text_path, *engine_name;
} single_run;

/* The checks before a run, and -n's B-scan: the exit status, or -1 to run
 * the model once. */
static int dispatch(fdtd_args *a, scl_fdtd_model *m, int bench)
{
    if (!bench && write_geometry_views(m) != 0)
        return 1;
    if (!bench && a->ntraces > 1)
        return run_bscan(a, m);
    if (!bench && snapshot_dirs(m) != 0)
        return 1;
    if (a->radargram || a->no_merge)
        return fprintf(stderr, "streamcl fdtd: --radargram and --no-merge need -n N with N > 1\n"), 2;
    return -1;
}

/* Outputs are checked before anything is computed: none may be the input
 * or another output; HDF5 needs a regular file. Then the slices' buffers. */
static int setup_outputs(single_run *r)
{
    char err[2048];
    fdtd_args *a = r->a;
    if (!r->bench) {
        cli_input(&r->outs, a->input);
        r->out = a->out ? strdup(a->out) : fdtd_default_output(a->input);
        if (!r->out)
            return fprintf(stderr, "streamcl fdtd: out of memory\n"), 1;
        char target[4096];
        int direct = 0;
        if (scl_output_resolve(r->out, target, sizeof target, &direct, err, sizeof err) == SCL_OK && direct)
            return fprintf(stderr, "streamcl fdtd: -o %s: HDF5 output needs a regular file, not a device or FIFO\n",
                           r->out), 1;
        if (!(r->h5_path = cli_output(&r->outs, r->out)) ||
            (a->text && !(r->text_path = cli_output(&r->outs, a->text))))
            return 1;
    }
    if (!a->png)
        return 0;
    const int *n = r->n;
    char probe[1200];
    snprintf(probe, sizeof probe, "%s/fdtd_000000.png", a->png);
    if (scl_output_path_check(probe, err, sizeof err) != SCL_OK)
        return fprintf(stderr, "streamcl fdtd: --png: %s\n", err), 1;
    if (a->slice_index < 0)
        a->slice_index = n[a->slice_axis] / 2;
    if (a->slice_index > n[a->slice_axis])
        return fprintf(stderr, "streamcl fdtd: --slice %c=%d is outside [0, %d]\n", "xyz"[a->slice_axis],
                       a->slice_index, n[a->slice_axis]), 1;
    r->field = malloc((size_t)scl_grid3d_points(&r->m->grid) * sizeof(double));
    r->plane = malloc((size_t)(n[0] + 1 > n[1] + 1 ? n[0] + 1 : n[1] + 1) *
                      (size_t)((n[1] > n[2] ? n[1] : n[2]) + 1) * sizeof(float) * 2);
    if (!r->field || !r->plane)
        return fprintf(stderr, "streamcl fdtd: out of memory for slices\n"), 1;
    return 0;
}

/* The engine and the receivers; what the tuner measured per CPML variant. */
static int setup_engine(single_run *r)
{
    char err[2048];
    fdtd_args *a = r->a;
    if (!strcmp(r->engine_name, "opencl")) {
        r->e.ctx = cli_context(a->device, a->profile);
        if (!r->e.ctx)
            return 1;
        scl_fdtd_options o = {.fp64 = a->fp64, .no_tune = a->no_tune, .force = a->plan,
                              .kernel = a->fused ? SCL_FDTD_FUSED : SCL_FDTD_SEPARATE};
        if (scl_fdtd_create(r->e.ctx, r->m, &o, &r->e.dev) != SCL_OK)
            return fprintf(stderr, "streamcl fdtd: %s\n", scl_last_error(r->e.ctx)), 1;
    } else {
        int omp = !strcmp(r->engine_name, "omp");
        if (scl_fdtd_host_create(r->m, omp ? a->fp64 : 1, omp ? (int)(a->threads ? a->threads : 1) : 1,
                                 &r->e.host, err, sizeof err) != SCL_OK)
            return fprintf(stderr, "streamcl fdtd: %s\n", err), 1;
    }
    int nser = r->m->nrx + scl_fdtd_model_tlines(r->m); /* receivers, then the lines' V, I */
    if (scl_receivers_create(&r->rx, nser, 6, r->iters, err, sizeof err) != SCL_OK)
        return fprintf(stderr, "streamcl fdtd: %s\n", err), 1;
    if (r->bench && engine_run(&r->e, 2, NULL) != 0) /* warm-up: builds, first launches */
        return 1;
    for (int v = 0; r->e.dev && v < 6; v++) {
        static const char *what[6] = {"slab passes", "inline, edge walks apart", "inline, one kernel",
                                      "shell corrections", "x slabs inline, y/z shell",
                                      "x slabs inline in x edge walks apart, y/z shell"};
        int sh[3], refused;
        size_t limit;
        const char *why;
        double t = scl_fdtd_cpml_variant(r->e.dev, v, sh, &refused, &limit, &why);
        if (t > 0)
            printf("fdtd: tuned cpml=%d (%s): %.4f ms/step = %.2f Gcells/s, work-group %dx%d, %d planes/work-item; "
                   "%d shapes refused, kernel work-group limit %zu\n",
                   v, what[v], 1e3 * t, (double)r->n[0] * r->n[1] * r->n[2] * 1e-9 / t, sh[0], sh[1], sh[2],
                   refused, limit);
        else if (t == 0)
            printf("fdtd: tuned cpml=%d (%s): not run: %s (kernel work-group limit %zu)\n", v, what[v],
                   why, limit);
    }
    if (a->profile && r->e.ctx)
        scl_profile_reset(r->e.ctx); /* the table covers the timed steps only */
    return 0;
}

/* After a chunk: the field checked for non-finite values, and the slice
 * written with --png. *checking: the seconds a plain check took. */
static int after_chunk(single_run *r, long done_steps, int check, double *checking)
{
    char err[2048];
    fdtd_args *a = r->a;
    if (a->png || check) {
        double c0 = cli_now();
        if (engine_get(&r->e, a->png ? component(a->field) : SCL_EZ, r->field) != 0)
            return 1;
        const long np = scl_grid3d_points(&r->m->grid);
        for (long q = 0; q < np; q++)
            if (!isfinite(r->field[q]))
                return fprintf(stderr, "streamcl fdtd: the field is not finite at step %ld (point %ld); "
                                       "stopped, nothing written\n", done_steps, q), 1;
        if (!a->png)
            *checking += cli_now() - c0;
    }
    if (a->png) {
        int w, h;
        scl_grid3d_slice_double(&r->m->grid, r->field, a->slice_axis, a->slice_index, r->plane, &w, &h);
        char name[1200];
        snprintf(name, sizeof name, "%s/fdtd_%06ld.png", a->png, done_steps);
        const char *path = cli_output(&r->outs, name);
        if (!path || scl_png_slice(path, r->plane, w, h, 0, 1, err, sizeof err) != SCL_OK) {
            if (path)
                fprintf(stderr, "streamcl fdtd: %s\n", err);
            return 1;
        }
    }
    return 0;
}

/* The timed steps, in chunks between checks, slices and snapshots; the
 * seconds in *secs (checks left out). */
static int time_steps(single_run *r, double *secs)
{
    fdtd_args *a = r->a;
    const scl_fdtd_model *m = r->m;
    long iters = r->iters;
    cli_progress p;
    cli_progress_start(&p, "fdtd", iters);
    long every = a->png ? a->png_every : r->bench ? iters : (iters > 100 ? iters / 100 : 1);
    /* without slices, one field is checked for non-finite values after chunks
     * 1, 2, 4, 8 ... and at the end: a blow-up stops the run within twice its
     * step count for about log2(100) full-field reads (not in the timing) */
    if (!r->bench && !r->field && !(r->field = malloc((size_t)scl_grid3d_points(&m->grid) * sizeof(double))))
        return fprintf(stderr, "streamcl fdtd: out of memory for the finiteness check\n"), 1;
    long chunks = 0;
    double checking = 0, t0 = cli_now();
    int bad = 0;
    for (long done_steps = 0; done_steps < iters && !bad;) {
        long chunk = iters - done_steps < every ? iters - done_steps : every;
        /* #snapshot: stop at its iteration (E at n dt, H at (n - 1/2) dt) */
        for (int v = 0; v < m->nsnap && !bad; v++) {
            long at = m->snap[v].iteration;
            bad = at == done_steps && take_snapshot(m, &r->e, v) != 0;
            if (at > done_steps && at - done_steps < chunk)
                chunk = at - done_steps;
        }
        if (bad || engine_run(&r->e, chunk, r->e.host ? &r->rx : NULL) != 0)
            break;
        done_steps += chunk;
        cli_progress_update(&p, done_steps);
        const int check = !r->bench && (cli_check_due(&chunks) || done_steps == iters);
        bad = after_chunk(r, done_steps, check, &checking) != 0;
    }
    cli_progress_end(&p);
    if (bad)
        return 1;
    if (r->e.dev && scl_finish(r->e.ctx) != SCL_OK)
        return fprintf(stderr, "streamcl fdtd: %s\n", scl_last_error(r->e.ctx)), 1;
    *secs = cli_now() - t0 - checking;
    return 0;
}

/* The receivers read back and checked, the rates printed, the files written. */
static int finish_run(single_run *r, double secs)
{
    char err[2048];
    fdtd_args *a = r->a;
    const int *n = r->n;
    long iters = r->iters;
    if (r->e.dev && scl_fdtd_read_receivers(r->e.dev, &r->rx) != SCL_OK)
        return fprintf(stderr, "streamcl fdtd: %s\n", scl_last_error(r->e.ctx)), 1;
    /* a non-finite receiver sample means the run blew up: no output */
    for (long i = 0; i < (long)r->rx.n * 6 * r->rx.nt; i++)
        if (!isfinite(r->rx.data[i]))
            return fprintf(stderr, "streamcl fdtd: receiver %ld has a non-finite value at step %ld\n",
                           i / (6 * r->rx.nt) + 1, i % r->rx.nt), 1;
    double cells = (double)n[0] * n[1] * n[2];
    printf("fdtd: %d x %d x %d cells, %ld steps, dt %.6e s, %s%s: %.3f s, %.3f Gcells/s\n", n[0],
           n[1], n[2], iters, r->m->dt, r->engine_name, a->fp64 ? " fp64" : "", secs,
           cells * iters / secs * 1e-9);
    if (r->e.dev) {
        int lx, ly, kz;
        scl_fdtd_work_group(r->e.dev, &lx, &ly, &kz);
        double bpc = scl_fdtd_bytes_per_cell(r->e.dev);
        int inl = scl_fdtd_cpml_inline(r->e.dev);
        printf("fdtd: device %s, %s kernels%s, work-group %dx%d, %d planes/work-item, %.0f bytes/cell update -> %.1f GB/s\n",
               scl_device(r->e.ctx)->name, a->fused ? "fused" : "separate",
               inl < 0 ? "" : inl == 1 ? ", CPML inline (edge walks apart)" : inl == 2 ? ", CPML inline"
               : inl == 3 ? ", CPML shell corrections"
               : inl == 4 ? ", CPML x slabs inline, y/z shell"
               : inl == 5 ? ", CPML x slabs inline (x edge walks apart), y/z shell" : ", CPML slab passes",
               lx, ly, kz, bpc,
               bpc * cells * iters / secs * 1e-9);
    }
    if (a->profile && r->e.ctx)
        scl_profile_report(r->e.ctx, stdout);
    if (r->bench)
        return 0;
    if (scl_fdtd_write_hdf5(r->h5_path, r->m, &r->rx, iters, a->fp64, err, sizeof err) != SCL_OK ||
        (a->text && scl_fdtd_write_text(r->text_path, r->m, &r->rx, iters, err, sizeof err) != SCL_OK))
        return fprintf(stderr, "streamcl fdtd: %s\n", err), 1;
    if (cli_outputs_commit(&r->outs) != 0)
        return 1;
    printf("fdtd: %d receivers -> %s%s%s\n", r->m->nrx, r->out, a->text ? ", " : "", a->text ? a->text : "");
    return 0;
}

/* The options parsed onto their defaults: 0 to run, else the exit status
 * (--help, or a bad option after printing). */
static int take_args(int argc, char **argv, fdtd_args *a)
{
    memset(a, 0, sizeof *a);
    a->png_every = 100;
    a->pml = -1;
    a->slice_axis = 2;
    a->slice_index = -1;
    int rc = parse_args(argc, argv, a);
    if (rc)
        return rc > 0 ? (usage(stdout), 0) : (usage(stderr), 2);
    return -1;
}

int fdtd_bscan_setup(int argc, char **argv, fdtd_bscan_args *b, char **base, scl_fdtd_model *m)
{
    fdtd_args a;
    char err[2048];
    *base = NULL;
    int rc = take_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (a.bench[0] || a.ntraces < 2)
        return fprintf(stderr, "streamcl fdtd: --mpi-traces farms the traces of a B-scan (INPUT -n N, "
                               "N > 1) over the ranks\n"), 2;
    if (scl_fdtd_read_input(a.input, m, err, sizeof err) != SCL_OK)
        return fprintf(stderr, "streamcl fdtd: %s\n", err), 1;
    rc = bscan_args(&a, m, b, base);
    if (rc != 0)
        scl_fdtd_model_free(m);
    return rc ? rc : -1;
}

/* A #study's cases are the traces, as gprMax runs them: all of them unless
 * -n asks for the first N, or a single-run option (--steps --dt --text
 * --profile) for case 1 alone. */
static int study_traces(fdtd_args *a, const scl_fdtd_model *m)
{
    if (m->ncases < 1)
        return 0;
    if (a->ntraces > m->ncases)
        return fprintf(stderr, "streamcl fdtd: -n %ld: the model's #study has %d cases\n", a->ntraces,
                       m->ncases), -1;
    if (a->ntraces == 0 && !(a->steps > 0 || a->dt > 0 || a->text || a->profile))
        a->ntraces = m->ncases;
    return 0;
}

int cmd_fdtd(int argc, char **argv)
{
    fdtd_args a;
    int rc = take_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (a.mpi_traces && cli_mpi_launcher_size() > 0) /* here under mpirun: no MPI built in */
        return fprintf(stderr, "streamcl fdtd: --mpi-traces needs a streamcl built with MPI "
                               "(install libopenmpi-dev and reconfigure)\n"), 2;
    if (a.mpi_traces)
        return fprintf(stderr, "streamcl fdtd: --mpi-traces farms -n's traces over MPI ranks: start "
                               "it under mpirun (mpirun -np R streamcl fdtd INPUT -n N --mpi-traces)\n"), 2;
    char err[2048];
    scl_fdtd_model m;
    int bench = a.bench[0] > 0;
    if (bench ? bench_model(&a, &m) != 0 : scl_fdtd_read_input(a.input, &m, err, sizeof err) != SCL_OK) {
        if (!bench)
            fprintf(stderr, "streamcl fdtd: %s\n", err);
        return 1;
    }
    if (!bench && study_traces(&a, &m) != 0) {
        scl_fdtd_model_free(&m);
        return 2;
    }
    int status = dispatch(&a, &m, bench);
    if (status >= 0) {
        scl_fdtd_model_free(&m);
        return status;
    }
    status = 1;
    single_run r;
    memset(&r, 0, sizeof r);
    r.a = &a;
    r.m = &m;
    r.bench = bench;
    r.engine_name = a.engine ? a.engine : "opencl";
    cli_outputs_init(&r.outs, "fdtd");
    double secs = 0;
    if (a.dt > 0 && scl_fdtd_model_set_dt(&m, a.dt, err, sizeof err) != SCL_OK)
        fprintf(stderr, "streamcl fdtd: --dt: %s\n", err);
    else {
        r.iters = bench ? m.iterations : (a.steps > 0 ? a.steps : m.iterations);
        r.n[0] = m.grid.nx;
        r.n[1] = m.grid.ny;
        r.n[2] = m.grid.nz;
        if (setup_outputs(&r) == 0 && setup_engine(&r) == 0 && time_steps(&r, &secs) == 0)
            status = finish_run(&r, secs);
    }
    cli_outputs_free(&r.outs); /* what was not committed: a failed run leaves nothing */
    scl_receivers_free(&r.rx);
    scl_fdtd_free(r.e.dev);
    scl_fdtd_host_free(r.e.host);
    if (r.e.ctx)
        scl_context_free(r.e.ctx);
    scl_fdtd_model_free(&m);
    free(r.out);
    free(r.field);
    free(r.plane);
    return status;
}
