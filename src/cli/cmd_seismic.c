/* streamcl seismic: 3D elastic velocity–stress FDTD from a run file (or a
 * homogeneous benchmark cube): receiver traces as SEG-Y and CSV, a shot
 * gather and wavefield slices as PNG, cell updates per second. */
#include "commands.h"
#include "mpi_grid.h"
#include "seismic_cli.h"
#include "streamcl/grid3d.h"
#include "streamcl/seismic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: streamcl seismic RUNFILE [options]\n"
            "       streamcl seismic --bench N [--order 2|4] [--steps S] [options]\n"
            "  RUNFILE          the run file (format: include/streamcl/seismic.h, README)\n"
            "  --segy PREFIX    receiver traces as SEG-Y rev 1: PREFIX_vx.sgy, _vy, _vz, _p\n"
            "  --csv FILE       receiver traces as CSV (t, then vx vy vz p per receiver)\n"
            "  --gather FILE    shot gather PNG of --component over receivers and time\n"
            "  --component C    vx, vy, vz (default) or p, for --gather and --png\n"
            "  --png PREFIX     wavefield slices PREFIX_STEP.png every --every steps and at the end\n"
            "  --every N        steps between slices (default: only the end)\n"
            "  --plane A=I      slice plane: x=I, y=I (default: the first source's y) or z=I\n"
            "  --decimate N     keep every N-th sample in SEG-Y/CSV (default 1)\n"
            "  --engine E       opencl (default) or reference (the C code, OpenMP with\n"
            "                   --threads N threads; the CPU baseline)\n"
            "  --tune 0|1       time work-group shapes (default 1; cached per device)\n"
            "  --plan SPEC      fix plan values, e.g. lx=64,ly=4,kz=8,fused=1 (kz: z planes per\n"
            "                   work-item; fused: the interior in one kernel between two\n"
            "                   buffer sets; not with force sources; cpml=1 with fused=0:\n"
            "                   the CPML as a shell pass over the slab cells)\n"
            "  --bench N        no run file: an N^3 homogeneous cube, CPML 10, one explosive\n"
            "                   source, --steps S (default 100), --order (default 4),\n"
            "                   --precision single|double, --pml W (CPML width, default 10;\n"
            "                   0: rigid walls); prints cell updates per second\n"
            "  --device SPEC    OpenCL device (default: $STREAMCL_DEVICE, else first GPU)\n"
            "  --bench NXxNYxNZ a box instead of the cube\n"
            "under mpirun -np N: slabs along one axis, one rank per device (no --png,\n"
            "--every, --plane, --engine reference):\n"
            "  --decomp PxQxR   ranks along x, y, z (one factor above 1; default: the\n"
            "                   longest axis)\n"
            "  --no-overlap     halo swaps between the updates (default: behind the\n"
            "                   planes that do not read the halo)\n"
            "  --halo shm|mpi   halo planes through a shared memory window between ranks\n"
            "                   of a node, or as MPI messages (default: messages where a\n"
            "                   rank runs on a GPU with fewer than 4 copy threads, the\n"
            "                   window otherwise)\n"
            "  --halo-threads N threads copying the planes in and out of the window\n"
            "                   (default on a GPU: the rank's cores, at most the node's\n"
            "                   over its ranks there, at most 8; on a CPU device 1)\n"
            "  --halo-pieces N  each face's planes as N messages in flight at once, not\n"
            "                   one (MPI messages; default 1)\n"
            "  --verbose        every rank's time per step (host waits, MPI and, from\n"
            "                   OpenCL events, the device's interior, edge, pack, read,\n"
            "                   write and unpack), not rank 0's only\n");
}

