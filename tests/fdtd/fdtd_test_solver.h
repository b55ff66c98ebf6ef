/* One interface over the C reference and the OpenCL solver, so every exact
 * test runs on both. */
#ifndef FDTD_TEST_SOLVER_H
#define FDTD_TEST_SOLVER_H

#include "streamcl/fdtd.h"
#include "test_util.h"

#include <string.h>

typedef struct {
    scl_fdtd_host *host;
    scl_fdtd *dev;
    scl_context *ctx;
    const char *label;
} test_solver;

/* kind: 0 host double, 1 host float, 2 OpenCL float, 3 OpenCL double,
 * 4 OpenCL float fused kernel, 5 OpenCL double fused kernel.
 * Returns 0, or -1 (skip: e.g. no fp64 on the device). */
static inline int ts_create_forced(test_solver *t, scl_context *ctx, const scl_fdtd_model *m, int kind,
                                   const char *force)
{
    static const char *labels[] = {"host fp64",   "host fp32",         "OpenCL fp32",
                                   "OpenCL fp64", "OpenCL fp32 fused", "OpenCL fp64 fused"};
    char err[1024];
    memset(t, 0, sizeof *t);
    t->label = labels[kind];
    t->ctx = ctx;
    if (kind < 2) {
        scl_status s = scl_fdtd_host_create(m, kind == 0, 1, &t->host, err, sizeof err);
        CHECK(s == SCL_OK, "host create: %s", err);
        return s == SCL_OK ? 0 : -1;
    }
    if ((kind == 3 || kind == 5) && !scl_device(ctx)->fp64) {
        SKIP("%s: device %s has no fp64", labels[kind], scl_device(ctx)->name); /* exit 77 */
        return -1;
    }
    scl_fdtd_options o = {.fp64 = kind == 3 || kind == 5, .no_tune = 1, .force = force,
                          .kernel = kind >= 4 ? SCL_FDTD_FUSED : SCL_FDTD_SEPARATE};
    scl_status s = scl_fdtd_create(ctx, m, &o, &t->dev);
    CHECK(s == SCL_OK, "scl_fdtd_create: %s", scl_last_error(ctx));
    return s == SCL_OK ? 0 : -1;
}

/* force: plan parameters fixed, e.g. "cpml=0" (the fused kernel's CPML as slab passes) */
static inline int ts_create(test_solver *t, scl_context *ctx, const scl_fdtd_model *m, int kind)
{
    return ts_create_forced(t, ctx, m, kind, NULL);
}

static inline void ts_run(test_solver *t, long steps, scl_receivers *rx)
{
    if (t->host) {
        scl_fdtd_host_run(t->host, steps, rx);
        return;
    }
    CHECK_OK(t->ctx, scl_fdtd_run(t->dev, steps));
    if (rx)
        CHECK_OK(t->ctx, scl_fdtd_read_receivers(t->dev, rx));
}

static inline void ts_get(test_solver *t, int c, double *out)
{
    if (t->host)
        scl_fdtd_host_get(t->host, c, out);
    else
        CHECK_OK(t->ctx, scl_fdtd_get(t->dev, c, out));
}

static inline void ts_set(test_solver *t, int c, const double *in)
{
    if (t->host)
        scl_fdtd_host_set(t->host, c, in);
    else
        CHECK_OK(t->ctx, scl_fdtd_set(t->dev, c, in));
}

static inline void ts_free(test_solver *t)
{
    scl_fdtd_host_free(t->host);
    scl_fdtd_free(t->dev);
}

#endif
