/* The PPPM charge assignment and force interpolation written for the tests
 * alone, from the definition rather than from LAMMPS's coefficient table:
 * the weight of grid point m for an atom at grid coordinate s is the
 * centred cardinal B-spline W_P(m - s) of order P (the P-fold convolution of
 * the unit box; Cox-de Boor recursion), over the P points nearest the atom.
 * src/pppm/reference.c and the device kernels both take their weights from
 * scl_pppm_rho_coeff, so a mirrored or shifted table passed a comparison of
 * the two; this oracle shares nothing with them but the brick layout
 * (include/streamcl/pppm.h). */
#ifndef STREAMCL_TEST_OWN_ASSIGNMENT_H
#define STREAMCL_TEST_OWN_ASSIGNMENT_H

#include "streamcl/pppm.h"

#include <math.h>
#include <string.h>

/* M_P(t): the cardinal B-spline of order P on [0, P). */
static double own_bspline(int P, double t)
{
    if (t < 0 || t >= P)
        return 0;
    if (P == 1)
        return 1;
    return (t * own_bspline(P - 1, t) + (P - t) * own_bspline(P - 1, t - 1)) / (P - 1);
}

/* The first stencil point and the P weights along one axis for grid
 * coordinate s: the P integer points nearest s (for odd P the nearest point
 * in the middle, for even P the two around s in the middle). */
static int own_axis(int P, double s, double *w)
{
    int first = P % 2 ? (int)floor(s + 0.5) - (P - 1) / 2 : (int)floor(s) - (P / 2 - 1);
    for (int k = 0; k < P; k++)
        w[k] = own_bspline(P, (first + k) - s + P / 2.0);
    return first;
}

static size_t own_index(const scl_pppm_params *p, int x, int y, int z)
{
    const size_t nx = (size_t)(p->hi[0] - p->lo[0] + 1), ny = (size_t)(p->hi[1] - p->lo[1] + 1);
    return ((size_t)(z - p->lo[2]) * ny + (size_t)(y - p->lo[1])) * nx + (size_t)(x - p->lo[0]);
}

static void own_stencil(const scl_pppm_params *p, const double *xi, int first[3],
                        double w[3][SCL_PPPM_MAX_ORDER])
{
    for (int d = 0; d < 3; d++)
        first[d] = own_axis(p->order, (xi[d] - p->boxlo[d]) * p->delinv[d], w[d]);
}

/* density (the brick, zeroed here) from n atoms; atoms must fit the brick */
static void own_make_rho(const scl_pppm_params *p, int n, const double *x, const double *q,
                         double *density, size_t npts)
{
    memset(density, 0, npts * sizeof *density);
    for (int i = 0; i < n; i++) {
        int f[3];
        double w[3][SCL_PPPM_MAX_ORDER];
        own_stencil(p, x + 3 * i, f, w);
        for (int c = 0; c < p->order; c++)
            for (int b = 0; b < p->order; b++)
                for (int a = 0; a < p->order; a++)
                    density[own_index(p, f[0] + a, f[1] + b, f[2] + c)] +=
                        p->delvolinv * q[i] * w[0][a] * w[1][b] * w[2][c];
    }
}

/* f += qscale q_i E(x_i), E = -sum w vd, from the field components on the brick */
static void own_fieldforce(const scl_pppm_params *p, int n, const double *x, const double *q,
                           const double *const vd[3], double *f)
{
    for (int i = 0; i < n; i++) {
        int fs[3];
        double w[3][SCL_PPPM_MAX_ORDER], e[3] = {0, 0, 0};
        own_stencil(p, x + 3 * i, fs, w);
        for (int c = 0; c < p->order; c++)
            for (int b = 0; b < p->order; b++)
                for (int a = 0; a < p->order; a++) {
                    const size_t k = own_index(p, fs[0] + a, fs[1] + b, fs[2] + c);
                    const double wt = w[0][a] * w[1][b] * w[2][c];
                    for (int d = 0; d < 3; d++)
                        e[d] -= wt * vd[d][k];
                }
        for (int d = 0; d < 3; d++)
            f[3 * i + d] += p->qscale * q[i] * e[d];
    }
}

#endif
