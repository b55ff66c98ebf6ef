/* Waiting on the context's queue and its events: flush, finish, one event's
 * wait, release and device seconds. Below the enqueueing (launch.c), the
 * profile table and plans, which all wait here; it reaches none of them. */
#include "internal.h"

/* clFlush or clFinish on the context's queue, with the error named. */
static scl_status queue_call(scl_context *ctx, cl_int (*call)(cl_command_queue), const char *fn,
                             const char *clcall)
{
    if (!ctx)
        return SCL_ERR_ARGUMENT;
    cl_int rc = call(ctx->queue);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(ctx, fn, clcall, rc, "device %s", ctx->info.name);
    return SCL_OK;
}

scl_status scl_flush(scl_context *ctx) { return queue_call(ctx, clFlush, "scl_flush", "clFlush"); }

scl_status scl_finish(scl_context *ctx)
{
    return queue_call(ctx, clFinish, "scl_finish", "clFinish");
}

scl_status scl_event_wait(scl_context *ctx, scl_event ev)
{
    if (!ev)
        return SCL_OK;
    cl_int rc = clWaitForEvents(1, &ev);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(ctx, "scl_event_wait", "clWaitForEvents", rc, "%s", "");
    return SCL_OK;
}

void scl_event_release(scl_event ev)
{
    if (ev)
        clReleaseEvent(ev);
}

scl_status scl_event_seconds(scl_context *ctx, scl_event ev, double *seconds)
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
