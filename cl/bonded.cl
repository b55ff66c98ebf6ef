/* CHARMM bonded terms (LAMMPS's bond harmonic, angle charmm, dihedral charmm
 * with its 1-4 pairs, improper harmonic), one work-item per term. See
 * include/streamcl/bonded.h and src/bonded/reference.c (the same physics in
 * plain C, written from LAMMPS's CPU styles).
 *
 * No atomics: a term writes the force on each of its atoms into its own slot
 * (slot_t, 3 per slot), and bonded_gather sums each atom's slots in the
 * order of the CSR map built on the host. Energies and virials: per
 * work-group tree sums in double, partials summed on the host.
 *
 * Options: WG (work-group size, a power of two), BONDED_DOUBLE (1: per-atom
 * forces returned in double; 0: mixed, returned in float). The term
 * geometry is double in both modes (the device must have fp64): in float,
 * r - r0 of a stiff bond loses ~1e-5 of its value. */

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* no fused multiply-adds: the terms' formulas are ill-conditioned near
 * straight angles (1/sin), where contraction alone moved forces by ~2e-10
 * relative from the C reference's; the kernels are not arithmetic-bound */
#pragma OPENCL FP_CONTRACT OFF

/* per-term slots are double in both modes (one rounding less per term, at
 * a cost the device does not notice); the per-atom sums go back to the host
 * as out_t: float in mixed (half the download) */
typedef double slot_t;
#if BONDED_DOUBLE
typedef double out_t;
#else
typedef float out_t;
#endif

/* values reduced per group: energy + 6 virial (+ for dihedrals the 1-4
 * pair's van der Waals, Coulomb and 6 virial) */
#define NACC 8
#define NACC_DIHEDRAL 16

/* What every term kernel shares: where its slots, per-term tallies and
 * group partials go, and the owned/newton rule. */
#define TERM_ARGS                                                                           \
    const int nterms, const int type_base, const int nlocal, const int newton,             \
        __global const double *x, const int slot_off, __global slot_t *sf, const int tally, \
        const int per_atom, __global double *tev, const int tev_off, __global double *part, \
        const int part_off, __local double *scratch

static double3 pos(__global const double *x, int i)
{
    return vload3(i, x);
}

static void put(__global slot_t *sf, int slot, double3 f)
{
    vstore3(f, slot, sf);
}

/* share of a term's energy/virial that this rank counts (LAMMPS ev_tally) */
static double owned_share(int newton, int nlocal, int n, int i1, int i2, int i3, int i4)
{
    if (newton)
        return 1.0;
    int c = (i1 < nlocal) + (i2 < nlocal) + (n > 2 && i3 < nlocal) + (n > 3 && i4 < nlocal);
    return (double)c / n;
}

/* the six virial components of a term from its atoms' forces and positions
 * relative to the second atom (LAMMPS's v[] of ev_tally, all kinds alike:
 * sum over atoms a of r_a f_a with r relative to any common origin) */
static void virial_of(double3 r1, double3 f1, double3 r3, double3 f3, double3 r4, double3 f4,
                      double v[6])
{
    v[0] = r1.x * f1.x + r3.x * f3.x + r4.x * f4.x;
    v[1] = r1.y * f1.y + r3.y * f3.y + r4.y * f4.y;
    v[2] = r1.z * f1.z + r3.z * f3.z + r4.z * f4.z;
    v[3] = r1.x * f1.y + r3.x * f3.y + r4.x * f4.y;
    v[4] = r1.x * f1.z + r3.x * f3.z + r4.x * f4.z;
    v[5] = r1.y * f1.z + r3.y * f3.z + r4.y * f4.z;
}

/* Sum acc[0..n) over the work-group into part[group * n + k]. Every
 * work-item of the group calls it (tally is uniform). */
