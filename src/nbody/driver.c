/* The n-body driver: bodies on the device in structure-of-arrays form, a tuned
 * launch plan (V, work-group, tile), leapfrog steps as two kernels per step. */
#include "core/fail.h"
#include "streamcl/nbody.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bodies are padded to a multiple of the largest V*wg and tile among the
 * candidates, so every plan fits the same buffers. */
#define PAD_MULTIPLE 8192
#define MAX_BODIES (1u << 28)
#define NFIELDS 10
#define MAX_PENDING 256

enum { FX, FY, FZ, FM, FVX, FVY, FVZ, FAX, FAY, FAZ };
static const char *field_names[NFIELDS] = {"nbody x",  "nbody y",  "nbody z",  "nbody m",
                                           "nbody vx", "nbody vy", "nbody vz", "nbody ax",
                                           "nbody ay", "nbody az"};

/* One compiled launch shape: its three kernels. */
typedef struct {
    int V, wg, tile;
    scl_kernel *accel, *kick_drift, *potential;
} variant;

struct scl_nbody {
    scl_context *ctx;
    double G, eps, dt;
    scl_nbody_precision precision;
    size_t n, cap, real_size;
    scl_stream *f[NFIELDS];
    scl_stream *phi; /* potentials: double where the device has fp64 */
    /* the sources of a run over ranks (x, y, z, m of all src_n bodies, zero
     * padded as f's), or NULL: the owned bodies are the sources */
    scl_stream *src[4];
    size_t src_n;
    double *mass;    /* host copy, for the energies */
    scl_plan *plan;  /* (V, wg, tile), tuned; its variant holds the kernels */
    const variant *var;
    /* what the plan's step evaluates: owned bodies, j-body limit, kick */
    size_t run_bodies, run_nj_limit;
    double run_half_dt;
    scl_event *run_event;
    scl_event pending[MAX_PENDING]; /* force launches not yet timed */
    int npending;
    double *force_times; /* device seconds of each timed force evaluation */
    long force_count, force_cap;
};

static void variant_free(void *user, void *var)
{
    (void)user;
    variant *v = var;
    if (!v)
        return;
    scl_kernel_free(v->accel);
    scl_kernel_free(v->kick_drift);
    scl_kernel_free(v->potential);
    free(v);
}

/* The plan's variant for (V, wg, tile): its program built with them compiled
 * in. SCL_ERR_UNSUPPORTED: the device cannot run this shape. */
static scl_status variant_make(void *user, const int *values, void **out)
{
    scl_nbody *nb = user;
    scl_context *ctx = nb->ctx;
    const scl_device_info *dev = scl_device(ctx);
    int V = values[0], wg = values[1], tile = values[2];
    *out = NULL;
    if (wg < 1 || tile < wg || tile % wg != 0 ||
        (V != 1 && V != 2 && V != 4 && V != 8 && V != 16) ||
        PAD_MULTIPLE % ((size_t)V * (size_t)wg) != 0 || PAD_MULTIPLE % tile != 0 ||
        (uint64_t)tile * 4 * nb->real_size > dev->local_mem)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_nbody_create",
                        "plan V=%d wg=%d tile=%d is not legal on %s (tile a multiple of wg, V "
                        "one of 1 2 4 8 16, V*wg and tile dividing %d)",
                        V, wg, tile, dev->name, PAD_MULTIPLE);
    variant *v = calloc(1, sizeof *v);
    if (!v)
        return scl_fail(ctx, SCL_ERR_MEMORY, "scl_nbody_create", "out of host memory");
    /* -w on CPUs: PoCL's front end warns (-Wpsabi) about the ABI of every
     * float8/float16 value and prints the count on stderr */
    char options[160];
    snprintf(options, sizeof options,
             "-DNBODY_DOUBLE=%d -DV=%d -DWG=%d -DTILE=%d -DNBODY_EXACT=%d%s",
             nb->precision == SCL_NBODY_DOUBLE, V, wg, tile, nb->eps == 0.0,
             dev->is_gpu ? "" : " -w");
    scl_status s = scl_kernel_create(ctx, "nbody", "nbody_accel", options, &v->accel);
    if (s == SCL_OK)
        s = scl_kernel_create(ctx, "nbody", "nbody_kick_drift", options, &v->kick_drift);
    if (s == SCL_OK)
        s = scl_kernel_create(ctx, "nbody", "nbody_potential", options, &v->potential);
    size_t local = (size_t)wg;
    if (s == SCL_OK) /* e.g. too many registers for this work-group */
        s = scl_kernel_check_local(v->accel, 1, &local);
    v->V = V;
    v->wg = wg;
    v->tile = tile;
    *out = v;
    return s;
}

