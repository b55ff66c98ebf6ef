/* Transmission lines (gprMax's #transmission_line): the 1D line's
 * constants, its update (the reference solver's, and the incident run) and
 * the incident voltage and current. The OpenCL solver runs the same update
 * in fdtd_tline.cl. */
#include "fdtd/tline.h"
#include "core/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int scl_fdtd_model_tlines(const scl_fdtd_model *m)
{
    int n = 0;
    for (int q = 0; q < m->nsrc; q++)
        n += m->src[q].kind == SCL_FDTD_TLINE;
    return n;
}

double scl_fdtd_tline_dl(const scl_fdtd_model *m) { return sqrt(3.0) * SCL_FDTD_C0 * m->dt; }

long scl_fdtd_tline_cells(const scl_fdtd_model *m)
{
    return scl_round_half_down(0.667 * (double)m->iterations);
}

void fdtd_tline_drive(const scl_fdtd_model *m, int s, long n, double *whole, double *half)
{
    const scl_fdtd_source *src = &m->src[s];
    double t = n * m->dt;
    *whole = *half = 0;
    if (t < src->start || (src->stop >= 0 && t > src->stop))
        return;
    *whole = scl_fdtd_wave_value(m, src->wave, t - src->start);
    *half = scl_fdtd_wave_value(m, src->wave, t - src->start + 0.5 * m->dt);
}

int fdtd_tline_active(const scl_fdtd_model *m, int s, long n)
{
    const scl_fdtd_source *src = &m->src[s];
    double t = n * m->dt;
    return t >= src->start && (src->stop < 0 || t <= src->stop);
}

/* The line's currents from its voltages (the grid has set i[nl - 1] when
 * joined), then the injector's half-step current. */
void fdtd_tline_currents(double *v, double *i, long nl, double r, double half)
{
    const double k = 1 / sqrt(3.0); /* c dt / dl */
    for (long c = 0; c + 1 < nl; c++)
        i[c] -= k / r * (v[c + 1] - v[c]);
    i[SCL_FDTD_TLINE_SRC - 1] += k / r * half;
}

/* The voltages from the currents, the injector's voltage and the absorbing
 * end (first order, Mur-like: h from the line's step, kept in abc[2]). */
void fdtd_tline_voltages(double *v, const double *i, long nl, double r, double whole, double abc[2])
{
    const double k = 1 / sqrt(3.0), h = (1 - sqrt(3.0)) / (1 + sqrt(3.0));
    for (long c = nl - 1; c >= 1; c--)
        v[c] -= r * k * (i[c] - i[c - 1]);
    v[SCL_FDTD_TLINE_SRC] += k * whole;
    v[0] = h * (v[1] - abc[0]) + abc[1];
    abc[0] = v[0];
    abc[1] = v[1];
}

double fdtd_tline_current(const scl_fdtd_model *m, int s, double (*h)(void *, int, long),
                          void *user)
{
    const scl_fdtd_source *src = &m->src[s];
    const scl_grid3d *g = &m->grid;
    int a = src->pol, b = (a + 1) % 3, c = (a + 2) % 3;
    if (src->ijk[b] == 0 || src->ijk[c] == 0) /* gprMax: no loop on the low faces */
        return 0;
    double d[3] = {g->dx, g->dy, g->dz};
    long st[3] = {1, g->px, g->px * g->py};
    long o = scl_grid3d_index(g, src->ijk[0], src->ijk[1], src->ijk[2]);
    return d[b] * (h(user, b, o - st[c]) - h(user, b, o)) + d[c] * (h(user, c, o) - h(user, c, o - st[b]));
}

scl_status scl_fdtd_tline_incident(const scl_fdtd_model *m, int s, double *vinc, double *iinc,
                                   char *err, size_t errlen)
{
    long nl = scl_fdtd_tline_cells(m), it = m->iterations;
    if (s < 0 || s >= m->nsrc || m->src[s].kind != SCL_FDTD_TLINE) {
        scl_format_error(err, errlen, "scl_fdtd_tline_incident: source %d is not a transmission line", s);
        return SCL_ERR_ARGUMENT;
    }
    if (nl <= SCL_FDTD_TLINE_ANT) {
        scl_format_error(err, errlen,
                         "a transmission line needs at least 16 iterations (its line is %ld cells)", nl);
        return SCL_ERR_ARGUMENT;
    }
    double *v = calloc(2 * (size_t)nl, sizeof *v), *i = v + nl, abc[2] = {0, 0};
    if (!v) {
        scl_format_error(err, errlen, "scl_fdtd_tline_incident: out of host memory");
        return SCL_ERR_MEMORY;
    }
    for (long n = 0; n < it; n++) {
        double whole, half;
        vinc[n] = v[SCL_FDTD_TLINE_ANT];
        iinc[n] = i[SCL_FDTD_TLINE_ANT];
        fdtd_tline_drive(m, s, n, &whole, &half);
        fdtd_tline_currents(v, i, nl, m->src[s].resistance, half);
        fdtd_tline_voltages(v, i, nl, m->src[s].resistance, whole, abc);
    }
    vinc[it] = iinc[it] = 0;
    free(v);
    return SCL_OK;
}
