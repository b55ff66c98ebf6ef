/* Enqueueing kernels and accounting their events (profile table, plan timing). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int scl_want_event(const scl_context *ctx) { return ctx->profiling || ctx->timing.active; }

void scl_track_event(scl_context *ctx, const char *label, scl_prof_kind kind, cl_event ev)
{
    if (!ev)
        return;
    scl_profile_maybe(ctx, label, kind, ev);
    scl_timing *t = &ctx->timing;
    if (!t->active)
        return;
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        cl_event *e = realloc(t->events, cap * sizeof *e);
        if (!e) {
            t->failed = 1; /* the plan reports it; the work itself went ahead */
            return;
        }
        t->events = e;
        t->cap = cap;
    }
    clRetainEvent(ev);
    t->events[t->count++] = ev;
}

scl_status scl_enqueue_kernel(scl_context *ctx, cl_kernel k, const char *name, const char *label,
                              unsigned dims, const size_t *global, const size_t *local,
                              scl_event *event)
{
    if (event)
        *event = NULL;
    if (!ctx || !k || dims < 1 || dims > 3 || !global)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_kernel_launch",
                        "invalid kernel, dims or global size");
    size_t g[3] = {1, 1, 1};
    for (unsigned d = 0; d < dims; d++) {
        if (global[d] == 0)
            return SCL_OK; /* nothing to do is not an error */
        g[d] = global[d];
        if (local && local[d] > 0)
            g[d] = (g[d] + local[d] - 1) / local[d] * local[d];
    }
    cl_event ev = NULL;
    int want_event = event || scl_want_event(ctx);
    cl_int rc = clEnqueueNDRangeKernel(ctx->queue, k, dims, NULL, g, local, 0, NULL,
                                       want_event ? &ev : NULL);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(ctx, "scl_kernel_launch", "clEnqueueNDRangeKernel", rc,
                           "kernel %s, global %zux%zux%zu, local %zux%zux%zu", name, g[0], g[1],
                           g[2], local ? local[0] : 0, (local && dims > 1) ? local[1] : 0,
                           (local && dims > 2) ? local[2] : 0);
    scl_track_event(ctx, label ? label : name, SCL_PROF_KERNEL, ev);
    if (event)
        *event = ev;
    else if (ev)
        clReleaseEvent(ev);
    return SCL_OK;
}
