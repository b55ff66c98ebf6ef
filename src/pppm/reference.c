/* Plain C (double) particle-mesh operations of PPPM, written from the
 * formulas of LAMMPS's PPPM (particle_map, make_rho, fieldforce_ik,
 * compute_rho_coeff): the oracle of the device kernels and of the plugin. */
#include "pppm_internal.h"

#include <math.h>
#include <string.h>

void scl_pppm_stencil(int order, double *shift, double *shiftone, int *nlower, int *nupper)
{
    /* odd orders map to the nearest grid point, even ones to the one below */
    if (shift) *shift = PPPM_OFFSET + (order % 2 ? 0.5 : 0.0);
    if (shiftone) *shiftone = order % 2 ? 0.0 : 0.5;
    if (nlower) *nlower = -(order - 1) / 2;
    if (nupper) *nupper = order / 2;
}

/* The assignment function is piecewise polynomial: a[l][k] is the power-l
 * coefficient of the piece centred at k/2, built by the recursion of
 * Hockney & Eastwood (convolving the order-1 function with a unit box). */
void scl_pppm_rho_coeff(int order, double *coeff)
{
    double a[SCL_PPPM_MAX_ORDER][2 * SCL_PPPM_MAX_ORDER + 1];
    const int c = SCL_PPPM_MAX_ORDER; /* column of k = 0 */
    memset(a, 0, sizeof a);
    a[0][c] = 1.0;
    for (int j = 1; j < order; j++) {
        for (int k = -j; k <= j; k += 2) {
            double s = 0.0;
            for (int l = 0; l < j; l++) {
                a[l + 1][c + k] = (a[l][c + k + 1] - a[l][c + k - 1]) / (l + 1);
                s += pow(0.5, l + 1) * (a[l][c + k - 1] + pow(-1.0, l) * a[l][c + k + 1]) / (l + 1);
            }
            a[0][c + k] = s;
        }
    }
    int m = 0;
    for (int k = -(order - 1); k < order; k += 2, m++)
        for (int l = 0; l < order; l++) coeff[l * order + m] = a[l][c + k];
}

int pppm_map_atom(const scl_pppm_params *p, const double *xi, int g[3], double d[3])
{
    double shift, shiftone;
    int nlower, nupper;
    scl_pppm_stencil(p->order, &shift, &shiftone, &nlower, &nupper);
    int out = 0;
    for (int k = 0; k < 3; k++) {
        const double s = (xi[k] - p->boxlo[k]) * p->delinv[k];
        if (!isfinite(s) || s + shift < 0.0 || s + shift > 2.0 * PPPM_OFFSET) return 1;
        g[k] = (int)(s + shift) - PPPM_OFFSET;
        d[k] = g[k] + shiftone - s;
        if (g[k] + nlower < p->lo[k] || g[k] + nupper > p->hi[k]) out = 1;
    }
    return out;
}

void pppm_weights(int order, const double *coeff, double d, double *w)
{
    for (int k = 0; k < order; k++) {
        double r = 0.0;
        for (int l = order - 1; l >= 0; l--) r = coeff[l * order + k] + r * d;
        w[k] = r;
    }
}

static size_t brick_index(const scl_pppm_params *p, int x, int y, int z)
{
    const size_t nx = (size_t)(p->hi[0] - p->lo[0] + 1), ny = (size_t)(p->hi[1] - p->lo[1] + 1);
    return ((size_t)(z - p->lo[2]) * ny + (size_t)(y - p->lo[1])) * nx + (size_t)(x - p->lo[0]);
}

/* Atom xi's stencil: the brick index of its first point and the weights.
 * Nonzero when the atom is off the brick or not finite. */
static int atom_stencil(const scl_pppm_params *p, const double *coeff, int nlower,
                        const double *xi, size_t *first, double w[3][SCL_PPPM_MAX_ORDER])
{
    double d[3];
    int g[3];
    if (pppm_map_atom(p, xi, g, d))
        return 1;
    for (int k = 0; k < 3; k++) pppm_weights(p->order, coeff, d[k], w[k]);
    *first = brick_index(p, g[0] + nlower, g[1] + nlower, g[2] + nlower);
    return 0;
}

size_t pppm_brick_points(const scl_pppm_params *p)
{
    size_t n = 1;
    for (int k = 0; k < 3; k++) n *= (size_t)(p->hi[k] - p->lo[k] + 1);
    return n;
}

int scl_pppm_reference_make_rho(const scl_pppm_params *p, int n, const double *x,
                                const double *q, double *density)
{
    double coeff[SCL_PPPM_MAX_ORDER * SCL_PPPM_MAX_ORDER];
    int nlower;
    scl_pppm_rho_coeff(p->order, coeff);
    scl_pppm_stencil(p->order, NULL, NULL, &nlower, NULL);
    memset(density, 0, pppm_brick_points(p) * sizeof *density);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        size_t first;
        double w[3][SCL_PPPM_MAX_ORDER];
        if (atom_stencil(p, coeff, nlower, x + 3 * i, &first, w)) { bad++; continue; }
        const double z0 = p->delvolinv * q[i];
        for (int c = 0; c < p->order; c++)
            for (int b = 0; b < p->order; b++) {
                const double y0 = z0 * w[2][c] * w[1][b];
                double *row = density + first + brick_index(p, p->lo[0], p->lo[1] + b, p->lo[2] + c);
                for (int a = 0; a < p->order; a++) row[a] += y0 * w[0][a];
            }
    }
    return bad;
}

int scl_pppm_reference_fieldforce(const scl_pppm_params *p, int n, const double *x,
                                  const double *q, const double *vdx, const double *vdy,
                                  const double *vdz, double *f)
{
    double coeff[SCL_PPPM_MAX_ORDER * SCL_PPPM_MAX_ORDER];
    int nlower;
    scl_pppm_rho_coeff(p->order, coeff);
    scl_pppm_stencil(p->order, NULL, NULL, &nlower, NULL);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        size_t first;
        double w[3][SCL_PPPM_MAX_ORDER];
        if (atom_stencil(p, coeff, nlower, x + 3 * i, &first, w)) { bad++; continue; }
        double e[3] = {0.0, 0.0, 0.0};
        for (int c = 0; c < p->order; c++)
            for (int b = 0; b < p->order; b++) {
                const double y0 = w[2][c] * w[1][b];
                const size_t row = first + brick_index(p, p->lo[0], p->lo[1] + b, p->lo[2] + c);
                for (int a = 0; a < p->order; a++) {
                    const double x0 = y0 * w[0][a];
                    e[0] -= x0 * vdx[row + a];
                    e[1] -= x0 * vdy[row + a];
                    e[2] -= x0 * vdz[row + a];
                }
            }
        const double qf = p->qscale * q[i];
        for (int k = 0; k < 3; k++) f[3 * i + k] += qf * e[k];
    }
    return bad;
}
