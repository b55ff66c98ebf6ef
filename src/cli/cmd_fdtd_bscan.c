/* streamcl fdtd MODEL.in -n N: the N traces of a B-scan in one process.
 * The device is set up once (kernels, buffers, tuned plan); between traces
 * the model's sources and receivers move by #src_steps / #rx_steps and the
 * solver restarts from rest on the same buffers. Outputs as gprMax names
 * them: MODEL1.h5 .. MODELN.h5, and MODEL_merged.h5 as its merge tool
 * writes it; a progress line per trace. */
#include "commands.h"
#include "fdtd_bscan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BASE (the output path without .h5) + suffix */
static char *with_suffix(const char *base, const char *suffix)
{
    size_t n = strlen(base) + strlen(suffix) + 1;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s", base, suffix);
    return p;
}

static int finite_traces(const scl_receivers *rx, int trace)
{
    for (long i = 0; i < (long)rx->n * rx->ncomp * rx->nt; i++)
        if (!isfinite(rx->data[i])) {
            fprintf(stderr, "streamcl fdtd: trace %d: receiver %ld has a non-finite value at step %ld\n",
                    trace + 1, i / (rx->ncomp * rx->nt) + 1, i % rx->nt);
            return 0;
        }
    return 1;
}

char *fdtd_bscan_path(const fdtd_bscan_args *b, int t)
{
    char num[24];
    snprintf(num, sizeof num, "%d.h5", t + 1);
    return with_suffix(b->base, t < 0 ? "_merged.h5" : num);
}

