/* Wavelets, stability and sampling numbers, and the input checks every
 * entry point runs first. */
#include "streamcl/seismic.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

double scl_seis_wavelet_fmax(const scl_wavelet *w)
{
    return (w->kind == SCL_WAVE_SINE || w->kind == SCL_WAVE_CONTSINE ? 1.0 : 2.5) * w->freq;
}

static double stencil_sum(int order)
{
    return order == 4 ? 9.0 / 8.0 + 1.0 / 24.0 : 1.0;
}

static double vp_max(const scl_seis_model *m)
{
    const size_t n = (size_t)m->nx * m->ny * m->nz;
    double v = 0;
    for (size_t q = 0; q < n; q++)
        if (m->vp[q] > v)
            v = m->vp[q];
    return v;
}

double scl_seis_dt_max(const scl_seis_model *m, int order)
{
    return m->h / (vp_max(m) * sqrt(3.0) * stencil_sum(order));
}

double scl_seis_cfl(const scl_seis_model *m, const scl_seis_config *c)
{
    return vp_max(m) * c->dt * sqrt(3.0) * stencil_sum(c->order) / m->h;
}

double scl_seis_points_per_wavelength(const scl_seis_model *m, const scl_seis_config *c)
{
    double fmax = 0;
    for (int q = 0; q < c->nsources; q++)
        if (scl_seis_wavelet_fmax(&c->sources[q].wavelet) > fmax)
            fmax = scl_seis_wavelet_fmax(&c->sources[q].wavelet);
    if (fmax <= 0)
        return INFINITY;
    const size_t n = (size_t)m->nx * m->ny * m->nz;
    double vmin = INFINITY;
    for (size_t q = 0; q < n; q++) {
        const double v = m->vs[q] > 0 ? m->vs[q] : m->vp[q];
        if (v < vmin)
            vmin = v;
    }
    return vmin / (fmax * m->h);
}

static scl_status fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return SCL_ERR_INPUT;
}

static int inside(const scl_seis_model *m, int i, int j, int k)
{
    return i >= 0 && j >= 0 && k >= 0 && i < m->nx && j < m->ny && k < m->nz;
}

/* The grid's size, its cell size and the material arrays. */
static scl_status check_grid(const scl_seis_model *m, char *err, size_t errlen)
{
    if (m->nx < 1 || m->ny < 1 || m->nz < 1 || m->nx > 100000 || m->ny > 100000 ||
        m->nz > 100000)
        return fail(err, errlen, "grid %d x %d x %d: each side must be in [1, 100000]", m->nx,
                    m->ny, m->nz);
    if (!(m->h > 0) || !isfinite(m->h))
        return fail(err, errlen, "cell size h = %g must be positive", m->h);
    if (!m->vp || !m->vs || !m->rho)
        return fail(err, errlen, "model has no vp, vs or rho array");
    return SCL_OK;
}

/* Every cell's vp, vs and rho: finite, positive, and a positive bulk modulus. */
static scl_status check_cells(const scl_seis_model *m, char *err, size_t errlen)
{
    const size_t n = (size_t)m->nx * m->ny * m->nz;
    const double vs_limit = sqrt(3.0) / 2;
    for (size_t q = 0; q < n; q++) {
        const double vp = m->vp[q], vs = m->vs[q], rho = m->rho[q];
        /* the cell's coordinates only for the message (divisions per cell
         * cost seconds on a 512^3 model) */
        if (isfinite(vp) && isfinite(vs) && isfinite(rho) && rho > 0 && vp > 0 && vs >= 0 &&
            vs < vs_limit * vp)
            continue;
        const int i = (int)(q % (size_t)m->nx), j = (int)(q / (size_t)m->nx % (size_t)m->ny),
                  k = (int)(q / ((size_t)m->nx * m->ny));
        if (!isfinite(vp) || !isfinite(vs) || !isfinite(rho))
            return fail(err, errlen, "cell (%d,%d,%d): non-finite vp, vs or rho", i, j, k);
        if (!(rho > 0))
            return fail(err, errlen, "cell (%d,%d,%d): density %g must be positive", i, j, k, rho);
        if (!(vp > 0))
            return fail(err, errlen, "cell (%d,%d,%d): vp %g must be positive", i, j, k, vp);
        if (vs < 0)
            return fail(err, errlen, "cell (%d,%d,%d): vs %g must be >= 0", i, j, k, vs);
        return fail(err, errlen,
                    "cell (%d,%d,%d): vs %g >= (sqrt(3)/2) vp = %g gives a negative bulk "
                    "modulus",
                    i, j, k, vs, vs_limit * vp);
    }
    return SCL_OK;
}

