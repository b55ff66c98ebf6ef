/* Two-electron integrals over contracted s Gaussians from precomputed
 * primitive pair data (src/eri/reference.c builds the same quantities):
 *
 *   (ab|cd) = sum_{prim pairs} K_ab K_cd / sqrt(p+q) F0(pq/(p+q) |P-Q|^2)
 *
 * One work-item per contracted quartet (ij|kl), kl <= ij; a work-group shares
 * one ij row, whose primitive pairs sit in local memory (read by all
 * work-items at the same address: a broadcast), while each work-item keeps
 * one kl primitive pair in registers (prim-major layout: neighbouring kl are
 * neighbouring addresses). Options:
 *   -DWG=n          work-group size (x)
 *   -DNPP=n         primitive pairs per function pair (padding has K = 0)
 *   -DBOYS=0|1|2    F0 from the table (Taylor, order 7, step 1/16, below
 *                   t = 36; <= 1e-14 relative), from erf (OpenCL's double
 *                   erf, <= 16 ulp by the specification), or from registers
 *                   only (boys_g below: no per-lane table gather; ~1e-15)
 *   -DVW=1|2|4      row primitives per step of the quartet loop (the Boys
 *                   evaluation's vector width)
 *   -DERI_FP32=0|1  arithmetic of the tensor kernel in float (integrals only)
 *   -DTYPES=0|1     every function has the same exponents (a lattice of one
 *                   element): p + q then depends only on the primitive
 *                   indices, so pq/(p+q) and 1/sqrt(p+q) come from a small
 *                   table in constant memory (the same entry for every
 *                   work-item at a time: a broadcast) instead of a square
 *                   root per primitive quartet
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

#ifndef WG
#define WG 128
#endif
#ifndef NPP
#define NPP 36
#endif
#ifndef BOYS
#define BOYS 0
#endif
#ifndef ERI_FP32
#define ERI_FP32 0
#endif
#ifndef TYPES
#define TYPES 0
#endif

#define BOYS_ORDER 7
#define BOYS_TMAX 36.0
#define SQRT_PI_2 0.88622692545275801365

#ifndef VW
#define VW 1
#endif

#if ERI_FP32
#define REAL float
#define REAL2 float2
#define REAL4 float4
#define RSQRT(x) native_rsqrt(x)
#else
#define REAL double
#define REAL2 double2
#define REAL4 double4
#define RSQRT(x) rsqrt(x)
#endif

/* VW-wide vectors of reals (the Boys evaluation's width), their masks */
#if VW == 4 && ERI_FP32
#define REALV float4
#define MASKV int4
#define VLOADV vload4
#define VSTOREV vstore4
#elif VW == 4
#define REALV double4
#define MASKV long4
#define ULONGV ulong4
#define AS_ULONGV as_ulong4
#define AS_REALV as_double4
#define VLOADV vload4
#define VSTOREV vstore4
#elif VW == 2 && ERI_FP32
#define REALV float2
#define MASKV int2
#define VLOADV vload2
#define VSTOREV vstore2
#elif VW == 2
#define REALV double2
#define MASKV long2
#define ULONGV ulong2
#define AS_ULONGV as_ulong2
#define AS_REALV as_double2
#define VLOADV vload2
#define VSTOREV vstore2
#elif VW == 1
/* scalars: what PoCL's work-item vectorizer handles best */
#define REALV REAL
#define MASKV int
#define AS_ULONGV as_ulong
#define AS_REALV as_double
#define VLOADV vload1
#define VSTOREV vstore1
#else
#error "VW must be 1, 2 or 4"
#endif

/* Mask helpers: scalar comparisons give 0/1, vector ones 0/-1. */
#if VW == 1
REAL vload1(size_t i, const REAL *p)
{
    return p[i];
}
void vstore1(REAL v, size_t i, REAL *p)
{
    p[i] = v;
}
int vany(int m)
{
    return m;
}
int vnot(int m)
{
    return !m;
}
REAL vsel(REAL a, REAL b, int m)
{
    return m ? b : a;
}
#else
int vany(MASKV m)
{
    return any(m);
}
MASKV vnot(MASKV m)
{
    return ~m;
}
REALV vsel(REALV a, REALV b, MASKV m)
{
    return select(a, b, m);
}
#endif

