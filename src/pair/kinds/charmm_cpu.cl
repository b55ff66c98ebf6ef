/* lj/charmm/coul/long forces shaped for CPU cores (PoCL): the physics,
 * precisions and accuracy of src/pair/kinds/charmm_pair.clh, computed differently.
 *
 * One work-item walks a block of local atoms one after the other; each
 * atom's neighbors are taken 8 at a time as float8/double8 vectors (the
 * lists are padded to multiples of 8 with the far-away sentinel), so the
 * pair math runs in SIMD registers whatever the OpenCL compiler does with
 * work-items. No local memory and no barriers: a block's sums stay in
 * registers and its energy/virial partial is written once, per block.
 *
 * HALF 0: full lists (every pair for both atoms; the engine's lists in
 *   their blocked layout), forces of the block's atoms written.
 * HALF 1: half lists (charmm_half_filter below: each local-local pair once,
 *   local-ghost pairs from the local side). The pair's force goes to both
 *   local atoms (+ to i, - to j); blocks are coloured on the host (OP2's
 *   plan colouring, src/pair/charmm_colour.c) so that no two blocks of one
 *   launch write the same atom: one launch per colour, no atomics, and the
 *   sums run in an order fixed by the plan, so the result does not depend
 *   on how many threads run the blocks. The sums go to rows by local slot
 *   (cell order: a block's partners lie in a few nearby cells, where the
 *   caller's order scattered them over the whole array, and that scatter
 *   was a third of the kernel's time), zeroed before the first colour;
 *   ghost and padding partners write block b's spare rows nlocal + 8 b +
 *   lane, so the scatter needs no branch (one spare row for all lanes made
 *   a chain of dependent read-modify-writes); charmm_half_finish copies the local rows
 *   to the caller's order. Energies and virial count a
 *   local-local pair twice (it stands for both of its full-list entries;
 *   the host halves the sums as for full lists).
 * The pair math is symmetric in i and j (q_i q_j formed first, the same
 * coefficient entry), and in double precision the sums are 64-bit fixed
 * point, so full and half lists give identical bits there.
 *
 * Options: PREC 0 single, 1 mixed, 2 double; TALLY 0|1; TALLY_DOUBLE 0|1
 * (mixed: tallying steps do double pair math, see src/pair/kinds/charmm_pair.clh); HALF 0|1. */

#if PREC == 2 || (PREC == 1 && SCL_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if PREC == 2
#pragma OPENCL FP_CONTRACT OFF /* the same rounding in every variant: bitwise half == full */
#endif

#if PREC == 2 || (PREC == 1 && TALLY && TALLY_DOUBLE && SCL_FP64)
#define PAIR_DOUBLE 1
typedef double real;
typedef double4 real4;
typedef double8 realv;
typedef long8 maskv;
#define EWALD_F 1.12837916709551257390
#else
#define PAIR_DOUBLE 0
typedef float real;
typedef float4 real4;
typedef float8 realv;
typedef int8 maskv;
#define EWALD_F 1.12837916709551257390f
#endif

#if PREC == 2
typedef double4 pos4;
typedef double out_t;  /* forces and per-atom terms */
typedef long part_t;   /* partials: (integer, fraction) pairs */
typedef long accs;     /* half-list accumulators: (integer, fraction in 2^-32) pairs */
#define POS_FIXED 0
#define FIXED_SCALE 4294967296.0
#define FORCE_LIMIT 1.0e15
#elif PREC == 1 && SCL_FP64
typedef int4 pos4;
typedef double out_t;
typedef double part_t;
typedef double accs;
#define POS_FIXED 1
#else
typedef int4 pos4;
typedef float out_t;
typedef float part_t;
typedef float accs;
#define POS_FIXED 1
#endif

/* Per-lane sums. Double precision: integer and 2^-32 fraction parts of
 * |v| with v's sign (src/pair/kinds/charmm_pair.clh's representation, made odd-symmetric so
 * that the j side of a half-list pair is exactly minus the i side), summed
 * as integers: any order gives the same bits. Else double (mixed) or float
 * sums of the pair terms. */
