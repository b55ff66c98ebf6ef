/* streamcl reduce: the main demo of the offload core. Sums a random float
 * stream on the device, checks it against a double host sum, and reports the
 * reduction's bandwidth next to the device's own buffer-copy bandwidth. */
#include "commands.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: streamcl reduce [--mib M] [--repeat R] [--device SPEC]\n"
                 "  --mib M      stream size in MiB of floats (default 256)\n"
                 "  --repeat R   timed repetitions after a warm-up; median reported (default 20)\n");
}

/* Median device seconds of `repeat` buffer copies of bytes/2 (read + write = bytes). */
static scl_status copy_bandwidth(scl_context *ctx, scl_stream *src, int repeat, double *median)
{
    size_t half = scl_stream_count(src) / 2;
    double *t = calloc((size_t)repeat, sizeof *t);
    if (!t)
        return SCL_ERR_MEMORY;
    scl_status s = SCL_OK;
    for (int r = -1; r < repeat && s == SCL_OK; r++) {
        scl_event ev = NULL;
        s = scl_stream_copy(src, half, src, 0, half, &ev);
        if (s != SCL_OK) {
            fprintf(stderr, "streamcl reduce: %s\n", scl_last_error(ctx));
            break;
        }
        double sec = 0;
        s = scl_event_seconds(ctx, ev, &sec);
        scl_event_release(ev);
        if (r >= 0)
            t[r] = sec;
    }
    qsort(t, (size_t)repeat, sizeof *t, cmp_double);
    *median = t[repeat / 2];
    free(t);
    return s;
}

int cmd_reduce(int argc, char **argv)
{
    long mib = 256, repeat = 20;
    const char *device = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--mib") && i + 1 < argc) {
            if (cli_parse_long("reduce", "--mib", argv[++i], 1, 1 << 16, &mib))
                return 2;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            if (cli_parse_long("reduce", "--repeat", argv[++i], 1, 1000, &repeat))
                return 2;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else {
            fprintf(stderr, "streamcl reduce: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    scl_context *ctx = cli_context(device, 1);
    if (!ctx)
        return 1;
    const scl_device_info *dev = scl_device(ctx);
    size_t n = (size_t)mib * 262144;
    float *host = malloc(n * sizeof *host);
    scl_stream *s = NULL;
    int rc = 1;
    if (!host) {
        fprintf(stderr, "streamcl reduce: cannot allocate %ld MiB on the host\n", mib);
        goto done;
    }
    uint64_t state = 0x9E3779B97F4A7C15ULL;
    double exact = 0;
    for (size_t i = 0; i < n; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        host[i] = (float)((double)(state >> 11) * (1.0 / 9007199254740992.0)) - 0.25f;
        exact += host[i];
    }
    printf("device: %s [%s]\n", dev->name, dev->platform);
    printf("stream: %zu floats (%ld MiB)\n", n, mib);
    if (scl_stream_create(ctx, "reduce input", SCL_FLOAT, n, 1, 1, SCL_STREAM_READ_ONLY, &s) ||
        scl_stream_write(s, host, 1, NULL)) {
        fprintf(stderr, "streamcl reduce: %s\n", scl_last_error(ctx));
        goto done;
    }
    double result = 0, *t = calloc((size_t)repeat, sizeof *t);
    if (!t)
        goto done;
    double start = cli_now();
    for (long r = -1; r < repeat; r++) { /* r = -1: warm-up (and tuning) */
        scl_profile_reset(ctx);
        double sec = 0;
        if (scl_reduce(ctx, s, SCL_SUM, &result) ||
            scl_profile_total(ctx, "sum_float", &sec, NULL)) {
            fprintf(stderr, "streamcl reduce: %s\n", scl_last_error(ctx));
            free(t);
            goto done;
        }
        if (r == -1)
            printf("warm-up incl. build and tuning: %.3f s\n", cli_now() - start);
        else
            t[r] = sec;
    }
    qsort(t, (size_t)repeat, sizeof *t, cmp_double);
    double med = t[repeat / 2];
    double copy = 0;
    if (copy_bandwidth(ctx, s, (int)repeat, &copy) != SCL_OK) {
        free(t);
        goto done;
    }
    double bytes = (double)n * sizeof(float);
    double bw = bytes / med * 1e-9, copy_bw = bytes / copy * 1e-9;
    double rel = fabs(result - exact) / fabs(exact);
    printf("sum: device %.10e, host double %.10e, relative difference %.2e\n", result, exact, rel);
    printf("reduction kernel: median %.4f ms over %ld runs -> %.1f GB/s\n", med * 1e3, repeat, bw);
    printf("buffer copy (read+write %ld MiB): median %.4f ms -> %.1f GB/s\n", mib, copy * 1e3,
           copy_bw);
    printf("reduction bandwidth / copy bandwidth: %.1f%%\n", 100.0 * bw / copy_bw);
    free(t);
    rc = rel < 1e-6 ? 0 : 1;
    if (rc)
        fprintf(stderr, "streamcl reduce: device sum disagrees with the host sum\n");
done:
    scl_stream_free(s);
    free(host);
    scl_context_free(ctx);
    return rc;
}