/* F0(t); tab holds rows of F_k(i/16) (-1)^k / k!, k = 0..7 (64 bytes: one
 * vector load per lane). */
inline REAL boys0(REAL t, __global const REAL *tab)
{
#if BOYS == 1
    if (t < (REAL)1e-12)
        return (REAL)1 - t / (REAL)3;
    REAL rt = RSQRT(t); /* erf(x) / x with x = sqrt(t) = t rsqrt(t): no division */
    return (REAL)SQRT_PI_2 * erf(t * rt) * rt;
#else
    if (t >= (REAL)BOYS_TMAX)
        return (REAL)SQRT_PI_2 * RSQRT(t);
    /* nearest table point by the 1.5 * 2^mantissa trick: adds instead of
     * float <-> int conversions, which are slow on GPUs in double */
#if ERI_FP32
    float y = fma(t, 16.0f, 12582912.0f);
    int i = as_int(y) & 0x3fffff;
    float d = t - (y - 12582912.0f) * (1.0f / 16.0f);
    float8 c = vload8(i, tab);
#else
    double y = fma(t, 16.0, 6755399441055744.0);
    int i = (int)(as_long(y) & 0xfffffff);
    double d = t - (y - 6755399441055744.0) * (1.0 / 16.0);
    double8 c = vload8(i, tab);
#endif
    return c.s0 + d * (c.s1 + d * (c.s2 + d * (c.s3 + d * (c.s4 + d * (c.s5 + d * (c.s6 + d * c.s7))))));
#endif
}

/* BOYS=2: F0(t) / SQRT_PI_2 from coefficients that every lane shares (no
 * gather: the table's per-lane 64-byte loads, from ~19 distinct rows per
 * warp, bound the table variant by L1 throughput on GPUs). Coefficients from
 * bench/eri/boys_fit.py (mpmath); worst relative error ~1.1e-15 over [0, 100]:
 *   t < 2        a degree-12 polynomial in t - 1 (relative least squares);
 *   2 <= t < 36  v - exp(-t) Q(v), v = 1/sqrt(t), Q of degree 12 in
 *                v - BOYS_MID, fitted to the relative error of F0 (exp(-t)
 *                Q / F0 < 0.05 here, so Q and the exponential need less
 *                than full precision); exp(-t) = 2^k exp(r), |r| <= ln2/2,
 *                with k added to the exponent field (no division, no
 *                float <-> int conversion);
 *   t >= 36      v (erfc(6) < 1e-15 F0). */
__constant double boys_small[13] = {
    0x1.af767a741088ap-1, -0x1.b5db0451253c9p-3, 0x1.cf6d2bc578bfbp-5,
    -0x1.9b3c1055129bdp-7, 0x1.31cd0cebc9db8p-9, -0x1.84227c86c9939p-12,
    0x1.ac2511d76b9a2p-15, -0x1.a0dfdbac0e5f9p-18, 0x1.6aecb0bafd695p-21,
    -0x1.1d7e15c647b4bp-24, 0x1.99b4fb6c271f4p-28, -0x1.12cb1ee832a3cp-31,
    0x1.4b9449888a151p-35,
};
__constant double boys_tail[13] = {
    0x1.977341085ce62p-4, 0x1.b2d547141738ep-2, 0x1.797c25514746dp-2,
    -0x1.7eba421c0539ep-3, 0x1.6dfe03ca4f0edp-5, 0x1.8376de696ce19p-5,
    -0x1.5b3811318a165p-4, 0x1.264120a3d866ap-4, -0x1.65b6d36881f81p-6,
    -0x1.61893f09777b9p-5, 0x1.7d2d3a91722f1p-4, -0x1.86b4b3164065ep-4,
    0x1.75bdd1697f53fp-5,
};
__constant double boys_exp[10] = {
    0x1.0000000000039p+0, 0x1.ffffffffffc0bp-1, 0x1.ffffffffe83f0p-2,
    0x1.55555555c09b7p-3, 0x1.555555877f587p-5, 0x1.111110517a02ep-7,
    0x1.6c162dc1c894dp-10, 0x1.a01bde21ae3c1p-13, 0x1.a17bd0ff1be16p-16,
    0x1.70c249f25dceap-19,
};
#define BOYS_SPLIT 2.0
#define BOYS_MID 0x1.bf5f3bbd49122p-2

