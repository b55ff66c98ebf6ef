/* lj/charmm/coul/long forces (LAMMPS's pair style of that name) over a
 * padded, blocked full neighbor list (see neighbor.cl).
 *
 * TPA lanes share one atom: lane l takes slots l, l+TPA, ...; the lanes are
 * combined in local memory by lane 0 in lane order. With TALLY the kernel
 * also sums energies and the virial per work-group (tree in local memory;
 * the host finishes in double with the 0.5 of full lists) and, when
 * per_atom is set, per-atom energy and virial.
 *
 * Options: PREC 0 single (float math and sums), 1 mixed, 2 double; TPA
 * 1|2|4|8|16|32; TALLY 0|1. Inputs are const restrict: NVIDIA then loads them
 * through the read-only (texture) path.
 *   single and mixed: positions are 32-bit fixed point (int4: x, y, z and
 *     the float bits of q), `unit` Angstrom per step, relative to an origin
 *     in the box. x_i - x_j is an exact integer difference (modulo 2^32,
 *     which the host makes wider than the box plus the cutoff), then one
 *     rounding to float: near the origin or far from it, the pair distance
 *     keeps float precision (the host picks unit ~3e-8 A for a 100 A box).
 *     One 16-byte gather per neighbor (it was two float4 gathers, x hi and
 *     lo, in the first version: the kernel is gather bound). The residuals
 *     (x - fixed x, ..., q - (float)q) are a separate float4 stream, uploaded
 *     and read only by the double pair math of mixed tallying steps, whose
 *     energies then see the exact double positions (the quantisation of
 *     ~1e-8 A alone moved E_vdwl of a water box by 5e-8 relative).
 *   mixed: force-only steps use float pair math and double sums; steps that
 *     tally energy/virial use (TALLY_DOUBLE) double pair math on the same
 *     streams, so energies and virial match the double reference to ~1e-12
 *     instead of float's ~1e-6.
 *   double: double math; sums in 64-bit fixed point (2^-32 units), which makes
 *     the result independent of summation order: identical bits for every
 *     TPA and chunking. */

#if PREC == 2 || (PREC == 1 && SCL_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#if PREC == 2 || (PREC == 1 && TALLY && TALLY_DOUBLE && SCL_FP64)
#define PAIR_DOUBLE 1
typedef double real;
typedef double4 real4;
#define EWALD_F 1.12837916709551257390 /* 2/sqrt(pi) */
#else
#define PAIR_DOUBLE 0
typedef float real;
typedef float4 real4;
#define EWALD_F 1.12837916709551257390f
#endif

#if PREC == 2
typedef double4 pos4;
/* (integer part, fraction in 2^-32 units): integer sums, the same bits in
 * any order; range to 2^63, so no force a double can hold is refused short
 * of FORCE_LIMIT (which only catches non-finite and absurd values) */
typedef long2 acc;
typedef double out_t;  /* forces and per-atom terms: the integer sums, rounded once */
typedef long part_t;   /* partials: (integer, fraction) pairs, summed on the host */
#define PART_WIDTH 2
#define POS_FIXED 0
#define FIXED_SCALE 4294967296.0
#define FORCE_LIMIT 1.0e15
inline acc to_acc(double v)
{
    const double h = floor(v);
    return (long2)(convert_long_sat(h), convert_long_sat_rte((v - h) * FIXED_SCALE));
}
inline out_t acc_out(acc a) { return (double)a.x + (double)a.y * (1.0 / FIXED_SCALE); }
#define TO_ACC(v) to_acc(v)
#elif PREC == 1 && SCL_FP64
typedef int4 pos4;
typedef double acc;
typedef double out_t;
typedef double part_t;
#define PART_WIDTH 1
#define POS_FIXED 1
#define TO_ACC(v) ((double)(v))
#define acc_out(a) (a)
#else
typedef int4 pos4;
typedef float acc;
typedef float out_t;
typedef float part_t;
#define PART_WIDTH 1
#define POS_FIXED 1
#define TO_ACC(v) (v)
#define acc_out(a) (a)
#endif

/* FSUM > 1 (mixed on fp64 devices, float pair math): each lane adds its
 * pair terms into float partial sums and moves them into the double
 * accumulators every FSUM pairs, instead of converting and adding in double
 * per pair (FP64 and the conversions run at a fraction of the FP32 rate on
 * most GPUs). A float sum of FSUM terms adds ~FSUM/2 ulps to each partial,
 * far below the 1e-6 the tests bound. The tuner picks FSUM per device. */
#ifndef FSUM
#define FSUM 1
#endif
#ifndef PIPE
#define PIPE 0
#endif
#ifndef SAME_CUTS /* (host: Coulomb cutoff = LJ cutoff; see CUTOFF_TESTS) */
#define SAME_CUTS 0
#endif
#ifndef LJ0_ONE /* (host: special_lj[0] is 1; see pair_terms) */
#define LJ0_ONE 0
#endif
#define TALLY_DUE() 1
#if PREC == 1 && SCL_FP64 && !PAIR_DOUBLE && FSUM > 1
#define PARTIALS 1
#define ADD(total, part, v) (part) += (v)
#else
#define PARTIALS 0
#define ADD(total, part, v) (total) += TO_ACC(v)
#endif

#if POS_FIXED && !PAIR_DOUBLE
#define DELTA_UNITS 1
#else
#define DELTA_UNITS 0
#endif /* see pair_delta */

#define INDEX_MASK 0x3fffffff
#define KIND_SHIFT 30
#define PAD 8

