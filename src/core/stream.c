/* Streams: typed 1-3D device buffers, transfers with events, mapping. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static const struct { const char *name; size_t size; } type_table[] = {
    [SCL_CHAR] = {"char", 1},     [SCL_UCHAR] = {"uchar", 1},     [SCL_SHORT] = {"short", 2},
    [SCL_USHORT] = {"ushort", 2}, [SCL_HALF] = {"half", 2},       [SCL_INT] = {"int", 4},
    [SCL_UINT] = {"uint", 4},     [SCL_FLOAT] = {"float", 4},     [SCL_FLOAT2] = {"float2", 8},
    [SCL_FLOAT4] = {"float4", 16}, [SCL_INT2] = {"int2", 8},      [SCL_INT4] = {"int4", 16},
    [SCL_LONG] = {"long", 8},     [SCL_DOUBLE] = {"double", 8},   [SCL_DOUBLE2] = {"double2", 16},
    [SCL_DOUBLE4] = {"double4", 32},
};
#define NTYPES (sizeof type_table / sizeof type_table[0])

size_t scl_type_size(scl_type t) { return (unsigned)t < NTYPES ? type_table[t].size : 0; }
const char *scl_type_name(scl_type t) { return (unsigned)t < NTYPES ? type_table[t].name : "?"; }

scl_status scl_stream_create(scl_context *ctx, const char *label, scl_type t, size_t nx,
                             size_t ny, size_t nz, unsigned flags, scl_stream **out)
{
    static const char *fn = "scl_stream_create";
    if (!ctx || !out)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "ctx and out must not be NULL");
    *out = NULL;
    if (!label)
        label = "stream";
    size_t es = scl_type_size(t);
    if (es == 0)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "stream '%s': unknown element type %d", label,
                        (int)t);
    if (ny == 0)
        ny = 1;
    if (nz == 0)
        nz = 1;
    if (nx == 0)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "stream '%s': nx must be > 0", label);
    if ((t == SCL_DOUBLE || t == SCL_DOUBLE2 || t == SCL_DOUBLE4) && !ctx->info.fp64)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn,
                        "stream '%s' of %s: device %s has no fp64 support", label,
                        scl_type_name(t), ctx->info.name);
    /* overflow-checked count and size */
    if (ny > SIZE_MAX / nx || nz > SIZE_MAX / (nx * ny) || nx * ny * nz > SIZE_MAX / es)
        return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn, "stream '%s': %zux%zux%zu %s overflows", label,
                        nx, ny, nz, scl_type_name(t));
    size_t count = nx * ny * nz, bytes = count * es;
    if (bytes > ctx->info.max_alloc)
        return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn,
                        "stream '%s': %zu bytes (%zux%zux%zu %s) exceed the device's max "
                        "allocation of %llu bytes on %s",
                        label, bytes, nx, ny, nz, scl_type_name(t),
                        (unsigned long long)ctx->info.max_alloc, ctx->info.name);
    scl_stream *s = calloc(1, sizeof *s);
    if (!s)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    cl_mem_flags mf = (flags & SCL_STREAM_READ_ONLY)    ? CL_MEM_READ_ONLY
                      : (flags & SCL_STREAM_WRITE_ONLY) ? CL_MEM_WRITE_ONLY
                                                        : CL_MEM_READ_WRITE;
    if (flags & SCL_STREAM_HOST_MAPPED)
        mf |= CL_MEM_ALLOC_HOST_PTR;
    cl_int rc;
    s->mem = clCreateBuffer(ctx->cl, mf, bytes, NULL, &rc);
    if (rc != CL_SUCCESS) {
        free(s);
        return scl_fail_cl(ctx, fn, "clCreateBuffer", rc, "stream '%s', %zu bytes on %s", label,
                           bytes, ctx->info.name);
    }
    s->ctx = ctx;
    snprintf(s->label, sizeof s->label, "%s", label);
    s->type = t;
    s->dims[0] = nx;
    s->dims[1] = ny;
    s->dims[2] = nz;
    s->count = count;
    s->flags = flags;
    *out = s;
    return SCL_OK;
}

void scl_stream_free(scl_stream *s)
{
    if (!s)
        return;
    if (s->mem)
        clReleaseMemObject(s->mem);
    free(s);
}

void scl_streams_free(scl_stream *const *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        scl_stream_free(s[k]);
}

