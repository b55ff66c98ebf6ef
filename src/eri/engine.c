/* The device engine: pair data and the Boys table uploaded once, the unique
 * tensor in row chunks, integral-direct J/K. Launch shape and Boys variant
 * are plan parameters, timed on a slice of the rows. */
#include "eri_internal.h"
#include "core/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows of the tensor per launch: keeps one launch (and its output buffer)
 * bounded for large systems. */
#define CHUNK_ELEMENTS ((size_t)1 << 25)

typedef struct {
    scl_kernel *tensor, *jk;
    int wg;
} eri_variant;

struct scl_eri {
    scl_context *ctx;
    const scl_eri_system *sys;
    scl_eri_options opt;
    eri_pairs pairs;
    double *schwarz;                 /* host copy */
    scl_stream *geo, *k, *q, *boys, *boys32, *qtype, *qtype32, *fn, *dens, *jacc, *kacc, *out;
    size_t out_elements;
    scl_plan *plan;
    int tuning_rows;                 /* rows a tuning step covers (the last ones) */
    scl_eri_counts counts;           /* of the whole tensor, counted once */
    int homogeneous;                 /* every function has the same exponents */
    scl_tune_param params[4];
};

static void count_quartets(scl_eri *e);

static void variant_free(eri_variant *v)
{
    if (!v)
        return;
    scl_kernel_free(v->tensor);
    scl_kernel_free(v->jk);
    free(v);
}

static scl_status bind_common(scl_eri *e, scl_kernel *k)
{
    scl_status st;
    if ((st = scl_kernel_set_stream(k, "pair_geo", e->geo)) ||
        (st = scl_kernel_set_stream(k, "pair_k", e->k)) ||
        (st = scl_kernel_set_stream(k, "schwarz", e->q)) ||
        (st = scl_kernel_set_stream(k, "boys_table", e->boys)) ||
        (st = scl_kernel_set_stream(k, "qtype", e->qtype)) ||
        (st = scl_kernel_set_int(k, "npair", (int)e->pairs.npair)) ||
        (st = scl_kernel_set_double(k, "threshold", e->opt.schwarz)))
        return st;
    return SCL_OK;
}

/* What the kernels can take (cl/eri.cl): the J/K kernel sums its work-group
 * by halving (a power of two, or the sum silently drops terms), BOYS picks
 * one of three F0 paths, TYPES one of two, VW a vector width of 1, 2 or 4. */
static const scl_param_rule eri_rules[4] = {
    {.min = 1, .max = 1024, .pow2 = 1, .why = "the work-group reductions of cl/eri.cl"},
    {.min = 0, .max = 2, .why = "the Boys F0 path (0 table, 1 erf, 2 registers)"},
    {.min = 0, .max = 1, .why = "the quartet-type table (0 off, 1 on)"},
    {.min = 1, .max = 4, .pow2 = 1, .why = "the row-primitive vector width (1, 2 or 4)"},
};

/* The quartet-type table exists only when every function has the same exponents. */
static int eri_check(void *user, const int *values, char *why, size_t len)
{
    const scl_eri *e = user;
    if (values[2] == 1 && !e->homogeneous) {
        snprintf(why, len, "types=1 needs every basis function to have the same exponents "
                           "(and a small enough table); this basis does not");
        return 1;
    }
    return 0;
}