#if PREC == 2
typedef struct {
    long8 hi, lo;
} accv;
typedef struct {
    long hi, lo;
} acc1;
inline accv to_accv(double8 v)
{
    const double8 a = fabs(v), h = floor(a);
    const long8 neg = v < (double8)0;
    const long8 hi = convert_long8_sat(h), lo = convert_long8_sat_rte((a - h) * FIXED_SCALE);
    return (accv){select(hi, -hi, neg), select(lo, -lo, neg)};
}
inline accv acc_add(accv a, accv b) { return (accv){a.hi + b.hi, a.lo + b.lo}; }
inline accv acc_weight(accv a, int8 two) /* x2 in lanes where two is set */
{
    const long8 t = convert_long8(two);
    return (accv){select(a.hi, a.hi * 2, t), select(a.lo, a.lo * 2, t)};
}
inline acc1 acc_sum(accv a)
{
    return (acc1){((a.hi.s0 + a.hi.s1) + (a.hi.s2 + a.hi.s3)) + ((a.hi.s4 + a.hi.s5) + (a.hi.s6 + a.hi.s7)),
                  ((a.lo.s0 + a.lo.s1) + (a.lo.s2 + a.lo.s3)) + ((a.lo.s4 + a.lo.s5) + (a.lo.s6 + a.lo.s7))};
}
inline acc1 acc1_add(acc1 a, acc1 b) { return (acc1){a.hi + b.hi, a.lo + b.lo}; }
inline acc1 acc_lane(accv a, int k)
{
    long h[8], l[8];
    vstore8(a.hi, 0, h);
    vstore8(a.lo, 0, l);
    return (acc1){h[k], l[k]};
}
inline acc1 acc1_neg(acc1 a) { return (acc1){-a.hi, -a.lo}; }
inline out_t acc_out(acc1 a) { return (double)a.hi + (double)a.lo * (1.0 / FIXED_SCALE); }
#define ACC_ZERO ((accv){(long8)0, (long8)0})
#define ACC1_ZERO ((acc1){0, 0})
/* half-list accumulators: two longs per value */
inline void acc_add_mem(__global accs *p, size_t k, acc1 v)
{
    p[2 * k] += v.hi;
    p[2 * k + 1] += v.lo;
}
inline acc1 acc_load(__global const accs *p, size_t k) { return (acc1){p[2 * k], p[2 * k + 1]}; }
inline void part_store(__global part_t *p, size_t at, acc1 v)
{ /* carry the fraction's whole units over: both parts stay small (src/pair/kinds/charmm_pair.clh) */
    const long lo = v.lo;
    p[at] = v.hi + (lo >> 32);
    p[at + 1] = lo & 0xffffffffL;
}
#define PART_WIDTH 2
#else
#if PREC == 1 && SCL_FP64
typedef double8 accv;
typedef double acc1;
#define to_accv(v) convert_double8(v)
#else
typedef float8 accv;
typedef float acc1;
#define to_accv(v) (v)
#endif
#define acc_add(a, b) ((a) + (b))
inline accv acc_weight(accv a, int8 two)
{
#if PREC == 1 && SCL_FP64
    return select(a, a * 2, convert_long8(two));
#else
    return select(a, a * 2, two);
#endif
}
inline acc1 acc_sum(accv v) { return ((v.s0 + v.s1) + (v.s2 + v.s3)) + ((v.s4 + v.s5) + (v.s6 + v.s7)); }
#define acc1_add(a, b) ((a) + (b))
inline acc1 acc_lane(accv a, int k)
{
    acc1 t[8];
    vstore8(a, 0, t);
    return t[k];
}
#define acc1_neg(a) (-(a))
#define acc_out(a) (a)
#define ACC_ZERO ((accv)0)
#define ACC1_ZERO ((acc1)0)
inline void acc_add_mem(__global accs *p, size_t k, acc1 v) { p[k] += v; }
inline acc1 acc_load(__global const accs *p, size_t k) { return p[k]; }
inline void part_store(__global part_t *p, size_t at, acc1 v) { p[at] = v; }
#define PART_WIDTH 1
#endif

#if PREC != 2
#if PREC == 1 && SCL_FP64
typedef double4 accs4;
#define CONVERT_ACCS4 convert_double4
#else
typedef float4 accs4;
#define CONVERT_ACCS4 convert_float4
#endif
/* Half lists: minus the pair forces (x, y, z per lane) into rows r[k] of
 * p (4 values a row), one 4-wide read-modify-write per lane (w gets 0):
 * term by term the same adds as three scalar ones. Lanes spelled out (not a
 * loop over arrays): the compiler then builds each row's vector with
 * shuffles in registers instead of storing x, y, z to the stack and
 * reloading them one float at a time. */