static size_t round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

/* Bind streams to the kernel parameters of the same names (x, vx, ax, ...). */
static scl_status bind_fields(scl_nbody *nb, scl_kernel *k, const int *fields, int count)
{
    static const char *params[NFIELDS] = {"x", "y", "z", "m", "vx", "vy", "vz", "ax", "ay", "az"};
    scl_status s = SCL_OK;
    for (int i = 0; i < count && s == SCL_OK; i++)
        s = scl_kernel_set_stream(k, params[fields[i]], nb->f[fields[i]]);
    return s;
}

/* The arguments both pair kernels take: nj, G, eps^2. */
static scl_status bind_pair_terms(scl_nbody *nb, scl_kernel *k, size_t nj)
{
    scl_status s = scl_kernel_set_uint(k, "nj", (unsigned)nj);
    if (s == SCL_OK)
        s = scl_kernel_set_real(k, "G", nb->G);
    if (s == SCL_OK)
        s = scl_kernel_set_real(k, "eps2", nb->eps * nb->eps);
    return s;
}

/* The force kernel's arguments: the owned bodies, the sources [first,
 * first + count) of src (x, y, z, m), mode (1: start the sum, 2: close it)
 * and the closing kick. */
static scl_status bind_accel(scl_nbody *nb, const variant *v, scl_stream *const src[4],
                             size_t first, size_t count, unsigned mode, double half_dt)
{
    static const int fields[] = {FX, FY, FZ, FAX, FAY, FAZ, FVX, FVY, FVZ};
    static const char *names[4] = {"xj", "yj", "zj", "mj"};
    scl_status s = bind_fields(nb, v->accel, fields, 9);
    for (int c = 0; c < 4 && s == SCL_OK; c++)
        s = scl_kernel_set_stream(v->accel, names[c], src[c]);
    if (s == SCL_OK)
        s = bind_pair_terms(nb, v->accel, count);
    if (s == SCL_OK)
        s = scl_kernel_set_uint(v->accel, "j_first", (unsigned)first);
    if (s == SCL_OK)
        s = scl_kernel_set_uint(v->accel, "mode", mode);
    if (s == SCL_OK)
        s = scl_kernel_set_real(v->accel, "half_dt", half_dt);
    return s;
}

/* The plan's step: one force evaluation of the variant over the first
 * run_bodies owned bodies against the first nj of them (at most
 * run_nj_limit), then v += a * run_half_dt. */
static scl_status run_accel(void *user, void *var, const int *values)
{
    (void)values;
    scl_nbody *nb = user;
    const variant *v = var;
    size_t nj = nb->n < nb->run_nj_limit ? nb->n : nb->run_nj_limit;
    scl_status s = bind_accel(nb, v, nb->f + FX, 0, nj, 3, nb->run_half_dt);
    size_t global = round_up(nb->run_bodies, (size_t)v->V * (size_t)v->wg) / (size_t)v->V;
    size_t local = (size_t)v->wg;
    if (s == SCL_OK)
        s = scl_kernel_launch(v->accel, 1, &global, &local, nb->run_event);
    return s;
}

/* ---------------------------------------------------------------- tuning */

/* What the kernels of cl/nbody.cl can take: V a vector width, the work-group
 * and the tile dividing the padding of the body arrays (so that no
 * work-group reads past them). */