#if PAIR_DOUBLE
inline real erfc_and_exp(real x2, real x, real *expm2)
{
    *expm2 = exp(-x2);
    return erfc(x);
}
#else
/* erfc(x) = exp(-x^2) R(x), R(x) = t P(t), t = 1/(1 + 0.42 x), P of degree
 * 7: a weighted least-squares (Lawson) fit with relative error 3.4e-8 on
 * [0, 6] (3.5e-7 max, 8.8e-8 RMS when evaluated in float, as the earlier
 * degree-9 fit with t = 1/(1 + 0.6 x): 3.2e-7 / 7.4e-8; two FMAs fewer),
 * instead of the A&S 7.1.26 polynomial (2e-4 relative near a typical
 * cutoff). exp(-x^2) is shared with the force term: *expm2 = 2^-(x2 log2 e)
 * from x2l = x^2 log2(e). native_recip and native_exp2 (one instruction
 * each on NVIDIA GPUs, ~1-2 ulp) instead of the correctly rounded division
 * (~9 with its range check) and exp (~8): their errors stay below the float
 * rounding of x^2 that the argument already carries. */
inline float erfc_and_exp(float x2l, float x, float *expm2)
{
    const float t = native_recip(1.0f + 0.42f * x);
    float p = 7.619152218e-02f;
    p = p * t - 3.458625078e-01f;
    p = p * t + 4.864274263e-01f;
    p = p * t - 1.745031178e-01f;
    p = p * t + 2.932406664e-01f;
    p = p * t + 1.868324727e-01f;
    p = p * t + 2.409459203e-01f;
    p = p * t + 2.367276400e-01f;
    *expm2 = native_exp2(-x2l);
    return *expm2 * (t * p);
}

/* For excluded pairs at small x = g r the Coulomb force factor
 * erfc(x) + EWALD_F x exp(-x^2) - 1 cancels to ~x^3 in float. Its terms from
 * the Taylor series instead: erf(x) = x sum_n a_n x^2n and
 * G(x) = erf(x) - EWALD_F x exp(-x^2) = x^3 sum_n b_n x^2(n-1), with
 * a_n = EWALD_F (-1)^n / (n! (2n+1)), b_n = EWALD_F (-1)^(n+1) 2n / (n! (2n+1)),
 * n <= 12: relative 4e-10 for x < 1 (in double). Horner in x^2: 25 FMAs; the
 * term-by-term loop it replaces divided by n in each of 14 steps (a
 * correctly rounded division each, ~170 instructions for a pair that every
 * lane of a warp waits for in phase 0). */
inline float erf_series(float x2, float x, float *g)
{
    float e = 9.422759065e-11f;
    e = e * x2 - 1.229055530e-09f;
    e = e * x2 + 1.480719282e-08f;
    e = e * x2 - 1.636584469e-07f;
    e = e * x2 + 1.646211437e-06f;
    e = e * x2 - 1.492565036e-05f;
    e = e * x2 + 1.205533298e-04f;
    e = e * x2 - 8.548327023e-04f;
    e = e * x2 + 5.223977625e-03f;
    e = e * x2 - 2.686617065e-02f;
    e = e * x2 + 1.128379167e-01f;
    e = e * x2 - 3.761263890e-01f;
    e = e * x2 + 1.128379167e+00f;
    float b = -2.261462176e-09f;
    b = b * x2 + 2.703922166e-08f;
    b = b * x2 - 2.961438563e-07f;
    b = b * x2 + 2.945852044e-06f;
    b = b * x2 - 2.633938299e-05f;
    b = b * x2 + 2.089591050e-04f;
    b = b * x2 - 1.446639958e-03f;
    b = b * x2 + 8.548327023e-03f;
    b = b * x2 - 4.179182100e-02f;
    b = b * x2 + 1.611970239e-01f;
    b = b * x2 - 4.513516668e-01f;
    b = b * x2 + 7.522527781e-01f;
    *g = x * x2 * b;
    return x * e;
}
#endif

inline real pick(real4 v, int k) { return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w; }

/* Raise the error flag once (the first pair wins): code, atom ii, neighbor j. */
inline void report(volatile __global int *error, int code, int ii, int j)
{
    if (atomic_cmpxchg(error, 0, code) == 0) {
        error[1] = ii;
        error[2] = j;
    }
}

/* x_i - x_j of fixed-point coordinates (modular: see the top). */
inline real fixed_delta(int a, int b, real unit)
{
    return (real)as_int((uint)a - (uint)b) * unit;
}

/* The accumulators of a force kernel (after `lid` and `wg`): forces fx..
 * and their float partials pfx.., and with TALLY energies and virial.
 * Mixed tallying kernels with float partial sums (PARTIALS; LOCAL_SUMS)
 * keep all double sums of a work-item in local memory, one record of
 * LOCAL_REC doubles each (rec = scratch + LOCAL_REC lid: tallies 0..7,
 * forces 8..10, which finish_atom reads there: 11 wg doubles of scratch,
 * within the 12 wg of the other modes), flushed there every FSUM pairs: in registers the 8
 * tally sums took 30 more registers (86-90 against 56 force-only: clang ->
 * PTX -> ptxas -v, sm_90), 21 instead of 36 warps per SM; the earlier
 * [k wg + lid] layout kept one address register per tally (76-78). One
 * base address, the forces there too, and an odd record (11 doubles: the
 * 16 lanes of a half-warp hit distinct banks) leave the float partials as
 * the only per-pair sums in registers; volatile keeps the flush one
 * load-add-store at a time (else the compiler loads all 11 doubles at
 * once: 22 registers at that point). Proxy count (clang 14 -> PTX ->
 * ptxas sm_90): tallying kernel 94 -> 64-72 registers (by pipe), force-only
 * 58-62 (pipe 0, 1); the H200's tally / force-only went 1.30 -> 1.145.
 * Otherwise the tallies are
 * registers (single: 8 floats; double: integer sums per pair), copied to
 * scratch + 4 wg at [k wg + lid] at the end (SUMS_TO_LOCAL) for
 * finish_atom. TAL_AT(k, w): tally k of work-item w there. */
