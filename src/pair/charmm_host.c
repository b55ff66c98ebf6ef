/* The host side of the charmm engine's transfers: pinned staging buffers
 * and the copies of the caller's arrays into them (spread over threads where
 * asked: on PoCL's host 2 threads copied 2.4 MB 3x faster than one, on the
 * H200's host 8-16 threads slower), and whether the caller's memory goes up
 * as it is. */
#include "pair/pair_internal.h"

#include <string.h>

#define COPY_BLOCK ((size_t)64 * 1024)
#define BYTES_PER_THREAD ((size_t)256 * 1024)
#define MAX_SEGMENTS 8

scl_status charmm_stage_reserve(scl_context *ctx, charmm_stage *st, size_t bytes, void **ptr)
{
    if (st->stream && st->bytes >= bytes) {
        *ptr = st->ptr;
        return SCL_OK;
    }
    charmm_stage_free(st);
    *ptr = NULL;
    size_t want = bytes + bytes / 16 + 64; /* ghost counts drift between rebuilds */
    scl_status s = scl_stream_create(ctx, "charmm host staging", SCL_UCHAR, want, 1, 1,
                                     SCL_STREAM_HOST_MAPPED, &st->stream);
    if (s == SCL_OK)
        s = scl_stream_map(st->stream, SCL_MAP_READ | SCL_MAP_WRITE, &st->ptr);
    if (s != SCL_OK) {
        scl_stream_free(st->stream);
        st->stream = NULL;
        st->ptr = NULL;
        return s;
    }
    st->bytes = want;
    *ptr = st->ptr;
    return SCL_OK;
}

void charmm_stage_free(charmm_stage *st)
{
    if (st->stream) {
        scl_stream_unmap(st->stream, st->ptr);
        scl_stream_free(st->stream);
    }
    st->stream = NULL;
    st->ptr = NULL;
    st->bytes = 0;
}

void charmm_copy_parallel(const charmm_copy *c, int n, int threads)
{
    /* OpenMP's default is not taken here: on the H200's host 8 and 16 threads
     * copied into pinned staging slower than one (0.38 / 0.40 vs 0.26 ms a
     * step for rhodo's x and q) */
    if (threads <= 0)
        threads = 1;
    size_t total = 0, first[MAX_SEGMENTS + 1];
    long blocks = 0;
    if (n > MAX_SEGMENTS)
        n = MAX_SEGMENTS;
    for (int k = 0; k < n; k++) {
        first[k] = (size_t)blocks;
        total += c[k].bytes;
        blocks += (long)((c[k].bytes + COPY_BLOCK - 1) / COPY_BLOCK);
    }
    first[n] = (size_t)blocks;
    long want = (long)(total / BYTES_PER_THREAD);
#ifdef _OPENMP
    if (want > threads)
        want = threads;
#else
    (void)threads;
    want = 1;
#endif
    if (want < 2) {
        for (int k = 0; k < n; k++)
            if (c[k].bytes)
                memcpy(c[k].dst, c[k].src, c[k].bytes);
        return;
    }
#pragma omp parallel for schedule(static) num_threads((int)want)
    for (long b = 0; b < blocks; b++) {
        int k = 0;
        while ((size_t)b >= first[k + 1])
            k++;
        size_t off = ((size_t)b - first[k]) * COPY_BLOCK;
        size_t len = c[k].bytes - off < COPY_BLOCK ? c[k].bytes - off : COPY_BLOCK;
        memcpy((char *)c[k].dst + off, (const char *)c[k].src + off, len);
    }
}

int charmm_direct_upload(const scl_device_info *dev, int inputs_stable)
{
    (void)dev; /* NVIDIA (H200, 2026-11-23): a pageable write cost the calling thread
                * 0.11 ms a step where a copy into pinned staging cost 0.26 */
    return inputs_stable >= 1;
}

int charmm_host_threads(const scl_device_info *dev, int host_threads)
{
    if (host_threads > 0)
        return host_threads;
    return dev->is_gpu ? 0 : 1;
}