static const scl_param_rule nbody_rules[3] = {
    {.min = 1, .max = 16, .pow2 = 1, .why = "the vector width V (1, 2, 4, 8 or 16)"},
    {.divides = PAD_MULTIPLE, .pow2 = 1, .why = "the padding of the body arrays"},
    {.divides = PAD_MULTIPLE, .pow2 = 1, .why = "the padding of the body arrays"},
};

static int nbody_check(void *user, const int *values, char *why, size_t len)
{
    (void)user;
    int V = values[0], wg = values[1], tile = values[2];
    if (tile % wg != 0) {
        snprintf(why, len, "tile=%d must be a multiple of wg=%d (each work-item loads tile/wg "
                 "bodies)", tile, wg);
        return 1;
    }
    if (PAD_MULTIPLE % (V * wg) != 0) {
        snprintf(why, len, "V*wg=%d must divide %d, the padding of the body arrays", V * wg,
                 PAD_MULTIPLE);
        return 1;
    }
    return 0;
}

/* A tile of more than 4 work-groups is legal, but its loaders idle: not timed. */
static int worth_timing(void *user, const int *values)
{
    (void)user;
    return values[2] <= 4 * values[1];
}

static scl_status choose_plan(scl_nbody *nb, const scl_nbody_options *opt)
{
    const scl_device_info *dev = scl_device(nb->ctx);
    /* values[0] of each list is the default when nothing is timed: V=1 with
     * tile = wg = 256 is the GPU Gems shape; CPUs want wide vectors instead.
     * V=16 stays off the GPU list: its registers spill there (seed, sec. 6). */
    static const scl_tune_param gpu[3] = {
        {"V", 4, {1, 2, 4, 8}},
        {"wg", 4, {256, 128, 512, 64}},
        {"tile", 4, {256, 128, 512, 1024}},
    };
    static const scl_tune_param cpu[3] = {
        {"V", 5, {8, 16, 4, 2, 1}},
        {"wg", 2, {16, 64}},
        {"tile", 2, {256, 1024}},
    };
    int bucket = 0;
    for (size_t m = nb->n; m > 1; m >>= 1)
        bucket++;
    char shape[64];
    snprintf(shape, sizeof shape, "%s eps%s n~2^%d",
             nb->precision == SCL_NBODY_DOUBLE ? "double" : "single",
             nb->eps == 0.0 ? "=0" : ">0", bucket);
    /* Time a slice of the full problem: all owned bodies on a GPU (occupancy
     * matters there), 8192 on a CPU, against up to 8192 / 2048 j bodies. */
    nb->run_bodies = dev->is_gpu ? nb->n : (nb->n < 8192 ? nb->n : 8192);
    nb->run_nj_limit = dev->is_gpu ? 8192 : 2048;
    nb->run_half_dt = 0.0;
    nb->run_event = NULL;
    scl_plan_desc desc = {.name = "nbody_accel",
                          .shape = shape,
                          .params = dev->is_gpu ? gpu : cpu,
                          .nparams = 3,
                          .prepare = variant_make,
                          .run_variant = run_accel,
                          .release = variant_free,
                          .user = nb,
                          .worth_timing = worth_timing,
                          .rules = nbody_rules,
                          .check = nbody_check};
    scl_tune_options topt = {.no_tune = !opt->tune, .repeats = 3, .force = opt->force};
    scl_status s = scl_plan_create(nb->ctx, &desc, &topt, &nb->plan);
    if (s == SCL_OK)
        nb->var = scl_plan_variant(nb->plan);
    /* from now on the step is the real force evaluation */
    nb->run_bodies = nb->n;
    nb->run_nj_limit = nb->cap;
    return s;
}

/* ---------------------------------------------------------------- lifecycle */