cl_mem scl_stream_mem(const scl_stream *s) { return s ? s->mem : NULL; }
size_t scl_stream_count(const scl_stream *s) { return s ? s->count : 0; }
size_t scl_stream_bytes(const scl_stream *s) { return s ? s->count * scl_type_size(s->type) : 0; }
scl_type scl_stream_type(const scl_stream *s) { return s ? s->type : SCL_FLOAT; }

void scl_stream_dims(const scl_stream *s, size_t dims[3])
{
    for (int d = 0; d < 3; d++)
        dims[d] = s ? s->dims[d] : 0;
}

/* A copy enqueued (on either queue): counted, its event profiled, and
 * handed to the caller or released. */
void scl_copy_done(scl_context *ctx, const scl_stream *s, int write, size_t bytes, cl_event ev,
                   cl_event *event)
{
    if (write) {
        ctx->transfers.uploads++;
        ctx->transfers.upload_bytes += bytes;
    } else {
        ctx->transfers.downloads++;
        ctx->transfers.download_bytes += bytes;
    }
    char label[80];
    snprintf(label, sizeof label, "%s %s", write ? "write" : "read", s->label);
    scl_track_event(ctx, label, write ? SCL_PROF_WRITE : SCL_PROF_READ, ev);
    if (event)
        *event = ev;
    else if (ev)
        clReleaseEvent(ev);
}

static scl_status transfer(scl_stream *s, int write, size_t first, size_t count, void *host,
                           int blocking, cl_event *event)
{
    const char *fn = write ? "scl_stream_write" : "scl_stream_read";
    if (!s)
        return SCL_ERR_ARGUMENT;
    scl_context *ctx = s->ctx;
    if (!host)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "stream '%s': host pointer is NULL", s->label);
    if (first > s->count || count > s->count - first)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                        "stream '%s': range [%zu, %zu) outside its %zu elements", s->label, first,
                        first + count, s->count);
    if (count == 0)
        return SCL_OK;
    size_t es = scl_type_size(s->type);
    cl_event ev = NULL;
    int want = event || scl_want_event(ctx);
    cl_int rc = write ? clEnqueueWriteBuffer(ctx->queue, s->mem, blocking ? CL_TRUE : CL_FALSE,
                                             first * es, count * es, host, 0, NULL,
                                             want ? &ev : NULL)
                      : clEnqueueReadBuffer(ctx->queue, s->mem, blocking ? CL_TRUE : CL_FALSE,
                                            first * es, count * es, host, 0, NULL,
                                            want ? &ev : NULL);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(ctx, fn, write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", rc,
                           "stream '%s', elements [%zu, %zu) of %s", s->label, first,
                           first + count, scl_type_name(s->type));
    scl_copy_done(ctx, s, write, count * es, ev, event);
    return SCL_OK;
}

scl_status scl_stream_write(scl_stream *s, const void *host, int blocking, cl_event *event)
{
    return transfer(s, 1, 0, s ? s->count : 0, (void *)host, blocking, event);
}

scl_status scl_stream_read(scl_stream *s, void *host, int blocking, cl_event *event)
{
    return transfer(s, 0, 0, s ? s->count : 0, host, blocking, event);
}

scl_status scl_stream_write_range(scl_stream *s, size_t first, size_t count, const void *host,
                                  int blocking, cl_event *event)
{
    return transfer(s, 1, first, count, (void *)host, blocking, event);
}

scl_status scl_stream_read_range(scl_stream *s, size_t first, size_t count, void *host,
                                 int blocking, cl_event *event)
{
    return transfer(s, 0, first, count, host, blocking, event);
}

static scl_status check_range(scl_stream *s, const char *fn, size_t first, size_t count)
{
    if (first > s->count || count > s->count - first)
        return scl_fail(s->ctx, SCL_ERR_ARGUMENT, fn,
                        "stream '%s': range [%zu, %zu) outside its %zu elements", s->label, first,
                        first + count, s->count);
    return SCL_OK;
}

/* Hand out or release an event, after accounting it. */
static void finish_event(scl_context *ctx, const char *label, cl_event ev, scl_event *event)
{
    scl_track_event(ctx, label, SCL_PROF_OTHER, ev);
    if (event)
        *event = ev;
    else if (ev)
        clReleaseEvent(ev);
}