#if TALLY && PARTIALS
#define LOCAL_SUMS 1
#define LOCAL_REC 11
#define TAL_AT(tal, k, w) (tal)[(w) * LOCAL_REC + (k)]
#define TALLY_BASE 0 /* the records from scratch[0]: no force area (FORCE_AT) */
#define FORCE_AT(w, c) scratch[(w) * LOCAL_REC + 8 + (c)]
#else
#define LOCAL_SUMS 0
#define TAL_AT(tal, k, w) (tal)[(k) * wg + (w)]
#define TALLY_BASE (4 * wg)
#define FORCE_AT(w, c) scratch[4 * (w) + (c)]
#endif
#define FORCE_ACCUMULATORS() acc fx = 0, fy = 0, fz = 0; float pfx = 0, pfy = 0, pfz = 0
#define TALLY_PARTIALS() float pev = 0, pec = 0, pv0 = 0, pv1 = 0, pv2 = 0, pv3 = 0, pv4 = 0, pv5 = 0
#if !TALLY
#define TALLY_ACCUMULATORS() FORCE_ACCUMULATORS()
#define FLUSH_SUMS() fx += pfx, fy += pfy, fz += pfz
#define SUMS_TO_LOCAL() (void)0
#elif LOCAL_SUMS
#define TALLY_ACCUMULATORS()                                                                   \
    FORCE_ACCUMULATORS();                                                                      \
    TALLY_PARTIALS();                                                                          \
    volatile __local acc *rec = scratch + LOCAL_REC * lid;                                     \
    for (int k = 0; k < LOCAL_REC; k++)                                                        \
    rec[k] = 0
/* the tallies when TALLY_DUE() (charmm_force: every 32 pairs of the lane,
 * whose float partials then hold up to 32 pair terms, the lane's pair count
 * from its slot s, no counter; else every flush), the forces every flush */
#define FLUSH_TALLIES()                                                                        \
    rec[0] += pev, rec[1] += pec, rec[2] += pv0, rec[3] += pv1, rec[4] += pv2, rec[5] += pv3,  \
        rec[6] += pv4, rec[7] += pv5, pev = pec = pv0 = pv1 = pv2 = pv3 = pv4 = pv5 = 0
#define FLUSH_SUMS()                                                                           \
    rec[8] += pfx, rec[9] += pfy, rec[10] += pfz;                                              \
    if (TALLY_DUE())                                                                           \
    FLUSH_TALLIES()
#define SUMS_TO_LOCAL() FLUSH_TALLIES() /* (finish_atom reads the forces there: FORCE_AT) */
#else
#define TALLY_ACCUMULATORS()                                                                   \
    FORCE_ACCUMULATORS();                                                                      \
    TALLY_PARTIALS();                                                                          \
    acc e_vdwl = 0, e_coul = 0, v0 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0, v5 = 0
#define FLUSH_SUMS()                                                                           \
    fx += pfx, fy += pfy, fz += pfz, e_vdwl += pev, e_coul += pec, v0 += pv0, v1 += pv1,       \
        v2 += pv2, v3 += pv3, v4 += pv4, v5 += pv5, pev = pec = pv0 = pv1 = pv2 = pv3 = pv4 =  \
                                                        pv5 = 0
#define SUMS_TO_LOCAL()                                                                        \
    scratch[4 * wg + lid] = e_vdwl, scratch[5 * wg + lid] = e_coul,                            \
    scratch[6 * wg + lid] = v0, scratch[7 * wg + lid] = v1, scratch[8 * wg + lid] = v2,        \
    scratch[9 * wg + lid] = v3, scratch[10 * wg + lid] = v4, scratch[11 * wg + lid] = v5
#endif
/* After the last FLUSH_ALL: the sums of unit-deltas into Angstrom
 * (DELTA_UNITS): forces times unit, virial times unit^2 (exact). */
#if !DELTA_UNITS
#define SCALE_SUMS() (void)0
#elif !TALLY
#define SCALE_SUMS() fx *= unit, fy *= unit, fz *= unit
#elif LOCAL_SUMS
#define SCALE_SUMS()                                                                           \
    for (int k = 2; k < 8; k++)                                                                \
    rec[k] *= unit * unit;                                                                     \
    for (int k = 8; k < 11; k++)                                                               \
    rec[k] *= unit
#else
#define SCALE_SUMS()                                                                           \
    fx *= unit, fy *= unit, fz *= unit, v0 *= unit * unit, v1 *= unit * unit,                  \
        v2 *= unit * unit, v3 *= unit * unit, v4 *= unit * unit, v5 *= unit * unit
#endif
#if PARTIALS
#define FLUSH_ALL()                                                                            \
    do {                                                                                       \
        FLUSH_SUMS();                                                                          \
        pfx = pfy = pfz = 0;                                                                   \
    } while (0)
#define FLUSH_EVERY FSUM
#else /* ADD went to the totals */
#define FLUSH_ALL() (void)0
#define FLUSH_EVERY 0x40000000
#endif
/* The end of the pair loop, after the last FLUSH_ALL: fx.. and the
 * tallies in place for finish_atom. */
#if LOCAL_SUMS
#define FINISH_SUMS()                                                                          \
    SUMS_TO_LOCAL();                                                                           \
    SCALE_SUMS()
#else
#define FINISH_SUMS()                                                                          \
    SCALE_SUMS();                                                                              \
    SUMS_TO_LOCAL()
#endif

/* x_i - x_j (x, y, z) and q_j (w) from the packed positions pi, pj of
 * atoms i and j (mixed with double pair math adds the residuals lo_i and
 * pos_lo[j]); with pj = pi, w is q_i.
 * DELTA_UNITS (fixed-point positions, float pair math): x, y, z in units
 * of `unit`, not Angstrom. unit is a power of two, so scaling by it is
 * exact: r^2 is (dx^2 + dy^2 + dz^2) unit^2 with the same bits as from
 * Angstrom deltas, and the force and virial sums of unit-deltas times
 * unit (unit^2) at the end (SCALE_SUMS) are the same bits too; two
 * multiplications per pair fewer. */
