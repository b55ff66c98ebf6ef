/* SHAKE constraint forces, one work-item per cluster (LAMMPS fix shake's
 * shake / shake3 / shake4 / shake3angle). See include/streamcl/shake.h and
 * src/shake/reference.c (the same math in plain C).
 *
 * Clusters are independent and every atom belongs to at most one, so a
 * work-item owns its atoms' force increments outright: no atomics. The solve
 * is in double in every mode (a few hundred flops per cluster), with the
 * operations in LAMMPS's order and contraction off, so that a CPU device
 * reproduces fix shake to the last bit and a GPU to rounding.
 *
 * Options: WG (work-group size, a power of two; the virial partials are one
 * per work-group).
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#ifndef WG
#define WG 64
#endif

/* periodic minimum image, as LAMMPS's Domain::minimum_image (loop) and
 * minimum_image_once (once); box: prd x y z, xy, xz, yz. Non-finite deltas
 * are left as they are (the loop would not end on an infinity). */
typedef struct {
    double prd[3], hprd[3], xy, xz, yz;   /* (half is a type in OpenCL C) */
    int per[3], tri;
} box_t;

void min_image(const box_t *b, double *d, int once)
{
    if (!isfinite(d[0]) || !isfinite(d[1]) || !isfinite(d[2])) return;
    if (!b->tri) {
        for (int k = 0; k < 3; k++) {
            if (!b->per[k]) continue;
            while (fabs(d[k]) > b->hprd[k]) {
                if (d[k] < 0.0) d[k] += b->prd[k];
                else d[k] -= b->prd[k];
                if (once) break;
            }
        }
        return;
    }
    if (b->per[2]) {
        while (fabs(d[2]) > b->hprd[2]) {
            if (d[2] < 0.0) { d[2] += b->prd[2]; d[1] += b->yz; d[0] += b->xz; }
            else { d[2] -= b->prd[2]; d[1] -= b->yz; d[0] -= b->xz; }
            if (once) break;
        }
    }
    if (b->per[1]) {
        while (fabs(d[1]) > b->hprd[1]) {
            if (d[1] < 0.0) { d[1] += b->prd[1]; d[0] += b->xy; }
            else { d[1] -= b->prd[1]; d[0] -= b->xy; }
            if (once) break;
        }
    }
    if (b->per[0]) {
        while (fabs(d[0]) > b->hprd[0]) {
            if (d[0] < 0.0) d[0] += b->prd[0];
            else d[0] -= b->prd[0];
            if (once) break;
        }
    }
}

double dot3(const double *a, const double *b) { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2]; }

/* r = x[i] - x[j] (minimum image), s = xs[i] - xs[j] (minimum image once) */
void pair_vectors(const box_t *b, __global const double *x, __global const double *xs,
                         int i, int j, double *r, double *s)
{
    for (int k = 0; k < 3; k++) {
        r[k] = x[3 * i + k] - x[3 * j + k];
        s[k] = xs[3 * i + k] - xs[3 * j + k];
    }
    min_image(b, r, 0);
    min_image(b, s, 1);
}

/* The 3-constraint iteration of shake4 and shake3angle: matrix a, quadratic
 * coefficients q[c][0..5] for (l0^2, l1^2, l2^2, l0 l1, l0 l2, l1 l2),
 * right-hand constants rhs[c] = d^2 - s^2. Returns 0, or 1 if det == 0. */
