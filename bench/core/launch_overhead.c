/* Host cost of one kernel launch: the same empty kernel queued through raw
 * OpenCL (clSetKernelArg + clEnqueueNDRangeKernel: what every solver did
 * before kernel objects), through a kernel object (arguments set by name,
 * checked, then launched) and through a plan's execute. Wall-clock time per
 * launch over batches of launches ending in one clFinish; median of batches.
 *   usage: launch_overhead [launches per batch (default 20000)] [batches (default 7)] */
#include "streamcl/opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *source = "__kernel void touch(__global float *x, const float a, const uint n)"
                            " { size_t i = get_global_id(0); if (i < n) x[i] = a; }\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    scl_kernel *k;
    scl_stream *x;
} job;

static scl_status step(void *user, void *variant, const int *values)
{
    (void)variant;
    job *j = user;
    size_t g = 64, l = (size_t)values[0];
    return scl_kernel_launch(j->k, 1, &g, &l, NULL);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000, batches = argc > 2 ? atoi(argv[2]) : 7;
    if (n < 1 || batches < 1 || batches > 64) {
        fprintf(stderr, "usage: launch_overhead [launches >= 1] [batches 1..64]\n");
        return 2;
    }
    char err[1024];
    scl_context *ctx = NULL;
    if (scl_context_create_env(NULL, &ctx, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "launch_overhead: %s\n", err);
        return 1;
    }
    scl_program *prog = NULL;
    job j = {NULL, NULL};
    scl_status s = scl_program_build_source(ctx, "touch", source, NULL, &prog);
    if (s == SCL_OK)
        s = scl_kernel_from_program(prog, "touch", &j.k);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "x", SCL_FLOAT, 64, 1, 1, 0, &j.x);
    if (s == SCL_OK)
        s = scl_kernel_set_stream(j.k, "x", j.x);
    if (s == SCL_OK)
        s = scl_kernel_set_real(j.k, "a", 1.0);
    if (s == SCL_OK)
        s = scl_kernel_set_uint(j.k, "n", 64);
    static const scl_tune_param params[1] = {{"wg", 1, {64}}};
    scl_plan_desc desc = {.name = "touch", .shape = "64", .params = params, .nparams = 1,
                          .run_variant = step, .user = &j};
    scl_plan *plan = NULL;
    if (s == SCL_OK)
        s = scl_plan_create(ctx, &desc, NULL, &plan);
    if (s != SCL_OK) {
        fprintf(stderr, "launch_overhead: %s\n", scl_last_error(ctx));
        return 1;
    }
    cl_kernel raw = scl_cl_kernel(j.k);
    cl_command_queue q = scl_queue(ctx);
    cl_mem mem = scl_stream_mem(j.x);
    const char *names[3] = {"raw OpenCL (set 3 args + enqueue)", "kernel object (set by name + launch)",
                            "plan execute (launch)"};
    double med[3];
    for (int way = 0; way < 3; way++) {
        double t[64];
        for (int b = -1; b < batches; b++) { /* b = -1: warm-up */
            double t0 = now();
            for (int i = 0; i < n && s == SCL_OK; i++) {
                if (way == 0) {
                    float a = (float)i;
                    cl_uint cnt = 64;
                    size_t g = 64, l = 64;
                    cl_int rc = clSetKernelArg(raw, 0, sizeof mem, &mem);
                    rc |= clSetKernelArg(raw, 1, sizeof a, &a);
                    rc |= clSetKernelArg(raw, 2, sizeof cnt, &cnt);
                    rc |= clEnqueueNDRangeKernel(q, raw, 1, NULL, &g, &l, 0, NULL, NULL);
                    s = rc == CL_SUCCESS ? SCL_OK : SCL_ERR_OPENCL;
                } else if (way == 1) {
                    size_t g = 64, l = 64;
                    s = scl_kernel_set_stream(j.k, "x", j.x);
                    if (s == SCL_OK)
                        s = scl_kernel_set_real(j.k, "a", (double)i);
                    if (s == SCL_OK)
                        s = scl_kernel_set_uint(j.k, "n", 64);
                    if (s == SCL_OK)
                        s = scl_kernel_launch(j.k, 1, &g, &l, NULL);
                } else {
                    s = scl_plan_execute(plan);
                }
            }
            if (s == SCL_OK)
                s = scl_finish(ctx);
            if (b >= 0)
                t[b] = (now() - t0) / n;
        }
        if (s != SCL_OK) {
            fprintf(stderr, "launch_overhead: %s\n", scl_last_error(ctx));
            return 1;
        }
        qsort(t, (size_t)batches, sizeof t[0], cmp);
        med[way] = t[batches / 2];
    }
    printf("device: %s [%s]\n", scl_device(ctx)->name, scl_device(ctx)->platform);
    printf("| way | us per launch (median of %d batches of %d) |\n|---|---|\n", batches, n);
    for (int way = 0; way < 3; way++)
        printf("| %s | %.3f |\n", names[way], med[way] * 1e6);
    scl_plan_free(plan);
    scl_kernel_free(j.k);
    scl_stream_free(j.x);
    scl_program_free(prog);
    scl_context_free(ctx);
    return 0;
}