inline real4 pair_delta(const pos4 pi, const pos4 pj, const float4 lo_i,
                        __global const float4 *restrict pos_lo, const int j, const real unit)
{
#if POS_FIXED && PAIR_DOUBLE
    const float4 lo_j = pos_lo[j];
    return (real4)(fixed_delta(pi.x, pj.x, unit) + ((real)lo_i.x - (real)lo_j.x),
                   fixed_delta(pi.y, pj.y, unit) + ((real)lo_i.y - (real)lo_j.y),
                   fixed_delta(pi.z, pj.z, unit) + ((real)lo_i.z - (real)lo_j.z),
                   (real)as_float(pj.w) + (real)lo_j.w);
#elif POS_FIXED /* in units (DELTA_UNITS) */
    (void)lo_i, (void)pos_lo, (void)j, (void)unit;
    return (real4)((float)as_int((uint)pi.x - (uint)pj.x), (float)as_int((uint)pi.y - (uint)pj.y),
                   (float)as_int((uint)pi.z - (uint)pj.z), as_float(pj.w));
#else
    (void)lo_i, (void)pos_lo, (void)j, (void)unit;
    return (real4)(pi.x - pj.x, pi.y - pj.y, pi.z - pj.z, pj.w);
#endif
}

/* A pair's force (and with TALLY energy and virial) into the accumulators
 * of the force kernels (fx.., e_vdwl.., v0..v5, their float partials) */
#if TALLY
#if PAIR_DOUBLE /* (the bits of the cpu kind's sums) */
#define ADD_PAIR(dx, dy, dz, fpair, ecoul, philj)                                              \
    ADD(fx, pfx, (dx) * (fpair)), ADD(fy, pfy, (dy) * (fpair)), ADD(fz, pfz, (dz) * (fpair)),  \
        ADD(e_vdwl, pev, philj), ADD(e_coul, pec, ecoul),                                      \
        ADD(v0, pv0, (dx) * (dx) * (fpair)), ADD(v1, pv1, (dy) * (dy) * (fpair)),              \
        ADD(v2, pv2, (dz) * (dz) * (fpair)), ADD(v3, pv3, (dx) * (dy) * (fpair)),              \
        ADD(v4, pv4, (dx) * (dz) * (fpair)), ADD(v5, pv5, (dy) * (dz) * (fpair))
#else /* the virial from the force components: one FMA per product; the
       * force sums as in the force-only kernel (fused multiply-add: the same
       * bits on tallying and plain steps) */
#define ADD_PAIR(dx, dy, dz, fpair, ecoul, philj)                                              \
    const real fdx = (dx) * (fpair), fdy = (dy) * (fpair), fdz = (dz) * (fpair);               \
    ADD(fx, pfx, (dx) * (fpair)), ADD(fy, pfy, (dy) * (fpair)), ADD(fz, pfz, (dz) * (fpair)),  \
        ADD(e_vdwl, pev, philj), ADD(e_coul, pec, ecoul), ADD(v0, pv0, (dx) * fdx),            \
        ADD(v1, pv1, (dy) * fdy),                                                              \
        ADD(v2, pv2, (dz) * fdz), ADD(v3, pv3, (dy) * fdx), ADD(v4, pv4, (dz) * fdx),          \
        ADD(v5, pv5, (dz) * fdy)
#endif
#else
#define ADD_PAIR(dx, dy, dz, fpair, ecoul, philj)                                              \
    ADD(fx, pfx, (dx) * (fpair)), ADD(fy, pfy, (dy) * (fpair)), ADD(fz, pfz, (dz) * (fpair)),  \
        (void)(ecoul), (void)(philj)
#endif

/* The terms of one pair at r2 (inside the force cutoff, beyond min_r2):
 * returns fpair (force / r), the pair's Coulomb and LJ energies in *ecoul_out
 * and *philj_out. kind: 0, or the special kind (1-2, 1-3, 1-4 partner). */
inline real pair_terms(const real r2, const int in_coul, const int kind, const real qi,
                       const real qj, __global const real4 *restrict ljc, const int lj_row,
                       const int tj, const real g_ewald,
                       const real qqrd2e, const real cut_ljsq, const real cut_lj_innersq,
                       const real inv_denom_lj, const real4 special_lj, const real4 special_coul,
                       real *ecoul_out, real *philj_out)
{
    const real g2 = g_ewald * g_ewald;
#if PAIR_DOUBLE
    const real r2inv = (real)1 / r2;
    const real x2e = g2 * r2; /* erfc_and_exp's argument */
#else
    /* native_recip with one Newton step: ~0.5 ulp like the division (the
     * LJ terms take r2inv to the 7th power) in 3 instructions instead of
     * ~9 with the division's range check (r2 >= min_r2 > 0 here) */
    const real r2inv_0 = native_recip(r2);
    const real r2inv = fma(r2inv_0, fma(-r2, r2inv_0, 1.0f), r2inv_0);
    const real x2e = g2 * M_LOG2E_F * r2;
#endif
    real forcecoul = 0, ecoul = 0, forcelj = 0, philj = 0;
    if (in_coul) {
#if PAIR_DOUBLE
        const real rinv = (real)1 / sqrt(r2);
#else
        /* one instruction for sqrt and 1/r: native_rsqrt is the same MUFU.RSQ
         * as rsqrt on NVIDIA GPUs without rsqrt's denormal scaling (4
         * instructions; r2 >= min_r2 here) */
        const real rinv = native_rsqrt(r2);
#endif
        const real r = r2 * rinv, grij = g_ewald * r;
        real expm2;
        const real erfc_g = erfc_and_exp(x2e, grij, &expm2);
        const real prefactor = qqrd2e * qi * qj * rinv;
        const real keep = kind ? pick(special_coul, kind) : (real)1;
#if !PAIR_DOUBLE
        if (kind && grij < 1.0f) { /* see erf_series */
            float g;
            const float erf_g = erf_series(g2 * r2, grij, &g);
            forcecoul = prefactor * (keep - g);
            ecoul = prefactor * (keep - erf_g);
        } else
#endif
        {
            forcecoul = prefactor * (erfc_g + EWALD_F * grij * expm2);
            ecoul = prefactor * erfc_g;
            if (kind) { /* the excluded part of the undamped Coulomb term */
                forcecoul -= ((real)1 - keep) * prefactor;
                ecoul -= ((real)1 - keep) * prefactor;
            }
        }
    }
    if (SAME_CUTS || r2 < cut_ljsq) {
        const real4 c = ljc[lj_row + tj];
        const real r6inv = r2inv * r2inv * r2inv;
        forcelj = r6inv * (c.x * r6inv - c.y);
        philj = r6inv * (c.z * r6inv - c.w);
        if (r2 > cut_lj_innersq) {
            const real d = cut_ljsq - r2;
            const real switch1 =
                d * d * (cut_ljsq + (real)2 * r2 - (real)3 * cut_lj_innersq) * inv_denom_lj;
            const real switch2 = (real)12 * r2 * d * (r2 - cut_lj_innersq) * inv_denom_lj;
            forcelj = forcelj * switch1 + philj * switch2;
            philj *= switch1;
        }
        if (!(LJ0_ONE && kind == 0)) { /* (kind 0 at compile time: no multiplies) */
            const real factor_lj = pick(special_lj, kind);
            forcelj *= factor_lj;
            philj *= factor_lj;
        }
    }
    *ecoul_out = ecoul;
    *philj_out = philj;
    return (forcecoul + forcelj) * r2inv;
}

