/* Kernel objects: arguments bound by the kernel's own parameter names, with
 * the declared types checked (through the file's typedefs and conditionals
 * as built), and every mistake reported with the kernel and argument named. */
#include "test_util.h"

#include <string.h>

static const char *src =
    "#if PREC == 2\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "typedef double real;\n"
    "#else\n"
    "typedef float real; /* the single build */\n"
    "#endif\n"
    "typedef float4 pos4;\n"
    "#define SCALE_ARGS const real a, const int n\n"
    "__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
    "void scale(__global real *restrict x, __global const pos4 *p, SCALE_ARGS,\n"
    "           __local real *scratch, const unsigned int flags, const ulong big) {\n"
    "  size_t i = get_global_id(0);\n"
    "  scratch[get_local_id(0)] = (real)flags + (real)big;\n"
    "  if (i < (size_t)n) x[i] = a * x[i] + p[0].x + scratch[get_local_id(0)] * 0; }\n";

static void check_msg(scl_context *ctx, scl_status st, const char *a, const char *b)
{
    const char *m = scl_last_error(ctx);
    CHECK(st == SCL_ERR_ARGUMENT && strstr(m, a) && strstr(m, b), "%s: %s", scl_status_name(st),
          m);
}

static void run(scl_context *ctx, int prec)
{
    char opts[64];
    snprintf(opts, sizeof opts, "-DPREC=%d -DWG=16", prec);
    scl_program *prog = NULL;
    scl_kernel *k = NULL;
    CHECK_OK(ctx, scl_program_build_source(ctx, "scale", src, opts, &prog));
    if (!prog)
        return;
    CHECK_OK(ctx, scl_kernel_from_program(prog, "scale", &k));
    if (!k) {
        scl_program_free(prog);
        return;
    }
    CHECK(scl_kernel_arg_count(k) == 7 && scl_kernel_has_arg(k, "flags") &&
              !scl_kernel_has_arg(k, "restrict"),
          "parameters read: %d", scl_kernel_arg_count(k));
    scl_type rt = prec == 2 ? SCL_DOUBLE : SCL_FLOAT;
    scl_stream *x = NULL, *p = NULL, *wrong = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "x", rt, 100, 1, 1, 0, &x));
    CHECK_OK(ctx, scl_stream_create(ctx, "p", SCL_FLOAT4, 1, 1, 1, 0, &p));
    CHECK_OK(ctx, scl_stream_create(ctx, "wrong", prec == 2 ? SCL_FLOAT : SCL_DOUBLE, 100, 1, 1,
                                    0, &wrong));
    /* mistakes: each one names the kernel and the argument */
    check_msg(ctx, scl_kernel_set_int(k, "nn", 3), "scale", "'nn'");
    check_msg(ctx, scl_kernel_set_int(k, "a", 3), "scale", "'a'");
    check_msg(ctx, scl_kernel_set_real(k, "n", 3.0), "scale", "'n'");
    check_msg(ctx, scl_kernel_set_stream(k, "p", x), "scale", "'p'");
    check_msg(ctx, scl_kernel_set_stream(k, "n", x), "scale", "'n'");
    check_msg(ctx, scl_kernel_set_local(k, "x", 64), "scale", "'x'");
    check_msg(ctx, scl_kernel_set_uint(k, "n", 3000000000u), "scale", "does not fit");
    check_msg(ctx, scl_kernel_set_int(k, "flags", -1), "scale", "does not fit");
    check_msg(ctx, prec == 2 ? scl_kernel_set_float(k, "a", 1) : scl_kernel_set_double(k, "a", 1),
              "scale", "'a'");
    if (wrong)
        check_msg(ctx, scl_kernel_set_stream(k, "x", wrong), "scale", "'x'");
    size_t g = 100, l = 16;
    /* launching with arguments unbound names the first one */
    check_msg(ctx, scl_kernel_launch(k, 1, &g, &l, NULL), "scale", "not bound");
    /* the right calls */
    float p4[4] = {0.5f, 0, 0, 0};
    CHECK_OK(ctx, scl_stream_write(p, p4, 1, NULL));
    double host[100];
    float hostf[100];
    for (int i = 0; i < 100; i++)
        host[i] = hostf[i] = (float)i;
    CHECK_OK(ctx, scl_stream_write(x, prec == 2 ? (void *)host : (void *)hostf, 1, NULL));
    CHECK_OK(ctx, scl_kernel_set_stream(k, "x", x));
    CHECK_OK(ctx, scl_kernel_set_stream(k, "p", p));
    CHECK_OK(ctx, scl_kernel_set_real(k, "a", 3.0));
    CHECK_OK(ctx, scl_kernel_set_int(k, "n", 100));
    CHECK_OK(ctx, scl_kernel_set_local(k, "scratch", 16 * (prec == 2 ? 8 : 4)));
    CHECK_OK(ctx, scl_kernel_set_uint(k, "flags", 7));
    CHECK_OK(ctx, scl_kernel_set_long(k, "big", 1LL << 40));
    size_t bad_local = 32;
    CHECK(scl_kernel_check_local(k, 1, &bad_local) == SCL_ERR_UNSUPPORTED,
          "local 32 passed against reqd_work_group_size 16");
    CHECK_OK(ctx, scl_kernel_check_local(k, 1, &l));
    CHECK_OK(ctx, scl_kernel_launch(k, 1, &g, &l, NULL));
    CHECK_OK(ctx, scl_stream_read(x, prec == 2 ? (void *)host : (void *)hostf, 1, NULL));
    int ok = 1;
    for (int i = 0; i < 100 && ok; i++)
        ok = (prec == 2 ? host[i] : hostf[i]) == 3.0 * i + 0.5;
    CHECK(ok, "scale (prec %d) computed wrong values", prec);
    scl_stream_free(x);
    scl_stream_free(p);
    scl_stream_free(wrong);
    scl_kernel_free(k);
    scl_program_free(prog);
}

int main(void)
{
    scl_context *ctx = test_context();
    run(ctx, 1);
    if (scl_device(ctx)->fp64)
        run(ctx, 2);
    else
        SKIP("double kernel arguments: the device has no fp64");
    /* embedded files through the context's program table */
    scl_kernel *k = NULL;
    CHECK_OK(ctx, scl_kernel_create(ctx, "reduce", "max_float", NULL, &k));
    CHECK(k && scl_kernel_has_arg(k, "partials") && scl_kernel_max_work_group(k) > 0,
          "embedded kernel facts");
    scl_kernel_free(k);
    CHECK(scl_kernel_create(ctx, "reduce", "no_such", NULL, &k) != SCL_OK && !k,
          "unknown kernel accepted");
    scl_context_free(ctx);
    return test_summary("core_kernels");
}
