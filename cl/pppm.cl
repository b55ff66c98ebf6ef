/* Particle-mesh kernels of PPPM (LAMMPS's make_rho and fieldforce_ik), one
 * work-item per atom. See include/streamcl/pppm.h and src/pppm/reference.c.
 *
 * Options: ORDER 2..7 (stencil points per dimension), FP64 0 (mixed: float
 * weights and interpolation) or 1 (double); PERIODIC 1: the "brick" is the
 * whole periodic grid (one rank) and stencils wrap around it; VD_STRIDE 2:
 * the field arrays are complex (the inverse FFTs' output, real parts used). Where the device has fp64 the
 * grid position of an atom, (x - boxlo) * delinv, is computed in double in
 * both modes: in float a 100-point grid would leave ~1e-5 of a cell of error
 * in the weights.
 *
 * Charge assignment adds 64-bit fixed-point contributions (scaled by the
 * host so that no grid sum can exceed 2^60) with integer atomics: exact
 * sums, so the density is identical whatever order the atomics land in. */

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#if SCL_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double pos_t;
typedef double3 pos_t3;
#define convert_pos_t3 convert_double3
#else
typedef float pos_t;
typedef float3 pos_t3;
#define convert_pos_t3 convert_float3
#endif
#if FP64
typedef double real;
typedef double3 real3;
#else
typedef float real;
typedef float3 real3;
#endif

#ifndef PERIODIC
#define PERIODIC 0
#endif
#ifndef VD_STRIDE
#define VD_STRIDE 1
#endif
#ifndef SMALL_GRID
#define SMALL_GRID 0
#endif
#if PERIODIC && SMALL_GRID
/* a grid dimension below the order: a stencil wraps around it more than
 * once (LAMMPS's pppm runs such grids, e.g. 4x4x4 at order 5) */
#define WRAP(v, n) ((v) % (n))
#elif PERIODIC
#define WRAP(v, n) ((v) >= (n) ? (v) - (n) : (v))
#else
#define WRAP(v, n) (v)
#endif

#define OFFSET 16384
#define NLOWER (-(ORDER - 1) / 2)
#define NUPPER (ORDER / 2)

/* grid point and weights of one atom; 0 when its stencil leaves the brick */
static int map_atom(__global const pos_t *x, int i, int3 lo, int3 hi, pos_t3 boxlo,
                    pos_t3 delinv, pos_t shift, pos_t shiftone, __constant real *coeff,
                    int3 *g, real w[3][ORDER])
{
    const pos_t3 t = (vload3(i, x) - boxlo) * delinv, s = t + shift;
    /* also false for NaN: such an atom is reported, never assigned */
    if (!(all(s >= (pos_t)0) && all(s <= (pos_t)(2 * OFFSET)))) return 0;
    const int3 gi = convert_int3_rtz(s) - OFFSET;
#if PERIODIC
    /* an atom may sit a little outside the box between re-neighborings */
    if (any(gi < lo - (hi + 1)) || any(gi > 2 * hi + 1)) return 0;
#else
    if (any(gi + NLOWER < lo) || any(gi + NUPPER > hi)) return 0;
#endif
    const pos_t3 d = convert_pos_t3(gi) + shiftone - t;
    const real dd[3] = {(real)d.x, (real)d.y, (real)d.z};
    for (int k = 0; k < 3; k++)
        for (int m = 0; m < ORDER; m++) {
            real r = (real)0;
            for (int l = ORDER - 1; l >= 0; l--) r = coeff[l * ORDER + m] + r * dd[k];
            w[k][m] = r;
        }
    *g = gi;
    return 1;
}

/* first stencil point of grid point g, brick-relative (wrapped when periodic) */
static int3 stencil_start(int3 g, int3 lo, int3 nb)
{
#if PERIODIC
    return ((g + NLOWER) % nb + nb) % nb;
#else
    (void)nb;
    return g + NLOWER - lo;
#endif
}

/* weights, first stencil point (brick-relative) and brick size of atom i;
 * 0 when it is out of range */