#if POS_FIXED
/* Exact squared distance of fixed-point positions in units^2 (< 3 * 2^62:
 * fits ulong; modular differences, see the top). */
inline ulong fixed_r2(const pos4 a, const pos4 b)
{
    const int ix = as_int((uint)a.x - (uint)b.x), iy = as_int((uint)a.y - (uint)b.y),
              iz = as_int((uint)a.z - (uint)b.z);
    return (ulong)((long)ix * ix) + (ulong)((long)iy * iy) + (ulong)((long)iz * iz);
}
#endif

#if POS_FIXED && !PAIR_DOUBLE
/* Cutoff tests of a pair at float r2 (fixed-point positions pi, pj:
 * CUTOFF_TESTS below), whether inside the force cutoff and whether inside
 * the Coulomb one. The
 * unshifted Coulomb force jumps by ~5e-3 kcal/mol/A at the cutoff: float r2
 * (rounding ~1.5e-5 A^2 at 10 A) put ~0.6 pairs per step of a 32k-atom
 * system on the other side of it than the double reference, which alone
 * made the RMS force error 3e-6 on some steps (rhodo step 100, on the H200
 * and on PoCL alike). So the exact squared distance of the fixed-point
 * positions decides, in units^2 against ceil(cutoff^2 / unit^2) from the
 * host, wherever float could be wrong: float r2 is within 4e-7 relative of
 * it (one rounding of each integer difference, of each square and of two
 * sums, all terms positive), so outside [band_lo, cut_hi) (1e-6 around the
 * force cutoff, and from below the Coulomb cutoff up when it is shorter)
 * the float compares decide and the 64-bit products are skipped. */
#define CUT_BAND_HI 1.000001f
#define CUT_BAND_LO 0.999999f
#endif

/* The rest of a force kernel's step over pair (i, j) once pj, dx, dy, dz,
 * qj and kind are known: cutoff tests (skip: continue), the too-close
 * check, the pair terms and their sums (charmm_force's names).
 * SAME_CUTS (host: Coulomb and LJ cutoffs equal, as in rhodo): every pair
 * inside the force cutoff is inside both, no per-pair tests of either.
 * With fixed-point positions the too-close check shares the rare branch
 * of the band below the cutoff (see above). */
/* LJ0_ONE (host: special_lj[0] is 1, as LAMMPS always has it): plain pairs
 * skip the factor. */
#if POS_FIXED && !PAIR_DOUBLE
#define CUTOFF_TESTS()                                                                         \
    if (r2 >= cut_hi)                                                                          \
        continue;                                                                              \
    int in_coul = SAME_CUTS || r2 < cut_coulsq;                                                \
    if (r2 > band_lo || r2 < min_r2) { /* rare */                                              \
        if (r2 < min_r2) {                                                                     \
            report(error, 1, ii, j);                                                           \
            continue;                                                                          \
        }                                                                                      \
        const ulong r2_units = fixed_r2(pi, pj);                                               \
        if (r2_units >= cut_force_units)                                                       \
            continue;                                                                          \
        in_coul = SAME_CUTS || r2_units < cut_coul_units;                                      \
    }
#else
#define CUTOFF_TESTS()                                                                         \
    if (r2 >= cut_forcesq)                                                                     \
        continue;                                                                              \
    const int in_coul = SAME_CUTS || r2 < cut_coulsq;                                          \
    if (r2 < min_r2) {                                                                         \
        report(error, 1, ii, j);                                                               \
        continue;                                                                              \
    }
#endif
#if PREC == 2
#define CHECK_FORCE() if (!(fabs(fpair) * sqrt(r2) < FORCE_LIMIT)) report(error, 2, ii, j)
#else
#define CHECK_FORCE() (void)0
#endif
#define PAIR_STEP(tj)                                                                          \
    const real r2 = DELTA_UNITS ? (dx * dx + dy * dy + dz * dz) * (unit * unit)               \
                                : dx * dx + dy * dy + dz * dz;                                 \
    CUTOFF_TESTS();                                                                            \
    real ecoul, philj;                                                                         \
    const real fpair = pair_terms(r2, in_coul, kind, qi, qj, ljc, ti * ntypes, tj,             \
                                  g_ewald, qqrd2e, cut_ljsq, cut_lj_innersq, inv_denom_lj,     \
                                  special_lj, special_coul, &ecoul, &philj);                   \
    CHECK_FORCE();                                                                             \
    ADD_PAIR(dx, dy, dz, fpair, ecoul, philj)

