/* Programs: embedded kernel sources, per-device build options, binary cache. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Generated at build time from cl/NAME.cl (see cmake/embed_kernels.cmake). */
typedef struct {
    const char *name;
    const char *source;
} scl_embedded_file;
extern const scl_embedded_file scl_embedded_files[];
extern const size_t scl_embedded_count;

const char *scl_embedded_source(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < scl_embedded_count; i++)
        if (!strcmp(scl_embedded_files[i].name, name))
            return scl_embedded_files[i].source;
    return NULL;
}

uint64_t scl_embedded_hash(void)
{
    uint64_t h = SCL_HASH_SEED;
    for (size_t i = 0; i < scl_embedded_count; i++)
        h = scl_hash64(h, scl_embedded_files[i].source, strlen(scl_embedded_files[i].source));
    return h;
}

static char *build_options(const scl_context *ctx, const char *extra)
{
#define OPTIONS_FMT "-cl-std=CL1.2 -DSCL_FP64=%d -DSCL_GPU=%d -DSCL_VEC_FLOAT=%u -DSCL_MAX_WG=%zu %s"
    const scl_device_info *d = &ctx->info;
    const char *e = extra ? extra : "";
    int n = snprintf(NULL, 0, OPTIONS_FMT, d->fp64, d->is_gpu, d->vec_float, d->max_work_group, e);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        snprintf(s, (size_t)n + 1, OPTIONS_FMT, d->fp64, d->is_gpu, d->vec_float, d->max_work_group,
                 e);
#undef OPTIONS_FMT
    return s;
}

/* Everything that makes a binary valid for reuse, as text (the cache key). */
static char *cache_key_text(const scl_context *ctx, const char *label, const char *source,
                            const char *options)
{
    uint64_t sh = scl_hash64(SCL_HASH_SEED, source, strlen(source));
#define KEY_FMT "%s\n%s\n%s\n%s\n%s\n%s\nsource:%016llx\n"
    int n = snprintf(NULL, 0, KEY_FMT, ctx->info.platform, ctx->info.name, ctx->info.version,
                     ctx->info.driver, label, options, (unsigned long long)sh);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        snprintf(s, (size_t)n + 1, KEY_FMT, ctx->info.platform, ctx->info.name, ctx->info.version,
                 ctx->info.driver, label, options, (unsigned long long)sh);
#undef KEY_FMT
    return s;
}

static cl_program try_cached_binary(scl_context *ctx, const char *path, const char *key,
                                    const char *options)
{
    size_t len = 0;
    unsigned char *bin = scl_cache_load(path, key, &len);
    if (!bin)
        return NULL;
    cl_int rc, status;
    const unsigned char *bins[1] = {bin};
    cl_program p = clCreateProgramWithBinary(ctx->cl, 1, &ctx->device, &len, bins, &status, &rc);
    free(bin);
    if (rc != CL_SUCCESS || status != CL_SUCCESS) {
        if (p)
            clReleaseProgram(p);
        return NULL;
    }
    if (clBuildProgram(p, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(p);
        return NULL; /* stale or foreign binary: rebuild from source */
    }
    return p;
}

static void store_binary(scl_context *ctx, cl_program p, const char *path, const char *key)
{
    size_t size = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *bin = malloc(size);
    unsigned char *bins[1] = {bin};
    if (bin && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        scl_cache_store(path, key, bin, size); /* best effort: a cache miss is harmless */
    free(bin);
    (void)ctx;
}

static scl_status fail_build(scl_context *ctx, cl_program p, cl_int rc, const char *label,
                             const char *options)
{
    size_t loglen = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(p, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &loglen) ==
            CL_SUCCESS &&
        loglen > 0 && (log = malloc(loglen + 1)) != NULL) {
        if (clGetProgramBuildInfo(p, ctx->device, CL_PROGRAM_BUILD_LOG, loglen, log, NULL) !=
            CL_SUCCESS)
            log[0] = '\0';
        log[loglen] = '\0';
    }
    scl_fail(ctx, SCL_ERR_BUILD, "scl_program_build",
             "clBuildProgram of '%s' failed with %s on %s (options: %s)\nbuild log:\n%s", label,
             scl_cl_error_name(rc), ctx->info.name, options, log ? log : "(none)");
    free(log);
    return SCL_ERR_BUILD;
}

scl_status scl_program_build_source(scl_context *ctx, const char *label, const char *source,
                                    const char *options, scl_program **out)
{
    if (!ctx || !label || !source || !out)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_program_build",
                        "ctx, label, source and out must not be NULL");
    *out = NULL;
    scl_program *prog = calloc(1, sizeof *prog);
    char *opts = build_options(ctx, options);
    char *key = opts ? cache_key_text(ctx, label, source, opts) : NULL;
    if (!prog || !opts || !key) {
        free(prog);
        free(opts);
        free(key);
        return scl_fail(ctx, SCL_ERR_MEMORY, "scl_program_build", "out of host memory");
    }
    prog->ctx = ctx;
    snprintf(prog->label, sizeof prog->label, "%s", label);

    char path[1300];
    int cacheable = scl_cache_path(ctx, "programs", scl_hash64(SCL_HASH_SEED, key, strlen(key)),
                                   "bin", path, sizeof path) == 0;
    if (cacheable)
        prog->program = try_cached_binary(ctx, path, key, opts);
    prog->from_cache = prog->program != NULL;

    scl_status status = SCL_OK;
    if (!prog->program) {
        cl_int rc;
        prog->program = clCreateProgramWithSource(ctx->cl, 1, &source, NULL, &rc);
        if (rc != CL_SUCCESS) {
            status = scl_fail_cl(ctx, "scl_program_build", "clCreateProgramWithSource", rc,
                                 "program '%s'", label);
        } else if ((rc = clBuildProgram(prog->program, 1, &ctx->device, opts, NULL, NULL)) !=
                   CL_SUCCESS) {
            status = fail_build(ctx, prog->program, rc, label, opts);
        } else if (cacheable) {
            store_binary(ctx, prog->program, path, key);
        }
    }
    prog->options = opts;
    prog->source = strdup(source);
    if (status == SCL_OK && !prog->source)
        status = scl_fail(ctx, SCL_ERR_MEMORY, "scl_program_build", "out of host memory");
    free(key);
    if (status != SCL_OK) {
        scl_program_free(prog);
        return status;
    }
    ctx->builds.programs++;
    ctx->builds.compiled += !prog->from_cache;
    *out = prog;
    return SCL_OK;
}