scl_status scl_stream_fill_range(scl_stream *s, size_t first, size_t count, const void *element,
                                 scl_event *event)
{
    static const char *fn = "scl_stream_fill_range";
    if (event)
        *event = NULL;
    if (!s || !element)
        return scl_fail(s ? s->ctx : NULL, SCL_ERR_ARGUMENT, fn, "NULL argument");
    scl_status st = check_range(s, fn, first, count);
    if (st != SCL_OK || count == 0)
        return st;
    scl_context *ctx = s->ctx;
    size_t es = scl_type_size(s->type);
    cl_event ev = NULL;
    cl_int rc = clEnqueueFillBuffer(ctx->queue, s->mem, element, es, first * es, count * es, 0,
                                    NULL, (event || scl_want_event(ctx)) ? &ev : NULL);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(ctx, fn, "clEnqueueFillBuffer", rc, "stream '%s', [%zu, %zu)",
                           s->label, first, first + count);
    char label[80];
    snprintf(label, sizeof label, "fill %s", s->label);
    finish_event(ctx, label, ev, event);
    return SCL_OK;
}

scl_status scl_stream_fill(scl_stream *s, const void *element)
{
    scl_status st = scl_stream_fill_range(s, 0, s ? s->count : 0, element, NULL);
    return st == SCL_OK ? scl_finish(s->ctx) : st;
}

scl_status scl_stream_copy(scl_stream *dst, size_t dst_first, const scl_stream *src,
                           size_t src_first, size_t count, scl_event *event)
{
    static const char *fn = "scl_stream_copy";
    if (event)
        *event = NULL;
    if (!dst || !src || dst->ctx != src->ctx)
        return scl_fail(dst ? dst->ctx : NULL, SCL_ERR_ARGUMENT, fn,
                        "NULL stream or streams of different contexts");
    scl_context *ctx = dst->ctx;
    size_t es = scl_type_size(dst->type);
    if (es != scl_type_size(src->type))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                        "stream '%s' has %s elements, '%s' has %s: sizes differ", src->label,
                        scl_type_name(src->type), dst->label, scl_type_name(dst->type));
    scl_status st = check_range(dst, fn, dst_first, count);
    if (st == SCL_OK)
        st = check_range((scl_stream *)src, fn, src_first, count);
    if (st != SCL_OK || count == 0)
        return st;
    if (src == dst && src_first < dst_first + count && dst_first < src_first + count)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "stream '%s': overlapping ranges", src->label);
    cl_event ev = NULL;
    cl_int rc = clEnqueueCopyBuffer(ctx->queue, src->mem, dst->mem, src_first * es,
                                    dst_first * es, count * es, 0, NULL,
                                    (event || scl_want_event(ctx)) ? &ev : NULL);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(ctx, fn, "clEnqueueCopyBuffer", rc, "'%s'[%zu..] -> '%s'[%zu..], %zu %s",
                           src->label, src_first, dst->label, dst_first, count,
                           scl_type_name(src->type));
    char label[80];
    snprintf(label, sizeof label, "copy %s", dst->label);
    finish_event(ctx, label, ev, event);
    return SCL_OK;
}

scl_status scl_stream_map(scl_stream *s, unsigned map_flags, void **host)
{
    if (!s || !host || !(map_flags & (SCL_MAP_READ | SCL_MAP_WRITE)))
        return scl_fail(s ? s->ctx : NULL, SCL_ERR_ARGUMENT, "scl_stream_map",
                        "NULL argument or no map flags");
    cl_map_flags mf = 0;
    if (map_flags & SCL_MAP_READ)
        mf |= CL_MAP_READ;
    if (map_flags & SCL_MAP_WRITE)
        mf |= CL_MAP_WRITE;
    cl_int rc;
    *host = clEnqueueMapBuffer(s->ctx->queue, s->mem, CL_TRUE, mf, 0, scl_stream_bytes(s), 0,
                               NULL, NULL, &rc);
    if (rc != CL_SUCCESS) {
        *host = NULL;
        return scl_fail_cl(s->ctx, "scl_stream_map", "clEnqueueMapBuffer", rc, "stream '%s'",
                           s->label);
    }
    return SCL_OK;
}

scl_status scl_stream_unmap(scl_stream *s, void *host)
{
    if (!s || !host)
        return scl_fail(s ? s->ctx : NULL, SCL_ERR_ARGUMENT, "scl_stream_unmap", "NULL argument");
    cl_int rc = clEnqueueUnmapMemObject(s->ctx->queue, s->mem, host, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(s->ctx, "scl_stream_unmap", "clEnqueueUnmapMemObject", rc,
                           "stream '%s'", s->label);
    return SCL_OK;
}
