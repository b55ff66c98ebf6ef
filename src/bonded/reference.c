/* Plain C reference of the bonded terms (double), written from LAMMPS's CPU
 * styles bond harmonic, angle charmm, dihedral charmm and improper harmonic
 * (forces, energies, and ev_tally's global and per-atom shares under
 * newton_bond on and off). The test oracle of the device kernels. */
#include "core/fail.h"
#include "streamcl/bonded.h"

#include <math.h>
#include <string.h>

#define SMALL 0.001

typedef struct {
    const scl_bonded_topology *t;
    double *f;
    scl_bonded_result *r;
    int nout; /* atoms of the per-atom arrays (gather count) */
} sink;

static int receives(const sink *k, int i)
{
    return k->t->newton_bond || i < k->t->nlocal;
}

/* Add one term: forces fa[a] on atoms idx[a], energy e and virial v counted
 * as ev_tally does; coul (1-4 pairs only) is the Coulomb part of e. */
static void add_term(sink *k, int kind, int n, const int *idx, double fa[][3], double e,
                     double ecoul, const double v[6])
{
    int owned = 0;
    for (int a = 0; a < n; a++) {
        if (receives(k, idx[a]))
            for (int d = 0; d < 3; d++)
                k->f[3 * idx[a] + d] += fa[a][d];
        owned += idx[a] < k->t->nlocal;
    }
    if (!k->r)
        return;
    const double w = k->t->newton_bond ? 1.0 : (double)owned / n;
    k->r->energy[kind] += w * (e - ecoul);
    if (kind == SCL_BONDED_PAIR14)
        k->r->energy_coul += w * ecoul;
    for (int c = 0; c < 6; c++)
        k->r->virial[kind][c] += w * v[c];
    for (int a = 0; a < n; a++) {
        if (!receives(k, idx[a]))
            continue;
        const size_t row = (size_t)kind * k->t->nall + idx[a];
        if (k->r->eatom)
            k->r->eatom[row] += e / n;
        if (k->r->vatom)
            for (int c = 0; c < 6; c++)
                k->r->vatom[row * 6 + c] += v[c] / n;
    }
}