static scl_status check_input(scl_context *ctx, size_t n, const double *pos, const double *vel,
                              const double *mass)
{
    static const char *fn = "scl_nbody_create";
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < 3; c++) {
            if (!isfinite(pos[3 * i + c]))
                return scl_fail(ctx, SCL_ERR_INPUT, fn, "body %zu: position is not finite", i);
            if (!isfinite(vel[3 * i + c]))
                return scl_fail(ctx, SCL_ERR_INPUT, fn, "body %zu: velocity is not finite", i);
        }
        if (!isfinite(mass[i]) || mass[i] < 0)
            return scl_fail(ctx, SCL_ERR_INPUT, fn, "body %zu: mass %g is not finite and >= 0", i,
                            mass[i]);
    }
    return SCL_OK;
}

/* Write one field (component c of a 3-vector array, or the masses when
 * stride is 1) into its padded device stream in the body precision. */
static scl_status upload_field(scl_nbody *nb, int field, const double *src, int stride, int c,
                               void *scratch)
{
    for (size_t i = 0; i < nb->cap; i++) {
        double v = i < nb->n ? src[(size_t)stride * i + (size_t)c] : 0.0;
        if (nb->precision == SCL_NBODY_DOUBLE)
            ((double *)scratch)[i] = v;
        else
            ((float *)scratch)[i] = (float)v;
    }
    return scl_stream_write(nb->f[field], scratch, 1, NULL);
}

static scl_status download_field(scl_nbody *nb, int field, double *dst, int c, void *scratch)
{
    scl_status s = scl_stream_read_range(nb->f[field], 0, nb->n, scratch, 1, NULL);
    for (size_t i = 0; s == SCL_OK && i < nb->n; i++)
        dst[3 * i + (size_t)c] = nb->precision == SCL_NBODY_DOUBLE ? ((double *)scratch)[i]
                                                                  : ((float *)scratch)[i];
    return s;
}

static scl_status time_pending(scl_nbody *nb)
{
    scl_status s = SCL_OK;
    if (nb->force_count + nb->npending > nb->force_cap) {
        long cap = 2 * (nb->force_cap + MAX_PENDING);
        double *t = realloc(nb->force_times, (size_t)cap * sizeof *t);
        if (!t)
            s = scl_fail(nb->ctx, SCL_ERR_MEMORY, "scl_nbody", "out of host memory");
        else {
            nb->force_times = t;
            nb->force_cap = cap;
        }
    }
    for (int i = 0; i < nb->npending; i++) {
        double sec = 0;
        if (s == SCL_OK)
            s = scl_event_seconds(nb->ctx, nb->pending[i], &sec);
        if (s == SCL_OK)
            nb->force_times[nb->force_count++] = sec;
        scl_event_release(nb->pending[i]);
    }
    nb->npending = 0;
    return s;
}

/* A force evaluation over all bodies; timed when the context profiles. */
static scl_status force(scl_nbody *nb, double half_dt)
{
    int timed = scl_profiling(nb->ctx);
    if (timed && nb->npending == MAX_PENDING) {
        scl_status s = time_pending(nb);
        if (s != SCL_OK)
            return s;
    }
    scl_event ev = NULL;
    nb->run_half_dt = half_dt;
    nb->run_event = timed ? &ev : NULL;
    scl_status s = scl_plan_execute(nb->plan);
    nb->run_event = NULL;
    if (s == SCL_OK && ev)
        nb->pending[nb->npending++] = ev;
    else
        scl_event_release(ev);
    return s;
}

/* The options and the body count (the arguments are not NULL). */
static scl_status check_options(scl_context *ctx, const scl_nbody_options *opt, size_t n)
{
    static const char *fn = "scl_nbody_create";
    if (n == 0 || n > MAX_BODIES)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "body count %zu outside 1..%u", n, MAX_BODIES);
    if (!(opt->dt > 0) || !isfinite(opt->dt))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "time step dt = %g must be positive", opt->dt);
    if (!(opt->eps >= 0) || !isfinite(opt->eps))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "softening eps = %g must be >= 0", opt->eps);
    if (!(opt->G >= 0) || !isfinite(opt->G))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "G = %g must be >= 0", opt->G);
    if (opt->precision != SCL_NBODY_SINGLE && opt->precision != SCL_NBODY_DOUBLE)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "unknown precision %d", (int)opt->precision);
    if (opt->precision == SCL_NBODY_DOUBLE && !scl_device(ctx)->fp64)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn, "double precision: %s has no fp64",
                        scl_device(ctx)->name);
    return SCL_OK;
}