/* VW points per call (the quartet loop takes VW row primitives at a time):
 * each coefficient, an immediate that GPUs materialize per use (two uniform
 * moves), then serves VW FMAs, and the VW chains overlap. */
REALV hornerv(__constant const double *c, int n, REALV x)
{
    REALV r = (REALV)((REAL)c[n - 1]);
    for (int k = n - 2; k >= 0; k--)
        r = fma(r, x, (REALV)((REAL)c[k]));
    return r;
}

/* exp(-t), exact enough for 2 <= t < 36 (other t: any value, not used) */
REALV exp_negv(REALV t)
{
#if ERI_FP32
    return exp(-t);
#else
    /* k = round(-t / ln2) in the low bits of y (the 1.5 * 2^52 trick) */
    REALV y = fma(t, (REALV)(-1.4426950408889634), (REALV)(6755399441055744.0));
    REALV r = fma(y - 6755399441055744.0, (REALV)(-0x1.62e42fefa39efp-1), -t);
    REALV e = hornerv(boys_exp, 10, r);
    return AS_REALV(AS_ULONGV(e) + (AS_ULONGV(y) << 52)); /* e 2^k: k in [-52, -2] */
#endif
}

REALV boys_gv(REALV t)
{
    /* each comparison once (they run on the FP64 pipe); the rest is integer */
    const MASKV small = t < (REALV)BOYS_SPLIT, far = t >= (REALV)BOYS_TMAX;
    REALV g = 0;
    if (vany(small))
        g = hornerv(boys_small, 13, t - (REALV)1);
    if (vany(vnot(small))) {
        REALV v = RSQRT(t), h = v;
        if (vany(vnot(small) & vnot(far)))
            h = fma(-exp_negv(t), hornerv(boys_tail, 13, v - (REALV)BOYS_MID), v);
        g = vsel(vsel(h, v, far), g, small);
    }
    return g;
}

/* F0(t) / BOYS_SCALE in the variant compiled */
#if BOYS == 2
#define BOYS_SCALE ((REAL)SQRT_PI_2)
#else
#define BOYS_SCALE ((REAL)1)
#endif
REALV boys_scaledv(REALV t, __global const REAL *tab)
{
#if BOYS == 2
    (void)tab;
    return boys_gv(t);
#else
    REAL tt[VW], f[VW];
    VSTOREV(t, 0, tt);
    for (int m = 0; m < VW; m++)
        f[m] = boys0(tt[m], tab);
    return VLOADV(0, f);
#endif
}

/* Contracted (ij|kl): the row's primitive pairs in local memory, kl's read
 * here one at a time. */