static scl_status prepare(void *user, const int *values, void **out)
{
    scl_eri *e = user;
    eri_variant *v = calloc(1, sizeof *v);
    if (!v)
        return SCL_ERR_MEMORY;
    v->wg = values[0];
    char opts[160];
    snprintf(opts, sizeof opts, "-DWG=%d -DNPP=%zu -DBOYS=%d -DTYPES=%d -DVW=%d -DERI_FP32=%d",
             values[0], e->pairs.npp, values[1], values[2], values[3],
             e->opt.precision == SCL_PREC_SINGLE);
    scl_status st = scl_kernel_create(e->ctx, "eri", "eri_tensor", opts, &v->tensor);
    if (st == SCL_OK)
        st = bind_common(e, v->tensor);
    if (st == SCL_OK)
        st = scl_kernel_set_stream(v->tensor, "out", e->out);
    if (st == SCL_OK)
        st = scl_kernel_set_stream(v->tensor, "boys_table32", e->boys32);
    if (st == SCL_OK)
        st = scl_kernel_set_stream(v->tensor, "qtype32", e->qtype32);
    if (st == SCL_OK) {
        size_t local[2] = {(size_t)v->wg, 1};
        st = scl_kernel_check_local(v->tensor, 2, local);
    }
    if (st == SCL_OK && e->opt.precision == SCL_PREC_DOUBLE) {
        char jopts[160];
        snprintf(jopts, sizeof jopts, "-DWG=%d -DNPP=%zu -DBOYS=%d -DTYPES=%d -DVW=%d -DERI_FP32=0",
                 values[0], e->pairs.npp, values[1], values[2], values[3]);
        st = scl_kernel_create(e->ctx, "eri", "eri_jk", jopts, &v->jk);
        if (st == SCL_OK)
            st = bind_common(e, v->jk);
        if (st == SCL_OK)
            st = scl_kernel_set_stream(v->jk, "pair_fn", e->fn);
        if (st == SCL_OK)
            st = scl_kernel_set_stream(v->jk, "density", e->dens);
        if (st == SCL_OK)
            st = scl_kernel_set_int(v->jk, "n", (int)e->sys->nfunc);
        if (st == SCL_OK)
            st = scl_kernel_set_stream(v->jk, "jacc", e->jacc);
        if (st == SCL_OK)
            st = scl_kernel_set_stream(v->jk, "kacc", e->kacc);
        if (st == SCL_OK) {
            size_t local[2] = {(size_t)v->wg, 1};
            st = scl_kernel_check_local(v->jk, 2, local);
        }
    }
    if (st != SCL_OK) {
        variant_free(v);
        /* a compiler that rejects the register-only Boys code leaves the table
         * variant to the tuner (the newest code path; an illegal candidate) */
        return st == SCL_ERR_BUILD && values[1] == 2 ? SCL_ERR_UNSUPPORTED : st;
    }
    *out = v;
    return SCL_OK;
}

static void release(void *user, void *variant)
{
    (void)user;
    variant_free(variant);
}

/* Queue the tensor rows [row0, row1) into the output buffer. */
static scl_status launch_tensor(eri_variant *v, size_t row0, size_t row1, scl_event *ev)
{
    scl_status st;
    size_t base = row0 * (row0 + 1) / 2;
    if ((st = scl_kernel_set_int(v->tensor, "row0", (int)row0)) ||
        (st = scl_kernel_set_long(v->tensor, "out_base", (long long)base)))
        return st;
    size_t wg = (size_t)v->wg;
    size_t global[2] = {(row1 + wg - 1) / wg * wg, row1 - row0};
    size_t local[2] = {wg, 1};
    return scl_kernel_launch(v->tensor, 2, global, local, ev);
}

static scl_status run(void *user, void *variant, const int *values)
{
    (void)values;
    scl_eri *e = user;
    size_t np = e->pairs.npair;
    return launch_tensor(variant, np - (size_t)e->tuning_rows, np, NULL);
}

/* Largest row1 such that rows [row0, row1) fit in max_elements outputs. */
static size_t chunk_end(size_t row0, size_t npair, size_t max_elements)
{
    size_t row1 = row0 + 1;
    while (row1 < npair && (row1 + 1) * (row1 + 2) / 2 - row0 * (row0 + 1) / 2 <= max_elements)
        row1++;
    return row1;
}

void scl_eri_options_default(scl_eri_options *o)
{
    *o = (scl_eri_options){.schwarz = 0, .precision = SCL_PREC_DOUBLE, .tune = 0, .force = NULL};
}

static scl_status check_system(scl_context *ctx, const scl_eri_system *sys,
                               const scl_eri_options *o)
{
    if (!sys || sys->nfunc == 0)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_eri_create", "empty system");
    if (o->precision != SCL_PREC_DOUBLE && o->precision != SCL_PREC_SINGLE)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_eri_create",
                        "precision %d: double (integrals, J/K, SCF) or single (integrals only)",
                        (int)o->precision);
    if (!(o->schwarz >= 0) || !isfinite(o->schwarz))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_eri_create",
                        "Schwarz threshold %g: must be finite and >= 0", o->schwarz);
    if (!scl_device(ctx)->fp64)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_eri_create",
                        "device %s has no double precision (the integrals need fp64)",
                        scl_device(ctx)->name);
    if (sys->nfunc > 46000)
        return scl_fail(ctx, SCL_ERR_TOO_LARGE, "scl_eri_create",
                        "%zu functions: pair indices must fit an int (at most 46000)", sys->nfunc);
    return SCL_OK;
}

