/* Plain C reference of the SHAKE constraint forces (see streamcl/shake.h):
 * the test oracle of cl/shake.cl. Written as the equations read — a cluster
 * is a set of constraints (pairs of atoms), the linearised matrix and the
 * quadratic terms follow from which atoms two constraints share — with the
 * products and sums in the order LAMMPS's fix shake writes them, so that the
 * results agree to the last bit. */
#include "shake_internal.h"

#include <math.h>
#include <stddef.h>

/* no contraction: the build is ISO C11, where gcc keeps a*b+c unfused */

/* the atom pairs (cluster slots) of each constraint of a kind */
void shake_constraints(int kind, int pair[3][2], int *nc, int *na)
{
    *nc = kind == SCL_SHAKE_ANGLE ? 3 : kind - 1;
    *na = kind == SCL_SHAKE_ANGLE ? 3 : kind;
    for (int c = 0; c < 3; c++) {
        pair[c][0] = 0;
        pair[c][1] = c + 1;
    }
    if (kind == SCL_SHAKE_ANGLE) {
        pair[2][0] = 1;
        pair[2][1] = 2;
    }
}

static void wrap(const scl_shake_box *b, double *d, int once)
{
    /* Domain::minimum_image (loop) / minimum_image_once (one shift); the
     * triclinic order is z, y, x (the tilts carry into lower dimensions) */
    if (!isfinite(d[0]) || !isfinite(d[1]) || !isfinite(d[2])) return;
    const double tilt[3][2] = {{0, 0}, {b->xy, 0}, {b->yz, b->xz}};
    for (int n = 0; n < 3; n++) {
        const int k = b->triclinic ? 2 - n : n;
        if (!b->periodic[k]) continue;
        const double half = 0.5 * b->prd[k];
        while (fabs(d[k]) > half) {
            const double sgn = d[k] < 0.0 ? 1.0 : -1.0;
            if (sgn > 0) d[k] += b->prd[k];
            else d[k] -= b->prd[k];
            if (b->triclinic && k == 2) {
                if (sgn > 0) { d[1] += tilt[2][0]; d[0] += tilt[2][1]; }
                else { d[1] -= tilt[2][0]; d[0] -= tilt[2][1]; }
            } else if (b->triclinic && k == 1) {
                if (sgn > 0) d[0] += tilt[1][0];
                else d[0] -= tilt[1][0];
            }
            if (once) break;
        }
    }
}

static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* coefficient of constraint e's multiplier in constraint c's linear term:
 * the inverse masses of the atoms c and e share, signed by their sides
 * (an atom first in one pair and second in the other contributes minus) */
static double coupling(const int pc[2], const int pe[2], const double *im, int same)
{
    if (same) return im[pc[0]] + im[pc[1]];
    double w = 0.0;
    for (int a = 0; a < 2; a++)
        for (int e = 0; e < 2; e++)
            if (pc[a] == pe[e]) w = (a == e) ? im[pc[a]] : -im[pc[a]];
    return w;
}

/* One constraint: the root of the quadratic of smaller magnitude. */
static double single_multiplier(double a, double b, double c, int *negative)
{
    double det = b * b - 4.0 * a * c;
    if (det < 0.0) {
        if (negative) (*negative)++;
        det = 0.0;
    }
    const double l1 = (-b + sqrt(det)) / (2.0 * a), l2 = (-b - sqrt(det)) / (2.0 * a);
    return fabs(l1) <= fabs(l2) ? l1 : l2;
}