/* --bench N (a cube) or NXxNYxNZ, each 24..8192. */
static int parse_bench(const char *v, seis_args *a)
{
    char tail;
    int n = sscanf(v, "%ldx%ldx%ld%c", &a->bench_n[0], &a->bench_n[1], &a->bench_n[2], &tail);
    if (n == 1)
        a->bench_n[1] = a->bench_n[2] = a->bench_n[0];
    for (int q = 0; q < 3; q++)
        if ((n != 1 && n != 3) || a->bench_n[q] < 24 || a->bench_n[q] > 8192)
            return fprintf(stderr, "streamcl seismic: --bench is N or NXxNYxNZ, each 24..8192, got "
                                   "'%s'\n", v), -1;
    a->bench = a->bench_n[0];
    return 0;
}

static long bench_min(const seis_args *a)
{
    long m = a->bench_n[0];
    for (int q = 1; q < 3; q++)
        m = a->bench_n[q] < m ? a->bench_n[q] : m;
    return m;
}

/* --engine, --component, --plane, --precision and --order: a value from a
 * set. 1 taken, -1 bad (after printing), 0 not one of these. */
static int parse_choice(const char *o, const char *val, seis_args *a)
{
    static const char *comps[4] = {"vx", "vy", "vz", "p"};
    if (!strcmp(o, "--engine")) {
        if (strcmp(val, "opencl") && strcmp(val, "reference"))
            return fprintf(stderr, "streamcl seismic: --engine is opencl or reference, got '%s'\n",
                           val), -1;
        a->engine = val;
    } else if (!strcmp(o, "--component")) {
        a->comp = -1;
        for (int q = 0; q < 4; q++)
            if (!strcmp(val, comps[q]))
                a->comp = q;
        if (a->comp < 0)
            return fprintf(stderr, "streamcl seismic: --component is vx, vy, vz or p, got '%s'\n",
                           val), -1;
    } else if (!strcmp(o, "--plane")) {
        if ((val[0] != 'x' && val[0] != 'y' && val[0] != 'z') || val[1] != '=' ||
            cli_parse_long("seismic", o, val + 2, 0, 100000, &a->plane_index))
            return fprintf(stderr, "streamcl seismic: --plane is x=I, y=I or z=I\n"), -1;
        a->plane_axis = val[0] - 'x';
    } else if (!strcmp(o, "--precision")) {
        if (strcmp(val, "single") && strcmp(val, "double"))
            return fprintf(stderr, "streamcl seismic: --precision is single or double, got '%s'\n",
                           val), -1;
        a->fp64 = !strcmp(val, "double");
    } else if (!strcmp(o, "--order")) {
        if (cli_parse_long("seismic", o, val, 2, 4, &a->order) || a->order == 3)
            return fprintf(stderr, "streamcl seismic: --order is 2 or 4\n"), -1;
    } else
        return 0;
    return 1;
}

/* An option with a value: a path or name (str), a number in [lo, hi]
 * (num), --decomp, --halo, --bench or a choice. 0 taken, -1 bad or unknown. */
static int parse_value(const char *o, const char *val, seis_args *a)
{
    const struct {
        const char *name, **str;
        long *num, lo, hi;
    } opts[] = {
        {"--segy", &a->segy, NULL, 0, 0},         {"--csv", &a->csv, NULL, 0, 0},
        {"--gather", &a->gather, NULL, 0, 0},     {"--png", &a->png, NULL, 0, 0},
        {"--device", &a->device, NULL, 0, 0},     {"--plan", &a->plan, NULL, 0, 0},
        {"--every", NULL, &a->every, 1, 1L << 30}, {"--decimate", NULL, &a->decimate, 1, 1L << 20},
        {"--threads", NULL, &a->threads, 1, 4096}, {"--tune", NULL, &a->tune, 0, 1},
        {"--pml", NULL, &a->pml, 0, 100},          {"--steps", NULL, &a->steps, 1, 1L << 30},
        {"--halo-threads", NULL, &a->halo_threads, 1, 256},
        {"--halo-pieces", NULL, &a->halo_pieces, 1, CLI_HALO_MAX_PIECES},
    };
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        if (strcmp(o, opts[k].name))
            continue;
        if (opts[k].str) {
            *opts[k].str = val;
            return 0;
        }
        return cli_parse_long("seismic", o, val, opts[k].lo, opts[k].hi, opts[k].num) ? -1 : 0;
    }
    if (!strcmp(o, "--decomp"))
        return cli_mpi_parse_decomp("seismic", val, a->decomp) ? -1 : 0;
    if (!strcmp(o, "--halo"))
        return cli_mpi_parse_halo("seismic", val, &a->halo_mpi) ? -1 : 0;
    if (!strcmp(o, "--bench"))
        return parse_bench(val, a) ? -1 : 0;
    const int c = parse_choice(o, val, a);
    if (c == 0)
        fprintf(stderr, "streamcl seismic: unknown option '%s'\n", o);
    return c == 1 ? 0 : -1;
}

