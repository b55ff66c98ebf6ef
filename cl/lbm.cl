/* D2Q9 BGK lattice Boltzmann: one fused kernel per timestep.
 *
 * Each work-item owns one cell: it pulls the nine incoming populations,
 * reflects them (obstacle) or relaxes them to equilibrium (fluid), stores
 * them, and adds |u| to its work-group's partial sum. Traffic per cell update
 * is the minimum: 9 loads, 9 stores, 1 obstacle byte.
 *
 * Acceleration of row ny-2 belongs to the start of the next step; the work-item
 * that holds the post-collision values of a row ny-2 cell applies it before
 * storing (same arithmetic, no extra pass, no neighbour reads) and records in
 * accel_flags[x] whether it did, so the host can read out the true state.
 *
 * Rows [y_first, y_end) are updated and row accel_row accelerated (the whole
 * lattice and ny-2 on one device; a slab of a row-split lattice has one halo
 * row above and below, filled by the caller before each step, so its
 * periodic wrap is never taken).
 *
 * Build options: -DLBM_FP16=0|1 (storage; arithmetic is always float).
 * Layout: SoA, population k of cell i at k*ncell + i.
 * Directions: 0 rest, 1 E, 2 N, 3 W, 4 S, 5 NE, 6 NW, 7 SW, 8 SE.
 */
#if SCL_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef LBM_FP16
#define LBM_FP16 0
#endif

#if LBM_FP16
/* half holds f/(w rho0) - 1: the deviation from rest, where half's 11-bit
 * mantissa is spent on the signal rather than on the constant w rho0 */
typedef half store_t;
#define LOAD(p, i, k) fma(vload_half((i), (p)), wk[k], wk[k])
#define STORE(p, i, k, v) vstore_half((v) * iwk[k] - 1.0f, (i), (p))
#else
typedef float store_t;
#define LOAD(p, i, k) ((p)[i])
#define STORE(p, i, k, v) ((p)[i] = (v))
#endif

typedef struct {
    float omega, w1, w2;
} lbm_consts;

/* Rebound or collide the pulled populations t[] into o[]; returns |u|
 * (0 for obstacles). BGK conserves density and momentum, so |u| from the
 * pre-collision moments equals the benchmark's post-collision value. */
inline float lbm_cell(const float *t, const int blocked, const float omega, float *o)
{
    const float d = t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7] + t[8];
    const float inv = 1.0f / d;
    const float ux = (t[1] + t[5] + t[8] - (t[3] + t[6] + t[7])) * inv;
    const float uy = (t[2] + t[5] + t[6] - (t[4] + t[7] + t[8])) * inv;
    const float usq15 = 1.5f * (ux * ux + uy * uy);
    const float a0 = d * (4.0f / 9.0f), a1 = d * (1.0f / 9.0f), a2 = d * (1.0f / 36.0f);
    /* w rho (1 + 3 c.u + 4.5 (c.u)^2 - 1.5 u^2) */
#define EQ(a, cu) ((a) * (1.0f + 3.0f * (cu) + 4.5f * (cu) * (cu) - usq15))
    const float eq[9] = {a0 * (1.0f - usq15), EQ(a1, ux),        EQ(a1, uy),
                         EQ(a1, -ux),         EQ(a1, -uy),       EQ(a2, ux + uy),
                         EQ(a2, uy - ux),     EQ(a2, -ux - uy),  EQ(a2, ux - uy)};
#undef EQ
    /* obstacles reflect every direction to its opposite; selects, not branches */
    const int opposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
    for (int k = 0; k < 9; k++)
        o[k] = blocked ? t[opposite[k]] : t[k] + omega * (eq[k] - t[k]);
    return blocked ? 0.0f : sqrt(ux * ux + uy * uy);
}

/* The next step's acceleration, applied by the owner of a row ny-2 cell. */
inline void lbm_accelerate(float *o, const int on_row, const int blocked, const lbm_consts c,
                           __global uchar *accel_flags, const int x)
{
    if (!on_row)
        return;
    const int go = !blocked && o[3] - c.w1 > 0.0f && o[6] - c.w2 > 0.0f && o[7] - c.w2 > 0.0f;
    if (go) {
        o[1] += c.w1;
        o[5] += c.w2;
        o[8] += c.w2;
        o[3] -= c.w1;
        o[6] -= c.w2;
        o[7] -= c.w2;
    }
    accel_flags[x] = (uchar)go;
}

/* Tree sum of the work-group's scratch[0 .. size) into scratch[0] (size a
 * power of two; float or double scratch): every work-item runs it. */
#define LBM_TREE_SUM(scratch, lid, size)                                                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                                            \
    for (uint s = (size) / 2; s > 0; s >>= 1) {                                              \
        if ((lid) < s)                                                                       \
            scratch[lid] += scratch[(lid) + s];                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                        \
    }

/* Tree sum of |u| over the work-group (a power of two); one partial per
 * group, no atomics. */
inline void lbm_group_sum(float v, __local float *scratch, __global float *partials)
{
    const uint lid = get_local_id(0) + get_local_id(1) * get_local_size(0);
    const uint size = get_local_size(0) * get_local_size(1);
    scratch[lid] = v;
    LBM_TREE_SUM(scratch, lid, size);
    if (lid == 0)
        partials[get_group_id(0) + get_group_id(1) * get_num_groups(0)] = scratch[0];
}

/* Neighbour coordinates with periodic wrap, and the equilibrium weights
 * w_k rho0 that fp16 storage is relative to. */
