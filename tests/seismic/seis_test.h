/* Helpers of the seismic tests: models, runs on the OpenCL solver, misfits. */
#ifndef SEIS_TEST_H
#define SEIS_TEST_H

#include "streamcl/seismic.h"
#include "test_util.h"

#include <string.h>

static inline void seis_homogeneous(scl_seis_model *m, int nx, int ny, int nz, double h,
                                    double vp, double vs, double rho)
{
    memset(m, 0, sizeof *m);
    m->nx = nx;
    m->ny = ny;
    m->nz = nz;
    m->h = h;
    if (scl_seis_model_fill(m, vp, vs, rho) != SCL_OK) {
        fprintf(stderr, "out of memory for the model\n");
        exit(2);
    }
}

static inline scl_wavelet seis_ricker(double f, double amp)
{
    scl_wavelet w = {SCL_WAVE_RICKER, amp, f, 0, 0};
    return w;
}

/* Run all steps on the device (untuned default shape) and return the traces
 * (malloc'd), or NULL after a failed CHECK. *out_solver (optional) keeps the
 * solver for reading fields. */
static inline float *seis_run_forced(scl_context *ctx, const scl_seis_model *m,
                                     const scl_seis_config *c, const char *force,
                                     scl_seis **out_solver)
{
    scl_seis *s = NULL;
    const scl_seis_options opt = {0, force};
    scl_status st = scl_seis_create(ctx, m, c, &opt, &s);
    CHECK(st == SCL_OK, "scl_seis_create: %s", scl_last_error(ctx));
    if (st != SCL_OK)
        return NULL;
    float *tr = calloc((size_t)(c->nreceivers ? c->nreceivers : 1) * SCL_SEIS_NCOMP *
                           (size_t)c->steps + 1, sizeof(float));
    st = scl_seis_step(s, c->steps);
    CHECK(st == SCL_OK, "scl_seis_step: %s", scl_last_error(ctx));
    if (st == SCL_OK)
        st = scl_seis_traces(s, tr);
    if (out_solver)
        *out_solver = s;
    else
        scl_seis_free(s);
    if (st != SCL_OK) {
        free(tr);
        return NULL;
    }
    return tr;
}

static inline float *seis_run(scl_context *ctx, const scl_seis_model *m, const scl_seis_config *c,
                              scl_seis **out_solver)
{
    return seis_run_forced(ctx, m, c, NULL, out_solver);
}

static inline const float *seis_trace(const float *tr, const scl_seis_config *c, int r, int comp)
{
    return tr + ((size_t)r * SCL_SEIS_NCOMP + (size_t)comp) * (size_t)c->steps;
}

#endif
