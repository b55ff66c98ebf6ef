/* The OpenCL solver's transmission lines: their tables, state and kernel
 * (fdtd_tline.cl), launched by solver.c after the E sources of each step;
 * drive values go up and Vtotal/Itotal come back once per chunk of steps,
 * as the sources' values and the receivers' samples do. */
#include "fdtd/tline.h"
#include "core/fail.h"
#include "core/upload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NLI 5 /* ints per line: offset, pol, stride b, stride c, loop exists */
#define NLP 6 /* reals per line: d_b, d_c, d_pol, R, c dt/dl, absorbing end's h */
#define NST (2 * FDTD_TLINE_NL + 2)

struct fdtd_tline_dev {
    scl_context *ctx;
    const scl_fdtd_model *m;
    int fp64, ntl, chunk;
    int *src; /* the model's source index of line t */
    scl_kernel *k[2];
    scl_stream *li, *lp, *state, *val, *out;
    void *stage;   /* chunk * ntl * 3 reals */
    double *rec;   /* Vtotal, Itotal per step and line */
    long cap;
};

static scl_status fail(fdtd_tline_dev *d, scl_status s, const char *what)
{
    return scl_fail(d->ctx, s, "scl_fdtd_create", "transmission lines: %s", what);
}

/* The ints of each line at the model's positions now (a B-scan moves them). */
static void line_ints(const fdtd_tline_dev *d, int *li)
{
    const scl_grid3d *g = &d->m->grid;
    long st[3] = {1, g->px, g->px * g->py};
    for (int t = 0; t < d->ntl; t++) {
        const scl_fdtd_source *s = &d->m->src[d->src[t]];
        int a = s->pol, b = (a + 1) % 3, c = (a + 2) % 3;
        li[t * NLI] = (int)scl_grid3d_index(g, s->ijk[0], s->ijk[1], s->ijk[2]);
        li[t * NLI + 1] = a;
        li[t * NLI + 2] = (int)st[b];
        li[t * NLI + 3] = (int)st[c];
        li[t * NLI + 4] = s->ijk[b] != 0 && s->ijk[c] != 0; /* gprMax: no loop on a low face */
    }
}

static scl_status make_tables(fdtd_tline_dev *d)
{
    const scl_grid3d *g = &d->m->grid;
    double dd[3] = {g->dx, g->dy, g->dz};
    int *li = malloc(sizeof(int) * NLI * (size_t)d->ntl);
    double *lp = malloc(sizeof(double) * NLP * (size_t)d->ntl);
    if (!li || !lp) {
        free(li);
        free(lp);
        return fail(d, SCL_ERR_MEMORY, "out of host memory");
    }
    line_ints(d, li);
    for (int t = 0; t < d->ntl; t++) {
        const scl_fdtd_source *s = &d->m->src[d->src[t]];
        double *p = lp + t * NLP;
        p[0] = dd[(s->pol + 1) % 3];
        p[1] = dd[(s->pol + 2) % 3];
        p[2] = dd[s->pol];
        p[3] = s->resistance;
        p[4] = 1 / sqrt(3.0);
        p[5] = (1 - sqrt(3.0)) / (1 + sqrt(3.0));
    }
    scl_status s = scl_stream_upload(d->ctx, "fdtd.tline", SCL_INT, li, NLI * (size_t)d->ntl, &d->li);
    if (s == SCL_OK)
        s = scl_stream_upload_reals(d->ctx, "fdtd.tline", d->fp64, lp, NLP * (size_t)d->ntl, &d->lp);
    free(li);
    free(lp);
    return s;
}

static scl_status bind(fdtd_tline_dev *d, scl_kernel *k, scl_stream *const fld[6])
{
    static const char *const names[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};
    scl_status s = SCL_OK;
    for (int c = 0; c < 6 && s == SCL_OK; c++)
        s = scl_kernel_set_stream(k, names[c], fld[c]);
    if (s == SCL_OK) s = scl_kernel_set_stream(k, "li", d->li);
    if (s == SCL_OK) s = scl_kernel_set_stream(k, "lp", d->lp);
    if (s == SCL_OK) s = scl_kernel_set_stream(k, "state", d->state);
    if (s == SCL_OK) s = scl_kernel_set_stream(k, "vals", d->val);
    if (s == SCL_OK) s = scl_kernel_set_stream(k, "out", d->out);
    if (s == SCL_OK) s = scl_kernel_set_int(k, "ntl", d->ntl);
    return s;
}