inline REAL quartet(__local const REAL4 *row_geo, __local const REAL *row_k,
                    __global const double4 *pair_geo, __global const double *pair_k, int npair,
                    int kl, __global const REAL *tab, __constant REAL2 *qtype)
{
    REAL sum = 0;
    for (int b = 0; b < NPP; b++) {
        double4 g = pair_geo[b * npair + kl];
        REAL Kcd = (REAL)pair_k[b * npair + kl];
        REAL Qx = (REAL)g.x, Qy = (REAL)g.y, Qz = (REAL)g.z;
#if !TYPES
        REAL q = (REAL)g.w;
#endif
        REAL part = 0;
        /* VW row primitives at a time; past NPP the last repeats with weight 0 */
        for (int a = 0; a < NPP; a += VW) {
            REAL px[VW], py[VW], pz[VW], rho[VW], wk[VW];
#if TYPES
            REAL rsq[VW];
#endif
            for (int m = 0; m < VW; m++) {
                const int am = a + m < NPP ? a + m : NPP - 1;
                REAL4 P = row_geo[am];
                px[m] = P.x;
                py[m] = P.y;
                pz[m] = P.z;
#if TYPES
                REAL2 ty = qtype[b * NPP + am]; /* (pq/(p+q), 1/sqrt(p+q)) */
                rho[m] = ty.x;
                rsq[m] = ty.y;
#else
                rho[m] = P.w; /* p here, pq/(p+q) below */
#endif
                wk[m] = a + m < NPP ? row_k[am] : (REAL)0;
            }
            REALV dx = VLOADV(0, px) - Qx, dy = VLOADV(0, py) - Qy, dz = VLOADV(0, pz) - Qz;
            REALV r2 = dx * dx + dy * dy + dz * dz;
#if TYPES
            REALV rs = VLOADV(0, rsq);
            REALV t = VLOADV(0, rho) * r2;
#else
            REALV p = VLOADV(0, rho);
            REALV rs = RSQRT(p + q);
            REALV t = p * q * rs * rs * r2;
#endif
            part += dot(VLOADV(0, wk) * rs, boys_scaledv(t, tab));
        }
        sum += Kcd * part;
    }
    return sum * BOYS_SCALE;
}

