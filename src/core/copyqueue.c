/* The copy queue: a second in-order queue on the context's device, so that
 * host copies run on the device's copy engines while the main queue's
 * kernels run (one in-order queue runs them one after the other). Order
 * between the two queues goes through events only. */
#include "internal.h"

#include <stdio.h>

/* The copy queue, made on first use; the main queue where none can be
 * made (the copies then keep the main queue's order, as before). */
static cl_command_queue copy_queue(scl_context *ctx)
{
    if (!ctx->copy_queue) {
        cl_int rc;
        ctx->copy_queue = clCreateCommandQueue(ctx->cl, ctx->device, CL_QUEUE_PROFILING_ENABLE, &rc);
        if (rc != CL_SUCCESS)
            ctx->copy_queue = NULL;
    }
    return ctx->copy_queue ? ctx->copy_queue : ctx->queue;
}

static scl_status copy_range(scl_stream *s, int write, size_t first, size_t count, void *host,
                             scl_event after, scl_event *event)
{
    const char *fn = write ? "scl_copy_write" : "scl_copy_read";
    if (event)
        *event = NULL;
    if (!s)
        return SCL_ERR_ARGUMENT;
    scl_context *ctx = s->ctx;
    if (!host || first > s->count || count > s->count - first)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "stream '%s': %s", s->label,
                        host ? "range outside the stream" : "host pointer is NULL");
    if (count == 0)
        return SCL_OK;
    const size_t es = scl_type_size(s->type);
    cl_command_queue q = copy_queue(ctx);
    cl_event ev = NULL;
    const cl_uint nwait = after ? 1 : 0;
    const cl_event *wait = after ? &after : NULL;
    cl_int rc = write ? clEnqueueWriteBuffer(q, s->mem, CL_FALSE, first * es, count * es, host,
                                             nwait, wait, &ev)
                      : clEnqueueReadBuffer(q, s->mem, CL_FALSE, first * es, count * es, host,
                                            nwait, wait, &ev);
    if (rc == CL_SUCCESS)
        rc = clFlush(q); /* started now, not at the next wait */
    if (rc != CL_SUCCESS) {
        if (ev)
            clReleaseEvent(ev);
        return scl_fail_cl(ctx, fn, write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", rc,
                           "stream '%s', elements [%zu, %zu)", s->label, first, first + count);
    }
    scl_copy_done(ctx, s, write, count * es, ev, event);
    return SCL_OK;
}

scl_status scl_copy_read(scl_stream *s, size_t first, size_t count, void *host, scl_event after,
                         scl_event *event)
{
    return copy_range(s, 0, first, count, host, after, event);
}

scl_status scl_copy_write(scl_stream *s, size_t first, size_t count, const void *host,
                          scl_event after, scl_event *event)
{
    return copy_range(s, 1, first, count, (void *)host, after, event);
}

scl_status scl_queue_after(scl_context *ctx, scl_event ev)
{
    if (!ctx || !ev)
        return ctx ? SCL_OK : SCL_ERR_ARGUMENT;
    cl_int rc = clEnqueueBarrierWithWaitList(ctx->queue, 1, &ev, NULL);
    return rc == CL_SUCCESS ? SCL_OK
                            : scl_fail_cl(ctx, "scl_queue_after", "clEnqueueBarrierWithWaitList", rc,
                                          "%s", "the main queue waiting for an event");
}
