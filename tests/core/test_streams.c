/* Stream round trips for every element type and 1-3 dimensions, ranges,
 * fill, mapping, events, and the errors of bad ranges and sizes. */
#include "test_util.h"

#include <string.h>

static unsigned char *random_bytes(uint64_t *seed, size_t n)
{
    unsigned char *b = malloc(n);
    for (size_t i = 0; b && i < n; i++)
        b[i] = (unsigned char)(test_uniform(seed) * 256.0);
    return b;
}

static void round_trip(scl_context *ctx, uint64_t *seed, scl_type t, size_t nx, size_t ny,
                       size_t nz)
{
    scl_stream *s = NULL;
    scl_status st = scl_stream_create(ctx, "rt", t, nx, ny, nz, 0, &s);
    if (st == SCL_ERR_UNSUPPORTED && !scl_device(ctx)->fp64) {
        SKIP("%s streams: the device has no fp64", scl_type_name(t));
        return;
    }
    CHECK_OK(ctx, st);
    if (!s)
        return;
    size_t bytes = scl_stream_bytes(s);
    CHECK(bytes == nx * ny * nz * scl_type_size(t), "%s: %zu bytes", scl_type_name(t), bytes);
    size_t dims[3];
    scl_stream_dims(s, dims);
    CHECK(dims[0] == nx && dims[1] == ny && dims[2] == nz, "dims of %s", scl_type_name(t));
    unsigned char *in = random_bytes(seed, bytes), *out = calloc(1, bytes);
    CHECK_OK(ctx, scl_stream_write(s, in, 1, NULL));
    CHECK_OK(ctx, scl_stream_read(s, out, 1, NULL));
    CHECK(memcmp(in, out, bytes) == 0, "blocking round trip of %s %zux%zux%zu", scl_type_name(t),
          nx, ny, nz);

    /* non-blocking with events, over a sub-range */
    size_t count = scl_stream_count(s), first = count / 3, n = count - first;
    size_t es = scl_type_size(t);
    unsigned char *in2 = random_bytes(seed, n * es);
    scl_event w = NULL, r = NULL;
    CHECK_OK(ctx, scl_stream_write_range(s, first, n, in2, 0, &w));
    memset(out, 0, bytes);
    CHECK_OK(ctx, scl_stream_read(s, out, 0, &r));
    CHECK_OK(ctx, scl_event_wait(ctx, r));
    CHECK(memcmp(out, in, first * es) == 0 && memcmp(out + first * es, in2, n * es) == 0,
          "range round trip of %s", scl_type_name(t));
    scl_event_release(w);
    scl_event_release(r);

    /* device copies and fills of ranges, queued in order */
    scl_stream *d = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "copy", t, count, 1, 1, 0, &d));
    if (d) {
        unsigned char *cp = calloc(count, es);
        CHECK_OK(ctx, scl_stream_copy(d, 0, s, 0, count, NULL));
        CHECK_OK(ctx, scl_stream_fill_range(d, first, n, in, NULL));
        CHECK_OK(ctx, scl_stream_read(d, cp, 1, NULL));
        int ok = memcmp(cp, out, first * es) == 0;
        for (size_t i = first; i < count && ok; i++)
            ok = memcmp(cp + i * es, in, es) == 0;
        CHECK(ok, "copy + fill range of %s", scl_type_name(t));
        CHECK(scl_stream_copy(d, 1, s, 0, count, NULL) == SCL_ERR_ARGUMENT,
              "copy past the end accepted");
        free(cp);
        scl_stream_free(d);
    }
    free(in);
    free(in2);
    free(out);
    scl_stream_free(s);
}

