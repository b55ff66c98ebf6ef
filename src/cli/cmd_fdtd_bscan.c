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

int fdtd_bscan_run(const fdtd_bscan_args *b, scl_fdtd_model *m)
{
    char err[2048];
    int status = 1, n = b->ntraces;
    long iters = m->iterations;
    scl_receivers *rx = calloc((size_t)n, sizeof *rx);
    char **paths = calloc((size_t)n, sizeof *paths);
    char *merged = with_suffix(b->base, "_merged.h5");
    scl_context *ctx = NULL;
    scl_fdtd *dev = NULL;
    if (!rx || !paths || !merged) {
        fprintf(stderr, "streamcl fdtd: out of memory\n");
        goto done;
    }
    /* every trace's position and every output path are checked first */
    for (int t = 0; t < n; t++) {
        char num[24];
        snprintf(num, sizeof num, "%d.h5", t + 1);
        paths[t] = with_suffix(b->base, num);
        if (!paths[t] || scl_output_path_check(paths[t], err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", paths[t] ? err : "out of memory");
            goto done;
        }
        if (scl_fdtd_model_trace(m, t, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s: %s\n", b->input, err);
            goto done;
        }
        if (scl_receivers_create(&rx[t], m->nrx, 6, iters, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", err);
            goto done;
        }
    }
    if (b->merge && scl_output_path_check(merged, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s\n", err);
        goto done;
    }
    if (b->radargram && scl_output_path_check(b->radargram, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: --radargram: %s\n", err);
        goto done;
    }
    if (scl_fdtd_model_trace(m, 0, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl fdtd: %s: %s\n", b->input, err);
        goto done;
    }
    int host = strcmp(b->engine, "opencl") != 0;
    if (!host) {
        ctx = cli_context(b->device, 0);
        if (!ctx)
            goto done;
        scl_fdtd_options o = {.fp64 = b->fp64, .no_tune = b->no_tune, .force = b->plan,
                              .kernel = b->fused ? SCL_FDTD_FUSED : SCL_FDTD_SEPARATE};
        if (scl_fdtd_create(ctx, m, &o, &dev) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", scl_last_error(ctx));
            goto done;
        }
    }
    double total = cli_now();
    for (int t = 0; t < n; t++) {
        double t0 = cli_now();
        if (scl_fdtd_model_trace(m, t, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s: %s\n", b->input, err);
            goto done;
        }
        if (host) {
            /* the C engines are cheap to set up: a fresh one per trace */
            int omp = !strcmp(b->engine, "omp");
            scl_fdtd_host *h;
            if (scl_fdtd_host_create(m, omp ? b->fp64 : 1, omp ? b->threads : 1, &h, err,
                                     sizeof err) != SCL_OK) {
                fprintf(stderr, "streamcl fdtd: %s\n", err);
                goto done;
            }
            scl_fdtd_host_run(h, iters, &rx[t]);
            scl_fdtd_host_free(h);
        } else if ((t > 0 && scl_fdtd_restart(dev) != SCL_OK) || scl_fdtd_run(dev, iters) != SCL_OK ||
                   scl_fdtd_read_receivers(dev, &rx[t]) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: trace %d: %s\n", t + 1, scl_last_error(ctx));
            goto done;
        }
        if (!finite_traces(&rx[t], t))
            goto done;
        if (scl_fdtd_write_hdf5(paths[t], m, &rx[t], iters, b->fp64, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", err);
            goto done;
        }
        const int *s = m->nsrc ? m->src[0].ijk : NULL, *r = m->nrx ? m->rx_ijk[0] : NULL;
        printf("fdtd: trace %d/%d: %ld steps in %.3f s, source at cell (%d, %d, %d), receiver at (%d, %d, %d) -> %s\n",
               t + 1, n, iters, cli_now() - t0, s ? s[0] : -1, s ? s[1] : -1, s ? s[2] : -1,
               r ? r[0] : -1, r ? r[1] : -1, r ? r[2] : -1, paths[t]);
        fflush(stdout);
    }
    double secs = cli_now() - total;
    printf("fdtd: B-scan of %d traces, %d x %d x %d cells, %ld steps each, %s: %.3f s, %.2f traces/s\n",
           n, m->grid.nx, m->grid.ny, m->grid.nz, iters, b->engine, secs, n / secs);
    if (b->merge) {
        if (scl_fdtd_write_merged(merged, m, rx, n, iters, b->fp64, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", err);
            goto done;
        }
        printf("fdtd: merged B-scan (%ld x %d per component) -> %s\n", iters, n, merged);
    }
    if (b->radargram) {
        if (m->nrx == 0) {
            fprintf(stderr, "streamcl fdtd: --radargram: the model has no receiver\n");
            goto done;
        }
        if (scl_fdtd_write_radargram(b->radargram, rx, n, 0, b->component, iters, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl fdtd: %s\n", err);
            goto done;
        }
        printf("fdtd: radargram of rx1 %s -> %s\n",
               (const char *[]){"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"}[b->component], b->radargram);
    }
    status = 0;
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
