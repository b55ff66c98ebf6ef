/* Plans: the tuner times every legal candidate and keeps the fastest (here a
 * candidate does 8x the work, so the pick does not hang on timing noise),
 * skips illegal ones, caches the plan (reused by a new context), honours
 * forced values and no_tune, rejects bad forced names, retunes when the
 * cached plan is corrupt, and a plan executes the variant it was tuned for. */
#include "test_util.h"

#include <dirent.h>
#include <string.h>

#define N (1 << 18)

static const char *src =
    "__kernel void axpy(__global float *x, const uint n) {\n"
    "  size_t i = get_global_id(0); if (i < n) x[i] = FACTOR * x[i] + 1.0f; }\n";

typedef struct {
    scl_context *ctx;
    scl_stream *s;
    int prepared, runs;
} job;

typedef struct {
    scl_kernel *k;
    int factor;
} variant;

/* values: wg, reps, factor (compiled in: each factor is its own program) */
static scl_status prepare(void *user, const int *values, void **out)
{
    job *j = user;
    j->prepared++;
    if ((size_t)values[0] > scl_device(j->ctx)->max_work_group)
        return SCL_ERR_UNSUPPORTED;
    variant *v = calloc(1, sizeof *v);
    if (!v)
        return SCL_ERR_MEMORY;
    char opts[64];
    snprintf(opts, sizeof opts, "-DFACTOR=%d.0f", values[2]);
    scl_program *p = NULL;
    scl_status s = scl_program_build_source(j->ctx, "axpy", src, opts, &p);
    if (s == SCL_OK)
        s = scl_kernel_from_program(p, "axpy", &v->k);
    scl_program_free(p); /* the kernel keeps the OpenCL program alive */
    if (s == SCL_OK)
        s = scl_kernel_set_stream(v->k, "x", j->s);
    if (s == SCL_OK)
        s = scl_kernel_set_uint(v->k, "n", N);
    v->factor = values[2];
    *out = v;
    return s;
}

static scl_status run(void *user, void *var, const int *values)
{
    job *j = user;
    variant *v = var;
    j->runs++;
    size_t wg = (size_t)values[0], global = N;
    scl_status s = SCL_OK;
    for (int r = 0; r < values[1] && s == SCL_OK; r++)
        s = scl_kernel_launch(v->k, 1, &global, &wg, NULL);
    return s;
}