/* The end of a force kernel: the TPA lanes of each atom (lid - lane ..
 * lid - lane + TPA - 1) summed by lane 0 in lane order into the atom's force
 * (and per-atom terms), at the caller's index order[i]; with TALLY the
 * work-group's sums of tallies (e_vdwl, e_coul, virial) into partials at
 * group. Every work-item of the group calls it (barriers). */
inline void finish_atom(__local acc *scratch, const int lid, const int wg, const int lane,
                        const int active, __global const int *restrict order, const int i,
                        const acc fx, const acc fy, const acc fz, const int per_atom,
                        __global out_t *force, __global part_t *partials,
                        __global out_t *eatom, __global out_t *vatom, const size_t group)
{
    /* lanes -> atom in lane order, component c by lane c (c = lane, lane +
     * TPA, ..: lanes 0-2 in parallel from TPA 4 up; it was lane 0 for all
     * three, 6 TPA dependent instructions of one lane per atom: ~17% of a
     * TPA 32 warp's issue at rhodo's 16 pairs per lane). Same order, same
     * bits. */
#if LOCAL_SUMS /* (already in the records: FORCE_AT) */
    (void)fx, (void)fy, (void)fz;
#else
    scratch[4 * lid] = fx;
    scratch[4 * lid + 1] = fy;
    scratch[4 * lid + 2] = fz;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    if (active) {
        const int first = lid - lane;
        /* the caller's order: the host adds them without a permutation */
        const int o = lane < 4 ? order[i] : 0;
        for (int c = lane; c < 4; c += TPA) {
            acc sum = 0;
            for (int l = 0; l < TPA && c < 3; l++)
                sum += FORCE_AT(first + l, c);
            force[4 * o + c] = acc_out(sum);
        }
    }
#if TALLY
    __local acc *tal = scratch + TALLY_BASE; /* the tallies (FINISH_SUMS), seen after the barrier above */
    if (per_atom && lane == 0 && active) {
        acc sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int l = 0; l < TPA; l++)
            for (int k = 0; k < 8; k++)
                sum[k] += TAL_AT(tal, k, lid + l);
        const int o = order[i];
        eatom[o] = acc_out(sum[0] + sum[1]);
        for (int k = 0; k < 6; k++)
            vatom[6 * o + k] = acc_out(sum[2 + k]);
    }
    /* the work-group's sums: work-item (k, m) adds tally k of work-items m,
     * m + wg / 8, .. into its own slot m, then work-item k adds the wg / 8
     * slots: 2 barriers instead of the tree's log2(wg) (8 at wg 256), and
     * all lanes busy in the first pass. (k, m) is read by its owner only. */
    const int slices = wg >= 8 ? wg / 8 : wg;
    barrier(CLK_LOCAL_MEM_FENCE); /* (the per-atom sums above read them) */
    if (wg >= 8) {
        const int k = lid & 7, m = lid >> 3;
        acc v = 0;
        for (int w = m; w < wg; w += slices)
            v += TAL_AT(tal, k, w);
        TAL_AT(tal, k, m) = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = lid; k < 8; k += wg) {
        acc v = 0;
        for (int m = 0; m < slices; m++)
            v += TAL_AT(tal, k, m);
        const size_t at = (8 * (size_t)group + k) * PART_WIDTH;
#if PREC == 2 /* carry the fraction's whole units over: both parts stay small */
        partials[at] = v.x + (v.y >> 32);
        partials[at + 1] = v.y & 0xffffffffL;
#else
        partials[at] = v;
#endif
    }
#endif
}