static void sub3(const double *a, const double *b, double *o)
{
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* virial of forces f1, f3, f4 at positions r1, r3, r4 (any common origin) */
static void virial3(const double *r1, const double *f1, const double *r3, const double *f3,
                    const double *r4, const double *f4, double v[6])
{
    static const int ia[6] = {0, 1, 2, 0, 0, 1}, ib[6] = {0, 1, 2, 1, 2, 2};
    for (int c = 0; c < 6; c++) {
        v[c] = r1[ia[c]] * f1[ib[c]];
        if (r3)
            v[c] += r3[ia[c]] * f3[ib[c]];
        if (r4)
            v[c] += r4[ia[c]] * f4[ib[c]];
    }
}

/* A cosine clamped to [-1, 1] (a NaN stays NaN), and its sine, at least
 * SMALL, as LAMMPS's angle and improper styles take them. */
static double clamp_cos(double cs)
{
    if (cs > 1.0)
        cs = 1.0;
    if (cs < -1.0)
        cs = -1.0;
    return cs;
}

static double sine_of(double cs)
{
    const double s = sqrt(1.0 - cs * cs);
    return s < SMALL ? SMALL : s;
}

/* A central pair force as one term: f_i = fscale del (del = x_i - x_j),
 * f_j = -f_i (the bond, and the dihedral's 1-4 pair). */
static void pair_term(sink *k, int kind, int i, int j, const double del[3], double fscale,
                      double e, double ecoul)
{
    double fa[2][3], v[6];
    for (int d = 0; d < 3; d++) {
        fa[0][d] = del[d] * fscale;
        fa[1][d] = -fa[0][d];
    }
    virial3(del, fa[0], NULL, NULL, NULL, NULL, v);
    const int idx[2] = {i, j};
    add_term(k, kind, 2, idx, fa, e, ecoul, v);
}

static void bond(sink *k, const scl_bonded_coeffs *c, const double *x, const int *e)
{
    const int i1 = e[0], i2 = e[1], ty = e[2] - c->type_base;
    double del[3];
    sub3(x + 3 * i1, x + 3 * i2, del);
    const double r = sqrt(dot3(del, del)), dr = r - c->bond_r0[ty], rk = c->bond_k[ty] * dr;
    const double fbond = r > 0.0 ? -2.0 * rk / r : 0.0;
    pair_term(k, SCL_BONDED_BOND, i1, i2, del, fbond, rk * dr, 0.0);
}

static void angle(sink *k, const scl_bonded_coeffs *c, const double *x, const int *e)
{
    const int i1 = e[0], i2 = e[1], i3 = e[2], ty = e[3] - c->type_base;
    double d1[3], d2[3], dub[3];
    sub3(x + 3 * i1, x + 3 * i2, d1);
    sub3(x + 3 * i3, x + 3 * i2, d2);
    sub3(x + 3 * i3, x + 3 * i1, dub);
    const double rsq1 = dot3(d1, d1), rsq2 = dot3(d2, d2);
    const double r1 = sqrt(rsq1), r2 = sqrt(rsq2);
    const double rub = sqrt(dot3(dub, dub)), drub = rub - c->angle_r_ub[ty];
    const double rkub = c->angle_k_ub[ty] * drub;
    const double fub = rub > 0.0 ? -2.0 * rkub / rub : 0.0;
    const double cs = clamp_cos(dot3(d1, d2) / (r1 * r2));
    const double s = 1.0 / sine_of(cs);
    const double dtheta = acos(cs) - c->angle_theta0[ty], tk = c->angle_k[ty] * dtheta;
    const double a = -2.0 * tk * s, a11 = a * cs / rsq1, a12 = -a / (r1 * r2),
                 a22 = a * cs / rsq2;
    double fa[3][3], v[6];
    for (int d = 0; d < 3; d++) {
        fa[0][d] = a11 * d1[d] + a12 * d2[d] - dub[d] * fub;
        fa[2][d] = a22 * d2[d] + a12 * d1[d] + dub[d] * fub;
        fa[1][d] = -(fa[0][d] + fa[2][d]);
    }
    virial3(d1, fa[0], d2, fa[2], NULL, NULL, v);
    const int idx[3] = {i1, i2, i3};
    add_term(k, SCL_BONDED_ANGLE, 3, idx, fa, rkub * drub + tk * dtheta, 0.0, v);
}

static void cross3(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static void dihedral(sink *k, const scl_bonded_coeffs *c, const scl_bonded_topology *t,
                     const double *x, const int *e)
{
    const int i1 = e[0], i2 = e[1], i3 = e[2], i4 = e[3], ty = e[4] - c->type_base;
    double vb1[3], vb2[3], vb2m[3], vb3[3], A[3], B[3];
    sub3(x + 3 * i1, x + 3 * i2, vb1);
    sub3(x + 3 * i3, x + 3 * i2, vb2);
    for (int d = 0; d < 3; d++)
        vb2m[d] = -vb2[d];
    sub3(x + 3 * i4, x + 3 * i3, vb3);
    cross3(vb1, vb2m, A);
    cross3(vb3, vb2m, B);
    const double rasq = dot3(A, A), rbsq = dot3(B, B), rg = sqrt(dot3(vb2m, vb2m));
    const double rginv = rg > 0 ? 1.0 / rg : 0.0, ra2inv = rasq > 0 ? 1.0 / rasq : 0.0,
                 rb2inv = rbsq > 0 ? 1.0 / rbsq : 0.0, rabinv = sqrt(ra2inv * rb2inv);
    double cs = dot3(A, B) * rabinv;
    const double s = rg * rabinv * dot3(A, vb3);
    if (cs > 1.0)
        cs = 1.0;
    if (cs < -1.0)
        cs = -1.0;
    const int m = c->dihedral_multiplicity[ty];
    const double shift = M_PI * c->dihedral_shift[ty] / 180.0;
    const double cos_shift = cos(shift), sin_shift = sin(shift), K = c->dihedral_k[ty];
    double p = 1.0, df1 = 0.0, ddf1 = 0.0;
    for (int i = 0; i < m; i++) {
        ddf1 = p * cs - df1 * s;
        df1 = p * s + df1 * cs;
        p = ddf1;
    }
    p = p * cos_shift + df1 * sin_shift;
    df1 = df1 * cos_shift - ddf1 * sin_shift;
    df1 *= -m;
    p += 1.0;
    if (m == 0) {
        p = 1.0 + cos_shift;
        df1 = 0.0;
    }
    const double fg = dot3(vb1, vb2m), hg = dot3(vb3, vb2m);
    const double fga = fg * ra2inv * rginv, hgb = hg * rb2inv * rginv;
    const double gaa = -ra2inv * rg, gbb = rb2inv * rg, df = -K * df1;
    double fa[4][3], v[6], r4[3];
    for (int d = 0; d < 3; d++) {
        const double dtf = gaa * A[d], dtg = fga * A[d] - hgb * B[d], dth = gbb * B[d];
        const double s2 = df * dtg;
        fa[0][d] = df * dtf;
        fa[1][d] = s2 - fa[0][d];
        fa[3][d] = df * dth;
        fa[2][d] = -s2 - fa[3][d];
        r4[d] = vb3[d] + vb2[d];
    }
    virial3(vb1, fa[0], vb2, fa[2], r4, fa[3], v);
    const int idx[4] = {i1, i2, i3, i4};
    add_term(k, SCL_BONDED_DIHEDRAL, 4, idx, fa, K * p, 0.0, v);

    const double weight = c->dihedral_weight[ty];
    if (weight > 0.0) {
        const int it = t->type[i1] - c->type_base, jt = t->type[i4] - c->type_base;
        const size_t ij = (size_t)it * c->natom_types + jt;
        double del[3];
        sub3(x + 3 * i1, x + 3 * i4, del);
        const double r2inv = 1.0 / dot3(del, del), r6inv = r2inv * r2inv * r2inv;
        const double qq = c->qqrd2e * t->q[i1] * t->q[i4];
        const double fcoul = c->implicit ? qq * r2inv : qq * sqrt(r2inv);
        const double flj = r6inv * (c->lj14_1[ij] * r6inv - c->lj14_2[ij]);
        const double fpair = weight * (flj + fcoul) * r2inv;
        const double ecoul = weight * fcoul;
        const double evdwl = weight * r6inv * (c->lj14_3[ij] * r6inv - c->lj14_4[ij]);
        pair_term(k, SCL_BONDED_PAIR14, i1, i4, del, fpair, evdwl + ecoul, ecoul);
    }
}

static void improper(sink *k, const scl_bonded_coeffs *c, const double *x, const int *e)
{
    const int i1 = e[0], i2 = e[1], i3 = e[2], i4 = e[3], ty = e[4] - c->type_base;
    double vb1[3], vb2[3], vb3[3];
    sub3(x + 3 * i1, x + 3 * i2, vb1);
    sub3(x + 3 * i3, x + 3 * i2, vb2);
    sub3(x + 3 * i4, x + 3 * i3, vb3);
    const double ss1 = 1.0 / dot3(vb1, vb1), ss2 = 1.0 / dot3(vb2, vb2),
                 ss3 = 1.0 / dot3(vb3, vb3);
    const double r1 = sqrt(ss1), r2 = sqrt(ss2), r3 = sqrt(ss3);
    const double c0 = dot3(vb1, vb3) * r1 * r3, c1 = dot3(vb1, vb2) * r1 * r2,
                 c2 = -dot3(vb3, vb2) * r3 * r2;
    double s1 = 1.0 - c1 * c1;
    if (s1 < SMALL)
        s1 = SMALL;
    s1 = 1.0 / s1;
    double s2 = 1.0 - c2 * c2;
    if (s2 < SMALL)
        s2 = SMALL;
    s2 = 1.0 / s2;
    double s12 = sqrt(s1 * s2);
    double cs = clamp_cos((c1 * c2 + c0) * s12);
    const double s = sine_of(cs);
    const double domega = acos(cs) - c->improper_chi[ty];
    double a = c->improper_k[ty] * domega;
    const double energy = a * domega;
    a = -a * 2.0 / s;
    cs = cs * a;
    s12 = s12 * a;
    const double a11 = cs * ss1 * s1, a22 = -ss2 * (2.0 * c0 * s12 - cs * (s1 + s2)),
                 a33 = cs * ss3 * s2, a12 = -r1 * r2 * (c1 * cs * s1 + c2 * s12),
                 a13 = -r1 * r3 * s12, a23 = r2 * r3 * (c2 * cs * s2 + c1 * s12);
    double fa[4][3], v[6], r4[3];
    for (int d = 0; d < 3; d++) {
        const double sx2 = a22 * vb2[d] + a23 * vb3[d] + a12 * vb1[d];
        fa[0][d] = a12 * vb2[d] + a13 * vb3[d] + a11 * vb1[d];
        fa[1][d] = -sx2 - fa[0][d];
        fa[3][d] = a23 * vb2[d] + a33 * vb3[d] + a13 * vb1[d];
        fa[2][d] = sx2 - fa[3][d];
        r4[d] = vb3[d] + vb2[d];
    }
    virial3(vb1, fa[0], vb2, fa[2], r4, fa[3], v);
    const int idx[4] = {i1, i2, i3, i4};
    add_term(k, SCL_BONDED_IMPROPER, 4, idx, fa, energy, 0.0, v);
}

/* the checks of set_coeffs / set_topology that the reference needs to read
 * safely: indices and types in range */
static int check(const scl_bonded_coeffs *c, const scl_bonded_topology *t, char *err,
                 size_t errlen)
{
    const int nt[4] = {t->nbonds, t->nangles, t->ndihedrals, t->nimpropers};
    const int *lists[4] = {t->bonds, t->angles, t->dihedrals, t->impropers};
    const int ntypes[4] = {c->nbond_types, c->nangle_types, c->ndihedral_types,
                           c->nimproper_types};
    static const int na[4] = {2, 3, 4, 4}, stride[4] = {3, 4, 5, 5};
    static const char *kind[4] = {"bond", "angle", "dihedral", "improper"};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < nt[k]; i++) {
            const int *e = lists[k] + (size_t)stride[k] * i;
            for (int a = 0; a < na[k]; a++)
                if (e[a] < 0 || e[a] >= t->nall) {
                    scl_format_error(err, errlen, "%s %d: atom index %d is outside [0, %d)",
                                     kind[k], i, e[a], t->nall);
                    return 0;
                }
            if (e[na[k]] - c->type_base < 0 || e[na[k]] - c->type_base >= ntypes[k]) {
                scl_format_error(err, errlen, "%s %d: type %d is out of range", kind[k], i,
                                 e[na[k]]);
                return 0;
            }
        }
    return 1;
}

scl_status scl_bonded_reference(const scl_bonded_coeffs *c, const scl_bonded_topology *t,
                                const double *x, double *f, scl_bonded_result *result,
                                char *err, size_t errlen)
{
    if (!c || !t || !f || (t->nall > 0 && !x)) {
        scl_format_error(err, errlen, "scl_bonded_reference: a NULL argument");
        return SCL_ERR_ARGUMENT;
    }
    if (!check(c, t, err, errlen))
        return SCL_ERR_INPUT;
    sink k = {t, f, result, t->newton_bond ? t->nall : t->nlocal};
    if (result) {
        memset(result->energy, 0, sizeof result->energy);
        memset(result->virial, 0, sizeof result->virial);
        result->energy_coul = 0.0;
        for (int kind = 0; kind < SCL_BONDED_KINDS; kind++) {
            if (result->eatom)
                memset(result->eatom + (size_t)kind * t->nall, 0, sizeof(double) * (size_t)k.nout);
            if (result->vatom)
                memset(result->vatom + (size_t)kind * t->nall * 6, 0,
                       sizeof(double) * 6 * (size_t)k.nout);
        }
    }
    for (int i = 0; i < t->nbonds; i++)
        bond(&k, c, x, t->bonds + 3 * i);
    for (int i = 0; i < t->nangles; i++)
        angle(&k, c, x, t->angles + 4 * i);
    for (int i = 0; i < t->ndihedrals; i++)
        dihedral(&k, c, t, x, t->dihedrals + 5 * i);
    for (int i = 0; i < t->nimpropers; i++)
        improper(&k, c, x, t->impropers + 5 * i);
    return SCL_OK;
}