scl_status fdtd_tline_dev_create(scl_context *ctx, const scl_fdtd_model *m, int fp64,
                                 const char *options, scl_stream *fld[2][6], int fused,
                                 int chunk, fdtd_tline_dev **out)
{
    *out = NULL;
    int ntl = scl_fdtd_model_tlines(m);
    if (ntl == 0)
        return SCL_OK;
    fdtd_tline_dev *d = calloc(1, sizeof *d);
    if (!d)
        return scl_fail(ctx, SCL_ERR_MEMORY, "scl_fdtd_create", "out of host memory");
    *d = (fdtd_tline_dev){.ctx = ctx, .m = m, .fp64 = fp64, .ntl = ntl, .chunk = chunk};
    *out = d;
    size_t rs = fp64 ? sizeof(double) : sizeof(float), n = (size_t)ntl;
    d->src = malloc(sizeof(int) * n);
    d->stage = malloc(rs * 3 * n * (size_t)chunk);
    if (!d->src || !d->stage)
        return fail(d, SCL_ERR_MEMORY, "out of host memory");
    for (int q = 0, t = 0; q < m->nsrc; q++)
        if (m->src[q].kind == SCL_FDTD_TLINE)
            d->src[t++] = q;
    scl_type rt = fp64 ? SCL_DOUBLE : SCL_FLOAT;
    scl_status s = make_tables(d);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "fdtd.tline", rt, NST * n, 1, 1, 0, &d->state);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "fdtd.tline", rt, 3 * n * (size_t)chunk, 1, 1, 0, &d->val);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "fdtd.tline", rt, 2 * n * (size_t)chunk, 1, 1, 0, &d->out);
    for (int q = 0; q < 1 + fused && s == SCL_OK; q++) { /* on the fields the step wrote */
        s = scl_kernel_create(ctx, "fdtd_tline", "fdtd_tline", options, &d->k[q]);
        if (s == SCL_OK)
            s = bind(d, d->k[q], fld[1 - q]);
    }
    return s == SCL_OK ? fdtd_tline_dev_reset(d) : s;
}

void fdtd_tline_dev_free(fdtd_tline_dev *d)
{
    if (!d)
        return;
    scl_kernels_free(d->k, 2);
    scl_stream *st[5] = {d->li, d->lp, d->state, d->val, d->out};
    scl_streams_free(st, 5);
    free(d->src);
    free(d->stage);
    free(d->rec);
    free(d);
}

scl_status fdtd_tline_dev_reset(fdtd_tline_dev *d)
{
    static const double zd = 0;
    static const float zf = 0;
    int *li = malloc(sizeof(int) * NLI * (size_t)d->ntl);
    if (!li)
        return fail(d, SCL_ERR_MEMORY, "out of host memory");
    line_ints(d, li);
    scl_status s = scl_stream_write(d->li, li, 1, NULL);
    free(li);
    if (s == SCL_OK)
        s = scl_stream_fill(d->state, d->fp64 ? (const void *)&zd : (const void *)&zf);
    return s;
}

scl_status fdtd_tline_dev_stage(fdtd_tline_dev *d, long first, int chunk)
{
    for (int n = 0; n < chunk; n++)
        for (int t = 0; t < d->ntl; t++) {
            double v[3];
            fdtd_tline_drive(d->m, d->src[t], first + n, &v[0], &v[1]);
            v[2] = fdtd_tline_active(d->m, d->src[t], first + n);
            for (int c = 0; c < 3; c++) {
                size_t i = ((size_t)n * d->ntl + t) * 3 + c;
                if (d->fp64)
                    ((double *)d->stage)[i] = v[c];
                else
                    ((float *)d->stage)[i] = (float)v[c];
            }
        }
    return scl_stream_write_range(d->val, 0, (size_t)chunk * d->ntl * 3, d->stage, 1, NULL);
}

scl_status fdtd_tline_dev_launch(fdtd_tline_dev *d, int q, int slot)
{
    size_t one = 1, gs = (size_t)d->ntl;
    scl_status s = scl_kernel_set_int(d->k[q], "slot", slot);
    return s == SCL_OK ? scl_kernel_launch(d->k[q], 1, &gs, &one, NULL) : s;
}

scl_status fdtd_tline_dev_collect(fdtd_tline_dev *d, long first, int chunk)
{
    size_t cnt = (size_t)chunk * d->ntl * 2;
    if (d->cap < first + chunk) {
        long cap = (first + chunk) * 2;
        double *r = realloc(d->rec, (size_t)cap * d->ntl * 2 * sizeof(double));
        if (!r)
            return scl_fail(d->ctx, SCL_ERR_MEMORY, "scl_fdtd_run", "out of host memory");
        d->rec = r;
        d->cap = cap;
    }
    scl_status s = scl_stream_read_range(d->out, 0, cnt, d->stage, 1, NULL);
    for (size_t i = 0; i < cnt && s == SCL_OK; i++)
        d->rec[(size_t)first * d->ntl * 2 + i] =
            d->fp64 ? ((double *)d->stage)[i] : (double)((float *)d->stage)[i];
    return s;
}

void fdtd_tline_dev_read(const fdtd_tline_dev *d, scl_receivers *rx, long steps)
{
    if (!d || !rx || rx->n < d->m->nrx + d->ntl || rx->ncomp < 2)
        return;
    int nrx = d->m->nrx;
    for (long n = 0; n < steps && n < rx->nt; n++)
        for (int t = 0; t < d->ntl; t++)
            for (int c = 0; c < 2; c++)
                scl_receivers_series(rx, nrx + t, c)[n] = d->rec[((size_t)n * d->ntl + t) * 2 + c];
}
