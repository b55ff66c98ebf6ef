/* Profiling accounts launches and transfers per label; failed launches give a
 * message naming the call, the OpenCL error and the kernel with its sizes. */
#include "test_util.h"

#include <string.h>

int main(void)
{
    test_reset_cache();
    scl_context_options opt = {.profiling = 1};
    char err[512];
    scl_context *ctx = NULL;
    if (scl_context_create(&opt, &ctx, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    scl_program *p = NULL;
    scl_kernel *k = NULL;
    scl_stream *s = NULL;
    CHECK_OK(ctx, scl_program_build_source(
                      ctx, "inc", "__kernel void inc(__global int *x) { x[get_global_id(0)]++; }",
                      NULL, &p));
    if (p)
        CHECK_OK(ctx, scl_kernel_from_program(p, "inc", &k));
    scl_kernel_set_label(k, "increment");
    CHECK_OK(ctx, scl_stream_create(ctx, "counts", SCL_INT, 1000, 1, 1, 0, &s));
    int zero = 0;
    CHECK_OK(ctx, scl_stream_fill(s, &zero));
    CHECK_OK(ctx, scl_kernel_set_stream(k, "x", s));
    size_t g = 1000;
    for (int i = 0; i < 5; i++)
        CHECK_OK(ctx, scl_kernel_launch(k, 1, &g, NULL, NULL));
    int out[1000];
    CHECK_OK(ctx, scl_stream_read(s, out, 1, NULL));
    CHECK(out[0] == 5 && out[999] == 5, "kernel ran %d times", out[0]);

    double sec = -1;
    long count = 0;
    CHECK_OK(ctx, scl_profile_total(ctx, "increment", &sec, &count));
    CHECK(count == 5 && sec > 0 && sec < 10, "profile: %ld launches, %g s", count, sec);
    CHECK_OK(ctx, scl_profile_total(ctx, "read counts", &sec, &count));
    CHECK(count == 1, "read not accounted: %ld", count);
    FILE *tmp = tmpfile();
    CHECK_OK(ctx, scl_profile_report(ctx, tmp));
    char text[4096] = "";
    rewind(tmp);
    size_t n = fread(text, 1, sizeof text - 1, tmp);
    text[n] = '\0';
    fclose(tmp);
    CHECK(strstr(text, "Device Time Info") && strstr(text, "increment") && strstr(text, "read counts"),
          "report:\n%s", text);

    /* a work-group larger than the device allows: the message names it all */
    size_t local = scl_device(ctx)->max_work_group * 2, global = local;
    scl_status st = scl_kernel_check_local(k, 1, &local);
    CHECK(st == SCL_ERR_UNSUPPORTED && strstr(scl_last_error(ctx), "inc"),
          "oversized work-group passed the check: %s", scl_last_error(ctx));
    st = scl_kernel_launch(k, 1, &global, &local, NULL);
    CHECK(st == SCL_ERR_OPENCL, "oversized work-group accepted: %s", scl_status_name(st));
    const char *msg = scl_last_error(ctx);
    CHECK(strstr(msg, "scl_kernel_launch") && strstr(msg, "clEnqueueNDRangeKernel") &&
              strstr(msg, "CL_INVALID_WORK_GROUP_SIZE") && strstr(msg, "inc"),
          "message: %s", msg);
    CHECK(strcmp(scl_status_name(SCL_ERR_BUILD), "SCL_ERR_BUILD") == 0, "status name");
    CHECK(strcmp(scl_cl_error_name(-5), "CL_OUT_OF_RESOURCES") == 0, "cl name");
    scl_profile_reset(ctx);
    CHECK_OK(ctx, scl_profile_total(ctx, "increment", &sec, &count));
    CHECK(count == 0, "reset kept %ld", count);
    scl_kernel_free(k);
    scl_stream_free(s);
    scl_program_free(p);
    scl_context_free(ctx);
    return test_summary("core_profile_errors");
}