scl_status scl_nbody_create(scl_context *ctx, const scl_nbody_options *opt, size_t n,
                            const double *pos, const double *vel, const double *mass,
                            scl_nbody **out)
{
    static const char *fn = "scl_nbody_create";
    if (out)
        *out = NULL;
    if (!ctx || !opt || !pos || !vel || !mass || !out)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "NULL argument");
    scl_status s = check_options(ctx, opt, n);
    if (s != SCL_OK)
        return s;
    s = check_input(ctx, n, pos, vel, mass);
    if (s != SCL_OK)
        return s;
    scl_nbody *nb = scl_calloc(ctx, 1, sizeof *nb, fn);
    if (!nb)
        return SCL_ERR_MEMORY;
    nb->ctx = ctx;
    nb->G = opt->G > 0 ? opt->G : 1.0;
    nb->eps = opt->eps;
    nb->dt = opt->dt;
    nb->precision = opt->precision;
    nb->n = n;
    nb->cap = round_up(n, PAD_MULTIPLE);
    nb->mass = malloc(n * sizeof *nb->mass);
    if (!nb->mass)
        s = scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    else
        memcpy(nb->mass, mass, n * sizeof *nb->mass);
    nb->real_size = opt->precision == SCL_NBODY_DOUBLE ? sizeof(double) : sizeof(float);
    scl_type t = opt->precision == SCL_NBODY_DOUBLE ? SCL_DOUBLE : SCL_FLOAT;
    for (int i = 0; i < NFIELDS && s == SCL_OK; i++)
        s = scl_stream_create(ctx, field_names[i], t, nb->cap, 1, 1, 0, &nb->f[i]);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "nbody phi", scl_device(ctx)->fp64 ? SCL_DOUBLE : SCL_FLOAT,
                              nb->cap, 1, 1, 0, &nb->phi);
    void *scratch = s == SCL_OK ? malloc(nb->cap * sizeof(double)) : NULL;
    if (s == SCL_OK && !scratch)
        s = scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    for (int c = 0; c < 3 && s == SCL_OK; c++) {
        s = upload_field(nb, FX + c, pos, 3, c, scratch);
        if (s == SCL_OK)
            s = upload_field(nb, FVX + c, vel, 3, c, scratch);
    }
    if (s == SCL_OK)
        s = upload_field(nb, FM, mass, 1, 0, scratch);
    free(scratch);
    if (s == SCL_OK)
        s = choose_plan(nb, opt);
    /* the tuner wrote partial sums into a: compute the real initial forces;
     * zero the velocity kick so that v stays as given */
    if (s == SCL_OK)
        s = force(nb, 0.0);
    if (s == SCL_OK)
        s = scl_finish(ctx);
    if (s != SCL_OK) {
        scl_nbody_free(nb);
        return s;
    }
    *out = nb;
    return SCL_OK;
}

void scl_nbody_free(scl_nbody *nb)
{
    if (!nb)
        return;
    for (int i = 0; i < nb->npending; i++)
        scl_event_release(nb->pending[i]);
    scl_plan_free(nb->plan);
    for (int i = 0; i < NFIELDS; i++)
        scl_stream_free(nb->f[i]);
    scl_stream_free(nb->phi);
    scl_streams_free(nb->src, 4);
    free(nb->mass);
    free(nb->force_times);
    free(nb);
}

/* ---------------------------------------------------------------- stepping */

/* Queue the opening half kick and drift of the owned bodies `steps` times,
 * each followed by a force evaluation over them when force_too is set. */