/* What the options say together: one of a run file and --bench, --pml only
 * with --bench and leaving an interior. 0 or -1 after printing. */
static int check_args(const seis_args *a)
{
    const char *why = NULL;
    if (!a->runfile && !a->bench)
        why = "a run file (or --bench N) is required";
    else if (a->runfile && a->bench)
        why = "give a run file or --bench, not both";
    else if (a->pml >= 0 && !a->bench)
        why = "--pml is for --bench (a run file sets its own)";
    if (why)
        return fprintf(stderr, "streamcl seismic: %s\n", why), -1;
    if (a->pml < 0 || 2 * a->pml + 4 <= bench_min(a))
        return 0;
    if (a->bench_n[1] == a->bench && a->bench_n[2] == a->bench)
        fprintf(stderr, "streamcl seismic: --pml %ld leaves no interior in a %ld^3 cube\n", a->pml,
                a->bench);
    else
        fprintf(stderr, "streamcl seismic: --pml %ld leaves no interior in the %ldx%ldx%ld box\n",
                a->pml, a->bench_n[0], a->bench_n[1], a->bench_n[2]);
    return -1;
}

int seis_parse_args(int argc, char **argv, seis_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h"))
            return 1;
        if (!strcmp(o, "--no-overlap") || !strcmp(o, "--verbose")) {
            *(o[2] == 'n' ? &a->no_overlap : &a->verbose) = 1;
            continue;
        }
        if (o[0] != '-' || !o[1]) {
            if (a->runfile) {
                fprintf(stderr, "streamcl seismic: more than one run file ('%s')\n", o);
                return -1;
            }
            a->runfile = o;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "streamcl seismic: unknown or incomplete option '%s'\n", o);
            return -1;
        }
        if (parse_value(o, argv[++i], a))
            return -1;
    }
    return check_args(a);
}

/* The benchmark box: homogeneous granite-like rock, 10 cells of CPML on all
 * sides (or --pml), an explosive Ricker source in the middle, one receiver
 * 10 cells along x from it. The model holds fill[3] cells (the whole box,
 * or a slab's window), positions are the whole box's. */
int seis_bench_run(const seis_args *a, const int fill[3], scl_seis_run *run)
{
    memset(run, 0, sizeof *run);
    scl_seis_model *m = &run->model;
    m->nx = fill[0];
    m->ny = fill[1];
    m->nz = fill[2];
    m->h = 10;
    if (scl_seis_model_fill(m, 5000, 2900, 2700) != SCL_OK) {
        fprintf(stderr, "streamcl seismic: out of memory for the %dx%dx%d model\n", fill[0],
                fill[1], fill[2]);
        return -1;
    }
    scl_seis_config *c = &run->config;
    c->order = a->order ? (int)a->order : 4;
    c->pml = a->pml >= 0 ? (int)a->pml : 10;
    c->fp64 = a->fp64;
    c->dt = 0.9 * scl_seis_dt_max(m, c->order);
    c->steps = a->steps ? a->steps : 100;
    const int mx = (int)a->bench_n[0] / 2, my = (int)a->bench_n[1] / 2, mz = (int)a->bench_n[2] / 2;
    run->sources[0] = (scl_seis_source){.kind = SCL_SEIS_EXPLOSIVE, .i = mx, .j = my, .k = mz,
                                        .wavelet = {SCL_WAVE_RICKER, 1e9, 2900.0 / (10 * 10 * 2.5), 0, 0}};
    c->sources = run->sources;
    c->nsources = 1;
    run->receivers = calloc(1, sizeof *run->receivers);
    if (!run->receivers)
        return -1;
    run->receivers[0] = (scl_seis_receiver){mx + 10 < a->bench_n[0] ? mx + 10 : mx, my, mz};
    c->receivers = run->receivers;
    c->nreceivers = 1;
    return 0;
}

