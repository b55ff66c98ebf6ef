/* Device driver of the PPPM particle-mesh operations (see streamcl/pppm.h):
 * streams, the two kernels of cl/pppm.cl, fixed-point scaling, transfers. */
#include "pppm_internal.h"

#include "core/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


size_t scl_pppm_brick_count(const scl_pppm *p) { return p ? p->npoints : 0; }
int scl_pppm_pending(const scl_pppm *p) { return p && p->pending; }

void scl_pppm_stats_get(const scl_pppm *p, scl_pppm_stats *s)
{
    if (s) {
        if (p) *s = p->stats;
        else memset(s, 0, sizeof *s);
    }
}

/* The driver's part of the object (all but the whole-grid solve's state),
 * once the queue is finished: the end of scl_pppm_free (finish.c) and of a
 * failed create. */
void pppm_driver_free(scl_pppm *p)
{
    pppm_account_uploads(p);
    if (p->f_ready) scl_event_release(p->f_ready);
    if (p->interp_ev) scl_event_release(p->interp_ev);
    scl_kernel_free(p->assign);
    scl_kernel_free(p->interp);
    scl_stream *s[] = {p->coeff, p->density, p->bad, p->vd[0], p->vd[1], p->vd[2], p->x, p->q, p->f};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) scl_stream_free(s[i]);
    for (int k = 0; k < 3; k++) free(p->vd_host[k]);
    free(p->pos_host);
    free(p->q_host);
    free(p->f_host);
    free(p->density_host);
    free(p);
}

static scl_status check_params(scl_context *ctx, const char *fn, const scl_pppm_params *q)
{
    if (q->order < SCL_PPPM_MIN_ORDER || q->order > SCL_PPPM_MAX_ORDER)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "order %d is outside %d..%d", q->order,
                        SCL_PPPM_MIN_ORDER, SCL_PPPM_MAX_ORDER);
    for (int d = 0; d < 3; d++) {
        if (q->hi[d] < q->lo[d] || q->hi[d] - q->lo[d] >= 1 << 14)
            return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "brick [%d, %d] in dimension %d is empty or "
                            "larger than 16384 points", q->lo[d], q->hi[d], d);
        if (!(q->delinv[d] > 0) || !isfinite(q->delinv[d]) || !isfinite(q->boxlo[d]))
            return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "grid spacing or origin of dimension %d is "
                            "not a finite positive number", d);
    }
    if (!(q->delvolinv > 0) || !isfinite(q->delvolinv) || !isfinite(q->qscale))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "delvolinv %g / qscale %g are not finite "
                        "positive numbers", q->delvolinv, q->qscale);
    return SCL_OK;
}

/* arguments both kernels share: the brick, the box mapping, the weights */
scl_status pppm_bind_grid(scl_pppm *p, scl_kernel *k, const int *lo3, const int *hi3)
{
    static const char *lo[3] = {"lox", "loy", "loz"}, *hi[3] = {"hix", "hiy", "hiz"};
    static const char *bl[3] = {"boxlox", "boxloy", "boxloz"};
    static const char *di[3] = {"delinvx", "delinvy", "delinvz"};
    scl_status st = SCL_OK;
    for (int d = 0; d < 3 && !st; d++)
        if ((st = scl_kernel_set_int(k, lo[d], lo3[d])) ||
            (st = scl_kernel_set_int(k, hi[d], hi3[d])) ||
            (st = scl_kernel_set_real(k, bl[d], p->p.boxlo[d])) ||
            (st = scl_kernel_set_real(k, di[d], p->p.delinv[d])))
            break;
    if (!st && !(st = scl_kernel_set_real(k, "shift", p->shift)) &&
        !(st = scl_kernel_set_real(k, "shiftone", p->shiftone)))
        st = scl_kernel_set_stream(k, "coeff", p->coeff);
    return st;
}