int fdtd_bscan_positions(const fdtd_bscan_args *b, scl_fdtd_model *m)
{
    char err[2048];
    for (int t = b->ntraces - 1; t >= 0; t--)
        if (scl_fdtd_model_trace(m, t, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s: %s\n", b->input, err);
            return 1;
        }
    return 0;
}

/* Every trace's position and output path checked, and its receivers made,
 * before any runs; the model left at trace 0. 0 on success. */
static int prepare(const fdtd_bscan_args *b, scl_fdtd_model *m, scl_receivers *rx, char **paths,
                   const char *merged)
{
    char err[2048];
    for (int t = 0; t < b->ntraces; t++) {
        paths[t] = fdtd_bscan_path(b, t);
        if (!paths[t] || scl_output_path_check(paths[t], err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", paths[t] ? err : "out of memory");
            return 1;
        }
        if (scl_fdtd_model_trace(m, t, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s: %s\n", b->input, err);
            return 1;
        }
        int nser = m->nrx + scl_fdtd_model_tlines(m); /* receivers, then the lines' V, I */
        if (scl_receivers_create(&rx[t], nser, 6, m->iterations, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", err);
            return 1;
        }
    }
    if (b->merge && scl_output_path_check(merged, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", err);
        return 1;
    }
    if (b->radargram && scl_output_path_check(b->radargram, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: --radargram: %s\n", err);
        return 1;
    }
    if (scl_fdtd_model_trace(m, 0, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s: %s\n", b->input, err);
        return 1;
    }
    return 0;
}

int fdtd_bscan_trace(const fdtd_bscan_args *b, scl_fdtd_model *m, scl_context *ctx, scl_fdtd *dev,
                     int t, scl_receivers *rx)
{
    char err[2048];
    long iters = m->iterations;
    if (scl_fdtd_model_trace(m, t, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s: %s\n", b->input, err);
        return 1;
    }
    if (!dev) {
        int omp = !strcmp(b->engine, "omp");
        scl_fdtd_host *h;
        if (scl_fdtd_host_create(m, omp ? b->fp64 : 1, omp ? b->threads : 1, &h, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", err);
            return 1;
        }
        scl_fdtd_host_run(h, iters, rx);
        scl_fdtd_host_free(h);
    } else if ((t > 0 && scl_fdtd_restart(dev) != SCL_OK) || scl_fdtd_run(dev, iters) != SCL_OK ||
               scl_fdtd_read_receivers(dev, rx) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: trace %d: %s\n", t + 1, scl_last_error(ctx));
        return 1;
    }
    return finite_traces(rx, t) ? 0 : 1;
}

int fdtd_bscan_write_trace(const fdtd_bscan_args *b, const scl_fdtd_model *m,
                           const scl_receivers *rx, const char *path)
{
    char err[2048];
    if (scl_fdtd_write_hdf5(path, m, rx, m->iterations, b->fp64, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", err);
        return 1;
    }
    return 0;
}

void fdtd_bscan_say(const fdtd_bscan_args *b, const scl_fdtd_model *m, int t, double secs,
                    const char *path)
{
    const int *s = m->nsrc ? m->src[0].ijk : NULL, *r = m->nrx ? m->rx_ijk[0] : NULL;
    printf("fdtd: trace %d/%d: %ld steps in %.3f s, source at cell (%d, %d, %d), receiver at (%d, %d, %d) -> %s\n",
           t + 1, b->ntraces, m->iterations, secs, s ? s[0] : -1, s ? s[1] : -1, s ? s[2] : -1,
           r ? r[0] : -1, r ? r[1] : -1, r ? r[2] : -1, path);
    fflush(stdout);
}

/* Trace t into rx and its file, with its line. 0 on success. */
static int run_trace(const fdtd_bscan_args *b, scl_fdtd_model *m, scl_context *ctx, scl_fdtd *dev,
                     int t, scl_receivers *rx, const char *path)
{
    double t0 = cli_now();
    if (fdtd_bscan_trace(b, m, ctx, dev, t, rx) || fdtd_bscan_write_trace(b, m, rx, path))
        return 1;
    fdtd_bscan_say(b, m, t, cli_now() - t0, path);
    return 0;
}

int fdtd_bscan_write(const fdtd_bscan_args *b, const scl_fdtd_model *m, const scl_receivers *rx,
                     const char *merged, const char *merged_to, const char *radargram_to)
{
    char err[2048];
    int n = b->ntraces;
    long iters = m->iterations;
    if (b->merge) {
        if (scl_fdtd_write_merged(merged_to, m, rx, n, iters, b->fp64, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", err);
            return 1;
        }
        printf("fdtd: merged B-scan (%ld x %d per component) -> %s\n", iters, n, merged);
    }
    if (b->radargram) {
        if (m->nrx == 0) {
            fprintf(stderr, "streamcl fdtd: --radargram: the model has no receiver\n");
            return 1;
        }
        if (scl_fdtd_write_radargram(radargram_to, rx, n, 0, b->component, iters, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", err);
            return 1;
        }
        printf("fdtd: radargram of rx1 %s -> %s\n",
               (const char *[]){"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"}[b->component], b->radargram);
    }
    return 0;
}

int fdtd_bscan_solver(const fdtd_bscan_args *b, const scl_fdtd_model *m, const char *device,
                      scl_context **ctx, scl_fdtd **dev)
{
    *ctx = NULL;
    *dev = NULL;
    if (strcmp(b->engine, "opencl") != 0)
        return 0;
    *ctx = cli_context(device, 0);
    if (!*ctx)
        return 1;
    scl_fdtd_options o = {.fp64 = b->fp64, .no_tune = b->no_tune, .force = b->plan,
                          .kernel = b->fused ? SCL_FDTD_FUSED : SCL_FDTD_SEPARATE};
    if (scl_fdtd_create(*ctx, m, &o, dev) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", scl_last_error(*ctx));
        return 1;
    }
    return 0;
}

int fdtd_bscan_run(const fdtd_bscan_args *b, scl_fdtd_model *m)
{
    int status = 1, n = b->ntraces;
    scl_receivers *rx = calloc((size_t)n, sizeof *rx);
    char **paths = calloc((size_t)n, sizeof *paths);
    char *merged = fdtd_bscan_path(b, -1);
    scl_context *ctx = NULL;
    scl_fdtd *dev = NULL;
    if (!rx || !paths || !merged) {
        fprintf(stderr, "streamcl fdtd: out of memory\n");
        goto done;
    }
    if (prepare(b, m, rx, paths, merged) != 0)
        goto done;
    if (fdtd_bscan_solver(b, m, b->device, &ctx, &dev) != 0)
        goto done;
    double total = cli_now();
    for (int t = 0; t < n; t++)
        if (run_trace(b, m, ctx, dev, t, &rx[t], paths[t]) != 0)
            goto done;
    double secs = cli_now() - total;
    printf("fdtd: B-scan of %d traces, %d x %d x %d cells, %ld steps each, %s: %.3f s, %.2f traces/s\n",
           n, m->grid.nx, m->grid.ny, m->grid.nz, m->iterations, b->engine, secs, n / secs);
    status = fdtd_bscan_write(b, m, rx, merged, merged, b->radargram);
done:
    for (int t = 0; rx && t < n; t++)
        scl_receivers_free(&rx[t]);
    for (int t = 0; paths && t < n; t++)
        free(paths[t]);
    free(rx);
    free(paths);
    free(merged);
    scl_fdtd_free(dev);
    if (ctx)
        scl_context_free(ctx);
    return status;
}