static void group_sum(const double *acc, int n, __local double *scratch, __global double *part)
{
    const int lid = get_local_id(0);
    for (int k = 0; k < n; k++) {
        scratch[lid] = acc[k];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = WG / 2; s > 0; s >>= 1) {
            if (lid < s)
                scratch[lid] += scratch[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            part[get_group_id(0) * n + k] = scratch[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

static void keep_term(const int per_atom, __global double *tev, int t, double e, const double v[6])
{
    if (!per_atom)
        return;
    __global double *o = tev + 8 * t;
    o[0] = e;
    for (int c = 0; c < 6; c++)
        o[c + 1] = v[c];
}

/* A term's energy and virial into its work-item's accumulators acc[0..6]
 * (its owned share w) and, per atom, its tally row t. */
static void tally_term(double *acc, const double w, const double e, const double v[6],
                       const int per_atom, __global double *tev, const int t)
{
    acc[0] = w * e;
    for (int c = 0; c < 6; c++)
        acc[c + 1] = w * v[c];
    keep_term(per_atom, tev, t, e, v);
}

/* E = k (r - r0)^2; coef: k, r0 per type */
__kernel void bonded_bond(TERM_ARGS, __global const int *bonds, __global const double *coef)
{
    const int t = get_global_id(0);
    double acc[NACC] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (t < nterms) {
        const int i1 = bonds[3 * t], i2 = bonds[3 * t + 1], ty = bonds[3 * t + 2] - type_base;
        const double k = coef[2 * ty], r0 = coef[2 * ty + 1];
        const double3 d = pos(x, i1) - pos(x, i2);
        const double r = sqrt(dot(d, d)), dr = r - r0, rk = k * dr;
        const double fbond = r > 0.0 ? -2.0 * rk / r : 0.0;
        const double3 f1 = d * fbond;
        put(sf, slot_off + 2 * t, f1);
        put(sf, slot_off + 2 * t + 1, -f1);
        if (tally) {
            double v[6];
            const double3 z = (double3)(0.0);
            virial_of(d, f1, z, z, z, z, v);
            tally_term(acc, owned_share(newton, nlocal, 2, i1, i2, 0, 0), rk * dr, v, per_atom,
                       tev, tev_off + t);
        }
    }
    if (tally)
        group_sum(acc, NACC, scratch, part + part_off);
}

/* E = k (theta - theta0)^2 + k_ub (r13 - r_ub)^2; coef: k, theta0, k_ub, r_ub */
__kernel void bonded_angle(TERM_ARGS, __global const int *angles, __global const double *coef)
{
    const int t = get_global_id(0);
    double acc[NACC] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (t < nterms) {
        const int i1 = angles[4 * t], i2 = angles[4 * t + 1], i3 = angles[4 * t + 2];
        const int ty = angles[4 * t + 3] - type_base;
        const double k = coef[4 * ty], theta0 = coef[4 * ty + 1];
        const double k_ub = coef[4 * ty + 2], r_ub = coef[4 * ty + 3];
        const double3 p2 = pos(x, i2);
        const double3 d1 = pos(x, i1) - p2, d2 = pos(x, i3) - p2, dub = d2 - d1;
        const double rsq1 = dot(d1, d1), rsq2 = dot(d2, d2);
        const double r1 = sqrt(rsq1), r2 = sqrt(rsq2);
        /* Urey-Bradley */
        const double rub = sqrt(dot(dub, dub)), drub = rub - r_ub, rkub = k_ub * drub;
        const double fub = rub > 0.0 ? -2.0 * rkub / rub : 0.0;
        /* harmonic angle */
        double c = dot(d1, d2) / (r1 * r2);
        c = clamp(c, -1.0, 1.0);
        double s = sqrt(1.0 - c * c);
        if (s < 0.001)
            s = 0.001;
        s = 1.0 / s;
        const double dtheta = acos(c) - theta0, tk = k * dtheta;
        const double a = -2.0 * tk * s, a11 = a * c / rsq1, a12 = -a / (r1 * r2),
                     a22 = a * c / rsq2;
        const double3 f1 = a11 * d1 + a12 * d2 - dub * fub;
        const double3 f3 = a22 * d2 + a12 * d1 + dub * fub;
        put(sf, slot_off + 3 * t, f1);
        put(sf, slot_off + 3 * t + 1, -(f1 + f3));
        put(sf, slot_off + 3 * t + 2, f3);
        if (tally) {
            double v[6];
            const double3 z = (double3)(0.0);
            virial_of(d1, f1, d2, f3, z, z, v);
            const double e = rkub * drub + tk * dtheta;
            tally_term(acc, owned_share(newton, nlocal, 3, i1, i2, i3, 0), e, v, per_atom, tev,
                       tev_off + t);
        }
    }
    if (tally)
        group_sum(acc, NACC, scratch, part + part_off);
}

/* E = k (1 + cos(n phi - d)); coef: k, cos d, sin d, weight, n. With
 * weight > 0 the 1-4 pair (i1, i4) adds weight * (LJ14 + Coulomb), its
 * tallies kept apart (tev14, accumulators 8..15) for the pair's books. */
/* Why 23 arguments: TERM_ARGS (the 14 of every term kernel) plus the charges, LJ table and
 * constants of the weighted 1-4 pairs this kernel also computes. */
__kernel void bonded_dihedral(TERM_ARGS, __global const int *dihedrals,
                              __global const double *coef, __global const int *atype,
                              __global const double *q, __global const double *lj14,
                              const int natom_types, const double qqrd2e, const int implicit_coul,
                              const int tev14_off)
{
    const int t = get_global_id(0);
    double acc[NACC_DIHEDRAL];
    for (int k = 0; k < NACC_DIHEDRAL; k++)
        acc[k] = 0.0;
    if (t < nterms) {
        __global const int *d = dihedrals + 5 * t;
        const int i1 = d[0], i2 = d[1], i3 = d[2], i4 = d[3], ty = d[4] - type_base;
        __global const double *cf = coef + 5 * ty;
        const double K = cf[0], cos_shift = cf[1], sin_shift = cf[2], weight = cf[3];
        const int m = (int)cf[4];
        const double3 p1 = pos(x, i1), p2 = pos(x, i2), p3 = pos(x, i3), p4 = pos(x, i4);
        const double3 vb1 = p1 - p2, vb2 = p3 - p2, vb2m = -vb2, vb3 = p4 - p3;
        const double3 A = cross(vb1, vb2m), B = cross(vb3, vb2m);
        const double rasq = dot(A, A), rbsq = dot(B, B), rgsq = dot(vb2m, vb2m);
        const double rg = sqrt(rgsq);
        const double rginv = rg > 0 ? 1.0 / rg : 0.0, ra2inv = rasq > 0 ? 1.0 / rasq : 0.0,
                     rb2inv = rbsq > 0 ? 1.0 / rbsq : 0.0;
        const double rabinv = sqrt(ra2inv * rb2inv);
        double c = dot(A, B) * rabinv;
        const double s = rg * rabinv * dot(A, vb3);
        c = clamp(c, -1.0, 1.0);
        /* cos(m phi), sin(m phi) by the recurrence LAMMPS uses */
        double p = 1.0, df1 = 0.0, ddf1 = 0.0;
        for (int i = 0; i < m; i++) {
            ddf1 = p * c - df1 * s;
            df1 = p * s + df1 * c;
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
        const double fg = dot(vb1, vb2m), hg = dot(vb3, vb2m);
        const double fga = fg * ra2inv * rginv, hgb = hg * rb2inv * rginv;
        const double gaa = -ra2inv * rg, gbb = rb2inv * rg;
        const double3 dtf = gaa * A, dtg = fga * A - hgb * B, dth = gbb * B;
        const double df = -K * df1;
        const double3 s2 = df * dtg;
        const double3 f1 = df * dtf, f2 = s2 - f1, f4 = df * dth, f3 = -s2 - f4;
        /* 1-4 pair */
        double3 fp = (double3)(0.0), del = (double3)(0.0);
        double evdwl = 0.0, ecoul = 0.0, fpair = 0.0;
        if (weight > 0.0) {
            const int it = atype[i1] - type_base, jt = atype[i4] - type_base;
            __global const double *lj = lj14 + 4 * (it * natom_types + jt);
            del = p1 - p4;
            const double r2inv = 1.0 / dot(del, del), r6inv = r2inv * r2inv * r2inv;
            const double fcoul = implicit_coul ? qqrd2e * q[i1] * q[i4] * r2inv
                                               : qqrd2e * q[i1] * q[i4] * sqrt(r2inv);
            const double flj = r6inv * (lj[0] * r6inv - lj[1]);
            fpair = weight * (flj + fcoul) * r2inv;
            ecoul = weight * fcoul;
            evdwl = weight * r6inv * (lj[2] * r6inv - lj[3]);
            fp = del * fpair;
        }
        const int so = slot_off + 4 * t;
        put(sf, so, f1 + fp);
        put(sf, so + 1, f2);
        put(sf, so + 2, f3);
        put(sf, so + 3, f4 - fp);
        if (tally) {
            double v[6], v14[6];
            virial_of(vb1, f1, vb2, f3, vb3 + vb2, f4, v);
            const double3 z = (double3)(0.0);
            virial_of(del, fp, z, z, z, z, v14);
            const double e = K * p;
            const double w14 = owned_share(newton, nlocal, 2, i1, i4, 0, 0);
            tally_term(acc, owned_share(newton, nlocal, 4, i1, i2, i3, i4), e, v, per_atom, tev,
                       tev_off + t);
            acc[7] = w14 * evdwl;
            acc[8] = w14 * ecoul;
            for (int cc = 0; cc < 6; cc++)
                acc[cc + 9] = w14 * v14[cc];
            keep_term(per_atom, tev, tev14_off + t, evdwl + ecoul, v14);
        }
    }
    if (tally)
        group_sum(acc, NACC_DIHEDRAL, scratch, part + part_off);
}

/* E = k (chi - chi0)^2; coef: k, chi0 */
__kernel void bonded_improper(TERM_ARGS, __global const int *impropers,
                              __global const double *coef)
{
    const int t = get_global_id(0);
    double acc[NACC] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (t < nterms) {
        __global const int *d = impropers + 5 * t;
        const int i1 = d[0], i2 = d[1], i3 = d[2], i4 = d[3], ty = d[4] - type_base;
        const double K = coef[2 * ty], chi0 = coef[2 * ty + 1];
        const double3 p2 = pos(x, i2), p3 = pos(x, i3);
        const double3 vb1 = pos(x, i1) - p2, vb2 = p3 - p2, vb3 = pos(x, i4) - p3;
        const double ss1 = 1.0 / dot(vb1, vb1), ss2 = 1.0 / dot(vb2, vb2),
                     ss3 = 1.0 / dot(vb3, vb3);
        const double r1 = sqrt(ss1), r2 = sqrt(ss2), r3 = sqrt(ss3);
        const double c0 = dot(vb1, vb3) * r1 * r3, c1 = dot(vb1, vb2) * r1 * r2,
                     c2 = -dot(vb3, vb2) * r3 * r2;
        double s1 = 1.0 - c1 * c1;
        if (s1 < 0.001)
            s1 = 0.001;
        s1 = 1.0 / s1;
        double s2 = 1.0 - c2 * c2;
        if (s2 < 0.001)
            s2 = 0.001;
        s2 = 1.0 / s2;
        double s12 = sqrt(s1 * s2);
        double c = clamp((c1 * c2 + c0) * s12, -1.0, 1.0);
        double s = sqrt(1.0 - c * c);
        if (s < 0.001)
            s = 0.001;
        const double domega = acos(c) - chi0;
        double a = K * domega;
        const double e = a * domega;
        a = -a * 2.0 / s;
        c = c * a;
        s12 = s12 * a;
        const double a11 = c * ss1 * s1, a22 = -ss2 * (2.0 * c0 * s12 - c * (s1 + s2)),
                     a33 = c * ss3 * s2, a12 = -r1 * r2 * (c1 * c * s1 + c2 * s12),
                     a13 = -r1 * r3 * s12, a23 = r2 * r3 * (c2 * c * s2 + c1 * s12);
        const double3 sx2 = a22 * vb2 + a23 * vb3 + a12 * vb1;
        const double3 f1 = a12 * vb2 + a13 * vb3 + a11 * vb1;
        const double3 f2 = -sx2 - f1;
        const double3 f4 = a23 * vb2 + a33 * vb3 + a13 * vb1;
        const double3 f3 = sx2 - f4;
        const int so = slot_off + 4 * t;
        put(sf, so, f1);
        put(sf, so + 1, f2);
        put(sf, so + 2, f3);
        put(sf, so + 3, f4);
        if (tally) {
            double v[6];
            virial_of(vb1, f1, vb2, f3, vb3 + vb2, f4, v);
            tally_term(acc, owned_share(newton, nlocal, 4, i1, i2, i3, i4), e, v, per_atom, tev,
                       tev_off + t);
        }
    }
    if (tally)
        group_sum(acc, NACC, scratch, part + part_off);
}

/* the sum of atom a's slots, in the fixed order of the CSR map */
static double3 slot_sum(const int a, __global const int *offsets, __global const int *slots,
                        __global const slot_t *sf)
{
    double3 sum = (double3)(0.0);
    for (int k = offsets[a]; k < offsets[a + 1]; k++) {
        const int s = slots[k];
        sum += (double3)(sf[3 * s], sf[3 * s + 1], sf[3 * s + 2]);
    }
    return sum;
}

/* f[a] = sum of atom a's slots, for a < ngather */
__kernel void bonded_gather(const int ngather, __global const int *offsets,
                            __global const int *slots, __global const slot_t *sf,
                            __global out_t *f)
{
    const int a = get_global_id(0);
    if (a >= ngather)
        return;
    const double3 sum = slot_sum(a, offsets, slots, sf);
    f[3 * a] = (out_t)sum.x;
    f[3 * a + 1] = (out_t)sum.y;
    f[3 * a + 2] = (out_t)sum.z;
}

/* The sums into another module's force rows (x, y, z, unused) of into_t
 * (option INTO_DOUBLE: double, else float), which one download then brings
 * back (scl_bonded_gather_into): an owned atom's is added to row a in
 * double, rounded once; a used ghost's is written to row nrows + a - nlo
 * (that row holds no earlier value, not even a finite one). */
#if INTO_DOUBLE
typedef double into_t;
#define INTO_DOUBLE3(v) (v)
#define INTO_T3(v) (v)
#else
typedef float into_t;
#define INTO_DOUBLE3(v) convert_double3(v)
#define INTO_T3(v) convert_float3(v)
#endif
__kernel void bonded_gather_into(const int ngather, const int nlo, const int nrows,
                                 __global const int *offsets, __global const int *slots,
                                 __global const slot_t *sf, __global into_t *f4)
{
    const int a = get_global_id(0);
    if (a >= ngather)
        return;
    const int row = a < nlo ? a : nrows + a - nlo;
    const double3 old = a < nlo ? INTO_DOUBLE3(vload3(0, f4 + 4 * row)) : (double3)(0.0);
    vstore3(INTO_T3(old + slot_sum(a, offsets, slots, sf)), 0, f4 + 4 * row);
}

/* Per-atom energies and virials: each term gives each of its gathered atoms
 * 1/n of its energy and virial (n its atoms; the 1-4 pair: 1/2 to atoms 1
 * and 4). Slot ranges: [0, b1) bonds (2 per term), [b1, b2) angles (3),
 * [b2, b3) dihedrals (4), [b3, ...) impropers (4). tev rows: bonds from 0,
 * angles from t1, dihedrals from t2, impropers from t3, 1-4 pairs from t4.
 * Output eatom[kind * nall + a], vatom[(kind * nall + a) * 6 + c]. */
__kernel void bonded_per_atom(const int ngather, const int nall, __global const int *offsets,
                              __global const int *slots, __global const double *tev,
                              const int b1, const int b2, const int b3, const int t1,
                              const int t2, const int t3, const int t4,
                              __global double *eatom, __global double *vatom)
{
    const int a = get_global_id(0);
    if (a >= ngather)
        return;
    double e[5] = {0, 0, 0, 0, 0}, v[5][6];
    for (int kind = 0; kind < 5; kind++)
        for (int c = 0; c < 6; c++)
            v[kind][c] = 0.0;
    for (int k = offsets[a]; k < offsets[a + 1]; k++) {
        const int s = slots[k];
        int kind, row, pos_in_term;
        double share;
        if (s < b1) {
            kind = 0; row = s / 2; share = 0.5; pos_in_term = 0;
        } else if (s < b2) {
            kind = 1; row = t1 + (s - b1) / 3; share = 1.0 / 3.0; pos_in_term = 0;
        } else if (s < b3) {
            kind = 2; row = t2 + (s - b2) / 4; share = 0.25; pos_in_term = (s - b2) % 4;
        } else {
            kind = 3; row = t3 + (s - b3) / 4; share = 0.25; pos_in_term = 0;
        }
        __global const double *r = tev + 8 * row;
        e[kind] += share * r[0];
        for (int c = 0; c < 6; c++)
            v[kind][c] += share * r[c + 1];
        if (kind == 2 && (pos_in_term == 0 || pos_in_term == 3)) {
            __global const double *p = tev + 8 * (t4 + (s - b2) / 4);
            e[4] += 0.5 * p[0];
            for (int c = 0; c < 6; c++)
                v[4][c] += 0.5 * p[c + 1];
        }
    }
    for (int kind = 0; kind < 5; kind++) {
        eatom[kind * nall + a] = e[kind];
        for (int c = 0; c < 6; c++)
            vatom[(kind * nall + a) * 6 + c] = v[kind][c];
    }
}