/* The row ij's primitive pairs into local memory (all work-items). */
inline void load_row(__local REAL4 *row_geo, __local REAL *row_k,
                     __global const double4 *pair_geo, __global const double *pair_k, int npair,
                     int ij)
{
    for (int a = get_local_id(0); a < NPP; a += WG) {
        double4 g = pair_geo[a * npair + ij];
        row_geo[a] = (REAL4)((REAL)g.x, (REAL)g.y, (REAL)g.z, (REAL)g.w);
        row_k[a] = (REAL)pair_k[a * npair + ij];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Unique integrals of rows ij = row0 + group y, kl <= ij, into
 * out[ij (ij+1)/2 + kl - out_base]; Schwarz-screened quartets are 0. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void eri_tensor(__global const double4 *pair_geo, __global const double *pair_k,
                __global const double *schwarz, __global const double *boys_table,
                __global const float *boys_table32, __constant double2 *qtype,
                __constant float2 *qtype32, int npair, int row0, double threshold,
                long out_base, __global double *out)
{
    __local REAL4 row_geo[NPP];
    __local REAL row_k[NPP];
    const int ij = row0 + (int)get_group_id(1);
    if ((int)(get_group_id(0) * WG) > ij)
        return; /* the whole group lies above the diagonal */
    const int kl = (int)get_global_id(0);
    load_row(row_geo, row_k, pair_geo, pair_k, npair, ij);
    if (kl > ij)
        return;
    double v = 0;
    if (schwarz[ij] * schwarz[kl] >= threshold)
#if ERI_FP32
        v = (double)quartet(row_geo, row_k, pair_geo, pair_k, npair, kl, boys_table32, qtype32);
#else
        v = (double)quartet(row_geo, row_k, pair_geo, pair_k, npair, kl, boys_table, qtype);
#endif
    out[(long)ij * (ij + 1) / 2 + kl - out_base] = v;
}

#if !ERI_FP32 /* J/K are FP64 only */

/* x += v on a double in global memory (OpenCL 1.2 has no double atomics). */
inline void add_double(volatile __global double *x, double v)
{
    volatile __global long *bits = (volatile __global long *)x;
    long old = *bits, seen;
    do {
        seen = old;
        old = atom_cmpxchg(bits, seen, as_long(as_double(seen) + v));
    } while (old != seen);
}

/* Integral-direct J and K: each unique quartet once, scattered with 8-fold
 * symmetry into jacc/kacc (n x n, zeroed before; J = (jacc + jacc^T)/2,
 * K = (kacc + kacc^T)/2 on the host). v carries 1/2 for each of i == j,
 * k == l, ij == kl, so that
 *   jacc[i][j] += 4 v D_kl   jacc[k][l] += 4 v D_ij
 *   kacc[i][k] += 2 v D_jl   kacc[j][k] += 2 v D_il
 *   kacc[i][l] += 2 v D_jk   kacc[j][l] += 2 v D_ik
 * A work-group shares ij (so i, j) and holds consecutive kl, whose k is
 * constant over runs of up to k+1 work-items: the jacc[i][j] terms are summed
 * in local memory, and the kacc[i][k], kacc[j][k] terms per run of equal k
 * (otherwise up to a warp's worth of atomics would retry on one address). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void eri_jk(__global const double4 *pair_geo, __global const double *pair_k,
            __global const double *schwarz, __global const double *boys_table,
            __constant double2 *qtype, __global const int2 *pair_fn,
            __global const double *density, int npair, int n,
            int row0, double threshold, __global double *jacc, __global double *kacc)
{
    __local REAL4 row_geo[NPP];
    __local REAL row_k[NPP];
    __local double jsum[WG], kik[WG], kjk[WG];
    __local int kcol[WG];
    const int ij = row0 + (int)get_group_id(1);
    if ((int)(get_group_id(0) * WG) > ij)
        return;
    const int kl = (int)get_global_id(0);
    const int lid = (int)get_local_id(0);
    load_row(row_geo, row_k, pair_geo, pair_k, npair, ij);
    const int2 f = pair_fn[ij];
    const int i = f.x, j = f.y;
    double jterm = 0, ik = 0, jk = 0;
    int k = -1;
    if (kl <= ij) {
        int2 g = pair_fn[kl];
        k = g.x;
        int l = g.y;
        if (schwarz[ij] * schwarz[kl] >= threshold) {
            double v = (double)quartet(row_geo, row_k, pair_geo, pair_k, npair, kl, boys_table,
                                       qtype);
            if (i == j)
                v *= 0.5;
            if (k == l)
                v *= 0.5;
            if (ij == kl)
                v *= 0.5;
            jterm = 4 * v * density[k * n + l];
            ik = 2 * v * density[j * n + l];
            jk = 2 * v * density[i * n + l];
            add_double(&jacc[k * n + l], 4 * v * density[i * n + j]);
            add_double(&kacc[i * n + l], 2 * v * density[j * n + k]);
            add_double(&kacc[j * n + l], 2 * v * density[i * n + k]);
        }
    }
    jsum[lid] = jterm;
    kik[lid] = ik;
    kjk[lid] = jk;
    kcol[lid] = k;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the first work-item of each run of equal k adds up the run */
    if (k >= 0 && (lid == 0 || kcol[lid - 1] != k)) {
        double si = 0, sj = 0;
        for (int m = lid; m < WG && kcol[m] == k; m++) {
            si += kik[m];
            sj += kjk[m];
        }
        if (si != 0)
            add_double(&kacc[i * n + k], si);
        if (sj != 0)
            add_double(&kacc[j * n + k], sj);
    }
    for (int step = WG / 2; step > 0; step >>= 1) {
        if (lid < step)
            jsum[lid] += jsum[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0 && jsum[0] != 0)
        add_double(&jacc[i * n + j], jsum[0]);
}

/* F0 at n points (VW per work-item, as the quartet loop evaluates them) in
 * the variant compiled: the device Boys test. */
__kernel void eri_boys(__global const double *points, __global const double *boys_table, int n,
                       __global double *values)
{
    const int i = VW * (int)get_global_id(0);
    if (i >= n)
        return;
    double t[VW], f[VW];
    for (int m = 0; m < VW; m++)
        t[m] = points[i + m < n ? i + m : n - 1];
    VSTOREV(BOYS_SCALE * boys_scaledv(VLOADV(0, t), boys_table), 0, f);
    for (int m = 0; m < VW && i + m < n; m++)
        values[i + m] = f[m];
}

#endif /* !ERI_FP32 */