static void release(void *user, void *var)
{
    (void)user;
    variant *v = var;
    scl_kernel_free(v->k);
    free(v);
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

/* Execute the plan once on x = 0 and check x = factor*0 + 1 = 1 for every
 * repetition chain: after r launches x = sum of factor^i, i < r. */
static void check_executes(job *j, scl_plan *plan)
{
    float zero = 0, x[4];
    CHECK_OK(j->ctx, scl_stream_fill(j->s, &zero));
    CHECK_OK(j->ctx, scl_plan_execute(plan));
    CHECK_OK(j->ctx, scl_stream_read_range(j->s, N - 4, 4, x, 1, NULL));
    int reps = scl_plan_value(plan, "reps", 0), factor = scl_plan_value(plan, "factor", 0);
    double want = 0;
    for (int r = 0; r < reps; r++)
        want = factor * want + 1;
    variant *v = scl_plan_variant(plan);
    CHECK(v && v->factor == factor, "plan holds the variant of factor %d, says %d",
          v ? v->factor : -1, factor);
    CHECK(x[3] == (float)want, "executed plan gave %g, its values (reps %d factor %d) give %g",
          (double)x[3], reps, factor, want);
}

int main(void)
{
    /* wg candidates include one no device has; reps 8 is 8x the work */
    const scl_tune_param params[3] = {
        {"wg", 4, {1 << 20, 64, 128, 256}}, {"reps", 2, {8, 1}}, {"factor", 2, {2, 3}}};
    scl_context *ctx = test_context();
    job j = {ctx, NULL, 0, 0};
    CHECK_OK(ctx, scl_stream_create(ctx, "x", SCL_FLOAT, N, 1, 1, 0, &j.s));
    scl_plan_desc desc = {.name = "axpy", .shape = "n=2^18", .params = params, .nparams = 3,
                          .prepare = prepare, .run_variant = run, .release = release, .user = &j};

    scl_plan *plan = NULL;
    CHECK_OK(ctx, scl_plan_create(ctx, &desc, NULL, &plan));
    CHECK(plan && scl_plan_tuned(plan) && !scl_plan_from_cache(plan), "first plan not tuned");
    CHECK(scl_plan_value(plan, "wg", -1) != (1 << 20), "illegal work-group chosen");
    CHECK(scl_plan_value(plan, "reps", -1) == 1, "the 8x slower candidate was chosen");
    CHECK(scl_plan_seconds(plan) > 0, "no time recorded");
    CHECK(j.prepared == 16, "prepared %d candidates, expected 16", j.prepared);
    if (plan)
        check_executes(&j, plan);
    char text[64];
    int wg = scl_plan_value(plan, "wg", -1), factor = scl_plan_value(plan, "factor", -1);
    scl_plan_describe(plan, text, sizeof text);
    CHECK(strstr(text, "wg=") && strstr(text, "reps=1"), "describe: %s", text);
    scl_plan_free(plan);
    scl_context_free(ctx);

    /* a new context reads the cached plan: prepares one variant, times nothing */
    ctx = j.ctx = test_context();
    scl_stream_free(j.s);
    CHECK_OK(ctx, scl_stream_create(ctx, "x", SCL_FLOAT, N, 1, 1, 0, &j.s));
    j.prepared = j.runs = 0;
    CHECK_OK(ctx, scl_plan_create(ctx, &desc, NULL, &plan));
    CHECK(plan && scl_plan_from_cache(plan) && !scl_plan_tuned(plan) && j.prepared == 1 &&
              j.runs == 0,
          "cached plan not reused across contexts (prepared %d, ran %d)", j.prepared, j.runs);
    CHECK(scl_plan_value(plan, "wg", -1) == wg && scl_plan_value(plan, "factor", -1) == factor,
          "cached plan differs");
    if (plan)
        check_executes(&j, plan);
    scl_plan_free(plan);

    /* another shape is another plan; no_tune gives the defaults untimed, or,
     * when the default is illegal (wg 2^20), the first legal combination in
     * candidate order (wg 64, the other defaults), untimed: --no-tune works
     * without a cache (issue 27) */
    desc.shape = "n=2^10";
    scl_tune_options off = {.no_tune = 1};
    j.runs = 0;
    CHECK_OK(ctx, scl_plan_create(ctx, &desc, &off, &plan));
    CHECK(plan && !scl_plan_tuned(plan) && j.runs == 0 && scl_plan_value(plan, "wg", 0) == 64 &&
              scl_plan_value(plan, "reps", 0) == 8 && scl_plan_value(plan, "factor", 0) == 2,
          "no_tune with an illegal default did not take the first legal combination untimed");
    if (plan)
        check_executes(&j, plan);
    scl_plan_free(plan);
    /* forced values stay forced: an illegal forced wg is refused */
    scl_tune_options bad_force = {.no_tune = 1, .force = "wg=1048576"};
    CHECK(scl_plan_create(ctx, &desc, &bad_force, &plan) == SCL_ERR_UNSUPPORTED && !plan,
          "an illegal forced wg not refused");
    const scl_tune_param legal[3] = {{"wg", 1, {64}}, {"reps", 2, {8, 1}}, {"factor", 1, {2}}};
    desc.params = legal;
    j.runs = 0;
    CHECK_OK(ctx, scl_plan_create(ctx, &desc, &off, &plan));
    CHECK(plan && !scl_plan_tuned(plan) && j.runs == 0 && scl_plan_value(plan, "reps", 0) == 8,
          "no_tune did not give the defaults untimed");
    scl_plan_free(plan);
    desc.params = params;
    desc.shape = "n=2^18";

    /* forced values are obeyed; a name that is not a parameter is an error */
    scl_tune_options forced = {.force = "wg=128,reps=8,factor=3"};
    CHECK_OK(ctx, scl_plan_create(ctx, &desc, &forced, &plan));
    CHECK(scl_plan_value(plan, "wg", 0) == 128 && scl_plan_value(plan, "reps", 0) == 8 &&
              scl_plan_value(plan, "factor", 0) == 3,
          "forced values ignored");
    if (plan)
        check_executes(&j, plan);
    scl_plan_free(plan);
    scl_tune_options bad = {.force = "tpa=4"};
    CHECK(scl_plan_create(ctx, &desc, &bad, &plan) == SCL_ERR_ARGUMENT &&
              strstr(scl_last_error(ctx), "tpa"),
          "unknown forced name accepted");
    scl_tune_options twice = {.force = "wg=64,wg=128"};
    CHECK(scl_plan_create(ctx, &desc, &twice, &plan) == SCL_ERR_ARGUMENT,
          "conflicting forced values accepted");

    /* a corrupt cached plan is retuned, never trusted */
    corrupt_plans(ctx);
    j.runs = 0;
    CHECK_OK(ctx, scl_plan_create(ctx, &desc, NULL, &plan));
    CHECK(plan && scl_plan_tuned(plan) && !scl_plan_from_cache(plan) && j.runs > 0,
          "corrupt plan trusted");
    scl_plan_free(plan);

    /* no legal candidate at all */
    const scl_tune_param none[3] = {{"wg", 1, {1 << 20}}, {"reps", 1, {1}}, {"factor", 1, {2}}};
    desc.params = none;
    desc.shape = "illegal";
    CHECK(scl_plan_create(ctx, &desc, NULL, &plan) == SCL_ERR_UNSUPPORTED &&
              strstr(scl_last_error(ctx), "axpy"),
          "all-illegal candidates not reported");
    scl_stream_free(j.s);
    scl_context_free(ctx);
    return test_summary("core_tuner");
}