/* The host tables the device streams are filled from. */
typedef struct {
    double *geo, *types;
    float *types32;
    int *fn;
    size_t ntypes;
} host_tables;

static void host_tables_free(host_tables *h)
{
    free(h->geo);
    free(h->fn);
    free(h->types);
    free(h->types32);
}

/* Pair geometry, function indices, Schwarz bounds and (one exponent set for
 * all functions) the quartet-type table; -1 when out of memory. */
static int fill_host_tables(scl_eri *e, host_tables *h)
{
    const scl_eri_system *sys = e->sys;
    size_t np = e->pairs.npair, npp = e->pairs.npp, n = sys->nfunc, total = np * npp;
    e->schwarz = malloc(np * sizeof *e->schwarz);
    h->geo = malloc(total * 4 * sizeof *h->geo);
    h->fn = malloc(np * 2 * sizeof *h->fn);
    /* one exponent set for all functions: primitive pair m = (a, b) has the same
     * p everywhere, so quartet types (pq/(p+q), 1/sqrt(p+q)) form an npp^2 table */
    e->homogeneous = npp * npp * sizeof(double) * 2 <= 32768;
    for (size_t f = 1; f < n && e->homogeneous; f++)
        e->homogeneous = sys->func[f].nprim == sys->func[0].nprim &&
                         !memcmp(sys->func[f].exponent, sys->func[0].exponent,
                                 sizeof sys->func[0].exponent);
    h->ntypes = e->homogeneous ? npp * npp : 1;
    double *types = h->types = calloc(2 * h->ntypes, sizeof *types);
    float *types32 = h->types32 = calloc(2 * h->ntypes, sizeof *types32);
    for (size_t a = 0; e->homogeneous && types && types32 && a < npp; a++)
        for (size_t b = 0; b < npp; b++) {
            double p = e->pairs.p[a * np], q = e->pairs.p[b * np];
            types[2 * (b * npp + a)] = p * q / (p + q);
            types[2 * (b * npp + a) + 1] = 1 / sqrt(p + q);
            types32[2 * (b * npp + a)] = (float)types[2 * (b * npp + a)];
            types32[2 * (b * npp + a) + 1] = (float)types[2 * (b * npp + a) + 1];
        }
    if (!e->schwarz || !h->geo || !h->fn || !types || !types32)
        return -1;
    for (size_t ij = 0; ij < np; ij++) {
        e->schwarz[ij] = sqrt(fabs(eri_pair_quartet(&e->pairs, ij, ij)));
        h->fn[2 * ij] = e->pairs.i[ij];
        h->fn[2 * ij + 1] = e->pairs.j[ij];
    }
    for (size_t m = 0; m < total; m++) {
        h->geo[4 * m] = e->pairs.Px[m];
        h->geo[4 * m + 1] = e->pairs.Py[m];
        h->geo[4 * m + 2] = e->pairs.Pz[m];
        h->geo[4 * m + 3] = e->pairs.p[m];
    }
    return 0;
}