/* Ainv = A^-1 (2x2 or 3x3, by the adjugate); 0 when det A = 0. */
static int invert(int nc, double A[3][3], double Ainv[3][3])
{
    double det;
    if (nc == 2) {
        det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
        if (det == 0.0) return 0;
        const double di = 1.0 / det;
        Ainv[0][0] = A[1][1] * di;
        Ainv[0][1] = -A[0][1] * di;
        Ainv[1][0] = -A[1][0] * di;
        Ainv[1][1] = A[0][0] * di;
        return 1;
    }
    det = A[0][0] * A[1][1] * A[2][2] + A[0][1] * A[1][2] * A[2][0] +
          A[0][2] * A[1][0] * A[2][1] - A[0][0] * A[1][2] * A[2][1] -
          A[0][1] * A[1][0] * A[2][2] - A[0][2] * A[1][1] * A[2][0];
    if (det == 0.0) return 0;
    const double di = 1.0 / det;
    /* the adjugate: cofactor (e, c) over det */
    for (int c = 0; c < 3; c++)
        for (int e = 0; e < 3; e++) {
            const int r0 = e == 0 ? 1 : 0, r1 = e == 2 ? 1 : 2;
            const int c0 = c == 0 ? 1 : 0, c1 = c == 2 ? 1 : 2;
            const double minor = A[r0][c0] * A[r1][c1] - A[r0][c1] * A[r1][c0];
            Ainv[c][e] = ((c + e) % 2 ? -di : di) * minor;
        }
    return 1;
}

/* The multipliers by fixed-point iteration lam = Ainv (rhs - quad(lam)),
 * until every one moves by at most the tolerance (or diverges). */
static void iterate(const scl_shake_options *o, int nc, double quad[3][6], const double rhs[3],
                    double Ainv[3][3], double lam[3])
{
    int done = 0;
    for (int it = 0; !done && it < o->max_iter; it++) {
        double b[3], next[3];
        for (int c = 0; c < nc; c++) {
            double q = quad[c][0] * lam[0] * lam[0];
            for (int e = 1; e < nc; e++) q += quad[c][e] * lam[e] * lam[e];
            int t = nc;
            for (int e = 0; e < nc; e++)
                for (int g = e + 1; g < nc; g++) q += quad[c][t++] * lam[e] * lam[g];
            b[c] = rhs[c] - q;
        }
        done = 1;
        for (int c = 0; c < nc; c++) {
            next[c] = Ainv[c][0] * b[0];
            for (int e = 1; e < nc; e++) next[c] += Ainv[c][e] * b[e];
            if (fabs(next[c] - lam[c]) > o->tolerance) done = 0;
        }
        for (int c = 0; c < nc; c++) {
            lam[c] = next[c];
            if (fabs(lam[c]) > 1e150) done = 1;
        }
    }
}

/* Several constraints: the linear matrix, the quadratic terms (LAMMPS's
 * order: squares, then the cross terms 01, 02, 12), the iteration; 1 when
 * the matrix is singular. */
static int solve_coupled(const scl_shake_options *o, const scl_shake_cluster *cl, int nc,
                         double r[3][3], double s[3][3], double w[3][3], double lam[3])
{
    double A[3][3], Ainv[3][3], quad[3][6], rhs[3];
    for (int c = 0; c < nc; c++) {
        for (int e = 0; e < nc; e++) A[c][e] = 2.0 * w[c][e] * dot(s[c], r[e]);
        rhs[c] = cl->dist[c] * cl->dist[c] - dot(s[c], s[c]);
        int t = 0;
        for (int e = 0; e < nc; e++) quad[c][t++] = w[c][e] * w[c][e] * dot(r[e], r[e]);
        for (int e = 0; e < nc; e++)
            for (int g = e + 1; g < nc; g++)
                quad[c][t++] = 2.0 * w[c][e] * w[c][g] * dot(r[e], r[g]);
    }
    if (!invert(nc, A, Ainv)) return 1;
    iterate(o, nc, quad, rhs, Ainv, lam);
    return 0;
}

/* Force on each atom: + lam r for constraints where it is first, - where
 * second, summed in LAMMPS's order (its first atom's sum left to right; the
 * angle's middle atom as -(l01 r01 - l12 r12)); ghosts get none; the virial
 * by the owned share. 1 when a force is not finite. */