/* One plane of a natural-order field as floats; returns width and height. */
static void extract_plane(const scl_seis_model *m, const double *f, int axis, int index,
                          float *out, int *w, int *h)
{
    const long nx = m->nx, ny = m->ny;
    if (axis == 2) {
        *w = m->nx;
        *h = m->ny;
        for (long j = 0; j < ny; j++)
            for (long i = 0; i < nx; i++)
                out[i + nx * j] = (float)f[i + nx * (j + ny * index)];
    } else if (axis == 1) {
        *w = m->nx;
        *h = m->nz;
        for (long k = 0; k < m->nz; k++)
            for (long i = 0; i < nx; i++)
                out[i + nx * k] = (float)f[i + nx * (index + ny * k)];
    } else {
        *w = m->ny;
        *h = m->nz;
        for (long k = 0; k < m->nz; k++)
            for (long j = 0; j < ny; j++)
                out[j + ny * k] = (float)f[index + nx * (j + ny * k)];
    }
}

typedef struct {
    scl_seis *dev;
    scl_seis_ref *ref;
} engine;

static int engine_step(engine *e, long steps)
{
    if (e->ref) {
        scl_seis_ref_step(e->ref, steps);
        return 0;
    }
    return scl_seis_step(e->dev, steps) == SCL_OK ? 0 : -1;
}

/* Field for a slice (p from the normal stresses). */
static int engine_field(engine *e, scl_context *ctx, const scl_seis_model *m, int comp, double *out,
                        double *tmp)
{
    const size_t n = (size_t)m->nx * m->ny * m->nz;
    const int first = comp == SCL_SEIS_P ? 3 : comp, count = comp == SCL_SEIS_P ? 3 : 1;
    for (int f = first; f < first + count; f++) {
        double *dst = count == 1 ? out : tmp;
        if (e->ref)
            scl_seis_ref_field(e->ref, f, dst);
        else if (scl_seis_read_field(e->dev, f, dst) != SCL_OK) {
            fprintf(stderr, "streamcl seismic: %s\n", scl_last_error(ctx));
            return -1;
        }
        if (count == 3)
            for (size_t q = 0; q < n; q++)
                out[q] = (f == first ? 0 : out[q]) - tmp[q] / 3;
    }
    return 0;
}

/* A field that is not finite everywhere: the run blew up (say so, -1). */
static int field_blew_up(const double *field, size_t n, long step)
{
    for (size_t q = 0; q < n; q++)
        if (!isfinite(field[q])) {
            fprintf(stderr, "streamcl seismic: the wavefield is not finite at step %ld (cell %zu); "
                    "stopped, nothing written\n", step, q);
            return -1;
        }
    return 0;
}

/* One run on this process: the engine, the slice plane and the buffers for
 * slices and the finiteness check. */
typedef struct {
    const seis_args *a;
    cli_outputs *out;
    const scl_seis_model *m;
    const scl_seis_config *c;
    engine e;
    scl_context *ctx;    /* NULL with the reference engine */
    double *field, *tmp; /* a whole field; tmp: p's parts (slices only) */
    float *plane;        /* one slice */
    int axis, index;     /* the slice plane */
} single_run;

static size_t cells_of(const scl_seis_model *m)
{
    return (size_t)m->nx * m->ny * m->nz;
}

