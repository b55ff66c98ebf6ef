/* Kernel arguments and launches, with errors that name kernel and sizes. */
#include "internal.h"

#include <string.h>

static void kernel_name(cl_kernel k, char *buf, size_t len)
{
    buf[0] = '\0';
    if (clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, len, buf, NULL) != CL_SUCCESS)
        snprintf(buf, len, "?");
    buf[len - 1] = '\0';
}

scl_status scl_arg(scl_context *ctx, cl_kernel k, cl_uint idx, size_t size, const void *value)
{
    cl_int rc = clSetKernelArg(k, idx, size, value);
    if (rc != CL_SUCCESS) {
        char name[128];
        kernel_name(k, name, sizeof name);
        return scl_fail_cl(ctx, "scl_arg", "clSetKernelArg", rc, "kernel %s, argument %u, %zu bytes",
                           name, (unsigned)idx, size);
    }
    return SCL_OK;
}

scl_status scl_launch(scl_context *ctx, cl_kernel k, const char *label, cl_uint dims,
                      const size_t *global, const size_t *local, cl_event *event)
{
    if (!ctx || !k || dims < 1 || dims > 3 || !global)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_launch", "invalid kernel, dims or global size");
    size_t g[3] = {1, 1, 1};
    for (cl_uint d = 0; d < dims; d++) {
        if (global[d] == 0)
            return SCL_OK; /* nothing to do is not an error */
        g[d] = global[d];
        if (local && local[d] > 0)
            g[d] = (g[d] + local[d] - 1) / local[d] * local[d];
    }
    char name[128];
    kernel_name(k, name, sizeof name);
    cl_event ev = NULL;
    int want_event = event || ctx->profiling;
    cl_int rc = clEnqueueNDRangeKernel(ctx->queue, k, dims, NULL, g, local, 0, NULL,
                                       want_event ? &ev : NULL);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(ctx, "scl_launch", "clEnqueueNDRangeKernel", rc,
                           "kernel %s, global %zux%zux%zu, local %zux%zux%zu", name, g[0], g[1],
                           g[2], local ? local[0] : 0, (local && dims > 1) ? local[1] : 0,
                           (local && dims > 2) ? local[2] : 0);
    scl_profile_maybe(ctx, label ? label : name, SCL_PROF_KERNEL, ev);
    if (event)
        *event = ev;
    else if (ev)
        clReleaseEvent(ev);
    return SCL_OK;
}

scl_status scl_event_seconds(scl_context *ctx, cl_event ev, double *seconds)
{
    cl_ulong t0 = 0, t1 = 0;
    cl_int rc = clWaitForEvents(1, &ev);
    if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(ctx, "scl_event_seconds", "clGetEventProfilingInfo", rc, "%s", "");
    *seconds = t1 > t0 ? (double)(t1 - t0) * 1e-9 : 0.0;
    return SCL_OK;
}