scl_status scl_pppm_set_geometry(scl_pppm *p, const scl_pppm_params *params)
{
    if (!p || !params) return SCL_ERR_ARGUMENT;
    scl_status st = check_params(p->ctx, "scl_pppm_set_geometry", params);
    if (st) return st;
    if (params->order != p->p.order || params->fp64 != p->p.fp64 ||
        memcmp(params->lo, p->p.lo, sizeof p->p.lo) || memcmp(params->hi, p->p.hi, sizeof p->p.hi))
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, "scl_pppm_set_geometry",
                        "order, brick or precision differ from the object's: create a new one");
    p->p = *params;
    if ((st = pppm_bind_grid(p, p->assign, p->p.lo, p->p.hi)) ||
        (st = pppm_bind_grid(p, p->interp, p->p.lo, p->p.hi)) ||
        (st = scl_kernel_set_real(p->interp, "qscale", params->qscale)))
        return st;
    if (p->assign_p) {
        const int lo0[3] = {0, 0, 0}, hi0[3] = {p->nk[0] - 1, p->nk[1] - 1, p->nk[2] - 1};
        if ((st = pppm_bind_grid(p, p->assign_p, lo0, hi0)) ||
            (st = pppm_bind_grid(p, p->interp_p, lo0, hi0)) ||
            (st = scl_kernel_set_real(p->interp_p, "qscale", params->qscale)))
            return st;
    }
    return SCL_OK;
}

scl_status scl_pppm_create(scl_context *ctx, const scl_pppm_params *params, scl_pppm **out)
{
    if (!out) return SCL_ERR_ARGUMENT;
    *out = NULL;
    if (!ctx || !params) return SCL_ERR_ARGUMENT;
    const scl_pppm_params *q = params;
    scl_status st = check_params(ctx, "scl_pppm_create", q);
    if (st) return st;
    const scl_device_info *dev = scl_device(ctx);
    if (q->fp64 && !dev->fp64)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_pppm_create",
                         "precision double needs fp64, which this device lacks");

    scl_pppm *p = calloc(1, sizeof *p);
    if (!p) return SCL_ERR_MEMORY;
    p->ctx = ctx;
    p->p = *q;
    p->pos_fp64 = dev->fp64 != 0;
    p->pos_size = p->pos_fp64 ? sizeof(double) : sizeof(float);
    p->real_size = q->fp64 ? sizeof(double) : sizeof(float);
    p->npoints = pppm_brick_points(q);
    scl_pppm_stencil(q->order, &p->shift, &p->shiftone, NULL, NULL);

    char opts[64];
    snprintf(opts, sizeof opts, "-DORDER=%d -DFP64=%d", q->order, q->fp64 ? 1 : 0);
    const scl_type rt = q->fp64 ? SCL_DOUBLE : SCL_FLOAT;
    double c[SCL_PPPM_MAX_ORDER * SCL_PPPM_MAX_ORDER];
    float cf[SCL_PPPM_MAX_ORDER * SCL_PPPM_MAX_ORDER];
    const size_t nc = (size_t)q->order * q->order;
    scl_pppm_rho_coeff(q->order, c);
    for (size_t i = 0; i < nc; i++) cf[i] = (float)c[i];

    if ((st = scl_kernel_create(ctx, "pppm", "pppm_assign", opts, &p->assign)) ||
        (st = scl_kernel_create(ctx, "pppm", "pppm_interp", opts, &p->interp)))
        goto fail;
    scl_kernel_set_label(p->assign, "pppm.assign");
    scl_kernel_set_label(p->interp, "pppm.interp");
    if ((st = scl_stream_create(ctx, "pppm.coeff", rt, nc, 1, 1, SCL_STREAM_READ_ONLY, &p->coeff)) ||
        (st = scl_stream_write(p->coeff, q->fp64 ? (const void *)c : (const void *)cf, 1, NULL)) ||
        (st = scl_stream_create(ctx, "pppm.density", SCL_LONG, p->npoints, 1, 1, 0, &p->density)) ||
        (st = scl_stream_create(ctx, "pppm.bad", SCL_INT, 1, 1, 1, 0, &p->bad)))
        goto fail;
    static const char *vdname[3] = {"pppm.vdx", "pppm.vdy", "pppm.vdz"};
    for (int d = 0; d < 3; d++) {
        if ((st = scl_stream_create(ctx, vdname[d], rt, p->npoints, 1, 1, SCL_STREAM_READ_ONLY,
                                    &p->vd[d])))
            goto fail;
        if (!q->fp64 && !(p->vd_host[d] = malloc(p->npoints * sizeof(float)))) {
            st = SCL_ERR_MEMORY;
            goto fail;
        }
    }
    if (!(p->density_host = malloc(p->npoints * sizeof *p->density_host))) {
        st = SCL_ERR_MEMORY;
        goto fail;
    }
    if ((st = pppm_bind_grid(p, p->assign, p->p.lo, p->p.hi)) ||
        (st = pppm_bind_grid(p, p->interp, p->p.lo, p->p.hi)) ||
        (st = scl_kernel_set_stream(p->assign, "density_fixed", p->density)) ||
        (st = scl_kernel_set_stream(p->assign, "bad", p->bad)) ||
        (st = scl_kernel_set_stream(p->interp, "vdx", p->vd[0])) ||
        (st = scl_kernel_set_stream(p->interp, "vdy", p->vd[1])) ||
        (st = scl_kernel_set_stream(p->interp, "vdz", p->vd[2])) ||
        (st = scl_kernel_set_real(p->interp, "qscale", q->qscale)))
        goto fail;
    *out = p;
    return SCL_OK;
