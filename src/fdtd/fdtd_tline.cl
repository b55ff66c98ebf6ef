/* gprMax's transmission lines (#transmission_line) on the device: one
 * work-item per line, after the E sources of each step, so that the line
 * and the grid trade values without a trip to the host (the host's
 * version: src/fdtd/tline.c, the model: include/streamcl/fdtd.h). The
 * line joined to the grid is NL cells: the work is tiny, the point is to
 * stay in the queue. Options: FDTD_FP64 (double fields). */
#include "fdtd_real.clh"

#define NL 11    /* SCL_FDTD_TLINE_ANT + 1 */
#define ANT 10   /* the cell at the grid */
#define SRC 5    /* the injector */
#define STATE (2 * NL + 2)

/* ints per line (li): E offset, polarisation, strides to the H loop's two
 * neighbours (b: along (pol+1)%3, c: along (pol+2)%3), 1 if the loop
 * exists (not on a low face); reals (lp): d_b, d_c, d_pol, R, c dt/dl (1/sqrt(3))
 * and the absorbing end's (c dt - dl)/(c dt + dl). vals: per step
 * of the chunk and line the drive w(n dt), w((n + 1/2) dt) and 1 while
 * active; out: V[ANT], I[ANT] before the step (Vtotal, Itotal). */
__kernel void fdtd_tline(__global real *ex, __global real *ey, __global real *ez,
                         __global const real *hx, __global const real *hy,
                         __global const real *hz, __global const int *li,
                         __global const real *lp, __global real *state,
                         __global const real *vals, __global real *out, int ntl, int slot)
{
    int t = get_global_id(0);
    if (t >= ntl)
        return;
    __global real *v = state + t * STATE, *i = v + NL, *abc = i + NL;
    __global const real *w = vals + (slot * ntl + t) * 3;
    out[(slot * ntl + t) * 2] = v[ANT];
    out[(slot * ntl + t) * 2 + 1] = i[ANT];
    if (w[2] == 0)
        return;
    __global const int *p = li + t * 5;
    __global const real *q = lp + t * 6;
    int o = p[0], pol = p[1];
    __global const real *hb = pol == 0 ? hy : pol == 1 ? hz : hx;
    __global const real *hc = pol == 0 ? hz : pol == 1 ? hx : hy;
    real r = q[3], k = q[4];
    i[ANT] = p[4] ? q[0] * (hb[o - p[3]] - hb[o]) + q[1] * (hc[o] - hc[o - p[2]]) : (real)0;
    for (int c = 0; c + 1 < NL; c++)
        i[c] -= k / r * (v[c + 1] - v[c]);
    i[SRC - 1] += k / r * w[1];
    for (int c = NL - 1; c >= 1; c--)
        v[c] -= r * k * (i[c] - i[c - 1]);
    v[SRC] += k * w[0];
    v[0] = q[5] * (v[1] - abc[0]) + abc[1];
    abc[0] = v[0];
    abc[1] = v[1];
    __global real *e = pol == 0 ? ex : pol == 1 ? ey : ez;
    e[o] = -v[ANT] / q[2];
}
