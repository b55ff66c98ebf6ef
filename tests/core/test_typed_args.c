/* Arguments and plan values handed over typed, in tables: scl_kernel_bind /
 * scl_kernel_bind_reals bind what the setters would (the kernel computes
 * with every bound value, so a value bound to the wrong argument shows) and
 * stop at the first mistake, naming it; scl_tune_options.forced fixes plan
 * values as the text form does, refuses unknown names and conflicts. */
#include "test_util.h"

#include <string.h>

static const char *src =
    "__kernel void typed_mix(__global float *out, __global const int *in, const int n,\n"
    "                  const int shift, const float scale) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < (size_t)n) out[i] = scale * (float)(in[i] + shift); }\n";

static void check_bind(scl_context *ctx)
{
    scl_program *prog = NULL;
    scl_kernel *k = NULL;
    CHECK_OK(ctx, scl_program_build_source(ctx, "typed_args", src, NULL, &prog));
    if (prog)
        CHECK_OK(ctx, scl_kernel_from_program(prog, "typed_mix", &k));
    scl_stream *out = NULL, *in = NULL;
    enum { N = 64 };
    CHECK_OK(ctx, scl_stream_create(ctx, "out", SCL_FLOAT, N, 1, 1, 0, &out));
    CHECK_OK(ctx, scl_stream_create(ctx, "in", SCL_INT, N, 1, 1, 0, &in));
    if (!k || !out || !in)
        goto done;
    int host_in[N];
    for (int i = 0; i < N; i++)
        host_in[i] = 3 * i;
    CHECK_OK(ctx, scl_stream_write(in, host_in, 1, NULL));
    const scl_arg_stream streams[] = {{"out", out}, {"in", in}};
    const scl_arg_int ints[] = {{"n", N}, {"shift", 5}};
    const scl_arg_real reals[] = {{"scale", 0.5}};
    CHECK_OK(ctx, scl_kernel_bind(k, streams, 2, ints, 2));
    CHECK_OK(ctx, scl_kernel_bind_reals(k, reals, 1));
    size_t global = N;
    CHECK_OK(ctx, scl_kernel_launch(k, 1, &global, NULL, NULL));
    float host_out[N];
    CHECK_OK(ctx, scl_stream_read(out, host_out, 1, NULL));
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += !(host_out[i] == 0.5f * (float)(3 * i + 5)); /* NaN counts as bad */
    CHECK(bad == 0, "%d of %d values wrong (first: %g)", bad, N, (double)host_out[0]);

    /* a wrong name stops the table there and is named */
    const scl_arg_int wrong[] = {{"n", N}, {"shfit", 1}, {"shift", 7}};
    scl_status s = scl_kernel_bind(k, NULL, 0, wrong, 3);
    CHECK(s == SCL_ERR_ARGUMENT && strstr(scl_last_error(ctx), "shfit"), "%s: %s",
          scl_status_name(s), scl_last_error(ctx));
    /* a stream where an int is declared */
    const scl_arg_stream misplaced[] = {{"n", in}};
    s = scl_kernel_bind(k, misplaced, 1, NULL, 0);
    CHECK(s == SCL_ERR_ARGUMENT && strstr(scl_last_error(ctx), "'n'"), "%s: %s",
          scl_status_name(s), scl_last_error(ctx));
done:
    scl_stream_free(out);
    scl_stream_free(in);
    scl_kernel_free(k);
    scl_program_free(prog);
}

static scl_status no_step(void *user, void *variant, const int *values)
{
    (void)user, (void)variant, (void)values;
    return SCL_OK;
}

static void check_forced(scl_context *ctx)
{
    const scl_tune_param params[2] = {{"wg", 2, {64, 128}}, {"reps", 2, {1, 4}}};
    scl_plan_desc desc = {.name = "typed.forced", .shape = "n=1", .params = params, .nparams = 2, .run_variant = no_step};
    const scl_arg_int forced[2] = {{"wg", 128}, {"reps", 4}};
    scl_tune_options opt = {.no_tune = 1, .forced = forced, .nforced = 2};
    scl_plan *plan = NULL;
    CHECK_OK(ctx, scl_plan_create(ctx, &desc, &opt, &plan));
    CHECK(plan && scl_plan_value(plan, "wg", 0) == 128 && scl_plan_value(plan, "reps", 0) == 4,
          "typed forced values ignored");
    scl_plan_free(plan);
    plan = NULL;

    const scl_arg_int unknown[1] = {{"tpa", 8}};
    scl_tune_options bad = {.no_tune = 1, .forced = unknown, .nforced = 1};
    scl_status s = scl_plan_create(ctx, &desc, &bad, &plan);
    CHECK(s == SCL_ERR_ARGUMENT && !plan && strstr(scl_last_error(ctx), "tpa"),
          "unknown typed name: %s: %s", scl_status_name(s), scl_last_error(ctx));
    scl_plan_free(plan);
    plan = NULL;

    /* text and typed forms naming one parameter with two values */
    scl_tune_options both = {.no_tune = 1, .force = "wg=64", .forced = forced, .nforced = 1};
    s = scl_plan_create(ctx, &desc, &both, &plan);
    CHECK(s == SCL_ERR_ARGUMENT && !plan && strstr(scl_last_error(ctx), "wg"),
          "conflicting forms accepted: %s: %s", scl_status_name(s), scl_last_error(ctx));
    scl_plan_free(plan);
}

int main(void)
{
    scl_context *ctx = test_context();
    check_bind(ctx);
    check_forced(ctx);
    scl_context_free(ctx);
    return test_summary("core_typed_args");
}
