/* Global reductions: device tree reduction per work-group, host finish in double.
 * Launch shape (work-group size, groups per compute unit) is a tuned plan per
 * kernel and size bucket. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUPS 65536
#define PLAN_SLOTS 64

/* One planned (kernel, size bucket); the stream of the current call is set
 * before the plan runs. */
typedef struct {
    struct scl_reducer *r;
    int kernel; /* index into kernels[] */
    int bucket; /* log2 of the element count */
    scl_plan *plan;
    scl_stream *src;
    size_t n, groups;
} plan_slot;

struct scl_reducer {
    scl_context *ctx;
    scl_kernel *kernels[6]; /* [type*3 + op], type 0 float, 1 double */
    /* per-group partials: double sums (fp64 devices) or compensated float2
     * pairs, float min/max, double min/max */
    scl_stream *partials_sum, *partials_float, *partials_double;
    plan_slot slots[PLAN_SLOTS];
    int nslots;
};

static const char *kernel_names[6] = {"sum_float", "min_float", "max_float",
                                      "sum_double", "min_double", "max_double"};

void scl_reducer_free(struct scl_reducer *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nslots; i++)
        scl_plan_free(r->slots[i].plan);
    for (int i = 0; i < 6; i++)
        scl_kernel_free(r->kernels[i]);
    scl_stream_free(r->partials_sum);
    scl_stream_free(r->partials_float);
    scl_stream_free(r->partials_double);
    free(r);
}

static scl_status reducer_get(scl_context *ctx, struct scl_reducer **out)
{
    if (ctx->reducer) {
        *out = ctx->reducer;
        return SCL_OK;
    }
    struct scl_reducer *r = calloc(1, sizeof *r);
    if (!r)
        return scl_fail(ctx, SCL_ERR_MEMORY, "scl_reduce", "out of host memory");
    r->ctx = ctx;
    int fp64 = ctx->info.fp64;
    scl_status s = SCL_OK;
    for (int i = 0; i < (fp64 ? 6 : 3) && s == SCL_OK; i++)
        s = scl_kernel_create(ctx, "reduce", kernel_names[i], NULL, &r->kernels[i]);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "reduce partials", fp64 ? SCL_DOUBLE : SCL_FLOAT2, MAX_GROUPS,
                              1, 1, 0, &r->partials_sum);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "reduce partials", SCL_FLOAT, MAX_GROUPS, 1, 1, 0,
                              &r->partials_float);
    if (s == SCL_OK && fp64)
        s = scl_stream_create(ctx, "reduce partials", SCL_DOUBLE, MAX_GROUPS, 1, 1, 0,
                              &r->partials_double);
    if (s != SCL_OK) {
        scl_reducer_free(r);
        return s;
    }
    ctx->reducer = r;
    *out = r;
    return SCL_OK;
}

static scl_stream *partials_of(const struct scl_reducer *r, int kernel)
{
    return kernel % 3 == 0 ? r->partials_sum : kernel < 3 ? r->partials_float : r->partials_double;
}

static size_t group_count(const plan_slot *slot, size_t wg, int groups_per_cu)
{
    size_t groups = (size_t)slot->r->ctx->info.compute_units * (size_t)groups_per_cu;
    size_t per_group = 4 * wg; /* below this many elements per group, fewer groups */
    size_t needed = (slot->n + per_group - 1) / per_group;
    if (groups > needed)
        groups = needed;
    if (groups < 1)
        groups = 1;
    return groups > MAX_GROUPS ? MAX_GROUPS : groups;
}

/* The plan's step: one reduction pass with work-group values[0] and
 * values[1] groups per compute unit. */
static scl_status run_pass(void *user, void *variant, const int *values)
{
    (void)variant;
    plan_slot *slot = user;
    scl_kernel *k = slot->r->kernels[slot->kernel];
    size_t wg = (size_t)values[0];
    if ((wg & (wg - 1)) != 0 || wg == 0) /* the tree halves work-groups */
        return scl_fail(slot->r->ctx, SCL_ERR_UNSUPPORTED, "scl_reduce",
                        "work-group %zu is not a power of two", wg);
    size_t elem = slot->kernel % 3 == 0 || slot->kernel >= 3 ? 8 : 4;
    scl_status s = scl_kernel_set_stream(k, "x", slot->src);
    if (s == SCL_OK)
        s = scl_kernel_set_long(k, "n", (long long)slot->n);
    if (s == SCL_OK)
        s = scl_kernel_set_stream(k, "partials", partials_of(slot->r, slot->kernel));
    if (s == SCL_OK)
        s = scl_kernel_set_local(k, "scratch", wg * elem);
    if (s == SCL_OK)
        s = scl_kernel_check_local(k, 1, &wg);
    slot->groups = group_count(slot, wg, values[1]);
    size_t global = slot->groups * wg;
    if (s == SCL_OK)
        s = scl_kernel_launch(k, 1, &global, &wg, NULL);
    return s;
}