static int write_slice(single_run *r, long step)
{
    const scl_seis_model *m = r->m;
    if (engine_field(&r->e, r->ctx, m, r->a->comp, r->field, r->tmp) != 0 ||
        field_blew_up(r->field, cells_of(m), step))
        return -1;
    int w, h;
    extract_plane(m, r->field, r->axis, r->index, r->plane, &w, &h);
    char name[2048], err[4400];
    snprintf(name, sizeof name, "%s_%06ld.png", r->a->png, step);
    const char *path = cli_output(r->out, name);
    if (!path)
        return -1;
    if (scl_png_slice(path, r->plane, w, h, 0, 1, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl seismic: %s\n", err);
        return -1;
    }
    return 0;
}

/* Receivers across, time down; clipped at the 99th percentile of |value|. */
static int write_gather(const char *path, const scl_seis_config *c, const float *traces, int comp)
{
    const int nr = c->nreceivers;
    const long ns = c->steps, stride = ns > 1000 ? (ns + 999) / 1000 : 1, rows = (ns + stride - 1) / stride;
    const int width = nr * (nr < 200 ? (200 + nr - 1) / nr : 1);
    float *img = malloc((size_t)width * (size_t)rows * sizeof(float));
    float *mag = malloc((size_t)nr * (size_t)rows * sizeof(float));
    if (!img || !mag) {
        free(img);
        free(mag);
        fprintf(stderr, "streamcl seismic: out of memory for the gather\n");
        return -1;
    }
    size_t nm = 0;
    for (int r = 0; r < nr; r++)
        for (long t = 0; t < rows; t++)
            mag[nm++] = fabsf(traces[((size_t)r * SCL_SEIS_NCOMP + (size_t)comp) * (size_t)ns + (size_t)(t * stride)]);
    /* 99th percentile by a partial selection */
    float clip = 0;
    for (size_t q = 0; q < nm; q++)
        if (mag[q] > clip)
            clip = mag[q];
    for (int it = 0; it < 40 && clip > 0; it++) {
        size_t above = 0;
        for (size_t q = 0; q < nm; q++)
            above += mag[q] > 0.7f * clip;
        if (above > nm / 100)
            break;
        clip *= 0.7f;
    }
    for (long t = 0; t < rows; t++)
        for (int x = 0; x < width; x++) {
            const int r = x * nr / width;
            img[(size_t)t * (size_t)width + (size_t)x] =
                traces[((size_t)r * SCL_SEIS_NCOMP + (size_t)comp) * (size_t)ns + (size_t)(t * stride)];
        }
    char err[1024];
    scl_status st = scl_png_slice(path, img, width, (int)rows, clip, 1, err, sizeof err);
    free(img);
    free(mag);
    if (st != SCL_OK) {
        fprintf(stderr, "streamcl seismic: %s\n", err);
        return -1;
    }
    return 0;
}

static const char *component_names[SCL_SEIS_NCOMP] = {"vx", "vy", "vz", "p"};

int seis_register_outputs(const seis_args *a, cli_outputs *out, seis_paths *p)
{
    char path[2048], err[1024];
    memset(p, 0, sizeof *p);
    for (int q = 0; a->segy && q < SCL_SEIS_NCOMP; q++) {
        snprintf(path, sizeof path, "%s_%s.sgy", a->segy, component_names[q]);
        if (!(p->segy[q] = cli_output(out, path)))
            return -1;
    }
    if ((a->csv && !(p->csv = cli_output(out, a->csv))) ||
        (a->gather && !(p->gather = cli_output(out, a->gather))))
        return -1;
    if (a->png) { /* the slices are registered as they are written */
        snprintf(path, sizeof path, "%s_000000.png", a->png);
        if (scl_output_path_check(path, err, sizeof err) != SCL_OK)
            return (fprintf(stderr, "streamcl seismic: %s\n", err), -1);
    }
    return 0;
}

int seis_write_outputs(const seis_args *a, const seis_paths *p, const scl_seis_run *run,
                         const float *traces)
{
    char err[4400];
    const scl_seis_config *c = &run->config;
    for (int q = 0; a->segy && q < SCL_SEIS_NCOMP; q++)
        if (scl_seis_write_segy(p->segy[q], &run->model, c, traces, q, (int)a->decimate, err,
                                sizeof err) != SCL_OK)
            return (fprintf(stderr, "streamcl seismic: %s\n", err), -1);
    if (a->csv && scl_seis_write_csv(p->csv, c, traces, (int)a->decimate, err, sizeof err) != SCL_OK)
        return (fprintf(stderr, "streamcl seismic: %s\n", err), -1);
    if (a->gather && c->nreceivers > 0 && write_gather(p->gather, c, traces, a->comp) != 0)
        return -1;
    return 0;
}

void seis_report_outputs(const seis_args *a, const scl_seis_config *c)
{
    for (int q = 0; a->segy && q < SCL_SEIS_NCOMP; q++)
        printf("wrote %s_%s.sgy\n", a->segy, component_names[q]);
    if (a->csv)
        printf("wrote %s\n", a->csv);
    if (a->gather && c->nreceivers > 0)
        printf("wrote %s\n", a->gather);
}

static void print_setup(const scl_seis_model *m, const scl_seis_config *c)
{
    printf("grid %d x %d x %d, h = %g m, order %d, %s, dt = %g s (CFL %.3f), %ld steps, "
           "%.1f points per minimum wavelength, %d sources, %d receivers, %s, pml %d\n",
           m->nx, m->ny, m->nz, m->h, c->order, c->fp64 ? "fp64" : "fp32", c->dt,
           scl_seis_cfl(m, c), c->steps, scl_seis_points_per_wavelength(m, c), c->nsources,
           c->nreceivers,
           c->free_surface ? "free surface" : c->pml ? "absorbing top" : "rigid top", c->pml);
}

/* The OpenCL engine: its context and solver, then what the tuner chose
 * (set-up seconds since t0). 0, or 1 after printing. */
static int open_device(single_run *r, double t0)
{
    if (!(r->ctx = cli_context(r->a->device, 0)))
        return 1;
    const scl_seis_options opt = {r->a->tune, r->a->plan};
    if (scl_seis_create(r->ctx, r->m, r->c, &opt, &r->e.dev) != SCL_OK) {
        fprintf(stderr, "streamcl seismic: %s\n", scl_last_error(r->ctx));
        return 1;
    }
    const scl_seis *dev = r->e.dev;
    int lx, ly, kz;
    scl_seis_work_group(dev, &lx, &ly, &kz);
    const int fused = scl_seis_fused(dev);
    const char *scheme = fused == 2 ? (scl_seis_lds_early(dev) ? "fused local"
                                                               : "fused local late loads")
                         : fused                  ? "fused"
                         : scl_seis_cpml_shell(dev) ? "separate kernels, CPML shell"
                                                    : "separate kernels";
    printf("device: %s, work-group %dx%d, kz %d, %s, %.0f bytes per cell update (set-up %.2f s)\n",
           scl_device(r->ctx)->name, lx, ly, kz, scheme, scl_seis_bytes_per_cell(dev),
           cli_now() - t0);
    static const char *scheme_name[4] = {"separate", "fused", "fused local",
                                         "separate, CPML shell"};
    for (int q = 0; q < 4; q++) /* what the tuner measured for each scheme */
        if (scl_seis_scheme_seconds(dev, q) > 0)
            printf("tuned %s: %.4f ms per step (device time)\n", scheme_name[q],
                   1e3 * scl_seis_scheme_seconds(dev, q));
    return 0;
}

/* --engine reference (the C code on --threads threads) or the device. 0,
 * or 1 after printing. */
static int open_engine(single_run *r)
{
    const double t0 = cli_now();
    if (!r->a->engine || strcmp(r->a->engine, "reference"))
        return open_device(r, t0);
    const long threads = r->a->threads ? r->a->threads : 1;
    char err[2048];
    if (scl_seis_ref_create(r->m, r->c, (int)threads, &r->e.ref, err, sizeof err) != SCL_OK)
        return fprintf(stderr, "streamcl seismic: %s\n", err), 1;
    printf("engine: C reference, %ld thread(s)\n", threads);
    return 0;
}

/* The slice plane (by default y through the first source) and the buffers:
 * with --png a field, its parts and a plane; else the field that the
 * finiteness check reads (vz needs no parts). 0, or 1 after printing. */
static int prepare_fields(single_run *r)
{
    const seis_args *a = r->a;
    const scl_seis_model *m = r->m;
    const size_t n = cells_of(m);
    r->axis = a->plane_axis;
    r->index = (int)a->plane_index;
    if (a->png) {
        if (a->plane_index < 0) {
            r->axis = 1;
            r->index = r->c->nsources ? r->c->sources[0].j : m->ny / 2;
        }
        const int lim[3] = {m->nx, m->ny, m->nz};
        if (r->index >= lim[r->axis])
            return fprintf(stderr, "streamcl seismic: --plane %c=%d is outside the grid (0..%d)\n",
                           'x' + r->axis, r->index, lim[r->axis] - 1), 1;
        r->tmp = malloc(n * sizeof(double));
        r->plane = malloc(n * sizeof(float));
        if (!r->tmp || !r->plane)
            return fprintf(stderr, "streamcl seismic: out of memory for slices\n"), 1;
    }
    if (!(r->field = malloc(n * sizeof(double))))
        return fprintf(stderr, "streamcl seismic: out of memory for %s\n",
                       a->png ? "slices" : "the finiteness check"), 1;
    return 0;
}

/* The steps in chunks of --every (else a hundredth of the run), a slice
 * after each with --png. The wavefield is checked for non-finite values
 * after chunks 1, 2, 4, 8 ... (and with every slice), so a blow-up stops the
 * run within twice its step count for at most log2(100) full-field reads.
 * *secs: the stepping time without those checks. 0, or 1 after printing. */
static int run_steps(single_run *r, double *secs)
{
    const seis_args *a = r->a;
    const long steps = r->c->steps;
    const long chunk = a->every ? a->every : (steps > 100 ? steps / 100 : 1);
    long chunks = 0;
    double checking = 0;
    int rc = 0;
    cli_progress prog;
    cli_progress_start(&prog, "seismic", steps);
    const double t1 = cli_now();
    for (long done = 0; !rc && done < steps;) {
        const long todo = done + chunk > steps ? steps - done : chunk;
        if (engine_step(&r->e, todo) != 0) {
            fprintf(stderr, "streamcl seismic: %s\n", scl_last_error(r->ctx));
            rc = 1;
            break;
        }
        done += todo;
        cli_progress_update(&prog, done);
        if (a->png && a->every && done % a->every == 0 && done < steps)
            rc = write_slice(r, done) ? 1 : 0;
        else if (cli_check_due(&chunks) || done == steps) {
            const double c0 = cli_now();
            rc = engine_field(&r->e, r->ctx, r->m, SCL_SEIS_VZ, r->field, r->tmp) ||
                 field_blew_up(r->field, cells_of(r->m), done);
            checking += cli_now() - c0;
        }
    }
    cli_progress_end(&prog);
    *secs = cli_now() - t1 - checking;
    return rc;
}

/* Every receiver's traces (scl_seis_traces' layout) into *traces
 * (malloc'ed, nt values). 0, or 1 after printing. */
static int read_traces(single_run *r, size_t nt, float **traces)
{
    if (!(*traces = malloc((nt ? nt : 1) * sizeof(float)))) {
        fprintf(stderr, "streamcl seismic: out of memory for traces\n");
        return 1;
    }
    if (r->e.ref)
        scl_seis_ref_traces(r->e.ref, *traces);
    else if (scl_seis_traces(r->e.dev, *traces) != SCL_OK) {
        fprintf(stderr, "streamcl seismic: %s\n", scl_last_error(r->ctx));
        return 1;
    }
    return 0;
}

/* The largest |value| of the traces; 1 after printing where one is not
 * finite (then nothing is written). */
static int traces_peak(const float *traces, size_t nt, long steps, double *peak)
{
    *peak = 0;
    for (size_t q = 0; q < nt; q++) {
        if (!isfinite(traces[q])) {
            fprintf(stderr, "streamcl seismic: receiver %zu recorded a non-finite value at "
                    "step %zu; nothing written\n",
                    q / (SCL_SEIS_NCOMP * (size_t)steps) + 1, q % (size_t)steps);
            return 1;
        }
        if (fabs(traces[q]) > *peak)
            *peak = fabs(traces[q]);
    }
    return 0;
}

/* After the steps: the rate, the last slice, the traces and the output
 * files (committed together). 0, or 1 after printing. */
static int finish_run(single_run *r, const seis_paths *paths, const scl_seis_run *run,
                      double secs)
{
    const scl_seis_model *m = r->m;
    const scl_seis_config *c = r->c;
    const double cells = (double)m->nx * m->ny * m->nz;
    printf("%ld steps in %.3f s: %.4f Gcells/s\n", c->steps, secs,
           cells * (double)c->steps / secs / 1e9);
    if (r->a->png && write_slice(r, c->steps))
        return 1;
    const size_t nt = (size_t)c->nreceivers * SCL_SEIS_NCOMP * (size_t)c->steps;
    float *traces = NULL;
    double peak = 0;
    int rc = read_traces(r, nt, &traces) || traces_peak(traces, nt, c->steps, &peak);
    if (!rc) {
        printf("peak |receiver value| %.6g\n", peak);
        rc = seis_write_outputs(r->a, paths, run, traces) || cli_outputs_commit(r->out);
        if (!rc)
            seis_report_outputs(r->a, c);
    }
    free(traces);
    return rc;
}

/* The run on one process: set-up line, engine, steps, outputs. */
static int simulate(const seis_args *a, cli_outputs *out, const seis_paths *paths,
                    const scl_seis_run *run)
{
    single_run r = {.a = a, .out = out, .m = &run->model, .c = &run->config};
    print_setup(r.m, r.c);
    double secs = 0;
    const int rc = open_engine(&r) || prepare_fields(&r) || run_steps(&r, &secs) ||
                   finish_run(&r, paths, run, secs);
    free(r.field);
    free(r.tmp);
    free(r.plane);
    scl_seis_ref_free(r.e.ref);
    scl_seis_free(r.e.dev);
    scl_context_free(r.ctx);
    return rc;
}

int cmd_seismic(int argc, char **argv)
{
    seis_args a = SEIS_ARGS_DEFAULT;
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short keeps what it printed */
    const int p = seis_parse_args(argc, argv, &a);
    if (p != 0) {
        usage(p > 0 ? stdout : stderr);
        return p > 0 ? 0 : 2;
    }
    cli_outputs out;
    cli_outputs_init(&out, "seismic");
    seis_paths paths;
    cli_input(&out, a.runfile);
    if (seis_register_outputs(&a, &out, &paths) != 0) {
        cli_outputs_free(&out);
        return 1;
    }
    scl_seis_run run;
    char warn[512] = "", err[2048];
    if (a.bench) {
        const int whole[3] = {(int)a.bench_n[0], (int)a.bench_n[1], (int)a.bench_n[2]};
        if (seis_bench_run(&a, whole, &run) != 0) {
            cli_outputs_free(&out);
            return 1;
        }
    } else if (scl_seis_read_run(a.runfile, &run, warn, sizeof warn, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl seismic: %s\n", err);
        cli_outputs_free(&out);
        return 1;
    }
    if (warn[0])
        fprintf(stderr, "streamcl seismic: warning: %s\n", warn);
    const int rc = simulate(&a, &out, &paths, &run);
    cli_outputs_free(&out); /* what was not committed: a failed run leaves nothing */
    scl_seis_run_release(&run);
    return rc;
}