scl_status scl_program_build(scl_context *ctx, const char *name, const char *options,
                             scl_program **out)
{
    const char *src = scl_embedded_source(name);
    if (!src)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_program_build",
                        "no embedded kernel file named '%s' (cl/%s.cl)", name ? name : "(null)",
                        name ? name : "(null)");
    return scl_program_build_source(ctx, name, src, options, out);
}

void scl_program_free(scl_program *prog)
{
    if (!prog)
        return;
    if (prog->program)
        clReleaseProgram(prog->program);
    free(prog->options);
    free(prog->source);
    free(prog);
}

int scl_program_from_cache(const scl_program *prog) { return prog ? prog->from_cache : 0; }

cl_program scl_cl_program(const scl_program *prog) { return prog ? prog->program : NULL; }

scl_status scl_context_program(scl_context *ctx, const char *name, const char *options,
                               scl_program **out)
{
    const char *opts = options ? options : "";
    for (size_t i = 0; i < ctx->nprograms; i++)
        if (!strcmp(ctx->programs[i].name, name) && !strcmp(ctx->programs[i].options, opts)) {
            *out = ctx->programs[i].program;
            return SCL_OK;
        }
    scl_program_entry *grown =
        realloc(ctx->programs, (ctx->nprograms + 1) * sizeof *ctx->programs);
    if (!grown)
        return scl_fail(ctx, SCL_ERR_MEMORY, "scl_kernel_create", "out of host memory");
    ctx->programs = grown;
    scl_program_entry *e = &ctx->programs[ctx->nprograms];
    e->name = strdup(name);
    e->options = strdup(opts);
    e->program = NULL;
    scl_status s = (e->name && e->options)
                       ? scl_program_build(ctx, name, opts, &e->program)
                       : scl_fail(ctx, SCL_ERR_MEMORY, "scl_kernel_create", "out of host memory");
    if (s != SCL_OK) {
        free(e->name);
        free(e->options);
        return s;
    }
    ctx->nprograms++;
    *out = e->program;
    return SCL_OK;
}

void scl_context_programs_free(scl_context *ctx)
{
    for (size_t i = 0; i < ctx->nprograms; i++) {
        scl_program_free(ctx->programs[i].program);
        free(ctx->programs[i].name);
        free(ctx->programs[i].options);
    }
    free(ctx->programs);
    ctx->programs = NULL;
    ctx->nprograms = 0;
}