static int log2_bucket(size_t n)
{
    int b = 0;
    while (n > 1) {
        n >>= 1;
        b++;
    }
    return b;
}

static scl_status slot_for(struct scl_reducer *r, int kernel, scl_stream *src, size_t n,
                           plan_slot **out)
{
    int bucket = log2_bucket(n);
    for (int i = 0; i < r->nslots; i++)
        if (r->slots[i].kernel == kernel && r->slots[i].bucket == bucket) {
            *out = &r->slots[i];
            (*out)->src = src;
            (*out)->n = n;
            return SCL_OK;
        }
    if (r->nslots == PLAN_SLOTS) { /* forget every plan: callers hold no slot across calls */
        for (int i = 0; i < r->nslots; i++)
            scl_plan_free(r->slots[i].plan);
        r->nslots = 0;
    }
    plan_slot *slot = &r->slots[r->nslots];
    *slot = (plan_slot){r, kernel, bucket, NULL, src, n, 0};
    static const scl_tune_param params[2] = {
        {"wg", 5, {256, 64, 128, 512, 1024}},
        {"groups_per_cu", 6, {8, 1, 2, 4, 16, 32}},
    };
    char shape[64];
    snprintf(shape, sizeof shape, "n~2^%d", bucket);
    static const scl_param_rule rules[2] = {
        {.min = 1, .max = 1024, .pow2 = 1, .why = "the tree sum of cl/reduce.cl"},
        {.min = 1, .max = 1024, .why = "the work-groups per compute unit"},
    };
    scl_plan_desc desc = {.name = kernel_names[kernel],
                          .shape = shape,
                          .params = params,
                          .nparams = 2,
                          .run_variant = run_pass,
                          .user = slot,
                          .rules = rules};
    /* tiny streams are not worth timing: defaults are fine there */
    scl_tune_options opt = {.no_tune = bucket < 20, .repeats = 3};
    scl_status s = scl_plan_create(r->ctx, &desc, &opt, &slot->plan);
    if (s != SCL_OK)
        return s;
    r->nslots++;
    *out = slot;
    return SCL_OK;
}

scl_status scl_reduce_n(scl_context *ctx, scl_stream *s, size_t count, scl_reduce_op op,
                        double *result)
{
    static const char *fn = "scl_reduce";
    if (!ctx || !s || !result || (unsigned)op > SCL_MAX)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "NULL argument or unknown op");
    scl_type t = scl_stream_type(s);
    if (t != SCL_FLOAT && t != SCL_DOUBLE)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "stream of %s: only float and double reduce",
                        scl_type_name(t));
    if (count == 0 || count > scl_stream_count(s))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "count %zu outside 1..%zu", count,
                        scl_stream_count(s));
    struct scl_reducer *r = NULL;
    scl_status st = reducer_get(ctx, &r);
    int kernel = (t == SCL_DOUBLE ? 3 : 0) + (int)op;
    plan_slot *slot = NULL;
    if (st == SCL_OK)
        st = slot_for(r, kernel, s, count, &slot);
    if (st == SCL_OK)
        st = scl_plan_execute(slot->plan);
    if (st == SCL_ERR_UNSUPPORTED) { /* a forced or cached plan that this device rejects */
        char plan[64];
        st = scl_fail(ctx, st, fn, "plan %s is not legal for %s on %s",
                      scl_plan_describe(slot->plan, plan, sizeof plan), kernel_names[kernel],
                      ctx->info.name);
    }
    size_t groups = slot ? slot->groups : 0;
    double *part = st == SCL_OK ? malloc(groups * 8) : NULL;
    if (st == SCL_OK && !part)
        st = scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    if (st == SCL_OK)
        st = scl_stream_read_range(partials_of(r, kernel), 0, groups, part, 1, NULL);
    if (st == SCL_OK) {
        double acc = op == SCL_SUM ? 0.0 : op == SCL_MIN ? INFINITY : -INFINITY;
        for (size_t g = 0; g < groups; g++) {
            double v;
            if (op == SCL_SUM && t == SCL_FLOAT && !ctx->info.fp64) {
                const float *pair = (const float *)&part[g];
                v = (double)pair[0] + (double)pair[1];
            } else if (t == SCL_FLOAT && op != SCL_SUM) {
                v = ((const float *)part)[g];
            } else {
                v = part[g];
            }
            acc = op == SCL_SUM ? acc + v : op == SCL_MIN ? fmin(acc, v) : fmax(acc, v);
        }
        *result = acc;
    }
    free(part);
    return st;
}

scl_status scl_reduce(scl_context *ctx, scl_stream *s, scl_reduce_op op, double *result)
{
    return scl_reduce_n(ctx, s, s ? scl_stream_count(s) : 0, op, result);
}