/* The device streams, filled from the host tables. */
static scl_status upload_tables(scl_eri *e, const host_tables *h)
{
    scl_context *ctx = e->ctx;
    size_t np = e->pairs.npair, n = e->sys->nfunc, total = np * e->pairs.npp;
    enum { NBOYS = SCL_ERI_BOYS_POINTS * (SCL_ERI_BOYS_ORDER + 1) };
    float boys32[NBOYS];
    for (int m = 0; m < NBOYS; m++)
        boys32[m] = (float)scl_eri_boys_table()[m];
    size_t unique = np * (np + 1) / 2;
    e->out_elements = unique < CHUNK_ELEMENTS ? unique : CHUNK_ELEMENTS;
    /* a single row can exceed the chunk for huge n; make room for one */
    if (e->out_elements < np)
        e->out_elements = np;
    const unsigned ro = SCL_STREAM_READ_ONLY;
    scl_status st;
    if ((st = scl_stream_create(ctx, "eri.pair_geo", SCL_DOUBLE4, total, 1, 1, ro, &e->geo)) ||
        (st = scl_stream_create(ctx, "eri.pair_k", SCL_DOUBLE, total, 1, 1, ro, &e->k)) ||
        (st = scl_stream_create(ctx, "eri.schwarz", SCL_DOUBLE, np, 1, 1, ro, &e->q)) ||
        (st = scl_stream_create(ctx, "eri.boys", SCL_DOUBLE, NBOYS, 1, 1, ro, &e->boys)) ||
        (st = scl_stream_create(ctx, "eri.boys32", SCL_FLOAT, NBOYS, 1, 1, ro, &e->boys32)) ||
        (st = scl_stream_create(ctx, "eri.qtype", SCL_DOUBLE2, h->ntypes, 1, 1, ro, &e->qtype)) ||
        (st = scl_stream_create(ctx, "eri.qtype32", SCL_FLOAT2, h->ntypes, 1, 1, ro,
                                &e->qtype32)) ||
        (st = scl_stream_create(ctx, "eri.pair_fn", SCL_INT2, np, 1, 1, ro, &e->fn)) ||
        (st = scl_stream_create(ctx, "eri.density", SCL_DOUBLE, n * n, 1, 1, ro, &e->dens)) ||
        (st = scl_stream_create(ctx, "eri.jacc", SCL_DOUBLE, n * n, 1, 1, 0, &e->jacc)) ||
        (st = scl_stream_create(ctx, "eri.kacc", SCL_DOUBLE, n * n, 1, 1, 0, &e->kacc)) ||
        (st = scl_stream_create(ctx, "eri.out", SCL_DOUBLE, e->out_elements, 1, 1,
                                SCL_STREAM_WRITE_ONLY, &e->out)))
        return st;
    if ((st = scl_stream_write(e->geo, h->geo, 1, NULL)) ||
        (st = scl_stream_write(e->k, e->pairs.K, 1, NULL)) ||
        (st = scl_stream_write(e->q, e->schwarz, 1, NULL)) ||
        (st = scl_stream_write(e->boys, scl_eri_boys_table(), 1, NULL)) ||
        (st = scl_stream_write(e->boys32, boys32, 1, NULL)) ||
        (st = scl_stream_write(e->qtype, h->types, 1, NULL)) ||
        (st = scl_stream_write(e->qtype32, h->types32, 1, NULL)) ||
        (st = scl_stream_write(e->fn, h->fn, 1, NULL)))
        return st;
    return SCL_OK;
}