int iterate3(const double a[9], const double q[18], const double rhs[3], double tol,
                    int max_iter, double *l)
{
    const double det = a[0]*a[4]*a[8] + a[1]*a[5]*a[6] + a[2]*a[3]*a[7] -
                       a[0]*a[5]*a[7] - a[1]*a[3]*a[8] - a[2]*a[4]*a[6];
    l[0] = l[1] = l[2] = 0.0;
    if (det == 0.0) return 1;
    const double di = 1.0 / det;
    const double inv[9] = {di * (a[4]*a[8] - a[5]*a[7]), -di * (a[1]*a[8] - a[2]*a[7]),
                           di * (a[1]*a[5] - a[2]*a[4]), -di * (a[3]*a[8] - a[5]*a[6]),
                           di * (a[0]*a[8] - a[2]*a[6]), -di * (a[0]*a[5] - a[2]*a[3]),
                           di * (a[3]*a[7] - a[4]*a[6]), -di * (a[0]*a[7] - a[1]*a[6]),
                           di * (a[0]*a[4] - a[1]*a[3])};
    int done = 0;
    for (int it = 0; !done && it < max_iter; it++) {
        double bb[3], ln[3];
        for (int c = 0; c < 3; c++) {
            __private const double *qc = q + 6 * c;
            const double quad = qc[0]*l[0]*l[0] + qc[1]*l[1]*l[1] + qc[2]*l[2]*l[2] +
                                qc[3]*l[0]*l[1] + qc[4]*l[0]*l[2] + qc[5]*l[1]*l[2];
            bb[c] = rhs[c] - quad;
        }
        done = 1;
        for (int c = 0; c < 3; c++) {
            ln[c] = inv[3*c]*bb[0] + inv[3*c + 1]*bb[1] + inv[3*c + 2]*bb[2];
            if (fabs(ln[c] - l[c]) > tol) done = 0;
        }
        for (int c = 0; c < 3; c++) l[c] = ln[c];
        if (fabs(l[0]) > 1e150 || fabs(l[1]) > 1e150 || fabs(l[2]) > 1e150) done = 1;
    }
    return 0;
}

/* lam[0] of a 2-atom cluster (kind 2): of LAMMPS's quadratic's roots the
 * one of smaller magnitude. Returns 1 when the determinant is < 0 (LAMMPS
 * warns; taken as 0), else 0. */
int lambda_bond(const double *im, const double *rr, double sr[3][3], const double *ss,
                const double *d, double *lam)
{
    const double m0 = im[0], m1 = im[1];
    const double a = (m0 + m1) * (m0 + m1) * rr[0];
    const double bq = 2.0 * (m0 + m1) * sr[0][0];
    const double cq = ss[0] - d[0] * d[0];
    double det = bq * bq - 4.0 * a * cq;
    int flags = 0;
    if (det < 0.0) { flags |= 1; det = 0.0; }
    const double l1 = (-bq + sqrt(det)) / (2.0 * a), l2 = (-bq - sqrt(det)) / (2.0 * a);
    lam[0] = fabs(l1) <= fabs(l2) ? l1 : l2;
    return flags;
}

/* lam[0..1] of a 3-atom cluster of two bonds (kind 3): LAMMPS's fixed-point
 * iteration on the inverted 2x2 linear part. Returns 2 when that matrix is
 * singular (LAMMPS errors), else 0. */
int lambda_bonds2(const double *im, double r[3][3], const double *rr, double sr[3][3],
                  const double *ss, const double *d, double tol, int max_iter, double *lam)
{
    const double m0 = im[0], m1 = im[1], m2 = im[2];
    const double a11 = 2.0 * (m0 + m1) * sr[0][0], a12 = 2.0 * m0 * sr[0][1];
    const double a21 = 2.0 * m0 * sr[1][0], a22 = 2.0 * (m0 + m2) * sr[1][1];
    const double det = a11 * a22 - a12 * a21;
    if (det == 0.0)
        return 2;
    const double di = 1.0 / det;
    const double i11 = a22 * di, i12 = -a12 * di, i21 = -a21 * di, i22 = a11 * di;
    const double r0102 = dot3(r[0], r[1]);
    const double q1_11 = (m0 + m1) * (m0 + m1) * rr[0], q1_22 = m0 * m0 * rr[1];
    const double q1_12 = 2.0 * (m0 + m1) * m0 * r0102;
    const double q2_22 = (m0 + m2) * (m0 + m2) * rr[1], q2_11 = m0 * m0 * rr[0];
    const double q2_12 = 2.0 * (m0 + m2) * m0 * r0102;
    double l1 = 0.0, l2 = 0.0;
    int done = 0;
    for (int it = 0; !done && it < max_iter; it++) {
        const double qa = q1_11 * l1 * l1 + q1_22 * l2 * l2 + q1_12 * l1 * l2;
        const double qb = q2_11 * l1 * l1 + q2_22 * l2 * l2 + q2_12 * l1 * l2;
        const double b1 = d[0] * d[0] - ss[0] - qa, b2 = d[1] * d[1] - ss[1] - qb;
        const double n1 = i11 * b1 + i12 * b2, n2 = i21 * b1 + i22 * b2;
        done = !(fabs(n1 - l1) > tol) && !(fabs(n2 - l2) > tol);
        l1 = n1;
        l2 = n2;
        if (fabs(l1) > 1e150 || fabs(l2) > 1e150) done = 1;
    }
    lam[0] = l1;
    lam[1] = l2;
    return 0;
}