int main(void)
{
    uint64_t seed = test_seed();
    scl_context *ctx = test_context();
    const scl_type types[] = {SCL_CHAR,  SCL_UCHAR,  SCL_SHORT, SCL_USHORT,  SCL_HALF,  SCL_INT,
                              SCL_UINT,  SCL_FLOAT,  SCL_FLOAT2, SCL_FLOAT4, SCL_INT2,  SCL_INT4,
                              SCL_LONG,  SCL_DOUBLE, SCL_DOUBLE2, SCL_DOUBLE4};
    const size_t shapes[][3] = {{1, 1, 1}, {1000003, 1, 1}, {37, 100, 1}, {5, 7, 11}};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            round_trip(ctx, &seed, types[t], shapes[k][0], shapes[k][1], shapes[k][2]);

    /* fill and map */
    scl_stream *s = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "mapped", SCL_FLOAT, 4099, 1, 1, SCL_STREAM_HOST_MAPPED, &s));
    float v = 2.5f;
    CHECK_OK(ctx, scl_stream_fill(s, &v));
    float *p = NULL;
    CHECK_OK(ctx, scl_stream_map(s, SCL_MAP_READ | SCL_MAP_WRITE, (void **)&p));
    int ok = p != NULL;
    for (size_t i = 0; ok && i < 4099; i++)
        ok = p[i] == 2.5f;
    CHECK(ok, "fill not visible through map");
    if (p) {
        p[4098] = -1.0f;
        CHECK_OK(ctx, scl_stream_unmap(s, p));
    }
    float last = 0;
    CHECK_OK(ctx, scl_stream_read_range(s, 4098, 1, &last, 1, NULL));
    CHECK(last == -1.0f, "write through map lost: %g", last);

    /* transfer counters: one write of 3 and one read of 2 floats, nothing
     * for fills, copies and refused calls */
    scl_transfer_stats t0, t1;
    scl_transfer_stats_get(ctx, &t0);
    float three[3] = {1, 2, 3}, two[2];
    CHECK_OK(ctx, scl_stream_write_range(s, 10, 3, three, 1, NULL));
    CHECK_OK(ctx, scl_stream_read_range(s, 11, 2, two, 1, NULL));
    CHECK_OK(ctx, scl_stream_fill(s, &v));
    CHECK(scl_stream_read_range(s, 4098, 5, two, 1, NULL) == SCL_ERR_ARGUMENT, "bad range read");
    scl_transfer_stats_get(ctx, &t1);
    CHECK(t1.uploads - t0.uploads == 1 && t1.upload_bytes - t0.upload_bytes == 12 &&
              t1.downloads - t0.downloads == 1 && t1.download_bytes - t0.download_bytes == 8,
          "transfer counters: %ld up (%llu B), %ld down (%llu B); want 1 (12), 1 (8)",
          t1.uploads - t0.uploads, (unsigned long long)(t1.upload_bytes - t0.upload_bytes),
          t1.downloads - t0.downloads, (unsigned long long)(t1.download_bytes - t0.download_bytes));
    CHECK(two[0] == 2 && two[1] == 3, "read back %g %g", two[0], two[1]);
    scl_transfer_stats_get(NULL, &t1);
    CHECK(t1.uploads == 0 && t1.download_bytes == 0, "no context: counters not zero");

    /* bad ranges and sizes: clear errors, stream still usable */
    float buf[8];
    CHECK(scl_stream_read_range(s, 4095, 8, buf, 1, NULL) == SCL_ERR_ARGUMENT,
          "out-of-range read accepted");
    CHECK(strstr(scl_last_error(ctx), "mapped") != NULL, "message lacks stream label: %s",
          scl_last_error(ctx));
    CHECK(scl_stream_write(s, NULL, 1, NULL) == SCL_ERR_ARGUMENT, "NULL host accepted");
    scl_stream_free(s);

    scl_stream *huge = NULL;
    size_t too_many = (size_t)(scl_device(ctx)->max_alloc / 16) + 1;
    CHECK(scl_stream_create(ctx, "huge", SCL_FLOAT4, too_many, 1, 1, 0, &huge) == SCL_ERR_TOO_LARGE,
          "stream above max allocation accepted");
    CHECK(huge == NULL, "failed create left an object");
    CHECK(scl_stream_create(ctx, "overflow", SCL_DOUBLE4, SIZE_MAX / 2, 4, 1, 0, &huge) ==
              SCL_ERR_TOO_LARGE || !scl_device(ctx)->fp64,
          "size overflow accepted");
    CHECK(scl_stream_create(ctx, "empty", SCL_FLOAT, 0, 1, 1, 0, &huge) == SCL_ERR_ARGUMENT,
          "empty stream accepted");
    scl_context_free(ctx);
    return test_summary("core_streams");
}