/* The quartet plan: its candidates by device kind, tuned on the last rows. */
static scl_status create_plan(scl_eri *e)
{
    scl_context *ctx = e->ctx;
    size_t np = e->pairs.npair, npp = e->pairs.npp;
    /* tuning step: the last rows, about 2^28 primitive quartets on a GPU
     * (about a millisecond), 2^22 elsewhere */
    const int gpu = scl_device(ctx)->is_gpu;
    const double step = gpu ? 268435456.0 : 4194304.0;
    size_t rows = 1;
    while (rows < np && (double)(rows * np) * (double)(npp * npp) < step)
        rows++;
    e->tuning_rows = (int)rows;
    count_quartets(e);

    e->params[0] = gpu ? (scl_tune_param){"wg", 3, {128, 256, 64}}
                       : (scl_tune_param){"wg", 4, {128, 64, 256, 32}};
    /* Boys F0: registers only (2) or the table (0). On GPUs the table's per-
     * lane gathers (~19 distinct rows per warp) bound it by L1 throughput; on
     * PoCL the table was 2.6x faster (1.0e8 against 4.0e7/s, 3x3x2), so only
     * GPUs time both. erf (1) is no candidate: more FP64 work than 2 on GPUs,
     * ~100x slower than the table on PoCL. */
    e->params[1] = gpu ? (scl_tune_param){"boys", 2, {2, 0}} : (scl_tune_param){"boys", 1, {0}};
    /* the quartet-type table replaces a square root per primitive quartet by a
     * broadcast constant load: timed against it on CPUs only */
    e->params[2] = !e->homogeneous ? (scl_tune_param){"types", 1, {0}}
                   : gpu           ? (scl_tune_param){"types", 1, {1}}
                                   : (scl_tune_param){"types", 2, {1, 0}};
    /* row primitives per Boys evaluation: on GPUs each polynomial coefficient
     * costs two uniform moves per use, and the SASS count for sm_90 (ptxas
     * 13.0) puts width 2 at ~106 issue cycles per warp-quartet against ~94 on
     * the FP64 pipe, width 4 at ~97 against ~94: 4 first, 2 timed beside it.
     * PoCL vectorizes across work-items and runs the scalar loop (1) fastest
     * (table: 1.0e8 against 2.2e7 and 4.5e7/s at widths 2 and 4, 3x3x2) */
    e->params[3] = gpu ? (scl_tune_param){"vw", 2, {4, 2}} : (scl_tune_param){"vw", 1, {1}};
    char shape[96];
    snprintf(shape, sizeof shape, "npair=%zu npp=%zu %s", np, npp,
             e->opt.precision == SCL_PREC_SINGLE ? "fp32" : "fp64");
    scl_plan_desc desc = {
        .name = "eri.quartets",
        .shape = shape,
        .params = e->params,
        .nparams = 4,
        .prepare = prepare,
        .run_variant = run,
        .release = release,
        .user = e,
        .rules = eri_rules,
        .check = eri_check,
    };
    scl_tune_options topt = {.no_tune = !e->opt.tune, .repeats = 0, .force = e->opt.force};
    return scl_plan_create(ctx, &desc, &topt, &e->plan);
}

scl_status scl_eri_create(scl_context *ctx, const scl_eri_system *sys, const scl_eri_options *opt,
                          scl_eri **out)
{
    *out = NULL;
    if (!ctx)
        return SCL_ERR_ARGUMENT;
    scl_eri_options o;
    if (opt)
        o = *opt;
    else
        scl_eri_options_default(&o);
    scl_status st = check_system(ctx, sys, &o);
    if (st != SCL_OK)
        return st;
    scl_eri *e = scl_calloc(ctx, 1, sizeof *e, "scl_eri_create");
    if (!e)
        return SCL_ERR_MEMORY;
    e->ctx = ctx;
    e->sys = sys;
    e->opt = o;
    st = eri_pairs_build(sys, &e->pairs);
    if (st != SCL_OK) {
        free(e);
        return scl_fail(ctx, st, "scl_eri_create", "no host memory for the primitive pairs");
    }
    if (e->pairs.npp > 256) {
        scl_eri_free(e);
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_eri_create",
                        "%zu primitive pairs per function pair: at most 256 (16 primitives)",
                        e->pairs.npp);
    }
    host_tables h = {0};
    if (fill_host_tables(e, &h) != 0) {
        host_tables_free(&h);
        scl_eri_free(e);
        return scl_fail(ctx, SCL_ERR_MEMORY, "scl_eri_create", "out of host memory");
    }
    st = upload_tables(e, &h);
    host_tables_free(&h);
    if (st == SCL_OK)
        st = create_plan(e);
    if (st != SCL_OK) {
        scl_eri_free(e);
        return st;
    }
    *out = e;
    return SCL_OK;
}

void scl_eri_free(scl_eri *e)
{
    if (!e)
        return;
    scl_plan_free(e->plan);
    scl_stream_free(e->geo);
    scl_stream_free(e->k);
    scl_stream_free(e->q);
    scl_stream_free(e->boys);
    scl_stream_free(e->boys32);
    scl_stream_free(e->qtype);
    scl_stream_free(e->qtype32);
    scl_stream_free(e->fn);
    scl_stream_free(e->dens);
    scl_stream_free(e->jacc);
    scl_stream_free(e->kacc);
    scl_stream_free(e->out);
    eri_pairs_free(&e->pairs);
    free(e->schwarz);
    free(e);
}

