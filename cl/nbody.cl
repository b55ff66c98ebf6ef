/* All-pairs gravity, "combined" copious parallelism (Rocki, Burtscher, Suda):
 * each work-item owns V bodies in vector registers (outer-loop vectorization)
 * and the j bodies are staged through local memory in tiles of TILE.
 *
 * Build options (set by src/nbody/driver.c):
 *   NBODY_DOUBLE 0|1   storage and arithmetic precision
 *   V                  bodies per work-item: 1, 2, 4, 8 or 16
 *   WG, TILE           work-group size and tile size (compile-time, so the
 *                      tile loop can be unrolled)
 *   NBODY_EXACT 0|1    eps == 0: a zero distance (j = i) contributes nothing
 * Bodies live in structure-of-arrays form, padded with zero-mass bodies to a
 * multiple of every launch shape: work-item g owns bodies g*V .. g*V+V-1.
 * The force kernel's sources (the j bodies) are the owned bodies or, in a
 * run over ranks, a block of all of them; it never sums the padding. */

#if NBODY_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double4 real4;
#define VEC_NAME(n) double##n
#else
typedef float real;
typedef float4 real4;
#define VEC_NAME(n) float##n
#endif

/* realv: V reals; LOADV/STOREV move V consecutive bodies. */
#define VEC_OF(n) VEC_NAME(n)
#define VLOAD_OF(n) vload##n
#define VSTORE_OF(n) vstore##n
#define VLOAD_N(n) VLOAD_OF(n)
#define VSTORE_N(n) VSTORE_OF(n)
#if V == 1
typedef real realv;
#define LOADV(g, p) ((p)[g])
#define STOREV(val, g, p) ((p)[g] = (val))
#else
typedef VEC_OF(V) realv;
#define LOADV(g, p) VLOAD_N(V)((g), (p))
#define STOREV(val, g, p) VSTORE_N(V)((val), (g), (p))
#endif

/* One source body b against the V owned bodies (the loop body of both tile
 * loops below; a macro so that the fixed-count loop stays unrollable). */
#if NBODY_EXACT
#define INV_R(r2) ((r2) > (realv)(0) ? rsqrt(r2) : (realv)(0))
#else
#define INV_R(r2) rsqrt(r2)
#endif
#define INTERACT(b)                                                                        \
    do {                                                                                   \
        const realv dx = (b).x - xi, dy = (b).y - yi, dz = (b).z - zi;                     \
        const realv r2 = mad(dx, dx, mad(dy, dy, mad(dz, dz, (realv)(eps2))));             \
        const realv inv = INV_R(r2);                                                       \
        const realv s = (b).w * inv * inv * inv;                                           \
        accx = mad(dx, s, accx);                                                           \
        accy = mad(dy, s, accy);                                                           \
        accz = mad(dz, s, accz);                                                           \
    } while (0)