static int cluster_forces(const scl_shake_cluster *cl, const scl_shake_input *in, int nc, int na,
                          int pair[3][2], const double lam[3], double r[3][3], double *fc,
                          double *v)
{
    int bad = 0, owned = 0;
    for (int k = 0; k < 12; k++) fc[k] = 0.0;
    for (int k = 0; k < 3; k++) {
        fc[k] = lam[0] * r[0][k];
        for (int c = 1; c < nc; c++)
            if (pair[c][0] == 0) fc[k] += lam[c] * r[c][k];
        if (cl->kind == SCL_SHAKE_ANGLE) {
            fc[3 + k] = -(lam[0] * r[0][k] - lam[2] * r[2][k]);
            fc[6 + k] = -(lam[1] * r[1][k] + lam[2] * r[2][k]);
        } else {
            for (int c = 0; c < nc; c++) fc[3 * (c + 1) + k] = -(lam[c] * r[c][k]);
        }
    }
    for (int p = 0; p < na; p++) {
        if (cl->atom[p] < in->nlocal) owned++;
        else fc[3 * p] = fc[3 * p + 1] = fc[3 * p + 2] = 0.0;
        for (int k = 0; k < 3; k++)
            if (!isfinite(fc[3 * p + k])) bad = 1;
    }
    static const int vi[6] = {0, 1, 2, 0, 0, 1}, vj[6] = {0, 1, 2, 1, 2, 2};
    const double frac = (double)owned / (double)na;
    for (int t = 0; t < 6; t++) {
        double sum = lam[0] * r[0][vi[t]] * r[0][vj[t]];
        for (int c = 1; c < nc; c++) sum += lam[c] * r[c][vi[t]] * r[c][vj[t]];
        v[t] = frac * sum;
    }
    return bad;
}

static int solve_one(const scl_shake_options *o, const scl_shake_cluster *cl,
                     const scl_shake_input *in, double *fc, double *v, int *negative)
{
    int pair[3][2], nc, na;
    shake_constraints(cl->kind, pair, &nc, &na);
    double r[3][3], s[3][3], lam[3] = {0, 0, 0};
    for (int c = 0; c < nc; c++) {
        const int i = cl->atom[pair[c][0]], j = cl->atom[pair[c][1]];
        for (int k = 0; k < 3; k++) {
            r[c][k] = in->x[3 * i + k] - in->x[3 * j + k];
            s[c][k] = in->xshake[3 * i + k] - in->xshake[3 * j + k];
        }
        wrap(&in->box, r[c], 0);
        wrap(&in->box, s[c], 1);
    }
    /* w[c][e]: the coupling; the linear matrix is 2 w[c][e] (s_c . r_e) and
     * constraint c's quadratic term sum over e<=g of
     * (e==g ? 1 : 2) w[c][e] w[c][g] (r_e . r_g) lam_e lam_g */
    double w[3][3], im[4];
    for (int p = 0; p < 4; p++) im[p] = p < na ? 1.0 / cl->mass[p] : 0.0;   /* fix shake: 1.0/mass */
    for (int c = 0; c < nc; c++)
        for (int e = 0; e < nc; e++) w[c][e] = coupling(pair[c], pair[e], im, c == e);
    if (nc == 1)
        lam[0] = single_multiplier(w[0][0] * w[0][0] * dot(r[0], r[0]),
                                   2.0 * w[0][0] * dot(s[0], r[0]),
                                   dot(s[0], s[0]) - cl->dist[0] * cl->dist[0], negative);
    else if (solve_coupled(o, cl, nc, r, s, w, lam))
        return 1;
    for (int c = 0; c < nc; c++) lam[c] = lam[c] / in->dtfsq;
    return cluster_forces(cl, in, nc, na, pair, lam, r, fc, v);
}

int scl_shake_reference(const scl_shake_options *opt, int n, const scl_shake_cluster *clusters,
                        const scl_shake_input *in, double *f, double virial[6], int *negative)
{
    if (negative) *negative = 0;
    for (int m = 0; m < n; m++) {
        double fc[12], v[6];
        const scl_shake_cluster *cl = &clusters[m];
        if (solve_one(opt, cl, in, fc, v, negative)) return 1 + m;
        const int na = cl->kind == SCL_SHAKE_ANGLE ? 3 : cl->kind;
        for (int p = 0; p < na; p++)
            if (cl->atom[p] < in->nlocal)
                for (int k = 0; k < 3; k++) f[3 * cl->atom[p] + k] += fc[3 * p + k];
        if (virial)
            for (int t = 0; t < 6; t++) virial[t] += v[t];
    }
    return 0;
}