fail:
    scl_finish(ctx); /* queued writes read from host buffers */
    pppm_driver_free(p);
    return st;
}

/* per-atom streams and staging for n atoms (grown by half again) */
scl_status pppm_reserve_atoms(scl_pppm *p, int n)
{
    if (n <= p->cap && p->x) return SCL_OK;
    const int cap = n + n / 2 + 64;
    scl_stream_free(p->x);
    scl_stream_free(p->q);
    scl_stream_free(p->f);
    p->x = p->q = p->f = NULL;
    free(p->pos_host);
    free(p->q_host);
    free(p->f_host);
    p->pos_host = p->q_host = p->f_host = NULL;
    p->cap = 0;
    const scl_type pt = p->pos_fp64 ? SCL_DOUBLE : SCL_FLOAT;
    const scl_type rt = p->p.fp64 ? SCL_DOUBLE : SCL_FLOAT;
    scl_status st;
    if ((st = scl_stream_create(p->ctx, "pppm.x", pt, 3 * (size_t)cap, 1, 1, SCL_STREAM_READ_ONLY, &p->x)) ||
        (st = scl_stream_create(p->ctx, "pppm.q", pt, (size_t)cap, 1, 1, SCL_STREAM_READ_ONLY, &p->q)) ||
        (st = scl_stream_create(p->ctx, "pppm.f", rt, 3 * (size_t)cap, 1, 1, SCL_STREAM_WRITE_ONLY, &p->f)))
        return st;
    if (!p->pos_fp64 && (!(p->pos_host = malloc(3 * (size_t)cap * sizeof(float))) ||
                         !(p->q_host = malloc((size_t)cap * sizeof(float)))))
        return SCL_ERR_MEMORY;
    if (!(p->f_host = malloc(3 * (size_t)cap * p->real_size))) return SCL_ERR_MEMORY;
    scl_kernel *ks[4] = {p->assign, p->interp, p->assign_p, p->interp_p};
    for (int i = 0; i < 4; i++)
        if (ks[i] && ((st = scl_kernel_set_stream(ks[i], "x", p->x)) ||
                      (st = scl_kernel_set_stream(ks[i], "q", p->q))))
            return st;
    if ((st = scl_kernel_set_stream(p->interp, "f", p->f)) ||
        (p->interp_p && (st = scl_kernel_set_stream(p->interp_p, "f", p->f))))
        return st;
    p->cap = cap;
    return SCL_OK;
}