static scl_status kick_drift(scl_nbody *nb, long steps, int force_too)
{
    static const int fields[] = {FX, FY, FZ, FVX, FVY, FVZ, FAX, FAY, FAZ};
    scl_kernel *k = nb->var->kick_drift;
    scl_status s = bind_fields(nb, k, fields, 9);
    if (s == SCL_OK)
        s = scl_kernel_set_uint(k, "n", (unsigned)nb->n);
    if (s == SCL_OK)
        s = scl_kernel_set_real(k, "half_dt", 0.5 * nb->dt);
    if (s == SCL_OK)
        s = scl_kernel_set_real(k, "dt", nb->dt);
    size_t global = round_up(nb->n, 64), local = 64;
    if (local > scl_device(nb->ctx)->max_work_group)
        local = 1;
    for (long i = 0; i < steps && s == SCL_OK; i++) {
        s = scl_kernel_launch(k, 1, &global, &local, NULL);
        if (s == SCL_OK && force_too)
            s = force(nb, 0.5 * nb->dt);
    }
    return s;
}

scl_status scl_nbody_step(scl_nbody *nb, long steps)
{
    if (!nb || steps < 0)
        return scl_fail(nb ? nb->ctx : NULL, SCL_ERR_ARGUMENT, "scl_nbody_step",
                        "NULL system or negative step count");
    if (nb->src[0])
        return scl_fail(nb->ctx, SCL_ERR_ARGUMENT, "scl_nbody_step",
                        "the system has sources of a run over ranks: step it with "
                        "scl_nbody_drift and scl_nbody_accumulate");
    return kick_drift(nb, steps, 1);
}

/* ---------------------------------------------------------------- blocks */

