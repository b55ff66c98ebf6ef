/* Global reductions: device tree reduction per work-group, host finish in double.
 * Launch shape (work-group size, groups per compute unit) is a tuned plan. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUPS 65536
#define PLAN_SLOTS 64

typedef struct {
    int kernel; /* index into kernels[] */
    int bucket; /* log2 of the element count */
    scl_plan plan;
} plan_slot;

struct scl_reducer {
    scl_program *program;
    cl_kernel kernels[6]; /* [type*3 + op], type 0 float, 1 double */
    scl_stream *partials; /* MAX_GROUPS doubles (or float2 pairs) */
    plan_slot slots[PLAN_SLOTS];
    int nslots;
};

static const char *kernel_names[6] = {"sum_float", "min_float", "max_float",
                                      "sum_double", "min_double", "max_double"};

void scl_reducer_free(struct scl_reducer *r)
{
    if (!r)
        return;
    for (int i = 0; i < 6; i++)
        if (r->kernels[i])
            clReleaseKernel(r->kernels[i]);
    scl_program_free(r->program);
    scl_stream_free(r->partials);
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
    scl_status s = scl_program_build(ctx, "reduce", NULL, &r->program);
    int nk = ctx->info.fp64 ? 6 : 3;
    for (int i = 0; i < nk && s == SCL_OK; i++)
        s = scl_kernel_create(r->program, kernel_names[i], &r->kernels[i]);
    if (s == SCL_OK) /* 8 bytes holds a double or a float2 pair */
        s = scl_stream_create(ctx, "reduce partials", SCL_FLOAT2, MAX_GROUPS, 1, 1, 0,
                              &r->partials);
    if (s != SCL_OK) {
        scl_reducer_free(r);
        return s;
    }
    ctx->reducer = r;
    *out = r;
    return SCL_OK;
}

typedef struct {
    scl_context *ctx;
    struct scl_reducer *r;
    int kernel;
    scl_stream *src;
    cl_ulong n;
    size_t elem_bytes;
} reduce_job;

static size_t group_count(const reduce_job *job, size_t wg, int groups_per_cu)
{
    size_t groups = (size_t)job->ctx->info.compute_units * (size_t)groups_per_cu;
    size_t per_group = 4 * wg; /* below this many elements per group, fewer groups */
    size_t needed = (size_t)((job->n + per_group - 1) / per_group);
    if (groups > needed)
        groups = needed;
    if (groups < 1)
        groups = 1;
    return groups > MAX_GROUPS ? MAX_GROUPS : groups;
}

/* Enqueue one reduction pass; returns the number of partials produced. */
static scl_status enqueue(const reduce_job *job, size_t wg, int groups_per_cu, size_t *ngroups,
                          cl_event *ev)
{
    scl_context *ctx = job->ctx;
    cl_kernel k = job->r->kernels[job->kernel];
    if (wg > ctx->info.max_work_group || (wg & (wg - 1)) != 0)
        return SCL_ERR_UNSUPPORTED;
    size_t local_bytes = wg * 8;
    if (local_bytes > ctx->info.local_mem)
        return SCL_ERR_UNSUPPORTED;
    size_t kwg = 0;
    if (clGetKernelWorkGroupInfo(k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg,
                                 NULL) == CL_SUCCESS &&
        wg > kwg)
        return SCL_ERR_UNSUPPORTED;
    size_t groups = group_count(job, wg, groups_per_cu);
    cl_mem src = scl_stream_mem(job->src), part = scl_stream_mem(job->r->partials);
    scl_status s = scl_arg(ctx, k, 0, sizeof src, &src);
    if (s == SCL_OK)
        s = scl_arg(ctx, k, 1, sizeof job->n, &job->n);
    if (s == SCL_OK)
        s = scl_arg(ctx, k, 2, sizeof part, &part);
    if (s == SCL_OK)
        s = scl_arg(ctx, k, 3, local_bytes, NULL);
    size_t global = groups * wg;
    if (s == SCL_OK)
        s = scl_launch(ctx, k, kernel_names[job->kernel], 1, &global, &wg, ev);
    *ngroups = groups;
    return s;
}

static scl_status tune_run(void *user, const int *values, double *seconds)
{
    const reduce_job *job = user;
    size_t groups;
    cl_event ev = NULL;
    scl_status s = enqueue(job, (size_t)values[0], values[1], &groups, &ev);
    if (s == SCL_OK)
        s = scl_event_seconds(job->ctx, ev, seconds);
    if (ev)
        clReleaseEvent(ev);
    return s;
}

static int log2_bucket(cl_ulong n)
{
    int b = 0;
    while (n > 1) {
        n >>= 1;
        b++;
    }
    return b;
}

static scl_status plan_for(reduce_job *job, scl_plan *plan)
{
    struct scl_reducer *r = job->r;
    int bucket = log2_bucket(job->n);
    for (int i = 0; i < r->nslots; i++)
        if (r->slots[i].kernel == job->kernel && r->slots[i].bucket == bucket) {
            *plan = r->slots[i].plan;
            return SCL_OK;
        }
    scl_tune_param params[2] = {
        {"wg", 5, {256, 64, 128, 512, 1024}},
        {"groups_per_cu", 6, {8, 1, 2, 4, 16, 32}},
    };
    char shape[64];
    snprintf(shape, sizeof shape, "n~2^%d", bucket);
    /* tiny streams are not worth timing: defaults are fine there */
    scl_tune_options opt = {.tune = bucket >= 20, .repeats = 3};
    scl_status s = scl_plan_tune(job->ctx, kernel_names[job->kernel], shape, params, 2, tune_run,
                                 job, &opt, plan);
    if (s != SCL_OK)
        return s;
    plan_slot *slot = &r->slots[r->nslots < PLAN_SLOTS ? r->nslots++ : bucket % PLAN_SLOTS];
    slot->kernel = job->kernel;
    slot->bucket = bucket;
    slot->plan = *plan;
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
    if (st != SCL_OK)
        return st;
    reduce_job job = {ctx, r, (t == SCL_DOUBLE ? 3 : 0) + (int)op, s, (cl_ulong)count,
                      scl_type_size(t)};
    scl_plan plan;
    st = plan_for(&job, &plan);
    size_t groups = 0;
    if (st == SCL_OK) {
        st = enqueue(&job, (size_t)plan.values[0], plan.values[1], &groups, NULL);
        if (st == SCL_ERR_UNSUPPORTED) /* a forced or cached plan that this device rejects */
            st = scl_fail(ctx, st, fn, "work-group size %d is not legal for %s on %s",
                          plan.values[0], kernel_names[job.kernel], ctx->info.name);
    }
    double *part = st == SCL_OK ? malloc(groups * 8) : NULL;
    if (st == SCL_OK && !part)
        st = scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    if (st == SCL_OK)
        st = scl_stream_read_range(r->partials, 0, groups, part, 1, NULL);
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