/* The linear part a (3x3) and quadratic part q (3 rows of (l0^2, l1^2,
 * l2^2, l0 l1, l0 l2, l1 l2)) of a 4-atom cluster of three bonds (kind 4). */
void terms_bonds3(const double *im, const double *rr, double sr[3][3], double r01_02,
                  double r01_03, double r02_03, double *a, double *q)
{
    const double m0 = im[0];
    const double w[3] = {m0 + im[1], m0 + im[2], m0 + im[3]};
    for (int c = 0; c < 3; c++)
        for (int e = 0; e < 3; e++) a[3 * c + e] = 2.0 * (c == e ? w[c] : m0) * sr[c][e];
    for (int c = 0; c < 3; c++) {
        for (int e = 0; e < 3; e++)
            q[6 * c + e] = (c == e ? w[c] * w[c] : m0 * m0) * rr[e];
        q[6 * c + 3] = 2.0 * (c == 0 || c == 1 ? w[c] : m0) * m0 * r01_02;
        q[6 * c + 4] = 2.0 * (c == 0 || c == 2 ? w[c] : m0) * m0 * r01_03;
        q[6 * c + 5] = 2.0 * (c == 1 || c == 2 ? w[c] : m0) * m0 * r02_03;
    }
}

/* The same for an angle cluster (kind 1: constraints 01, 02, 12). */
void terms_angle(const double *im, const double *rr, double sr[3][3], double r01_02,
                 double r01_03, double r02_03, double *a, double *q)
{
    const double m0 = im[0], m1 = im[1], m2 = im[2];
    a[0] = 2.0 * (m0 + m1) * sr[0][0];
    a[1] = 2.0 * m0 * sr[0][1];
    a[2] = -2.0 * m1 * sr[0][2];
    a[3] = 2.0 * m0 * sr[1][0];
    a[4] = 2.0 * (m0 + m2) * sr[1][1];
    a[5] = 2.0 * m2 * sr[1][2];
    a[6] = -2.0 * m1 * sr[2][0];
    a[7] = 2.0 * m2 * sr[2][1];
    a[8] = 2.0 * (m1 + m2) * sr[2][2];
    q[0] = (m0 + m1) * (m0 + m1) * rr[0];
    q[1] = m0 * m0 * rr[1];
    q[2] = m1 * m1 * rr[2];
    q[3] = 2.0 * (m0 + m1) * m0 * r01_02;
    q[4] = -2.0 * (m0 + m1) * m1 * r01_03;
    q[5] = -2.0 * m0 * m1 * r02_03;
    q[6] = m0 * m0 * rr[0];
    q[7] = (m0 + m2) * (m0 + m2) * rr[1];
    q[8] = m2 * m2 * rr[2];
    q[9] = 2.0 * (m0 + m2) * m0 * r01_02;
    q[10] = 2.0 * m0 * m2 * r01_03;
    q[11] = 2.0 * (m0 + m2) * m2 * r02_03;
    q[12] = m1 * m1 * rr[0];
    q[13] = m2 * m2 * rr[1];
    q[14] = (m1 + m2) * (m1 + m2) * rr[2];
    q[15] = -2.0 * m1 * m2 * r01_02;
    q[16] = -2.0 * (m1 + m2) * m1 * r01_03;
    q[17] = 2.0 * (m1 + m2) * m2 * r02_03;
}

/* The force increments fc (12 values: 0 for atoms at or beyond nlocal, and
 * for unused slots) and the virial v[6] (LAMMPS's v_tally: times
 * owned/total) of the multipliers lam. Returns 4 when a force is not
 * finite, else 0. */