static int prepare_atom(__global const pos_t *x, int i, int3 lo, int3 hi, pos_t3 boxlo,
                        pos_t3 delinv, pos_t shift, pos_t shiftone, __constant real *coeff,
                        int3 *b, int3 *nb, real w[3][ORDER])
{
    int3 g;
    if (!map_atom(x, i, lo, hi, boxlo, delinv, shift, shiftone, coeff, &g, w)) return 0;
    *nb = hi - lo + 1;
    *b = stencil_start(g, lo, *nb);
    return 1;
}

/* density_fixed[point] += q_i * W * scale (fixed point); bad counts atoms
 * out of the brick */
/* The atoms and the brick geometry, as both particle-mesh kernels take them
 * (an object-like macro: the core's signature reader expands it). */
#define PPPM_ATOM_ARGS                                                                   \
    const int n, __global const pos_t *x, __global const pos_t *q, const int lox,         \
        const int loy, const int loz, const int hix, const int hiy, const int hiz,        \
        const pos_t boxlox, const pos_t boxloy, const pos_t boxloz, const pos_t delinvx,  \
        const pos_t delinvy, const pos_t delinvz, const pos_t shift, const pos_t shiftone, \
        __constant real *coeff

/* Atom i's first grid point b, the brick size nb and the weights w. */
#define PPPM_STENCIL(i, b, nb, w)                                                             \
    prepare_atom(x, i, (int3)(lox, loy, loz), (int3)(hix, hiy, hiz),                          \
                 (pos_t3)(boxlox, boxloy, boxloz), (pos_t3)(delinvx, delinvy, delinvz), shift, \
                 shiftone, coeff, &b, &nb, w)

/* Why 21 arguments: PPPM_ATOM_ARGS (the stencil's brick bounds, box origin and inverse spacings
 * per axis as scalars, shared with pppm_interp) plus the outputs. */
__kernel void pppm_assign(PPPM_ATOM_ARGS, const real scale, __global long *density_fixed,
                          __global int *bad)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    int3 b, nb;
    real w[3][ORDER];
    if (!PPPM_STENCIL(i, b, nb, w)) {
        atomic_inc(bad);
        return;
    }
    const real qs = (real)q[i] * scale;
    for (int c = 0; c < ORDER; c++)
        for (int bb = 0; bb < ORDER; bb++) {
            const real y0 = qs * w[2][c] * w[1][bb];
            __global long *row = density_fixed +
                ((size_t)WRAP(b.z + c, nb.z) * nb.y + WRAP(b.y + bb, nb.y)) * nb.x;
            for (int a = 0; a < ORDER; a++) {
                const long v = convert_long_rte(y0 * w[0][a]);
                if (v) atom_add((volatile __global long *)(row + WRAP(b.x + a, nb.x)), v);
            }
        }
}

/* f[3i+d] = -qscale * q_i * sum W * vd_d (ik differentiation) */
/* Why 23 arguments: PPPM_ATOM_ARGS as pppm_assign, plus the three field components and f. */
__kernel void pppm_interp(PPPM_ATOM_ARGS, const pos_t qscale, __global const real *vdx,
                          __global const real *vdy, __global const real *vdz,
                          __global real *f)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    int3 b, nb;
    real w[3][ORDER];
    if (!PPPM_STENCIL(i, b, nb, w)) {
        vstore3((real3)(0), i, f); /* the assignment already reported it */
        return;
    }
    real ex = 0, ey = 0, ez = 0;
    for (int c = 0; c < ORDER; c++)
        for (int bb = 0; bb < ORDER; bb++) {
            const real y0 = w[2][c] * w[1][bb];
            const size_t row = ((size_t)WRAP(b.z + c, nb.z) * nb.y + WRAP(b.y + bb, nb.y)) * nb.x;
            for (int a = 0; a < ORDER; a++) {
                const real x0 = y0 * w[0][a];
                const size_t k = VD_STRIDE * (row + WRAP(b.x + a, nb.x));
                ex -= x0 * vdx[k];
                ey -= x0 * vdy[k];
                ez -= x0 * vdz[k];
            }
        }
    const real qf = (real)(qscale * q[i]);
    vstore3((real3)(qf * ex, qf * ey, qf * ez), i, f);
}