__kernel void charmm_force(__global const pos4 *restrict pos,
                           __global const float4 *restrict pos_lo,
                           __global const int *restrict type, __global const int *restrict ilist,
                           __global const int *restrict order,
                           __global const int *restrict nbr, __global const int *restrict numnbr,
                           __global const int *restrict nspecial_front, const int sorted,
                           __global const real4 *restrict ljc, const int ntypes,
                           const real cut_forcesq, const real cut_coulsq, const real cut_ljsq,
                           const real cut_lj_innersq, const real inv_denom_lj, const real qqrd2e,
                           const real g_ewald, const real4 special_lj, const real4 special_coul,
                           const real min_r2, const real unit, const ulong cut_force_units,
                           const ulong cut_coul_units, const int first, const int count,
                           const int group_base, const int per_atom, __global out_t *force,
                           __global part_t *partials, __global out_t *eatom, __global out_t *vatom,
                           volatile __global int *error, __local acc *scratch)
{
    const int gid = get_global_id(0), lid = get_local_id(0), wg = get_local_size(0);
    const int lane = gid % TPA, a = gid / TPA;
    const int active = a < count;
    const int ii = first + (active ? a : 0);
    const int i = ilist[ii];
    const pos4 pi = pos[i];
#if POS_FIXED && PAIR_DOUBLE
    const float4 lo_i = pos_lo[i];
#else
    const float4 lo_i = (float4)(0.0f);
#endif
    const real qi = pair_delta(pi, pi, lo_i, pos_lo, i, unit).w;
    const int ti = type[i];
#if POS_FIXED && !PAIR_DOUBLE
    const real cut_hi = cut_forcesq * CUT_BAND_HI, band_lo = min(cut_forcesq, cut_coulsq) * CUT_BAND_LO;
#endif
    const size_t stride = (size_t)count * PAD;
    const int npad = active ? (numnbr[ii] + PAD - 1) / PAD * PAD : 0;
    TALLY_ACCUMULATORS();
    /* Sorted (pruned) lists hold their special pairs first: phase 0 runs the
     * general code over those, phase 1 the rest with kind 0 known at compile
     * time (no special factors, no erf series branch). With ~4% special
     * pairs spread over the list, nearly every warp step had some lane take
     * the series branch, which the others then waited for. Unsorted lists
     * run everything in phase 0. */
    const int nsp = !active ? 0 : sorted ? min(nspecial_front[ii], npad) : npad;
    int s = lane;
    /* the lane's list entries: blocks of PAD slots, block b of atom a at
     * b * stride + a * PAD. With TPA >= PAD a lane stays at slot lane % PAD
     * of every (TPA / PAD)-th block: a pointer step per pair instead of
     * 64-bit index arithmetic (~12 instructions on sm_90) */
#if TPA >= PAD
    __global const int *restrict next = nbr + (size_t)(lane / PAD) * stride + (size_t)a * PAD + lane % PAD;
    const size_t next_step = (size_t)(TPA / PAD) * stride;
#define NBR_FETCH(slot) (*next) /* (next is at slot) */
#define NBR_ADVANCE() (next += next_step)
#else
#define NBR_FETCH(slot) nbr[(size_t)((uint)(slot) / PAD) * stride + (size_t)a * PAD + (uint)(slot) % PAD]
#define NBR_ADVANCE() (void)0
#endif
#define NBR_ENTRY() NBR_FETCH(s)
#define NBR_STEP() (s += TPA, NBR_ADVANCE())
    /* FSUM pairs into the float partials, then one move into the totals
     * (FLUSH_ALL) outside the inner loop: no per-pair counter or
     * predicated flush; the tallies every 32 pairs (s / TPA: the lane's
     * pairs so far) */
#undef TALLY_DUE
#define TALLY_DUE() ((((uint)s / TPA) & 31) < FSUM)
#if PIPE
#define LAST_PHASE 0
#else
#define LAST_PHASE 1
#endif
#pragma unroll
    for (int phase = 0; phase <= LAST_PHASE; phase++) {
        const int end = phase == 0 ? nsp : npad;
        while (s < end) {
            for (int f = 0; f < FLUSH_EVERY && s < end; f++, NBR_STEP()) {
                const int packed = NBR_ENTRY();
                const int j = packed & INDEX_MASK;
                const int kind = phase == 0 ? (packed >> KIND_SHIFT) & 3 : 0;
                const pos4 pj = pos[j];
                const real4 d = pair_delta(pi, pj, lo_i, pos_lo, j, unit);
                const real dx = d.x, dy = d.y, dz = d.z, qj = d.w;
                PAIR_STEP(type[j]);
            }
            FLUSH_ALL();
        }
    }
#undef LAST_PHASE
/* The start of a pipelined loop: the entry e0 of slot s with its position
 * p0 and type t0, the entry e1 of slot s + TPA; the list pointer then at
 * s + 2 TPA. */
#define PIPE_START(e0, p0, t0, e1)                                                             \
    if (s < npad) {                                                                            \
        e0 = NBR_FETCH(s);                                                                     \
        p0 = pos[(e0) & INDEX_MASK];                                                           \
        t0 = type[(e0) & INDEX_MASK];                                                          \
    }                                                                                          \
    NBR_ADVANCE();                                                                             \
    if (s + TPA < npad)                                                                        \
        e1 = NBR_FETCH(s + TPA);                                                               \
    NBR_ADVANCE()
#if PIPE == 1
    /* PIPE: phase 1 software-pipelined. A lane's loop is a chain of
     * dependent loads (list entry from DRAM or L2, then position and type
     * of j, then the LJ row): here the entry two slots ahead and the
     * position and type of the next slot are loaded one iteration before
     * they are used, so their latencies overlap a pair's math instead of
     * adding to it (~4 more registers). The list pointer (NBR_FETCH,
     * NBR_ADVANCE) runs two slots ahead of s. A plan value: the tuner times
     * pipe 0, 1 and 2 (H200, rhodo 32k mixed: 0.135 / 0.097 / 0.103 ms,
     * -28% at the same instruction count: the loop was latency-bound). */
    {
        int e_cur = 0, e_next = 0, t_cur = 0;
        pos4 p_cur = pi;
        PIPE_START(e_cur, p_cur, t_cur, e_next);
        while (s < npad) {
            for (int f = 0; f < FLUSH_EVERY && s < npad; f++) {
                const int packed = e_cur, tj = t_cur;
                const pos4 pj = p_cur;
                const int j = packed & INDEX_MASK, kind = 0;
                /* (past the end e_next is still a valid index: no guard) */
                p_cur = pos[e_next & INDEX_MASK];
                t_cur = type[e_next & INDEX_MASK];
                e_cur = e_next;
                if (s + 2 * TPA < npad)
                    e_next = NBR_FETCH(s + 2 * TPA);
                NBR_STEP();
                const real4 d = pair_delta(pi, pj, lo_i, pos_lo, j, unit);
                const real dx = d.x, dy = d.y, dz = d.z, qj = d.w;
                PAIR_STEP(tj);
            }
            FLUSH_ALL();
        }
    }
#endif
#if PIPE == 2
    /* PIPE 2: the pipelined loop of PIPE 1 unrolled twice, the two register
     * sets (x: slot s, y: slot s + TPA) taking turns, so that nothing is
     * copied between iterations (PIPE 1 spends ~6 moves per pair on that).
     * PIPE_HALF(use, load): the pair of set `use` (its position, type and
     * entry), the position and type of the next slot into set `load` from
     * its entry, and the entry two slots ahead into `use`; do-while(0), so
     * that the cutoff's `continue` ends only this half. */
    {
        int ex = 0, ey = 0, tx = 0, ty = 0;
        pos4 px = pi, py = pi;
        PIPE_START(ex, px, tx, ey);
#define PIPE_HALF(pu, tu, eu, pl, tl, el)                                                      \
    do {                                                                                       \
        const pos4 pj = pu;                                                                    \
        const int tj = tu, j = (eu) & INDEX_MASK, kind = 0;                                    \
        pl = pos[(el) & INDEX_MASK];                                                           \
        tl = type[(el) & INDEX_MASK];                                                          \
        if (s + 2 * TPA < npad)                                                                \
            eu = NBR_FETCH(s + 2 * TPA);                                                       \
        NBR_STEP();                                                                            \
        const real4 d = pair_delta(pi, pj, lo_i, pos_lo, j, unit);                             \
        const real dx = d.x, dy = d.y, dz = d.z, qj = d.w;                                     \
        PAIR_STEP(tj);                                                                         \
    } while (0)
        while (s < npad) {
            for (int f = 0; f < FLUSH_EVERY && s < npad; f += 2) {
                PIPE_HALF(px, tx, ex, py, ty, ey);
                if (s < npad)
                    PIPE_HALF(py, ty, ey, px, tx, ex);
            }
            FLUSH_ALL();
        }
#undef PIPE_HALF
    }
#endif
#undef PIPE_START
#undef TALLY_DUE
#define TALLY_DUE() 1
#undef NBR_FETCH
#undef NBR_ADVANCE
#undef NBR_ENTRY
#undef NBR_STEP
    (void)pfx, (void)pfy, (void)pfz;

    FINISH_SUMS();
    finish_atom(scratch, lid, wg, lane, active, order, i, fx, fy, fz, per_atom, force,
                partials, eatom, vatom, group_base + get_group_id(0));
}

