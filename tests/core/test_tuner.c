/* The tuner: picks the fastest legal candidate, caches the plan (hit in a new
 * context), honours forced values and tune=0, rejects bad forced names, and
 * retunes when the cached plan file is corrupt. A real kernel is timed. */
#include "test_util.h"

#include <dirent.h>
#include <string.h>

typedef struct {
    scl_context *ctx;
    cl_kernel k;
    scl_stream *s;
    int calls;
} job;

static const char *src =
    "__kernel void axpy(__global float *x, const uint n) {\n"
    "  size_t i = get_global_id(0); if (i < n) x[i] = 2.0f * x[i] + 1.0f; }\n";

static scl_status run(void *user, const int *values, double *seconds)
{
    job *j = user;
    j->calls++;
    size_t wg = (size_t)values[0];
    if (wg > scl_device(j->ctx)->max_work_group)
        return SCL_ERR_UNSUPPORTED;
    cl_uint n = (cl_uint)scl_stream_count(j->s);
    cl_mem m = scl_stream_mem(j->s);
    size_t global = (size_t)n * (size_t)values[1] / 4;
    cl_event ev = NULL;
    scl_status s = scl_arg(j->ctx, j->k, 0, sizeof m, &m);
    if (s == SCL_OK)
        s = scl_arg(j->ctx, j->k, 1, sizeof n, &n);
    if (s == SCL_OK)
        s = scl_launch(j->ctx, j->k, "axpy", 1, &global, &wg, &ev);
    if (s == SCL_OK)
        s = scl_event_seconds(j->ctx, ev, seconds);
    if (ev)
        clReleaseEvent(ev);
    return s;
}

static void corrupt_plans(const scl_context *ctx)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/plans", scl_cache_dir(ctx));
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (!strstr(e->d_name, ".plan"))
            continue;
        char path[1600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r+b");
        if (f) {
            fseek(f, -2, SEEK_END);
            fputc('#', f);
            fclose(f);
        }
    }
    if (d)
        closedir(d);
}

static job make_job(scl_context *ctx, scl_program **prog)
{
    job j = {ctx, NULL, NULL, 0};
    CHECK_OK(ctx, scl_program_build_source(ctx, "axpy", src, NULL, prog));
    if (*prog)
        CHECK_OK(ctx, scl_kernel_create(*prog, "axpy", &j.k));
    CHECK_OK(ctx, scl_stream_create(ctx, "x", SCL_FLOAT, 1 << 18, 1, 1, 0, &j.s));
    float zero = 0;
    if (j.s)
        CHECK_OK(ctx, scl_stream_fill(j.s, &zero));
    return j;
}

static void free_job(job *j, scl_program *p)
{
    if (j->k)
        clReleaseKernel(j->k);
    scl_stream_free(j->s);
    scl_program_free(p);
}

int main(void)
{
    /* wg candidates include one no device has; "part" scales the work */
    const scl_tune_param params[2] = {{"wg", 4, {1 << 20, 64, 128, 256}}, {"part", 2, {4, 2}}};
    scl_context *ctx = test_context();
    scl_program *prog = NULL;
    job j = make_job(ctx, &prog);
    scl_plan plan;
    scl_tune_options opt = {.tune = 1, .repeats = 3};
    CHECK_OK(ctx, scl_plan_tune(ctx, "axpy", "n=2^18", params, 2, run, &j, &opt, &plan));
    int wg = scl_plan_value(&plan, "wg", -1), part = scl_plan_value(&plan, "part", -1);
    CHECK(plan.tuned && !plan.from_cache, "first plan not tuned");
    CHECK(wg == 64 || wg == 128 || wg == 256, "illegal work-group chosen: %d", wg);
    CHECK(part == 2, "the half-size candidate must be faster, got part=%d", part);
    CHECK(plan.seconds > 0, "no time recorded");
    CHECK(j.calls == 3 * 2 * 4 + 2, "candidates run %d times", j.calls);
    free_job(&j, prog);
    scl_context_free(ctx);

    /* new context: the plan comes from the cache without running anything */
    ctx = test_context();
    j = make_job(ctx, &prog);
    scl_plan again;
    CHECK_OK(ctx, scl_plan_tune(ctx, "axpy", "n=2^18", params, 2, run, &j, &opt, &again));
    CHECK(again.from_cache && j.calls == 0, "cache missed (calls %d)", j.calls);
    CHECK(scl_plan_value(&again, "wg", -1) == wg && scl_plan_value(&again, "part", -1) == part,
          "cached plan differs");

    /* another shape is another plan; tune=0 gives the defaults */
    scl_tune_options off = {.tune = 0};
    CHECK_OK(ctx, scl_plan_tune(ctx, "axpy", "n=2^10", params, 2, run, &j, &off, &again));
    CHECK(!again.tuned && j.calls == 0 && scl_plan_value(&again, "wg", 0) == (1 << 20),
          "tune=0 did not give defaults");

    /* forced values win and are not timed when all are forced */
    scl_tune_options forced = {.tune = 1, .force = "wg=128,part=4"};
    CHECK_OK(ctx, scl_plan_tune(ctx, "axpy", "n=2^18", params, 2, run, &j, &forced, &again));
    CHECK(scl_plan_value(&again, "wg", 0) == 128 && scl_plan_value(&again, "part", 0) == 4 &&
              j.calls == 0,
          "forced values ignored");
    scl_tune_options bad = {.tune = 1, .force = "tpa=4"};
    CHECK(scl_plan_tune(ctx, "axpy", "n=2^18", params, 2, run, &j, &bad, &again) ==
              SCL_ERR_ARGUMENT,
          "unknown forced parameter accepted");
    CHECK(strstr(scl_last_error(ctx), "tpa") != NULL, "message: %s", scl_last_error(ctx));

    /* a corrupt plan file is not trusted: the kernel is timed again */
    corrupt_plans(ctx);
    j.calls = 0;
    CHECK_OK(ctx, scl_plan_tune(ctx, "axpy", "n=2^18", params, 2, run, &j, &opt, &again));
    CHECK(again.tuned && !again.from_cache && j.calls > 0, "corrupt plan trusted");

    /* nothing legal: a clear error */
    const scl_tune_param none[1] = {{"wg", 1, {1 << 20}}};
    CHECK(scl_plan_tune(ctx, "axpy", "illegal", none, 1, run, &j, &opt, &again) ==
              SCL_ERR_UNSUPPORTED,
          "no legal candidate accepted");
    free_job(&j, prog);
    scl_context_free(ctx);
    return test_summary("core_tuner");
}