void pppm_add_seconds(scl_pppm *p, scl_event ev, double *acc)
{
    double s = 0.0;
    if (ev && scl_profiling(p->ctx) && scl_event_seconds(p->ctx, ev, &s) == SCL_OK) *acc += s;
    if (ev) scl_event_release(ev);
}

scl_status pppm_upload_atoms(scl_pppm *p, int n, const double *x, const double *q, double *scale)
{
    return pppm_put_atoms(p, n, x, q, NULL, 0, scale);
}

/* The device copy of the inputs: the same doubles as the upload writes, so
 * the same results bit for bit; double positions only (fp64 devices). */
static scl_status pppm_check_xq_dev(scl_pppm *p, int n, const scl_stream *xq_dev, size_t q_first)
{
    const char *fn = "scl_pppm_solve_start_device";
    if (!p->pos_fp64)
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, fn,
                        "the device has no fp64 (its positions are float): upload x");
    if (scl_stream_type(xq_dev) != SCL_DOUBLE)
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, fn, "xq_dev is not a stream of doubles");
    const size_t need = q_first + (size_t)n;
    if (q_first < 3 * (size_t)n || scl_stream_count(xq_dev) < need)
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, fn,
                        "xq_dev holds %zu doubles: x needs 3 * %d and q (from %zu) %d",
                        scl_stream_count(xq_dev), n, q_first, n);
    return SCL_OK;
}

scl_status pppm_put_atoms(scl_pppm *p, int n, const double *x, const double *q,
                          const scl_stream *xq_dev, size_t q_first, double *scale)
{
    scl_status st;
    if (xq_dev && (st = pppm_check_xq_dev(p, n, xq_dev, q_first))) return st;
    if ((st = pppm_reserve_atoms(p, n))) return st;
    p->n = n;
    /* fixed point: no grid sum can exceed delvolinv * sum|q| (weights are in
     * [0, 1] and sum to 1), so that maps to 2^60 */
    double qabs = 0.0;
    for (int i = 0; i < n; i++) qabs += fabs(q[i]);
    if (!isfinite(qabs))
        return scl_fail(p->ctx, SCL_ERR_INPUT, "scl_pppm", "non-finite charge among %d atoms", n);
    *scale = qabs > 0 ? ldexp(1.0, 60) / qabs : 1.0;
    p->inv_scale = p->p.delvolinv / *scale;
    if (n == 0) return SCL_OK;
    if (xq_dev) {
        pppm_account_uploads(p);
        st = scl_stream_copy(p->x, 0, xq_dev, 0, 3 * (size_t)n, NULL);
        return st ? st : scl_stream_copy(p->q, 0, xq_dev, q_first, (size_t)n, NULL);
    }
    const void *xs = x, *qs = q;
    if (!p->pos_fp64) {
        float *xf = p->pos_host, *qf = p->q_host;
        for (size_t i = 0; i < 3 * (size_t)n; i++) xf[i] = (float)x[i];
        for (int i = 0; i < n; i++) qf[i] = (float)q[i];
        xs = xf;
        qs = qf;
    }
    /* the caller's arrays (or our float copies of them) are read by the
     * device until the step's finish when the caller keeps them */
    const int wait = !p->p.inputs_stable;
    pppm_account_uploads(p);
    st = scl_stream_write_range(p->x, 0, 3 * (size_t)n, xs, wait, &p->upload_ev[0]);
    if (!st) st = scl_stream_write_range(p->q, 0, (size_t)n, qs, wait, &p->upload_ev[1]);
    if (wait) pppm_account_uploads(p);
    return st;
}

void pppm_account_uploads(scl_pppm *p)
{
    for (int k = 0; k < 2; k++) {
        pppm_add_seconds(p, p->upload_ev[k], &p->stats.t_upload);
        p->upload_ev[k] = NULL;
    }
}