/* Forces over the cluster-pair lists of cl/charmm_cluster.cl (the "cluster"
 * kind): 8 TPA work-items per i-cluster, TPA lanes per i atom (i = 0..7).
 * Lane l of atom i takes q = l, l + TPA, ... over the flattened (j-cluster
 * entry q / 8, its atom q % 8) where the entry's mask has bit 8 i + q % 8,
 * then the atom's special pairs (general pair code, kind from the list).
 * The lanes of the 8 i atoms read the same j atoms at the same time: one
 * position gather serves 8 pairs (charmm_force gathers one per pair), and
 * there is no per-pair list index to load. Cutoff tests as charmm_force
 * (CUTOFF_TESTS). Outputs, partials (one per
 * work-group) and precisions as charmm_force. */
__kernel void charmm_cluster_force(__global const pos4 *restrict pos,
                                   __global const float4 *restrict pos_lo,
                                   __global const int *restrict type,
                                   __global const int *restrict ilist,
                                   __global const int *restrict order,
                                   __global const int *restrict cl_atom_i,
                                   __global const int *restrict cl_atom_j,
                                   __global const int *restrict nj, __global const int *restrict cj,
                                   __global const int2 *restrict cmask, const int capacity,
                                   __global const int *restrict sp_list,
                                   __global const int *restrict sp_count, const int sp_capacity,
                                   __global const real4 *restrict ljc, const int ntypes,
                                   const real cut_forcesq, const real cut_coulsq,
                                   const real cut_ljsq, const real cut_lj_innersq,
                                   const real inv_denom_lj, const real qqrd2e, const real g_ewald,
                                   const real4 special_lj, const real4 special_coul,
                                   const real min_r2, const real unit,
                                   const ulong cut_force_units, const ulong cut_coul_units,
                                   const int per_atom, __global out_t *force,
                                   __global part_t *partials, __global out_t *eatom,
                                   __global out_t *vatom, volatile __global int *error,
                                   __local acc *scratch)
{
    const int gid = get_global_id(0), lid = get_local_id(0), wg = get_local_size(0);
    const int ic = gid / (8 * TPA), i8 = (gid / TPA) % 8, lane = gid % TPA;
    const int slot = 8 * ic + i8;
    const int ai = cl_atom_i[slot];
    const int active = ai >= 0;
    const int ii = active ? ai : 0;
    const int i = ilist[ii];
    const pos4 pi = pos[i];
#if POS_FIXED && PAIR_DOUBLE
    const float4 lo_i = pos_lo[i];
#else
    const float4 lo_i = (float4)(0.0f);
#endif
    const real qi = pair_delta(pi, pi, lo_i, pos_lo, i, unit).w;
    const int ti = type[i];
    const int n8 = active ? 8 * nj[ic] : 0;
    const int nsp = active ? sp_count[slot] : 0;
    const size_t base = (size_t)ic * (size_t)capacity;
    const int bit = 8 * (i8 % 4);
    TALLY_ACCUMULATORS();
    int since = 0;
#if POS_FIXED && !PAIR_DOUBLE
    const real cut_hi = cut_forcesq * CUT_BAND_HI, band_lo = min(cut_forcesq, cut_coulsq) * CUT_BAND_LO;
#endif
    /* phase 0: the cluster pairs (kind 0 known at compile time, no special
     * factors or erf series in the code), phase 1: the atom's special pairs */
#pragma unroll
    for (int phase = 0; phase < 2; phase++)
    for (int q = lane; q < (phase == 0 ? n8 : nsp); q += TPA) {
#if PARTIALS
        if (++since == FSUM) {
            FLUSH_ALL();
            since = 0;
        }
#endif
        int j, kind;
        if (phase == 0) { /* q >= 0: shifts, not signed divisions */
            const int2 m = cmask[base + (q >> 3)];
            if (!((as_uint(i8 < 4 ? m.x : m.y) >> (bit + (q & 7))) & 1u))
                continue;
            j = cl_atom_j[8 * cj[base + (q >> 3)] + (q & 7)];
            kind = 0;
        } else {
            const int packed = sp_list[(size_t)slot * (size_t)sp_capacity + (size_t)q];
            j = packed & INDEX_MASK;
            kind = (packed >> KIND_SHIFT) & 3;
        }
        const pos4 pj = pos[j];
        const real4 d = pair_delta(pi, pj, lo_i, pos_lo, j, unit);
        const real dx = d.x, dy = d.y, dz = d.z, qj = d.w;
        PAIR_STEP(type[j]);
    }
#if PARTIALS
    FLUSH_ALL();
#endif
    (void)since, (void)pfx, (void)pfy, (void)pfz;
    FINISH_SUMS();
    finish_atom(scratch, lid, wg, lane, active, order, i, fx, fy, fz, per_atom, force,
                partials, eatom, vatom, get_group_id(0));
}
