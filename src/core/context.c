/* Context: one device, one in-order profiling queue, cache location, error text. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int make_dirs(const char *path)
{
    char tmp[1024];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return (mkdir(tmp, 0755) != 0 && errno != EEXIST) ? -1 : 0;
}

/* The cache directory, made if missing; "" disables caching (also when it
 * cannot be made: a cache is an optimisation, never a reason to fail). */
static void resolve_cache_dir(const scl_context_options *opt, char *dir, size_t len)
{
    dir[0] = '\0';
    if (!opt || !opt->cache_dir || !*opt->cache_dir)
        return;
    int n = snprintf(dir, len, "%s", opt->cache_dir);
    if (n < 0 || (size_t)n >= len || make_dirs(dir) != 0)
        dir[0] = '\0';
}

scl_status scl_context_create(const scl_context_options *opt, scl_context **out, char *err,
                              size_t errlen)
{
    if (!out) {
        scl_format_error(err, errlen, "scl_context_create: out must not be NULL");
        return SCL_ERR_ARGUMENT;
    }
    *out = NULL;
    scl_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        scl_format_error(err, errlen, "scl_context_create: out of host memory");
        return SCL_ERR_MEMORY;
    }
    scl_status s = scl_select_device(opt ? opt->device : NULL, &ctx->platform, &ctx->device,
                                     &ctx->info, err, errlen);
    if (s != SCL_OK) {
        free(ctx);
        return s;
    }
    cl_int rc;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->platform,
                                     0};
    ctx->cl = clCreateContext(props, 1, &ctx->device, NULL, NULL, &rc);
    if (rc != CL_SUCCESS) {
        scl_format_error(err, errlen, "scl_context_create: clCreateContext failed with %s on %s",
                         scl_cl_error_name(rc), ctx->info.name);
        free(ctx);
        return SCL_ERR_OPENCL;
    }
    /* Profiling is always enabled on the queue: the tuner needs event times,
     * and the cost is negligible; opt->profiling only controls accounting. */
    ctx->queue = clCreateCommandQueue(ctx->cl, ctx->device, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (rc != CL_SUCCESS) {
        scl_format_error(err, errlen,
                         "scl_context_create: clCreateCommandQueue failed with %s on %s",
                         scl_cl_error_name(rc), ctx->info.name);
        clReleaseContext(ctx->cl);
        free(ctx);
        return SCL_ERR_OPENCL;
    }
    ctx->profiling = opt && opt->profiling;
    ctx->no_tune = opt && opt->no_tune;
    ctx->tune_repeats = (opt && opt->tune_repeats > 0) ? opt->tune_repeats : 5;
    if (opt && opt->force && strlen(opt->force) >= sizeof ctx->force) {
        scl_format_error(err, errlen, "scl_context_create: force string longer than %zu",
                         sizeof ctx->force - 1);
        scl_context_free(ctx);
        return SCL_ERR_ARGUMENT;
    }
    snprintf(ctx->force, sizeof ctx->force, "%s", (opt && opt->force) ? opt->force : "");
    resolve_cache_dir(opt, ctx->cache_dir, sizeof ctx->cache_dir);
    *out = ctx;
    return SCL_OK;
}

void scl_context_free(scl_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->queue)
        clFinish(ctx->queue);
    if (ctx->copy_queue) {
        clFinish(ctx->copy_queue);
        clReleaseCommandQueue(ctx->copy_queue);
    }
    scl_reducer_free(ctx->reducer);
    scl_context_programs_free(ctx);
    scl_profile_free(ctx);
    free(ctx->timing.events);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->cl)
        clReleaseContext(ctx->cl);
    free(ctx);
}

const scl_device_info *scl_device(const scl_context *ctx) { return ctx ? &ctx->info : NULL; }
cl_context scl_cl_context(const scl_context *ctx) { return ctx ? ctx->cl : NULL; }
cl_device_id scl_cl_device(const scl_context *ctx) { return ctx ? ctx->device : NULL; }
cl_command_queue scl_queue(const scl_context *ctx) { return ctx ? ctx->queue : NULL; }
int scl_profiling(const scl_context *ctx) { return ctx ? ctx->profiling : 0; }

void scl_transfer_stats_get(const scl_context *ctx, scl_transfer_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (ctx)
        *out = ctx->transfers;
}

void scl_build_stats_get(const scl_context *ctx, scl_build_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (ctx)
        *out = ctx->builds;
}

const char *scl_cache_dir(const scl_context *ctx)
{
    return (ctx && ctx->cache_dir[0]) ? ctx->cache_dir : NULL;
}