/* The order, the time step (against the CFL limit), the steps and the CPML. */
static scl_status check_stepping(const scl_seis_model *m, const scl_seis_config *c, char *err,
                                 size_t errlen)
{
    if (c->order != 2 && c->order != 4)
        return fail(err, errlen, "order %d: must be 2 or 4", c->order);
    if (!(c->dt > 0) || !isfinite(c->dt))
        return fail(err, errlen, "dt = %g must be positive", c->dt);
    if (c->steps < 0)
        return fail(err, errlen, "steps = %ld must be >= 0", c->steps);
    const double cfl = scl_seis_cfl(m, c);
    if (cfl > 1)
        return fail(err, errlen,
                    "dt = %g s violates the CFL condition (CFL number %.4f > 1): the largest "
                    "stable dt at order %d is %g s",
                    c->dt, cfl, c->order, scl_seis_dt_max(m, c->order));
    if (c->pml < 0 || 2 * c->pml >= m->nx || 2 * c->pml >= m->ny ||
        (c->free_surface ? c->pml >= m->nz : 2 * c->pml >= m->nz))
        return fail(err, errlen, "pml = %d cells does not fit the %d x %d x %d grid", c->pml,
                    m->nx, m->ny, m->nz);
    if (c->pml_r < 0 || c->pml_r >= 1)
        return fail(err, errlen, "pml reflection %g must be in (0, 1)", c->pml_r);
    return SCL_OK;
}

/* The sources (inside the grid, a usable wavelet, a force's direction) and
 * the receivers (inside the grid). */
static scl_status check_points(const scl_seis_model *m, const scl_seis_config *c, char *err,
                               size_t errlen)
{
    if (c->nsources < 0 || c->nsources > SCL_SEIS_MAX_SOURCES || (c->nsources && !c->sources))
        return fail(err, errlen, "%d sources: at most %d", c->nsources, SCL_SEIS_MAX_SOURCES);
    for (int q = 0; q < c->nsources; q++) {
        const scl_seis_source *s = &c->sources[q];
        if (!inside(m, s->i, s->j, s->k))
            return fail(err, errlen, "source %d at cell (%d,%d,%d) is outside the grid", q + 1,
                        s->i, s->j, s->k);
        if (!(s->wavelet.freq > 0) || !isfinite(s->wavelet.freq) || !isfinite(s->wavelet.delay) ||
            !isfinite(s->wavelet.amp))
            return fail(err, errlen, "source %d: wavelet frequency %g must be positive and finite",
                        q + 1, s->wavelet.freq);
        if (s->kind == SCL_SEIS_FORCE &&
            !(fabs(s->dir[0]) + fabs(s->dir[1]) + fabs(s->dir[2]) > 0))
            return fail(err, errlen, "source %d: force direction is zero", q + 1);
    }
    if (c->nreceivers < 0 || (c->nreceivers && !c->receivers))
        return fail(err, errlen, "bad receiver list");
    for (int r = 0; r < c->nreceivers; r++) {
        const scl_seis_receiver *q = &c->receivers[r];
        if (!inside(m, q->i, q->j, q->k))
            return fail(err, errlen, "receiver %d at cell (%d,%d,%d) is outside the %d x %d x %d grid",
                        r + 1, q->i, q->j, q->k, m->nx, m->ny, m->nz);
    }
    return SCL_OK;
}

scl_status scl_seis_check(const scl_seis_model *m, const scl_seis_config *c, char *warn,
                          size_t warnlen, char *err, size_t errlen)
{
    if (warn && warnlen)
        warn[0] = '\0';
    scl_status st = check_grid(m, err, errlen);
    if (st == SCL_OK)
        st = check_cells(m, err, errlen);
    if (st == SCL_OK)
        st = check_stepping(m, c, err, errlen);
    if (st == SCL_OK)
        st = check_points(m, c, err, errlen);
    if (st != SCL_OK)
        return st;
    const double ppw = scl_seis_points_per_wavelength(m, c);
    if (ppw < 5)
        return fail(err, errlen,
                    "%.2f points per minimum wavelength (min velocity / (fmax h)): at least 5 "
                    "are needed; use a smaller h or a lower frequency",
                    ppw);
    if (warn && ppw < (c->order == 4 ? 8 : 10))
        snprintf(warn, warnlen,
                 "%.2f points per minimum wavelength: expect visible numerical dispersion "
                 "(order %d wants >= %d)",
                 ppw, c->order, c->order == 4 ? 8 : 10);
    return SCL_OK;
}