int cluster_forces(int kind, int nc, int na, const int *at, int nlocal, double r[3][3],
                   const double *lam, double *fc, double *v)
{
    /* in LAMMPS's expression order; an increment LAMMPS subtracts is stored
     * negated (f + (-e) == f - e exactly) */
    for (int k = 0; k < 12; k++) fc[k] = 0.0;
    for (int k = 0; k < 3; k++) {
        double f0 = lam[0] * r[0][k];
        for (int c = 1; c < (kind == 1 ? 2 : nc); c++) f0 += lam[c] * r[c][k];
        fc[k] = f0;
        if (kind == 1) {
            fc[3 + k] = -(lam[0] * r[0][k] - lam[2] * r[2][k]);
            fc[6 + k] = -(lam[1] * r[1][k] + lam[2] * r[2][k]);
        } else {
            for (int c = 0; c < nc; c++) fc[3 * (c + 1) + k] = -(lam[c] * r[c][k]);
        }
    }
    int owned = 0;
    for (int p = 0; p < na; p++) {
        if (at[p] < nlocal) owned++;
        else fc[3 * p] = fc[3 * p + 1] = fc[3 * p + 2] = 0.0;
    }
    const int ci[6] = {0, 1, 2, 0, 0, 1}, cj[6] = {0, 1, 2, 1, 2, 2};
    const double frac = (double)owned / (double)na;
    for (int t = 0; t < 6; t++) {
        double vt = lam[0] * r[0][ci[t]] * r[0][cj[t]];
        for (int c = 1; c < nc; c++) vt += lam[c] * r[c][ci[t]] * r[c][cj[t]];
        v[t] = frac * vt;
    }
    int flags = 0;
    for (int k = 0; k < 12; k++)
        if (!isfinite(fc[k])) flags |= 4;
    return flags;
}

/* One cluster. kind: 1 angle (3 atoms, constraints 01 02 12), 2..4 bonds
 * from atom 0. Writes the force increments of its atoms and the virial
 * (cluster_forces). Returns flags: 1 = determinant < 0 (2-atom; LAMMPS
 * warns), 2 = determinant == 0 (LAMMPS errors), 4 = not finite. */
int solve_cluster(int kind, const int *at, const double *d, const double *im,
                         const box_t *b, __global const double *x, __global const double *xs,
                         int nlocal, double dtfsq, double tol, int max_iter, double *fc,
                         double *v)
{
    double r[3][3], s[3][3], lam[3] = {0.0, 0.0, 0.0};
    int flags = 0;
    const int nc = kind == 1 ? 3 : kind - 1;     /* constraints */
    const int na = kind == 1 ? 3 : kind;         /* atoms */
    for (int c = 0; c < nc; c++) {
        const int i = (kind == 1 && c == 2) ? at[1] : at[0];
        const int j = (kind == 1 && c == 2) ? at[2] : at[c + 1];
        pair_vectors(b, x, xs, i, j, r[c], s[c]);
    }
    double rr[3], ss[3], sr[3][3];
    for (int c = 0; c < nc; c++) {
        rr[c] = dot3(r[c], r[c]);
        ss[c] = dot3(s[c], s[c]);
        for (int e = 0; e < nc; e++) sr[c][e] = dot3(s[c], r[e]);
    }
    if (kind == 2) {
        flags |= lambda_bond(im, rr, sr, ss, d, lam);
    } else if (kind == 3) {
        flags |= lambda_bonds2(im, r, rr, sr, ss, d, tol, max_iter, lam);
    } else {
        double a[9], q[18], rhs[3];
        const double r01_02 = dot3(r[0], r[1]), r01_03 = dot3(r[0], r[2]), r02_03 = dot3(r[1], r[2]);
        if (kind == 4)
            terms_bonds3(im, rr, sr, r01_02, r01_03, r02_03, a, q);
        else
            terms_angle(im, rr, sr, r01_02, r01_03, r02_03, a, q);
        for (int c = 0; c < 3; c++) rhs[c] = d[c] * d[c] - ss[c];
        if (iterate3(a, q, rhs, tol, max_iter, lam)) flags |= 2;
    }
    for (int c = 0; c < nc; c++) lam[c] = lam[c] / dtfsq;
    return flags | cluster_forces(kind, nc, na, at, nlocal, r, lam, fc, v);
}

