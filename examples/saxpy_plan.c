/* A complete user of the streamcl API: a kernel of one's own, bound by name,
 * run through a plan that tunes its work-group size once per device (and
 * caches the choice), checked against the host, errors reported. Build:
 *   cc saxpy_plan.c $(pkg-config --cflags --libs streamcl) -o saxpy_plan
 * or with CMake: find_package(streamcl) + target_link_libraries(... streamcl::streamcl). */
#include <streamcl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
    "__kernel void saxpy(__global float *y, __global const float *x, const float a,\n"
    "                    const uint n) {\n"
    "    const size_t i = get_global_id(0);\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

typedef struct {
    scl_kernel *k;
    size_t n;
} job;

/* One step of a candidate: queue the kernel with work-group values[0]. */
static scl_status run(void *user, void *variant, const int *values)
{
    (void)variant;
    job *j = user;
    size_t global = j->n, local = (size_t)values[0];
    scl_status s = scl_kernel_check_local(j->k, 1, &local); /* illegal: skipped */
    return s == SCL_OK ? scl_kernel_launch(j->k, 1, &global, &local, NULL) : s;
}

int main(void)
{
    enum { N = 1 << 20 };
    /* options from STREAMCL_DEVICE, STREAMCL_CACHE_DIR, ... when set */
    char err[1024];
    scl_context *ctx = NULL;
    if (scl_context_create_env(NULL, &ctx, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "saxpy: %s\n", err);
        return 1;
    }
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    scl_program *prog = NULL;
    scl_stream *dx = NULL, *dy = NULL;
    job j = {NULL, N};
    scl_plan *plan = NULL;
    static const scl_tune_param params[1] = {{"wg", 4, {256, 64, 128, 1024}}};
    scl_plan_desc desc = {.name = "saxpy", .shape = "n=2^20", .params = params, .nparams = 1,
                          .run_variant = run, .user = &j};
    scl_status s = scl_program_build_source(ctx, "saxpy", source, NULL, &prog);
    if (s == SCL_OK)
        s = scl_kernel_from_program(prog, "saxpy", &j.k);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "x", SCL_FLOAT, N, 1, 1, SCL_STREAM_READ_ONLY, &dx);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "y", SCL_FLOAT, N, 1, 1, 0, &dy);
    if (s == SCL_OK)
        s = scl_stream_write(dx, x, 1, NULL);
    if (s == SCL_OK)
        s = scl_kernel_set_stream(j.k, "x", dx);
    if (s == SCL_OK)
        s = scl_kernel_set_stream(j.k, "y", dy);
    if (s == SCL_OK)
        s = scl_kernel_set_real(j.k, "a", 2.0);
    if (s == SCL_OK)
        s = scl_kernel_set_uint(j.k, "n", N);
    if (s == SCL_OK) /* times each legal work-group (it runs saxpy several times) */
        s = scl_plan_create(ctx, &desc, NULL, &plan);
    if (s == SCL_OK) /* start again from y = 1 and run the chosen variant once */
        s = scl_stream_write(dy, y, 1, NULL);
    if (s == SCL_OK)
        s = scl_plan_execute(plan);
    if (s == SCL_OK)
        s = scl_stream_read(dy, y, 1, NULL);
    int bad = 0;
    for (int i = 0; s == SCL_OK && i < N; i++)
        bad += y[i] != 2.0f * (float)i + 1.0f;
    if (s != SCL_OK)
        fprintf(stderr, "saxpy: %s\n", scl_last_error(ctx));
    else
        printf("saxpy on %s: wg=%d (%s), %d wrong of %d\n", scl_device(ctx)->name,
               scl_plan_value(plan, "wg", 0), scl_plan_tuned(plan) ? "tuned" : "cached", bad, N);
    scl_plan_free(plan);
    scl_kernel_free(j.k);
    scl_program_free(prog);
    scl_stream_free(dx);
    scl_stream_free(dy);
    scl_context_free(ctx);
    free(x);
    free(y);
    return s != SCL_OK || bad ? 1 : 0;
}
