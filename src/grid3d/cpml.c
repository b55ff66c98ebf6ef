/* CPML profile coefficients (Roden & Gedney 2000, CFS grading). */
#include "streamcl/grid3d.h"
#include "core/fail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS0 (1.0 / (4e-7 * M_PI * 299792458.0 * 299792458.0))

double scl_cpml_em_dmax(int order, double d, double eps_r, double mu_r)
{
    double sigma = (order + 1) / (150.0 * M_PI * d * sqrt(eps_r * mu_r));
    return sigma / EPS0;
}

double scl_cpml_seismic_dmax(int order, double vp, double thickness, double reflection)
{
    return -(order + 1) * vp * log(reflection) / (2.0 * thickness);
}

void scl_cpml_axis_free(scl_cpml_axis *a)
{
    if (!a)
        return;
    free(a->kinv_node); /* one block holds all six arrays */
    memset(a, 0, sizeof *a);
}

/* Coefficients at depth rho (m) into a layer of thickness L (m). */
static void coeffs(const scl_cpml_grading *gr, double rho, double L, double dt, double *kinv,
                   double *b, double *c)
{
    if (rho <= 0 || L <= 0) {
        *kinv = 1;
        *b = *c = 0;
        return;
    }
    double r = rho / L > 1 ? 1 : rho / L, rm = pow(r, gr->order);
    double d = gr->d_max * rm;
    double kappa = 1 + (gr->kappa_max - 1) * rm;
    double alpha = gr->alpha_max * (1 - r);
    *kinv = 1 / kappa;
    *b = exp(-(d / kappa + alpha) * dt);
    double den = kappa * (d + kappa * alpha);
    *c = den > 0 ? d * (*b - 1) / den : 0;
}

scl_status scl_cpml_axis_build(scl_cpml_axis *a, int n, double d, double dt, int lo, int hi,
                               const scl_cpml_grading *gr, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (n < 1 || lo < 0 || hi < 0 || lo + hi > n) {
        scl_format_error(err, errlen, "CPML of %d + %d cells does not fit an axis of %d cells",
                         lo, hi, n);
        return SCL_ERR_INPUT;
    }
    if (!gr || gr->order < 0 || gr->order > 10 || !(gr->d_max >= 0) || !(gr->kappa_max >= 1) ||
        !(gr->alpha_max >= 0) || !isfinite(gr->d_max) || !isfinite(gr->kappa_max) ||
        !isfinite(gr->alpha_max) || !(d > 0) || !(dt > 0)) {
        scl_format_error(err, errlen,
                         "CPML grading: need order in [0,10], d_max >= 0, kappa_max >= 1, "
                         "alpha_max >= 0, finite, and positive d, dt");
        return SCL_ERR_INPUT;
    }
    size_t m = (size_t)n + 1;
    double *block = calloc(6 * m, sizeof(double));
    if (!block) {
        scl_format_error(err, errlen, "CPML profile: out of host memory");
        return SCL_ERR_MEMORY;
    }
    a->n = n;
    a->lo = lo;
    a->hi = hi;
    a->kinv_node = block;
    a->b_node = block + m;
    a->c_node = block + 2 * m;
    a->kinv_half = block + 3 * m;
    a->b_half = block + 4 * m;
    a->c_half = block + 5 * m;
    double Llo = lo * d, Lhi = hi * d, xhi = (n - hi) * d;
    for (int i = 0; i <= n; i++) {
        for (int half = 0; half < 2; half++) {
            double x = (i + 0.5 * half) * d;
            double rho = 0, L = 0;
            if (lo > 0 && x < Llo) {
                rho = Llo - x;
                L = Llo;
            } else if (hi > 0 && x > xhi) {
                rho = x - xhi;
                L = Lhi;
            }
            if (half && i == n)
                rho = 0; /* no half node past the last cell */
            double *kinv = half ? a->kinv_half : a->kinv_node;
            double *b = half ? a->b_half : a->b_node;
            double *c = half ? a->c_half : a->c_node;
            coeffs(gr, rho, L, dt, &kinv[i], &b[i], &c[i]);
        }
    }
    return SCL_OK;
}