/* Why 25 arguments: clusters, positions and masses, the box as 6 scalars and the solver's
 * tolerance and limits: one launch per step solves every cluster. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void shake_solve(const int ncluster, const int nlocal, __global const int *kind,
                 __global const int *atoms, __global const double *dist,
                 __global const double *mass, __global const double *x,
                 __global const double *xs, const double prdx, const double prdy,
                 const double prdz, const double xy, const double xz, const double yz,
                 const int periodic, const int triclinic, const double dtfsq,
                 const double tolerance, const int max_iter, const int tally,
                 __global double *fc, __global double *vpart, __global int *flags)
{
    const int m = (int)get_global_id(0);
    const int lid = (int)get_local_id(0);
    __local double vl[6 * WG];
    double v[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    if (m < ncluster) {
        box_t b;
        b.prd[0] = prdx; b.prd[1] = prdy; b.prd[2] = prdz;
        for (int k = 0; k < 3; k++) {
            b.hprd[k] = 0.5 * b.prd[k];
            b.per[k] = (periodic >> k) & 1;
        }
        b.xy = xy; b.xz = xz; b.yz = yz; b.tri = triclinic;
        int at[4];
        double d[3], im[4], f[12];
        for (int k = 0; k < 4; k++) {
            at[k] = atoms[4 * m + k];
            im[k] = mass[4 * m + k] > 0.0 ? 1.0 / mass[4 * m + k] : 0.0;   /* fix shake: 1.0/mass */
        }
        for (int k = 0; k < 3; k++) d[k] = dist[3 * m + k];
        const int fl = solve_cluster(kind[m], at, d, im, &b, x, xs, nlocal, dtfsq, tolerance,
                                     max_iter, f, v);
        for (int k = 0; k < 12; k++) fc[12 * m + k] = f[k];
        if (fl) {
            atomic_or(&flags[0], fl);
            if (fl & 6) atomic_max(&flags[1], 0x7fffffff - m); /* the smallest m; zero-filled */
            if (fl & 1) atomic_inc(&flags[2]);
        }
    }
    if (!tally) return;   /* uniform across the launch */
    for (int t = 0; t < 6; t++) vl[6 * lid + t] = v[t];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = WG / 2; step > 0; step >>= 1) {
        if (lid < step)
            for (int t = 0; t < 6; t++) vl[6 * lid + t] += vl[6 * (lid + step) + t];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        for (int t = 0; t < 6; t++) vpart[6 * get_group_id(0) + t] = vl[t];
}

/* f[3 i + k] += fc of the owned atoms of each cluster (the device-resident
 * path: the increments go straight into a device force array). */
__kernel void shake_scatter(const int ncluster, const int nlocal, __global const int *kind,
                            __global const int *atoms, __global const double *fc,
                            __global double *f)
{
    const int m = (int)get_global_id(0);
    if (m >= ncluster) return;
    const int na = kind[m] == 1 ? 3 : kind[m];
    for (int p = 0; p < na; p++) {
        const int i = atoms[4 * m + p];
        if (i < nlocal)
            for (int k = 0; k < 3; k++) f[3 * i + k] += fc[12 * m + 3 * p + k];
    }
}

/* xshake = x + dtv v + dtfsq/m f of the owned atoms of each cluster (LAMMPS's
 * unconstrained_update, for a step whose x, v, f stay on the device). A
 * ghost's xshake comes from its owner (LAMMPS's forward communication). */
__kernel void shake_unconstrained(const int ncluster, const int nlocal, __global const int *kind,
                                  __global const int *atoms, __global const double *mass,
                                  __global const double *x, __global const double *v,
                                  __global const double *f, const double dtv,
                                  const double dtfsq, __global double *xs)
{
    const int m = (int)get_global_id(0);
    if (m >= ncluster) return;
    const int na = kind[m] == 1 ? 3 : kind[m];
    for (int p = 0; p < na; p++) {
        const int i = atoms[4 * m + p];
        if (i >= nlocal) continue;
        const double dtfmsq = dtfsq / mass[4 * m + p];
        for (int k = 0; k < 3; k++) xs[3 * i + k] = x[3 * i + k] + dtv * v[3 * i + k] + dtfmsq * f[3 * i + k];
    }
}