#define LBM_PROLOGUE                                                                         \
    const int x = get_global_id(0), y = (int)get_global_id(1) + y_first;                    \
    const int inside = x < nx && y < y_end;                                                  \
    float speed = 0.0f;                                                                      \
    const lbm_consts c = {par.x, par.y, par.z};                                              \
    const float wk[9] = {eqw.x, eqw.y, eqw.y, eqw.y, eqw.y, eqw.z, eqw.z, eqw.z, eqw.z};    \
    const float4 ieqw = 1.0f / eqw;                                                          \
    const float iwk[9] = {ieqw.x, ieqw.y, ieqw.y, ieqw.y, ieqw.y,                             \
                          ieqw.z, ieqw.z, ieqw.z, ieqw.z};                                   \
    (void)wk;                                                                                \
    (void)iwk;                                                                               \
    const uint n = (uint)nx * (uint)ny;                                                      \
    const int xe = x + 1 == nx ? 0 : x + 1, xw = x == 0 ? nx - 1 : x - 1;                    \
    const uint yc = (uint)y * (uint)nx;                                                      \
    const uint yn = (y + 1 == ny ? 0u : (uint)(y + 1)) * (uint)nx;                           \
    const uint ys = (y == 0 ? (uint)(ny - 1) : (uint)(y - 1)) * (uint)nx;                    \
    const uint i = (uint)x + yc

/* The cell population k streams in from (its upwind neighbour), as an
 * offset within k's slot; the downwind neighbour of k is up[opposite[k]]. */
#define LBM_UPWIND                                                                           \
    const uint up[9] = {i, xw + yc, x + ys, xe + yc, x + yn, xw + ys, xe + ys, xe + yn, xw + yn}

#define LBM_ARGS                                                                             \
    __global const uchar *restrict obstacles, __global float *restrict partials,             \
        __global uchar *restrict accel_flags, const int nx, const int ny, const float4 par,  \
        const float4 eqw, const uint partial_offset, __local float *scratch,                 \
        const int y_first, const int y_end, const int accel_row

/* One site of a step, the same in every streaming pattern, which only says
 * where population k is read (IN + IN_AT) and where its result is written
 * (OUT + OUT_AT): collide, accelerate, then the group's speed sum. */
#define LBM_SITE(in, in_at, out, out_at)                                                     \
    if (inside) {                                                                            \
        const int blocked = obstacles[i];                                                    \
        float t[9], o[9];                                                                    \
        for (int k = 0; k < 9; k++)                                                          \
            t[k] = LOAD(in, in_at, k);                                                       \
        speed = lbm_cell(t, blocked, c.omega, o);                                            \
        lbm_accelerate(o, y == accel_row, blocked, c, accel_flags, x);                       \
        for (int k = 0; k < 9; k++)                                                          \
            STORE(out, out_at, k, o[k]);                                                     \
    }                                                                                        \
    lbm_group_sum(speed, scratch, partials + partial_offset)

/* Two lattices: pull from src, store into dst (the host swaps them). */
__kernel void lbm_step(__global const store_t *restrict src, __global store_t *restrict dst,
                       LBM_ARGS)
{
    LBM_PROLOGUE;
    LBM_UPWIND;
    LBM_SITE(src, k * n + up[k], dst, k * n + i);
}

/* AA pattern, even step: the incoming populations already sit in the cell's
 * own slots; store each result in the opposite slot of the same cell. */
__kernel void lbm_step_even(__global store_t *lat, LBM_ARGS)
{
    LBM_PROLOGUE;
    const int opposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
    LBM_SITE(lat, k * n + i, lat, opposite[k] * n + i);
}

/* AA pattern, odd step: pull population k from the opposite slot of the
 * upwind neighbour, push the result into slot k of the downwind neighbour.
 * Every slot is read and written by the same work-item: no races. */
__kernel void lbm_step_odd(__global store_t *lat, LBM_ARGS)
{
    LBM_PROLOGUE;
    LBM_UPWIND;
    const int opposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
    LBM_SITE(lat, opposite[k] * n + up[k], lat, k * n + up[opposite[k]]);
}

/* Finish a batch on the device so the host reads 8 bytes per step instead of
 * one partial per work-group: group s sums the partials of step s. */
#if SCL_FP64
__kernel void lbm_sum_partials(__global const float *partials, const uint groups,
                               __global double *sums, __local double *scratch)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    __global const float *p = partials + (size_t)get_group_id(0) * groups;
    double acc = 0.0;
    for (uint g = lid; g < groups; g += size)
        acc += (double)p[g];
    scratch[lid] = acc;
    LBM_TREE_SUM(scratch, lid, size);
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}
#else
/* No fp64: compensated float pairs (sum, error); the host adds them in double. */
__kernel void lbm_sum_partials(__global const float *partials, const uint groups,
                               __global float2 *sums, __local float2 *scratch)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    __global const float *p = partials + (size_t)get_group_id(0) * groups;
    float s0 = 0.0f, e0 = 0.0f;
    for (uint g = lid; g < groups; g += size) {
        const float b = p[g], s1 = s0 + b, bb = s1 - s0;
        e0 += (s0 - (s1 - bb)) + (b - bb);
        s0 = s1;
    }
    scratch[lid] = (float2)(s0, e0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = size / 2; s > 0; s >>= 1) {
        if (lid < s) {
            const float2 a = scratch[lid], b = scratch[lid + s];
            const float s1 = a.x + b.x, bb = s1 - a.x;
            scratch[lid] = (float2)(s1, a.y + b.y + (a.x - (s1 - bb)) + (b.x - bb));
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}
#endif