scl_status scl_nbody_sources_create(scl_nbody *nb, size_t total)
{
    static const char *fn = "scl_nbody_sources_create";
    if (!nb)
        return scl_fail(NULL, SCL_ERR_ARGUMENT, fn, "NULL system");
    if (total < nb->n || total > MAX_BODIES || nb->src[0])
        return scl_fail(nb->ctx, SCL_ERR_ARGUMENT, fn,
                        "%zu sources for %zu owned bodies (at most %u, once per system)", total,
                        nb->n, MAX_BODIES);
    static const char *names[4] = {"nbody source x", "nbody source y", "nbody source z",
                                   "nbody source m"};
    const size_t cap = round_up(total, PAD_MULTIPLE);
    scl_type t = nb->precision == SCL_NBODY_DOUBLE ? SCL_DOUBLE : SCL_FLOAT;
    void *zeros = calloc(cap, nb->real_size);
    scl_status s = zeros ? SCL_OK : scl_fail(nb->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    for (int c = 0; c < 4 && s == SCL_OK; c++) /* the padding: zero masses at the origin */
        if ((s = scl_stream_create(nb->ctx, names[c], t, cap, 1, 1, 0, &nb->src[c])) == SCL_OK)
            s = scl_stream_write(nb->src[c], zeros, 1, NULL);
    free(zeros);
    if (s != SCL_OK) {
        scl_streams_free(nb->src, 4);
        memset(nb->src, 0, sizeof nb->src);
        return s;
    }
    nb->src_n = total;
    return SCL_OK;
}

size_t scl_nbody_block_bytes(const scl_nbody *nb, size_t count)
{
    return nb ? 4 * count * nb->real_size : 0;
}

scl_status scl_nbody_pack(scl_nbody *nb, void *block)
{
    if (!nb || !block)
        return scl_fail(nb ? nb->ctx : NULL, SCL_ERR_ARGUMENT, "scl_nbody_pack", "NULL argument");
    scl_status s = SCL_OK;
    for (int c = 0; c < 4 && s == SCL_OK; c++)
        s = scl_stream_read_range(nb->f[FX + c], 0, nb->n,
                                  (char *)block + (size_t)c * nb->n * nb->real_size, 1, NULL);
    return s;
}

scl_status scl_nbody_put_sources(scl_nbody *nb, size_t first, size_t count, const void *block)
{
    static const char *fn = "scl_nbody_put_sources";
    if (!nb || !block)
        return scl_fail(nb ? nb->ctx : NULL, SCL_ERR_ARGUMENT, fn, "NULL argument");
    if (!nb->src[0] || first > nb->src_n || count > nb->src_n - first)
        return scl_fail(nb->ctx, SCL_ERR_ARGUMENT, fn,
                        "sources [%zu, %zu) outside the %zu of scl_nbody_sources_create", first,
                        first + count, nb->src[0] ? nb->src_n : 0);
    scl_status s = SCL_OK;
    for (int c = 0; c < 4 && s == SCL_OK; c++)
        s = scl_stream_write_range(nb->src[c], first, count,
                                   (const char *)block + (size_t)c * count * nb->real_size, 0,
                                   NULL);
    return s;
}

scl_status scl_nbody_accumulate(scl_nbody *nb, size_t first, size_t count, unsigned flags)
{
    static const char *fn = "scl_nbody_accumulate";
    if (!nb)
        return scl_fail(NULL, SCL_ERR_ARGUMENT, fn, "NULL system");
    if (!nb->src[0] || first > nb->src_n || count > nb->src_n - first)
        return scl_fail(nb->ctx, SCL_ERR_ARGUMENT, fn,
                        "sources [%zu, %zu) outside the %zu of scl_nbody_sources_create", first,
                        first + count, nb->src[0] ? nb->src_n : 0);
    const variant *v = nb->var;
    const unsigned mode = (flags & SCL_NBODY_BEGIN ? 1u : 0u) | (flags & SCL_NBODY_CLOSE ? 2u : 0u);
    const double half_dt = flags & SCL_NBODY_KICK ? 0.5 * nb->dt : 0.0;
    scl_status s = bind_accel(nb, v, nb->src, first, count, mode, half_dt);
    size_t global = round_up(nb->n, (size_t)v->V * (size_t)v->wg) / (size_t)v->V;
    size_t local = (size_t)v->wg;
    if (s == SCL_OK)
        s = scl_kernel_launch(v->accel, 1, &global, &local, NULL);
    return s;
}

scl_status scl_nbody_drift(scl_nbody *nb)
{
    if (!nb)
        return scl_fail(NULL, SCL_ERR_ARGUMENT, "scl_nbody_drift", "NULL system");
    return kick_drift(nb, 1, 0);
}

scl_status scl_nbody_read(scl_nbody *nb, double *pos, double *vel, double *acc)
{
    if (!nb)
        return scl_fail(NULL, SCL_ERR_ARGUMENT, "scl_nbody_read", "NULL system");
    void *scratch = malloc(nb->n * sizeof(double));
    if (!scratch)
        return scl_fail(nb->ctx, SCL_ERR_MEMORY, "scl_nbody_read", "out of host memory");
    scl_status s = SCL_OK;
    for (int c = 0; c < 3 && s == SCL_OK; c++) {
        if (pos)
            s = download_field(nb, FX + c, pos, c, scratch);
        if (vel && s == SCL_OK)
            s = download_field(nb, FVX + c, vel, c, scratch);
        if (acc && s == SCL_OK)
            s = download_field(nb, FAX + c, acc, c, scratch);
    }
    free(scratch);
    return s;
}

/* The sources the kernels read: those of a run over ranks, else the owned
 * bodies. */
static scl_stream *const *sources(const scl_nbody *nb, size_t *count)
{
    *count = nb->src[0] ? nb->src_n : nb->n;
    return nb->src[0] ? nb->src : nb->f + FX;
}

scl_status scl_nbody_potentials(scl_nbody *nb, double *phi)
{
    static const char *fn = "scl_nbody_potentials";
    if (!nb || !phi)
        return scl_fail(nb ? nb->ctx : NULL, SCL_ERR_ARGUMENT, fn, "NULL argument");
    const variant *v = nb->var;
    static const int fields[] = {FX, FY, FZ, FM};
    static const char *names[4] = {"xj", "yj", "zj", "mj"};
    size_t nsrc;
    scl_stream *const *src = sources(nb, &nsrc);
    scl_status s = bind_fields(nb, v->potential, fields, 4);
    for (int c = 0; c < 4 && s == SCL_OK; c++)
        s = scl_kernel_set_stream(v->potential, names[c], src[c]);
    if (s == SCL_OK)
        s = scl_kernel_set_stream(v->potential, "phi", nb->phi);
    if (s == SCL_OK) /* the padding's zero masses add nothing */
        s = bind_pair_terms(nb, v->potential, round_up(nsrc, (size_t)v->tile));
    size_t global = round_up(nb->n, (size_t)v->wg), local = (size_t)v->wg;
    if (s == SCL_OK)
        s = scl_kernel_launch(v->potential, 1, &global, &local, NULL);
    if (s == SCL_OK) /* float where the device has no fp64: widened in place */
        s = scl_stream_read_range(nb->phi, 0, nb->n, phi, 1, NULL);
    if (s == SCL_OK && scl_stream_type(nb->phi) != SCL_DOUBLE)
        for (size_t i = nb->n; i-- > 0;)
            phi[i] = ((const float *)phi)[i];
    return s;
}

void scl_nbody_energy_sum(size_t n, const double *vel, const double *mass, const double *phi,
                          double *kinetic, double *potential)
{
    double kin = 0, pot = 0;
    for (size_t i = 0; i < n; i++) {
        const double *u = vel + 3 * i;
        kin += 0.5 * mass[i] * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        pot += 0.5 * mass[i] * phi[i]; /* each pair appears in phi_i and phi_j */
    }
    *kinetic = kin;
    *potential = pot;
}

scl_status scl_nbody_energy(scl_nbody *nb, double *kinetic, double *potential)
{
    static const char *fn = "scl_nbody_energy";
    if (!nb || !kinetic || !potential)
        return scl_fail(nb ? nb->ctx : NULL, SCL_ERR_ARGUMENT, fn, "NULL argument");
    size_t n = nb->n;
    double *buf = malloc(n * sizeof(double) * 4);
    if (!buf)
        return scl_fail(nb->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    double *vel = buf + n;
    scl_status s = scl_nbody_potentials(nb, buf);
    if (s == SCL_OK)
        s = scl_nbody_read(nb, NULL, vel, NULL);
    if (s == SCL_OK)
        scl_nbody_energy_sum(n, vel, nb->mass, buf, kinetic, potential);
    free(buf);
    return s;
}

const scl_plan *scl_nbody_plan(const scl_nbody *nb)
{
    return nb ? nb->plan : NULL;
}

size_t scl_nbody_count(const scl_nbody *nb)
{
    return nb ? nb->n : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

scl_status scl_nbody_force_time(scl_nbody *nb, double *seconds, double *median,
                                long *evaluations)
{
    if (!nb)
        return scl_fail(NULL, SCL_ERR_ARGUMENT, "scl_nbody_force_time", "NULL system");
    scl_status s = time_pending(nb);
    double total = 0, med = 0;
    for (long i = 0; i < nb->force_count; i++)
        total += nb->force_times[i];
    if (s == SCL_OK && nb->force_count > 0) {
        double *sorted = malloc((size_t)nb->force_count * sizeof *sorted);
        if (!sorted)
            return scl_fail(nb->ctx, SCL_ERR_MEMORY, "scl_nbody_force_time", "out of host memory");
        memcpy(sorted, nb->force_times, (size_t)nb->force_count * sizeof *sorted);
        qsort(sorted, (size_t)nb->force_count, sizeof *sorted, cmp_double);
        med = sorted[nb->force_count / 2];
        free(sorted);
    }
    if (seconds)
        *seconds = total;
    if (median)
        *median = med;
    if (evaluations)
        *evaluations = nb->force_count;
    return s;
}