#define SUB_ROW(k)                                                                          \
    {                                                                                       \
        __global accs *q = p + 4 * (size_t)r.s##k;                                          \
        vstore4(vload4(0, q) - CONVERT_ACCS4((real4)(x.s##k, y.s##k, z.s##k, 0)), 0, q);    \
    }
inline void sub_rows(__global accs *p, int8 r, realv x, realv y, realv z)
{
    SUB_ROW(0) SUB_ROW(1) SUB_ROW(2) SUB_ROW(3) SUB_ROW(4) SUB_ROW(5) SUB_ROW(6) SUB_ROW(7)
}
#undef SUB_ROW
#endif

#if PAIR_DOUBLE
#define TO_REALV convert_double8
#define TO_MASKV convert_long8
#else
#define TO_REALV convert_float8
#define TO_MASKV(m) (m)
#endif

#define INDEX_MASK 0x3fffffff
#define KIND_SHIFT 30
#define PAD 8

/* ------------------------------------------------------------ half lists */

/* The half list of one chunk's local atoms from its full list (the outer
 * half list, cutoff + skin, made once per atom set): a local-local pair is
 * kept by the atom whose (cell, slot) comes first, so j's cell is never in
 * a lower z-layer of cells than i's (cells are numbered z-major), which the
 * colouring relies on; a ghost partner is always kept (ghosts get no
 * force). Row layout: atom ii's slots at hlist[ii*capacity ...], special
 * pairs first (half_nsf of them), padded to 8 with the sentinel. One
 * work-item per atom. */
__kernel void charmm_half_filter(__global const int *restrict nbr,
                                 __global const int *restrict numnbr, const int first,
                                 const int count, __global const int *restrict slot_of,
                                 __global const int *restrict icell,
                                 const int capacity, const int sentinel,
                                 __global int *restrict hlist, __global int *restrict half_num,
                                 __global int *restrict half_nsf)
{
    const int a = get_global_id(0);
    if (a >= count)
        return;
    const int ii = first + a, n = numnbr[ii], ci = icell[ii];
    const size_t stride = (size_t)count * PAD;
    __global int *row = hlist + (size_t)ii * (size_t)capacity;
    /* one pass: special pairs from the row's front, the others from its
     * back (n <= capacity, so they never meet), then the others moved to
     * follow the specials in the order they were found */
    int nsf = 0, nother = 0;
    for (int s = 0; s < n; s++) {
        const int packed = nbr[(size_t)(s / PAD) * stride + (size_t)a * PAD + s % PAD];
        if (packed == sentinel) /* a free slot between the build's lanes, or padding */
            continue;
        const int j = packed & INDEX_MASK;
        const int js = slot_of[j];
        const int cj = js < 0 ? 0 : icell[js];
        if (!(js < 0 || cj > ci || (cj == ci && js > ii)))
            continue;
        if ((packed >> KIND_SHIFT) != 0)
            row[nsf++] = packed;
        else
            row[capacity - 1 - nother++] = packed;
    }
    for (int k = 0; k < nother / 2; k++) { /* back to the order found */
        const int t = row[capacity - 1 - k];
        row[capacity - 1 - k] = row[capacity - nother + k];
        row[capacity - nother + k] = t;
    }
    for (int k = 0; k < nother; k++) /* down: the target never passes the source */
        row[nsf + k] = row[capacity - nother + k];
    const int m = nsf + nother;
    for (int s = m; s < (m + PAD - 1) / PAD * PAD; s++)
        row[s] = sentinel;
    half_num[ii] = m;
    half_nsf[ii] = nsf;
}

/* The inner half list: the pairs of the outer half list (outer, outer_num,
 * outer_nsf) closer than sqrt(cutsq) at the current positions (the engine's
 * inner-list prune, src/pair/list/neighbor.cl, redone every few steps), in the same
 * row layout. Kept pairs stay in order, so the specials stay in front.
 * Branch-free compaction: every pair is written at the next free slot, which
 * advances only for kept ones (the padding's sentinel is far away: never
 * kept). One work-item per local atom. */
__kernel void charmm_half_prune(__global const int *restrict outer,
                                __global const int *restrict outer_num,
                                __global const int *restrict outer_nsf, const int nlocal,
                                __global const int *restrict ilist,
                                __global const pos4 *restrict pos, const real unit,
                                const real cutsq, const int capacity, const int sentinel,
                                __global int *restrict hlist, __global int *restrict half_num,
                                __global int *restrict half_nsf)
{
    const int ii = get_global_id(0);
    if (ii >= nlocal)
        return;
    const size_t at = (size_t)ii * (size_t)capacity;
    __global const int *in = outer + at;
    __global int *row = hlist + at;
    const int n = outer_num[ii], nsf_in = outer_nsf[ii];
    const pos4 pi = pos[ilist[ii]];
    int m = 0, nsf = 0;
    for (int s = 0; s < n; s++) {
        const int packed = in[s];
        const pos4 pj = pos[packed & INDEX_MASK];
#if POS_FIXED
        const real dx = (real)as_int((uint)pi.x - (uint)pj.x) * unit;
        const real dy = (real)as_int((uint)pi.y - (uint)pj.y) * unit;
        const real dz = (real)as_int((uint)pi.z - (uint)pj.z) * unit;
#else
        const real dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
#endif
        const int keep = dx * dx + dy * dy + dz * dz < cutsq;
        row[m] = packed;
        m += keep;
        nsf += keep & (s < nsf_in);
    }
    for (int s = m; s < (m + PAD - 1) / PAD * PAD; s++)
        row[s] = sentinel;
    half_num[ii] = m;
    half_nsf[ii] = nsf;
}

/* ------------------------------------------------------------ pair math */

#if !PAIR_DOUBLE
/* erfc(x) = exp(-x^2) t P(t), t = 1/(1 + 0.42 x), P of degree 7: the fit of
 * src/pair/kinds/charmm_pair.clh (relative error 3.4e-8 on [0, 6]), two FMAs
 * shorter than the degree-9 fit with t = 1/(1 + 0.6 x) this kind had; exp(-x^2)
 * as 2^-(x^2 log2 e), shared with the force term; t comes from the caller (one
 * division shared with 1/r^2). native_exp2 as there: its ulps stay below the
 * float rounding x^2 already carries. */
inline float8 erfc_and_exp(float8 x2, float8 t, float8 *expm2)
{
    float8 p = 7.619152218e-02f;
    p = p * t - 3.458625078e-01f;
    p = p * t + 4.864274263e-01f;
    p = p * t - 1.745031178e-01f;
    p = p * t + 2.932406664e-01f;
    p = p * t + 1.868324727e-01f;
    p = p * t + 2.409459203e-01f;
    p = p * t + 2.367276400e-01f;
    *expm2 = native_exp2(-x2 * 1.44269504088896341f);
    return *expm2 * (t * p);
}

/* erf(x) and G(x) = erf(x) - EWALD_F x exp(-x^2) by their series, for the
 * excluded pairs at small x (see src/pair/kinds/charmm_pair.clh). */
inline float8 erf_series(float8 x2, float8 x, float8 *g)
{
    float8 term = x, erf_sum = x, g_sum = 0.0f;
    for (int n = 1; n <= 14; n++) {
        term *= -x2 / (float)n;
        const float inv = 1.0f / (float)(2 * n + 1);
        erf_sum += term * inv;
        g_sum += term * (inv - 1.0f);
    }
    *g = EWALD_F * g_sum;
    return EWALD_F * erf_sum;
}
#endif

/* v.x, v.y, v.z or v.w per lane, by kind 0..3 */
inline realv pick4(real4 v, int8 kind)
{
    const maskv k = TO_MASKV(kind);
    realv r = (realv)(v.x);
    r = select(r, (realv)(v.y), k == (maskv)1);
    r = select(r, (realv)(v.z), k == (maskv)2);
    return select(r, (realv)(v.w), k == (maskv)3);
}

inline void report(volatile __global int *error, int code, int ii, int j)
{
    if (atomic_cmpxchg(error, 0, code) == 0) {
        error[1] = ii;
        error[2] = j;
    }
}

/* Eight ints p[j.sk], as eight scalar loads: through a volatile pointer, so
 * that the compiler cannot merge them into a vpgatherdd/vpgatherqd, which
 * PoCL's skylake-avx512 target emits and which stalls on AMD Zen cores. */
inline int8 gather_int(__global const int *restrict p, int8 j)
{
    volatile __global const int *v = p;
    return (int8)(v[j.s0], v[j.s1], v[j.s2], v[j.s3], v[j.s4], v[j.s5], v[j.s6], v[j.s7]);
}

/* The per-lane results of one group of 8 neighbors. */
typedef struct {
    realv dx, dy, dz, fpair, evdwl, ecoul;
} group_out;

/* Raise the too-close error for the first lane of close (a pair of atom
 * ii closer than min_r2) */
__attribute__((always_inline)) inline void report_close(volatile __global int *error,
                                                        const int ii, const maskv close,
                                                        const int8 j)
{
    int c[8], jv[8];
    vstore8(convert_int8(close), 0, c);
    vstore8(j, 0, jv);
    for (int k = 0; k < 8; k++)
        if (c[k])
            report(error, 1, ii, jv[k]);
}

/* LJ with the CHARMM switch of 8 neighbors j of an atom of type ti at
 * r2s (1/r2s in r2inv), times factor_lj, zero beyond the LJ cutoff:
 * returns the force term, *philj_out the energy */
__attribute__((always_inline)) inline realv group_lj(__global const int *restrict type,
                                                     __global const real4 *restrict ljc,
                                                     const int ntypes, const int ti, const int8 j,
                                                     const realv r2inv, const realv r2s,
                                                     const realv factor_lj, const real cut_ljsq,
                                                     const real cut_lj_innersq,
                                                     const real inv_denom_lj, realv *philj_out)
{
    const int8 tj = gather_int(type, j);
    const int8 cidx = (int8)(ti * ntypes) + tj;
    const real4 c0 = ljc[cidx.s0], c1 = ljc[cidx.s1], c2 = ljc[cidx.s2], c3 = ljc[cidx.s3],
                c4 = ljc[cidx.s4], c5 = ljc[cidx.s5], c6 = ljc[cidx.s6], c7 = ljc[cidx.s7];
    const realv lj1 = (realv)(c0.x, c1.x, c2.x, c3.x, c4.x, c5.x, c6.x, c7.x);
    const realv lj2 = (realv)(c0.y, c1.y, c2.y, c3.y, c4.y, c5.y, c6.y, c7.y);
    const realv lj3 = (realv)(c0.z, c1.z, c2.z, c3.z, c4.z, c5.z, c6.z, c7.z);
    const realv lj4 = (realv)(c0.w, c1.w, c2.w, c3.w, c4.w, c5.w, c6.w, c7.w);
    const realv r6inv = r2inv * r2inv * r2inv;
    realv forcelj = r6inv * (lj1 * r6inv - lj2);
    realv philj = r6inv * (lj3 * r6inv - lj4);
    const realv d = cut_ljsq - r2s;
    const realv switch1 = d * d * (cut_ljsq + (real)2 * r2s - (real)3 * cut_lj_innersq) * inv_denom_lj;
    const realv switch2 = (real)12 * r2s * d * (r2s - cut_lj_innersq) * inv_denom_lj;
    const maskv switched = r2s > (realv)cut_lj_innersq;
    forcelj = select(forcelj, forcelj * switch1 + philj * switch2, switched);
    philj = select(philj, philj * switch1, switched);
    const maskv in_lj = r2s < (realv)cut_ljsq;
    *philj_out = select((realv)0, philj * factor_lj, in_lj);
    return select((realv)0, forcelj * factor_lj, in_lj);
}

/* The pair math of 8 neighbors j (packed: index and kind) of atom i.
 * general: kinds may be non-zero (special pairs); else every kind is 0. */
__attribute__((always_inline)) inline group_out pair_group(__global const pos4 *restrict pos, __global const float4 *restrict pos_lo,
                            __global const int *restrict type, __global const real4 *restrict ljc,
                            const int ntypes, const pos4 pi, const float4 lo_i, const real qi,
                            const int ti, const int8 packed, const int general,
                            const real cut_forcesq, const real cut_coulsq, const real cut_ljsq,
                            const real cut_lj_innersq, const real inv_denom_lj, const real qqrd2e,
                            const real g_ewald, const real4 special_lj, const real4 special_coul,
                            const real min_r2, const real unit, const ulong cut_force_units,
                            const ulong cut_coul_units, volatile __global int *error, const int ii)
{
    group_out o;
    const int8 j = packed & INDEX_MASK;
    const int8 kind = general ? (packed >> KIND_SHIFT) & 3 : (int8)0;
    const pos4 p0 = pos[j.s0], p1 = pos[j.s1], p2 = pos[j.s2], p3 = pos[j.s3], p4 = pos[j.s4],
               p5 = pos[j.s5], p6 = pos[j.s6], p7 = pos[j.s7];
#if POS_FIXED
    const int8 xj = (int8)(p0.x, p1.x, p2.x, p3.x, p4.x, p5.x, p6.x, p7.x);
    const int8 yj = (int8)(p0.y, p1.y, p2.y, p3.y, p4.y, p5.y, p6.y, p7.y);
    const int8 zj = (int8)(p0.z, p1.z, p2.z, p3.z, p4.z, p5.z, p6.z, p7.z);
    const int8 wj = (int8)(p0.w, p1.w, p2.w, p3.w, p4.w, p5.w, p6.w, p7.w);
    /* exact modular differences of the fixed-point coordinates */
    const int8 ix = as_int8(as_uint8((int8)pi.x) - as_uint8(xj));
    const int8 iy = as_int8(as_uint8((int8)pi.y) - as_uint8(yj));
    const int8 iz = as_int8(as_uint8((int8)pi.z) - as_uint8(zj));
    realv dx = TO_REALV(ix) * unit, dy = TO_REALV(iy) * unit, dz = TO_REALV(iz) * unit;
    realv qj = TO_REALV(as_float8(wj));
#if PAIR_DOUBLE
    const float4 l0 = pos_lo[j.s0], l1 = pos_lo[j.s1], l2 = pos_lo[j.s2], l3 = pos_lo[j.s3],
                 l4 = pos_lo[j.s4], l5 = pos_lo[j.s5], l6 = pos_lo[j.s6], l7 = pos_lo[j.s7];
    dx += (realv)((real)lo_i.x) - convert_double8((float8)(l0.x, l1.x, l2.x, l3.x, l4.x, l5.x, l6.x, l7.x));
    dy += (realv)((real)lo_i.y) - convert_double8((float8)(l0.y, l1.y, l2.y, l3.y, l4.y, l5.y, l6.y, l7.y));
    dz += (realv)((real)lo_i.z) - convert_double8((float8)(l0.z, l1.z, l2.z, l3.z, l4.z, l5.z, l6.z, l7.z));
    qj += convert_double8((float8)(l0.w, l1.w, l2.w, l3.w, l4.w, l5.w, l6.w, l7.w));
#endif
    const realv r2 = dx * dx + dy * dy + dz * dz;
    /* The cutoff tests are exact on the squared fixed-point distance in
     * units^2 (src/pair/kinds/charmm_pair.clh), as in the GPU-shaped kernel; the rounded r2
     * decides them except within a relative 1e-5 of a cutoff (its error is
     * ~4e-7), where the 64-bit integer test runs (few groups). */
    maskv in_force = r2 < (realv)cut_forcesq, in_coul_m = r2 < (realv)cut_coulsq;
#if !PAIR_DOUBLE /* double pair math tests its own r2 (with the residuals) */
    const maskv near = (fabs(r2 - (realv)cut_forcesq) < (realv)(1e-5f * cut_forcesq)) |
                       (fabs(r2 - (realv)cut_coulsq) < (realv)(1e-5f * cut_coulsq));
    if (any(near)) {
        const long8 lx = convert_long8(ix), ly = convert_long8(iy), lz = convert_long8(iz);
        const ulong8 r2u = as_ulong8(lx * lx) + as_ulong8(ly * ly) + as_ulong8(lz * lz);
        in_force = convert_int8(r2u < (ulong8)cut_force_units);
        in_coul_m = convert_int8(r2u < (ulong8)cut_coul_units);
    }
#endif
#else
    const realv dx = (realv)(pi.x) - (realv)(p0.x, p1.x, p2.x, p3.x, p4.x, p5.x, p6.x, p7.x);
    const realv dy = (realv)(pi.y) - (realv)(p0.y, p1.y, p2.y, p3.y, p4.y, p5.y, p6.y, p7.y);
    const realv dz = (realv)(pi.z) - (realv)(p0.z, p1.z, p2.z, p3.z, p4.z, p5.z, p6.z, p7.z);
    const realv qj = (realv)(p0.w, p1.w, p2.w, p3.w, p4.w, p5.w, p6.w, p7.w);
    const realv r2 = dx * dx + dy * dy + dz * dz;
    const maskv in_force = r2 < (realv)cut_forcesq, in_coul_m = r2 < (realv)cut_coulsq;
#endif
    maskv live = in_force;
    const maskv close = in_force & (r2 < (realv)min_r2);
    if (any(close)) {
        report_close(error, ii, close, j);
        live &= ~close;
    }
    const realv r2s = select((realv)1, r2, live); /* masked lanes compute on 1 */
    /* Coulomb */
#if PAIR_DOUBLE
    const realv r2inv = (real)1 / r2s;
    const realv rinv = (real)1 / sqrt(r2s);
    const realv r = r2s * rinv, grij = g_ewald * r;
    const realv expm2 = exp(-(g_ewald * g_ewald) * r2s);
    const realv erfc_g = erfc(grij);
#else
    /* one division (vdivps, slow; native_recip is one too in PoCL) for 1/r^2
     * and erfc's t = 1/u, u = 1 + 0.42 g r: d = 1/(r^2 u), 1/r^2 = d u,
     * t = d r^2 (a rounding or two more: each within ~2 ulp) */
    const realv r = sqrt(r2s), grij = g_ewald * r;
    const realv u = 1.0f + 0.42f * grij;
    const realv d = (real)1 / (r2s * u);
    const realv r2inv = d * u, rinv = r2inv * r;
    realv expm2;
    const realv erfc_g = erfc_and_exp((g_ewald * g_ewald) * r2s, d * r2s, &expm2);
#endif
    const realv prefactor = qqrd2e * ((realv)qi * qj) * rinv;
    realv forcecoul = prefactor * (erfc_g + EWALD_F * grij * expm2);
    realv ecoul = prefactor * erfc_g;
    realv factor_lj = (realv)1;
    if (general) {
        const realv keep = pick4(special_coul, kind);
        const maskv special = TO_MASKV(kind != (int8)0);
        forcecoul -= select((realv)0, ((real)1 - keep) * prefactor, special);
        ecoul -= select((realv)0, ((real)1 - keep) * prefactor, special);
#if !PAIR_DOUBLE
        const maskv series = special & (grij < (realv)1.0f) & live & in_coul_m;
        if (any(series)) {
            realv g;
            const realv erf_g = erf_series((g_ewald * g_ewald) * r2s, grij, &g);
            forcecoul = select(forcecoul, prefactor * (keep - g), series);
            ecoul = select(ecoul, prefactor * (keep - erf_g), series);
        }
#endif
        factor_lj = pick4(special_lj, kind);
    }
    forcecoul = select((realv)0, forcecoul, in_coul_m);
    ecoul = select((realv)0, ecoul, in_coul_m);
    realv philj;
    const realv forcelj = group_lj(type, ljc, ntypes, ti, j, r2inv, r2s, factor_lj, cut_ljsq,
                                   cut_lj_innersq, inv_denom_lj, &philj);
    o.fpair = select((realv)0, (forcecoul + forcelj) * r2inv, live);
    o.evdwl = select((realv)0, philj, live);
    o.ecoul = select((realv)0, ecoul, live);
#if PREC == 2
    const maskv big = live & !(fabs(o.fpair) * sqrt(r2s) < (realv)FORCE_LIMIT);
    if (any(big)) /* non-finite or absurd: the sums would be meaningless */
        report(error, 2, ii, j.s0);
#endif
    o.dx = dx, o.dy = dy, o.dz = dz;
    return o;
}

/* ------------------------------------------------------------ the kernels */

/* slot_of[binned index] = the local slot of a local atom, -1 for ghosts
 * and the sentinel (the caller fills it with -1 first). */
__kernel void charmm_slot_map(__global const int *restrict ilist, const int nlocal,
                              __global int *restrict slot_of)
{
    const int ii = get_global_id(0);
    if (ii < nlocal)
        slot_of[ilist[ii]] = ii;
}

/* The charge of atom i (position pi) and in *lo_i its residuals (mixed
 * tallying steps: see charmm_pair.clh), else zero */
__attribute__((always_inline)) inline real atom_charge(__global const float4 *restrict pos_lo,
                                                       const pos4 pi, const int i, float4 *lo_i)
{
#if POS_FIXED && PAIR_DOUBLE
    *lo_i = pos_lo[i];
    return (real)as_float(pi.w) + (real)lo_i->w;
#elif POS_FIXED
    (void)pos_lo, (void)i;
    *lo_i = (float4)0;
    return as_float(pi.w);
#else
    (void)pos_lo, (void)i;
    *lo_i = (float4)0;
    return pi.w;
#endif
}

/* Half lists: a group's pair terms into its partners' rows (minus the
 * force in double precision, where sub_rows does not; the per-atom terms
 * when tallying) */
__attribute__((always_inline)) inline void scatter_rows(__global accs *facc, __global accs *eacc,
                                                        __global accs *vacc, const int8 rows,
                                                        const int per_atom, const accv ax,
                                                        const accv ay, const accv az
#if TALLY
                                                        , const accv ev, const accv ec,
                                                        const accv v0, const accv v1,
                                                        const accv v2, const accv v3,
                                                        const accv v4, const accv v5
#endif
)
{
    (void)facc, (void)eacc, (void)vacc, (void)per_atom, (void)ax, (void)ay, (void)az;
    int jj[8];
    vstore8(rows, 0, jj);
    for (int k = 0; k < 8; k++) {
#if PREC == 2
        const size_t o4 = 4 * (size_t)jj[k];
        acc_add_mem(facc, o4, acc1_neg(acc_lane(ax, k)));
        acc_add_mem(facc, o4 + 1, acc1_neg(acc_lane(ay, k)));
        acc_add_mem(facc, o4 + 2, acc1_neg(acc_lane(az, k)));
#endif
#if TALLY
        if (per_atom) {
            acc_add_mem(eacc, (size_t)jj[k], acc_lane(acc_add(ev, ec), k));
            const accv vv[6] = {v0, v1, v2, v3, v4, v5};
            for (int c = 0; c < 6; c++)
                acc_add_mem(vacc, 6 * (size_t)jj[k] + c, acc_lane(vv[c], k));
        }
#endif
    }
}

/* An atom's force sums into its output (full lists) or its row (half) */
__attribute__((always_inline)) inline void store_force(__global out_t *force, __global accs *facc,
                                                       const size_t oi, const accv fx,
                                                       const accv fy, const accv fz)
{
    (void)force, (void)facc;
#if HALF
#if PREC == 2
    acc_add_mem(facc, 4 * oi, acc_sum(fx));
    acc_add_mem(facc, 4 * oi + 1, acc_sum(fy));
    acc_add_mem(facc, 4 * oi + 2, acc_sum(fz));
#else
    vstore4(vload4(oi, facc) + (accs4)(acc_sum(fx), acc_sum(fy), acc_sum(fz), 0), oi, facc);
#endif
#else
    force[4 * oi] = acc_out(acc_sum(fx));
    force[4 * oi + 1] = acc_out(acc_sum(fy));
    force[4 * oi + 2] = acc_out(acc_sum(fz));
    force[4 * oi + 3] = 0;
#endif
}

#if TALLY
/* An atom's per-atom energy and virial sums into its outputs (full lists)
 * or its rows (half) */
__attribute__((always_inline)) inline void
store_atom_tallies(__global out_t *eatom, __global out_t *vatom, __global accs *eacc,
                   __global accs *vacc, const size_t oi, const accv a_e, const accv a0,
                   const accv a1, const accv a2, const accv a3, const accv a4, const accv a5)
{
    (void)eatom, (void)vatom, (void)eacc, (void)vacc;
    const acc1 sums[7] = {acc_sum(a_e), acc_sum(a0), acc_sum(a1), acc_sum(a2),
                          acc_sum(a3), acc_sum(a4), acc_sum(a5)};
#if HALF
    acc_add_mem(eacc, oi, sums[0]);
    for (int c = 0; c < 6; c++)
        acc_add_mem(vacc, 6 * oi + c, sums[1 + c]);
#else
    eatom[oi] = acc_out(sums[0]);
    for (int c = 0; c < 6; c++)
        vatom[6 * oi + c] = acc_out(sums[1 + c]);
#endif
}
#endif

/* Work-item w runs block block_ids[block_first + w]: local slots
 * block_start[b] .. block_start[b+1]. Slot s of atom ii's list is at
 * nbr[(s/8)*gstride + (ii - list_first)*astride + s%8] (blocked full lists:
 * gstride = 8*count, astride = 8; half lists: 8 and capacity). With sorted
 * set, nspecial_front[ii] special pairs come first (the general path); the
 * rest are ordinary pairs. Full lists: outputs in the caller's order
 * (order[i]). Half lists: sums into rows of facc/eacc/vacc (4, 1 and 6
 * values a row; in double precision (integer, fraction) pairs), row
 * row_of[j] for a local partner j (its slot), spare_first + 8 b + lane for
 * others;
 * charmm_half_finish writes the outputs. Partials: 8 per block.
 * The next group's entries are loaded one group ahead, and a half list's
 * partner rows before the pair math: their loads' latency hides behind the
 * math instead of stalling the scatter. Half lists: local partners get
 * minus the pair's force and (tallying) the pair's per-atom terms; its
 * global terms count twice for them (both full-list entries), once for
 * ghosts. */
/* (the kernel's call of pair_group: general, the group may hold special
 * pairs) */
#define GROUP_TERMS(packed, general)                                                           \
    pair_group(pos, pos_lo, type, ljc, ntypes, pi, lo_i, qi, ti, packed, general, cut_forcesq, \
               cut_coulsq, cut_ljsq, cut_lj_innersq, inv_denom_lj, qqrd2e, g_ewald,            \
               special_lj, special_coul, min_r2, unit, cut_force_units, cut_coul_units, error, \
               ii)
/* Why 42 arguments: charmm_force's, plus the CPU kind's block colouring, row map and list
 * strides. */
__kernel void charmm_cpu_force(__global const pos4 *restrict pos,
                               __global const float4 *restrict pos_lo,
                               __global const int *restrict type,
                               __global const int *restrict nbr,
                               __global const int *restrict numnbr,
                               __global const int *restrict nspecial_front, const int sorted,
                               const int list_first, const int gstride, const int astride,
                               __global const int *restrict row_of, const int spare_first,
                               __global const int *restrict ilist,
                               __global const int *restrict order,
                               __global const int *restrict block_start,
                               __global const int *restrict block_ids, const int block_first,
                               const int nblocks, __global const real4 *restrict ljc,
                               const int ntypes, const real cut_forcesq, const real cut_coulsq,
                               const real cut_ljsq, const real cut_lj_innersq,
                               const real inv_denom_lj, const real qqrd2e, const real g_ewald,
                               const real4 special_lj, const real4 special_coul,
                               const real min_r2, const real unit, const ulong cut_force_units,
                               const ulong cut_coul_units, const int per_atom,
                               __global out_t *force, __global out_t *eatom,
                               __global out_t *vatom, __global accs *facc, __global accs *eacc,
                               __global accs *vacc, __global part_t *partials,
                               volatile __global int *error)
{
    const int w = get_global_id(0);
    if (w >= nblocks)
        return;
    const int b = block_ids[block_first + w];
#if TALLY
    accv t_vdwl = ACC_ZERO, t_coul = ACC_ZERO, t0 = ACC_ZERO, t1 = ACC_ZERO, t2 = ACC_ZERO,
         t3 = ACC_ZERO, t4 = ACC_ZERO, t5 = ACC_ZERO;
#endif
    for (int ii = block_start[b]; ii < block_start[b + 1]; ii++) {
        const int i = ilist[ii];
        const pos4 pi = pos[i];
        float4 lo_i;
        const real qi = atom_charge(pos_lo, pi, i, &lo_i);
        const int ti = type[i];
        const int n = numnbr[ii], ngroups = (n + PAD - 1) / PAD;
        const int nsp_groups = sorted ? (nspecial_front[ii] + PAD - 1) / PAD : ngroups;
        __global const int *list = nbr + (size_t)(ii - list_first) * (size_t)astride;
        accv fx = ACC_ZERO, fy = ACC_ZERO, fz = ACC_ZERO;
#if TALLY
        accv a_e = ACC_ZERO, a0 = ACC_ZERO, a1 = ACC_ZERO, a2 = ACC_ZERO, a3 = ACC_ZERO,
             a4 = ACC_ZERO, a5 = ACC_ZERO;
#endif
        int8 next = ngroups > 0 ? vload8(0, list) : (int8)0;
        for (int g = 0; g < ngroups; g++) {
            const int8 packed = next;
            next = vload8(0, list + (size_t)min(g + 1, ngroups - 1) * (size_t)gstride);
#if HALF
            const int8 sj = gather_int(row_of, packed & INDEX_MASK);
#endif
            group_out o;
            if (g < nsp_groups)
                o = GROUP_TERMS(packed, 1);
            else
                o = GROUP_TERMS(packed, 0);
            const accv ax = to_accv(o.dx * o.fpair), ay = to_accv(o.dy * o.fpair),
                       az = to_accv(o.dz * o.fpair);
            fx = acc_add(fx, ax), fy = acc_add(fy, ay), fz = acc_add(fz, az);
#if TALLY
            accv ev = to_accv(o.evdwl), ec = to_accv(o.ecoul);
            accv v0 = to_accv(o.dx * o.dx * o.fpair), v1 = to_accv(o.dy * o.dy * o.fpair),
                 v2 = to_accv(o.dz * o.dz * o.fpair), v3 = to_accv(o.dx * o.dy * o.fpair),
                 v4 = to_accv(o.dx * o.dz * o.fpair), v5 = to_accv(o.dy * o.dz * o.fpair);
            if (per_atom) {
                a_e = acc_add(a_e, acc_add(ev, ec));
                a0 = acc_add(a0, v0), a1 = acc_add(a1, v1), a2 = acc_add(a2, v2);
                a3 = acc_add(a3, v3), a4 = acc_add(a4, v4), a5 = acc_add(a5, v5);
            }
#endif
#if HALF
            const int8 local_j = sj >= (int8)0;
            const int8 rows = select((int8)(spare_first + 8 * b) + (int8)(0, 1, 2, 3, 4, 5, 6, 7), sj, local_j);
#if PREC != 2
            sub_rows(facc, rows, o.dx * o.fpair, o.dy * o.fpair, o.dz * o.fpair);
#endif
            if (any(local_j)) {
                scatter_rows(facc, eacc, vacc, rows, per_atom, ax, ay, az
#if TALLY
                             , ev, ec, v0, v1, v2, v3, v4, v5
#endif
                );
#if TALLY
                ev = acc_weight(ev, local_j), ec = acc_weight(ec, local_j);
                v0 = acc_weight(v0, local_j), v1 = acc_weight(v1, local_j);
                v2 = acc_weight(v2, local_j), v3 = acc_weight(v3, local_j);
                v4 = acc_weight(v4, local_j), v5 = acc_weight(v5, local_j);
#endif
            }
#endif
#if TALLY
            t_vdwl = acc_add(t_vdwl, ev), t_coul = acc_add(t_coul, ec);
            t0 = acc_add(t0, v0), t1 = acc_add(t1, v1), t2 = acc_add(t2, v2);
            t3 = acc_add(t3, v3), t4 = acc_add(t4, v4), t5 = acc_add(t5, v5);
#endif
        }
#if HALF
        const size_t oi = (size_t)ii; /* its row */
#else
        const size_t oi = (size_t)order[i];
#endif
        store_force(force, facc, oi, fx, fy, fz);
#if TALLY
        if (per_atom)
            store_atom_tallies(eatom, vatom, eacc, vacc, oi, a_e, a0, a1, a2, a3, a4, a5);
#endif
    }
#if TALLY
    const acc1 tot[8] = {acc_sum(t_vdwl), acc_sum(t_coul), acc_sum(t0), acc_sum(t1),
                         acc_sum(t2),     acc_sum(t3),     acc_sum(t4), acc_sum(t5)};
    for (int k = 0; k < 8; k++)
        part_store(partials, (8 * (size_t)b + k) * PART_WIDTH, tot[k]);
#endif
}

#undef GROUP_TERMS

/* Half lists: the rows of local slots 0..nlocal-1 into the output streams
 * in the caller's order (double precision: the (integer, fraction) sums
 * rounded once). */
__kernel void charmm_half_finish(__global const accs *restrict facc,
                                 __global const accs *restrict eacc,
                                 __global const accs *restrict vacc,
                                 __global const int *restrict ilist,
                                 __global const int *restrict order, const int nlocal,
                                 const int per_atom, __global out_t *force,
                                 __global out_t *eatom, __global out_t *vatom)
{
    const int ii = get_global_id(0);
    if (ii >= nlocal)
        return;
    const size_t o = (size_t)order[ilist[ii]], r = (size_t)ii;
    for (int c = 0; c < 3; c++)
        force[4 * o + c] = acc_out(acc_load(facc, 4 * r + c));
    force[4 * o + 3] = 0;
    if (per_atom) {
        eatom[o] = acc_out(acc_load(eacc, r));
        for (int c = 0; c < 6; c++)
            vatom[6 * o + c] = acc_out(acc_load(vacc, 6 * r + c));
    }
}