scl_status scl_pppm_make_rho(scl_pppm *p, int n, const double *x, const double *q,
                             double *density)
{
    if (!p || n < 0 || (n > 0 && (!x || !q)) || !density) return SCL_ERR_ARGUMENT;
    if (p->pending)
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, "scl_pppm_make_rho", "the interpolation of the "
                         "previous step was not finished (call scl_pppm_fieldforce_finish)");
    double scale;
    scl_status st = pppm_upload_atoms(p, n, x, q, &scale);
    if (st) return st;
    const int64_t zero = 0;
    const int izero = 0;
    if ((st = scl_stream_fill_range(p->density, 0, p->npoints, &zero, NULL)) ||
        (st = scl_stream_fill_range(p->bad, 0, 1, &izero, NULL)))
        return st;
    if (n > 0) {
        scl_event ea = NULL;
        const size_t global = (size_t)n;
        if ((st = scl_kernel_set_int(p->assign, "n", n)) ||
            (st = scl_kernel_set_real(p->assign, "scale", scale)) ||
            (st = scl_kernel_launch(p->assign, 1, &global, NULL, &ea)))
            return st;
        pppm_add_seconds(p, ea, &p->stats.t_assign);
    }
    int nbad = 0;
    scl_event er = NULL;
    if ((st = scl_stream_read(p->density, p->density_host, 1, &er)) ||
        (st = scl_stream_read(p->bad, &nbad, 1, NULL)))
        return st;
    pppm_add_seconds(p, er, &p->stats.t_download);
    pppm_account_uploads(p);
    if (nbad)
        return scl_fail(p->ctx, SCL_ERR_INPUT, "scl_pppm_make_rho", "%d of %d atoms are out of range "
                         "(their stencil leaves the brick, or coordinates are not finite)", nbad, n);
    for (size_t i = 0; i < p->npoints; i++) density[i] = (double)p->density_host[i] * p->inv_scale;
    p->stats.steps++;
    return SCL_OK;
}

scl_status scl_pppm_fieldforce_start(scl_pppm *p, const double *vdx, const double *vdy,
                                     const double *vdz)
{
    if (!p || !vdx || !vdy || !vdz) return SCL_ERR_ARGUMENT;
    if (p->pending)
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, "scl_pppm_fieldforce_start",
                        "an interpolation is already pending");
    const double *vd[3] = {vdx, vdy, vdz};
    scl_status st;
    for (int d = 0; d < 3; d++) {
        scl_event ev = NULL;
        if (p->p.fp64) {
            st = scl_stream_write(p->vd[d], vd[d], 1, &ev);
        } else {
            float *h = p->vd_host[d];
            for (size_t i = 0; i < p->npoints; i++) h[i] = (float)vd[d][i];
            st = scl_stream_write(p->vd[d], h, 0, &ev);
        }
        if (st) return st;
        if (scl_profiling(p->ctx)) {
            if ((st = scl_event_wait(p->ctx, ev))) { scl_event_release(ev); return st; }
            pppm_add_seconds(p, ev, &p->stats.t_upload);
        } else {
            scl_event_release(ev);
        }
    }
    if (p->n == 0) {
        p->pending = 1;
        return SCL_OK;
    }
    const size_t global = (size_t)p->n;
    if ((st = scl_kernel_set_int(p->interp, "n", p->n)) ||
        (st = scl_kernel_launch(p->interp, 1, &global, NULL, &p->interp_ev)))
        return st;
    st = scl_stream_read_range(p->f, 0, 3 * (size_t)p->n, p->f_host, 0, &p->f_ready);
    p->pending = 1; /* finish releases the events, also after a failed read */
    return st;
}

/* f[3i+d] += the forces read back for the last step's atoms */
scl_status pppm_add_forces(const scl_pppm *p, double *f)
{
    if (p->n == 0) return SCL_OK;
    if (!f) return SCL_ERR_ARGUMENT;
    const size_t m = 3 * (size_t)p->n;
    if (p->p.fp64) {
        const double *h = p->f_host;
        for (size_t i = 0; i < m; i++) f[i] += h[i];
    } else {
        const float *h = p->f_host;
        for (size_t i = 0; i < m; i++) f[i] += (double)h[i];
    }
    return SCL_OK;
}
