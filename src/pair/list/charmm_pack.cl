/* Per-step packing of the charmm engine's positions on the device (fp64
 * devices): the host uploads the caller's x (double, 3 per atom) and q
 * (double) in the caller's order, one sequential copy each; this kernel
 * gathers them into the binned (cell-sorted) order, shifts by the origin and
 * converts, bit for bit as charmm_pack() in src/pair/charmm_engine.c does on
 * the host:
 *   POS_DOUBLE 1 (double precision): double4 (x - origin, q).
 *   POS_DOUBLE 0 (single/mixed): int4 with rint((x - origin) / unit) (round
 *     to nearest even, as nearbyint in the default rounding mode; unit and
 *     1/unit are powers of two, so the products are exact), the float bits
 *     of q; with residuals the float4 (v - steps*unit, ..., q - (float)q).
 * Work-item n writes the sentinel. Atoms with a non-finite coordinate or
 * charge or beyond `limit` from the origin are skipped and the smallest
 * caller's index among them is recorded as stat[4] = INT_MAX - index
 * (atomic_max; 0: none), which scl_charmm_finish reports.
 *
 * Pruning (see prune_check in charmm_engine.c): with check set, the squared
 * displacement since the last prune (vs pos_prune, the same packed
 * representation and arithmetic as the host check) is compared with
 * allowed2 (stat[7] = 1 when reached: the inner lists were stale this step)
 * and its maximum kept in stat[5]; with have_prev, the maximum one-step
 * squared displacement (vs the previous content of pos) in stat[6]. Both
 * maxima are non-negative floats rounded up, compared as int bits (monotone
 * for non-negative floats). The stat[4..7] above are stat[base + 4 ..
 * base + 7] with base = stat_base (0 or 4: the engine alternates them over
 * steps); zeroed before this kernel: by a fill, or with clear set by the
 * kernel of the step before, which zeroes the other four and stat[0..3]
 * (the force kernels' flags, written after it): no fill a step. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#if POS_DOUBLE
typedef double4 pos4;
#else
typedef int4 pos4;
#endif

#define INT32_MIN_ (-2147483647 - 1)

inline double disp2(pos4 a, pos4 b, double unit2)
{
#if POS_DOUBLE
    double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    double d2 = 0;
    d2 += dx * dx;
    d2 += dy * dy;
    d2 += dz * dz;
    return d2;
#else
    /* modular integer differences, exact; as the host: d*d summed in double */
    double dx = (double)(int)((uint)a.x - (uint)b.x), dy = (double)(int)((uint)a.y - (uint)b.y),
           dz = (double)(int)((uint)a.z - (uint)b.z);
    double d2 = 0;
    d2 += dx * dx;
    d2 += dy * dy;
    d2 += dz * dz;
    return d2 * unit2;
#endif
}

/* Why 23 arguments: the pack of x and q and the displacement check against the last list's
 * positions share one read of x. */
__kernel void charmm_pack(__global const double *restrict x, __global const double *restrict q,
                          const int q_first, const int has_q, __global const int *restrict order,
                          const int n,
                          const double ox,
                          const double oy, const double oz, const double unit,
                          const double inv_unit, const double limit, __global pos4 *pos,
                          __global float4 *restrict lo, const int residuals,
                          __global const pos4 *restrict pos_prune, const int check,
                          const int have_prev, const double allowed2, const double unit2,
                          __global int *restrict stat_all, const int stat_base, const int clear)
{
    const int b = (int)get_global_id(0);
    __global int *stat = stat_all + stat_base;
    if (clear && b == 0)
        for (int k = 0; k < 4; k++) {
            stat_all[k] = 0;
            stat_all[4 + (4 - stat_base) + k] = 0;
        }
    if (b > n)
        return;
    if (b == n) { /* the sentinel */
#if POS_DOUBLE
        pos[b] = (double4)(1.0e7, 1.0e7, 1.0e7, 0.0);
#else
        pos[b] = (int4)(INT32_MIN_, INT32_MIN_, INT32_MIN_, 0);
        if (residuals)
            lo[b] = (float4)(0.0f);
#endif
        return;
    }
    const int o = order[b];
    const double v0 = x[3 * o] - ox, v1 = x[3 * o + 1] - oy, v2 = x[3 * o + 2] - oz;
    const double v3 = has_q ? q[q_first + o] : 0.0; /* (no charges: list positions) */
    if (!(fabs(v0) < limit && fabs(v1) < limit && fabs(v2) < limit) || !isfinite(v3)) {
        atomic_max(&stat[4], 2147483647 - o);
        return;
    }
#if POS_DOUBLE
    const pos4 p = (double4)(v0, v1, v2, v3);
#else
    const double s0 = rint(v0 * inv_unit), s1 = rint(v1 * inv_unit), s2 = rint(v2 * inv_unit);
    const float qf = (float)v3;
    const pos4 p = (int4)((int)s0, (int)s1, (int)s2, as_int(qf));
    if (residuals)
        lo[b] = (float4)((float)(v0 - s0 * unit), (float)(v1 - s1 * unit),
                         (float)(v2 - s2 * unit), (float)(v3 - (double)qf));
#endif
    if (have_prev) {
        const double d2 = disp2(p, pos[b], unit2);
        atomic_max(&stat[6], as_int(convert_float_rtp(d2)));
    }
    if (check) {
        const double d2 = disp2(p, pos_prune[b], unit2);
        atomic_max(&stat[5], as_int(convert_float_rtp(d2)));
        if (d2 >= allowed2)
            stat[7] = 1;
    }
    pos[b] = p;
}