/* Contracted and primitive quartets that survive screening. */
static void count_quartets(scl_eri *e)
{
    const double *Q = e->schwarz;
    memset(&e->counts, 0, sizeof e->counts);
    for (size_t ij = 0; ij < e->pairs.npair; ij++)
        for (size_t kl = 0; kl <= ij; kl++) {
            e->counts.unique_quartets++;
            if (Q[ij] * Q[kl] < e->opt.schwarz)
                e->counts.screened_quartets++;
            else
                e->counts.primitive_quartets +=
                    (uint64_t)e->pairs.nprim[ij] * (uint64_t)e->pairs.nprim[kl];
        }
}

static scl_status add_event_time(scl_eri *e, scl_event ev, double *total)
{
    double s = 0;
    scl_status st = scl_event_seconds(e->ctx, ev, &s);
    scl_event_release(ev);
    *total += s;
    return st;
}

scl_status scl_eri_tensor(scl_eri *e, double *unique, double *seconds)
{
    eri_variant *v = scl_plan_variant(e->plan);
    size_t np = e->pairs.npair;
    double total = 0;
    for (size_t row0 = 0; row0 < np;) {
        size_t row1 = chunk_end(row0, np, e->out_elements);
        scl_event ev = NULL;
        scl_status st = launch_tensor(v, row0, row1, &ev);
        if (st == SCL_OK)
            st = add_event_time(e, ev, &total);
        if (st == SCL_OK && unique) {
            size_t base = row0 * (row0 + 1) / 2, end = row1 * (row1 + 1) / 2;
            st = scl_stream_read_range(e->out, 0, end - base, unique + base, 1, NULL);
        }
        if (st != SCL_OK)
            return st;
        row0 = row1;
    }
    if (seconds)
        *seconds = total;
    return SCL_OK;
}

scl_status scl_eri_jk(scl_eri *e, const double *D, double *J, double *K, double *seconds)
{
    if (e->opt.precision != SCL_PREC_DOUBLE)
        return scl_fail(e->ctx, SCL_ERR_UNSUPPORTED, "scl_eri_jk",
                        "J/K are built in FP64 only (the engine was made for FP32)");
    eri_variant *v = scl_plan_variant(e->plan);
    size_t n = e->sys->nfunc, np = e->pairs.npair;
    const double zero = 0;
    scl_status st;
    if ((st = scl_stream_write(e->dens, D, 0, NULL)) ||
        (st = scl_stream_fill_range(e->jacc, 0, n * n, &zero, NULL)) ||
        (st = scl_stream_fill_range(e->kacc, 0, n * n, &zero, NULL)))
        return st;
    double total = 0;
    /* rows in slices so that no launch runs for long */
    size_t rows_per = 1;
    while (rows_per < np && rows_per * np < CHUNK_ELEMENTS)
        rows_per++;
    for (size_t row0 = 0; row0 < np; row0 += rows_per) {
        size_t row1 = row0 + rows_per < np ? row0 + rows_per : np;
        size_t wg = (size_t)v->wg;
        size_t global[2] = {(row1 + wg - 1) / wg * wg, row1 - row0};
        size_t local[2] = {wg, 1};
        scl_event ev = NULL;
        if ((st = scl_kernel_set_int(v->jk, "row0", (int)row0)) ||
            (st = scl_kernel_launch(v->jk, 2, global, local, &ev)) ||
            (st = add_event_time(e, ev, &total)))
            return st;
    }
    double *acc = malloc(2 * n * n * sizeof *acc);
    if (!acc)
        return scl_fail(e->ctx, SCL_ERR_MEMORY, "scl_eri_jk", "out of host memory");
    if ((st = scl_stream_read(e->jacc, acc, 1, NULL)) ||
        (st = scl_stream_read(e->kacc, acc + n * n, 1, NULL))) {
        free(acc);
        return st;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            J[i * n + j] = 0.5 * (acc[i * n + j] + acc[j * n + i]);
            K[i * n + j] = 0.5 * (acc[n * n + i * n + j] + acc[n * n + j * n + i]);
        }
    free(acc);
    if (seconds)
        *seconds = total;
    return SCL_OK;
}

scl_eri_counts scl_eri_last_counts(const scl_eri *e)
{
    return e->counts;
}

const scl_plan *scl_eri_plan(const scl_eri *e)
{
    return e->plan;
}