/* Accelerations of the owned bodies (x, y, z) from the source bodies
 * [j_first, j_first + nj) of (xj, yj, zj, mj), added in source order to
 * what the earlier calls summed: mode & 1 starts from zero, otherwise from
 * the partial sums that a call without mode & 2 left in a; mode & 2 closes
 * the sum: a = G * sum, then v += a * half_dt (the closing half kick of a
 * leapfrog step; half_dt = 0 leaves v as it is). One call over all sources
 * (mode 3) or one per source block in the sources' order gives the same
 * bits: the running sum goes through a in the body precision, unrounded.
 * Sources past j_first + nj never enter (no padding terms).
 * 19 arguments: the owned bodies' 9 fields and the sources' 4 are separate
 * buffers (structure of arrays, as the one-rank system keeps them). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
nbody_accel(__global const real *x, __global const real *y, __global const real *z,
            __global real *ax, __global real *ay, __global real *az, __global real *vx,
            __global real *vy, __global real *vz, __global const real *xj,
            __global const real *yj, __global const real *zj, __global const real *mj,
            const uint j_first, const uint nj, const real G, const real eps2,
            const real half_dt, const uint mode)
{
    __local real4 tile[TILE];
    const size_t g = get_global_id(0);
    const uint lid = (uint)get_local_id(0);
    const realv xi = LOADV(g, x), yi = LOADV(g, y), zi = LOADV(g, z);
    realv accx = (realv)(0), accy = (realv)(0), accz = (realv)(0);
    if (!(mode & 1)) {
        accx = LOADV(g, ax);
        accy = LOADV(g, ay);
        accz = LOADV(g, az);
    }
    const uint j_end = j_first + nj;
    for (uint j0 = j_first; j0 < j_end; j0 += TILE) {
        for (uint t = lid; t < TILE; t += WG) {
            const uint j = j0 + t;
            tile[t] = j < j_end ? (real4)(xj[j], yj[j], zj[j], mj[j]) : (real4)(0);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (j_end - j0 >= TILE) {
#pragma unroll 8
            for (uint k = 0; k < TILE; k++)
                INTERACT(tile[k]);
        } else {
            for (uint k = 0; k < j_end - j0; k++)
                INTERACT(tile[k]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (mode & 2) {
        accx *= G;
        accy *= G;
        accz *= G;
    }
    STOREV(accx, g, ax);
    STOREV(accy, g, ay);
    STOREV(accz, g, az);
    if (mode & 2) {
        STOREV(mad(accx, (realv)(half_dt), LOADV(g, vx)), g, vx);
        STOREV(mad(accy, (realv)(half_dt), LOADV(g, vy)), g, vy);
        STOREV(mad(accz, (realv)(half_dt), LOADV(g, vz)), g, vz);
    }
}

/* Opening half kick and drift of a leapfrog step for bodies [0, n). */
__kernel void nbody_kick_drift(__global real *x, __global real *y, __global real *z,
                               __global real *vx, __global real *vy, __global real *vz,
                               __global const real *ax, __global const real *ay,
                               __global const real *az, const uint n, const real half_dt,
                               const real dt)
{
    const size_t i = get_global_id(0);
    if (i >= n)
        return;
    const real ux = mad(ax[i], half_dt, vx[i]), uy = mad(ay[i], half_dt, vy[i]),
               uz = mad(az[i], half_dt, vz[i]);
    vx[i] = ux;
    vy[i] = uy;
    vz[i] = uz;
    x[i] = mad(ux, dt, x[i]);
    y[i] = mad(uy, dt, y[i]);
    z[i] = mad(uz, dt, z[i]);
}

/* Potential per body, phi_i = -G sum_{j != i} m_j / sqrt(r_ij^2 + eps^2), for
 * the energy: one body per work-item, the same tiles as the force kernel,
 * tile sums in the body precision added up in double where the device has
 * it. No branch in the loop: with eps > 0 the j = i term (m_i / eps) is
 * included and subtracted at the end; with eps = 0 a zero distance (j = i,
 * or a zero-mass padding body on top of a body) contributes nothing. */
#if NBODY_DOUBLE || SCL_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#else
typedef float acc_t;
#endif
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
nbody_potential(__global const real *x, __global const real *y, __global const real *z,
                __global const real *m, __global const real *xj, __global const real *yj,
                __global const real *zj, __global const real *mj, __global acc_t *phi,
                const uint nj, const real G, const real eps2)
{
    __local real4 tile[TILE];
    const uint i = (uint)get_global_id(0), lid = (uint)get_local_id(0);
    const real xi = x[i], yi = y[i], zi = z[i];
    acc_t sum = 0;
    for (uint j0 = 0; j0 < nj; j0 += TILE) {
        for (uint t = lid; t < TILE; t += WG)
            tile[t] = (real4)(xj[j0 + t], yj[j0 + t], zj[j0 + t], mj[j0 + t]);
        barrier(CLK_LOCAL_MEM_FENCE);
        real part = 0;
        for (uint k = 0; k < TILE; k++) {
            const real4 b = tile[k];
            const real dx = b.x - xi, dy = b.y - yi, dz = b.z - zi;
            const real r2 = mad(dx, dx, mad(dy, dy, mad(dz, dz, eps2)));
#if NBODY_EXACT
            part = mad(b.w, r2 > (real)0 ? rsqrt(r2) : (real)0, part);
#else
            part = mad(b.w, rsqrt(r2), part);
#endif
        }
        sum += (acc_t)part;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#if !NBODY_EXACT
    sum -= (acc_t)(m[i] * rsqrt(eps2)); /* as the loop added it */
#endif
    phi[i] = -(acc_t)G * sum;
}
