/* 3D elastic velocity-stress (Virieux) on a staggered grid: the velocity and
 * stress updates of src/seismic/ref_update.h, one work-item per column of
 * kz cells along z, x fastest (contiguous, so PoCL vectorises across
 * work-items and GPUs coalesce). Fields are padded with 2 zero planes on every side, so interior
 * stencils never test bounds; the CPML memory variables live in slabs along
 * each face and are touched only there.
 *
 * Options: -DORDER=2|4, -DSCL_SEIS_FP64=0|1. Rows are padded to whole
 * cache lines (setup.c) and launches start x on an aligned element.
 * Bytes per cell update (interior, fp32): velocity reads 9 fields + rho and
 * writes 3 (52 B); stress reads 9 fields + lam, mu and writes 6 (68 B):
 * 120 B per cell step, neighbours from cache. seis_fused does both updates
 * of the interior in one pass between two buffer sets: 84 B. */
#if SCL_SEIS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

#ifndef ORDER
#define ORDER 4
#endif

#if ORDER == 4
#define DP(a, c, s) (c1 * (a[(c) + (s)] - a[c]) + c2 * (a[(c) + 2 * (s)] - a[(c) - (s)]))
#define DM(a, c, s) (c1 * (a[c] - a[(c) - (s)]) + c2 * (a[(c) + (s)] - a[(c) - 2 * (s)]))
#else
#define DP(a, c, s) (c1 * (a[(c) + (s)] - a[c]))
#define DM(a, c, s) (c1 * (a[c] - a[(c) - (s)]))
#endif

/* Slot of cell i in a slab of width 2*pml along an axis of n cells (-1: not
 * in a layer); low = 0 when that side has none (free surface). */
inline int slab_slot(int i, int n, int pml, int low)
{
    if (pml == 0)
        return -1;
    if (low && i < pml)
        return i;
    if (i >= n - pml)
        return i - (n - 2 * pml);
    return -1;
}

/* Profile q (0 a_c, 1 b_c, 2 ik_c, 3 a_h, 4 b_h, 5 ik_h) of an axis of n cells. */
#define PROF(p, q, n, i) p[(q) * (n) + (i)]

/* CPML-corrected derivative: centre (hoff = 0) or half-node (hoff = 3) profile. */
inline real pml_d(__global real *psi, int slot, __global const real *prof, int n, int i,
                  int hoff, real d)
{
    const real p = PROF(prof, hoff + 1, n, i) * psi[slot] + PROF(prof, hoff, n, i) * d;
    psi[slot] = p;
    return d * PROF(prof, hoff + 2, n, i) + p;
}

inline real harm4(real m0, real m1, real m2, real m3)
{
    if (m0 <= 0 || m1 <= 0 || m2 <= 0 || m3 <= 0)
        return 0;
    return (real)4 / ((real)1 / m0 + (real)1 / m1 + (real)1 / m2 + (real)1 / m3);
}

/* z windows (2.5D walk): a work-item walks kz planes of its column and keeps
 * in registers the values along z its stencils share between planes, so a
 * field value leaves DRAM (and L2) once per update instead of once per plane
 * that uses it. A window holds a quantity at the offsets along z that the
 * difference of plane k needs: backward (DM) lo = -R .. R-1, forward (DP)
 * lo = 1-R .. R, R = ORDER/2; one new value is read per plane (WIN_NEXT),
 * the rest slide (WIN_SHIFT). G is the read: an array element or a
 * recomputed velocity. */
#define LO_DM (-(ORDER / 2))
#define LO_DP (1 - ORDER / 2)
#if ORDER == 4
#define WIN(w) real w##0, w##1, w##2, w##3
#define WIN_INIT(w, G, c, s, lo) (w##0 = G((c) + (lo) * (s)), w##1 = G((c) + ((lo) + 1) * (s)), w##2 = G((c) + ((lo) + 2) * (s)))
#define WIN_NEXT(w, G, c, s, lo) (w##3 = G((c) + ((lo) + 3) * (s)))
#define WIN_D(w) (c1 * (w##2 - w##1) + c2 * (w##3 - w##0))
#define WIN_SHIFT(w) (w##0 = w##1, w##1 = w##2, w##2 = w##3)
#define DM_AT0(w) w##2
#define DM_ATM1(w) w##1
#define DP_AT0(w) w##1
#define DP_ATP1(w) w##2
#else
#define WIN(w) real w##0, w##1
#define WIN_INIT(w, G, c, s, lo) (w##0 = G((c) + (lo) * (s)))
#define WIN_NEXT(w, G, c, s, lo) (w##1 = G((c) + ((lo) + 1) * (s)))
#define WIN_D(w) (c1 * (w##1 - w##0))
#define WIN_SHIFT(w) (w##0 = w##1)
#define DM_AT0(w) w##1
#define DM_ATM1(w) w##0
#define DP_AT0(w) w##0
#define DP_ATP1(w) w##1
#endif

/* 64-bit grids, 32-bit loops: a launch covers planes from zb on and
 * addresses the fields from plane zb (a 64-bit base, added once per
 * work-item), so that the indices within it stay 32-bit however large the
 * grid; the host caps a launch's planes (seis_launch_planes) so that they
 * fit. A cell's index: origin + i + j sy + (k - zb) sz. */
#ifndef SEIS_BASE64
#define SEIS_BASE64 0
#endif
#if SEIS_BASE64
#define ZB zb
#define SHIFT_V vx += base; vy += base; vz += base
#define SHIFT_S sxx += base; syy += base; szz += base; sxy += base; sxz += base; syz += base
#define SHIFT_O ox += base; oy += base; oz += base
#define SHIFT_Q qxx += base; qyy += base; qzz += base; qxy += base; qxz += base; qyz += base
#define VELOCITY_BASE const long base = (long)zb * sz; SHIFT_V; SHIFT_O; SHIFT_S; rho += base
#define STRESS_BASE const long base = (long)zb * sz; SHIFT_V; SHIFT_S; SHIFT_Q; lam += base; mu += base
#define FUSED_BASE                                                           \
    const long base = (long)zb * sz;                                         \
    SHIFT_V; SHIFT_S; SHIFT_O; SHIFT_Q; rho += base; lam += base; mu += base
#else /* the grid fits 32-bit indices from plane 0: no bases (the host passes zb 0) */
#define ZB 0
#define VELOCITY_BASE (void)zb
#define STRESS_BASE (void)zb
#define FUSED_BASE (void)zb
#endif

/* A walking work-item's column: cell (i, j), planes [k0, k1) of the box,
 * c the index of its first; work-items outside the box return. */
#define WALK_BEGIN                                                           \
    const int i = xs + get_global_id(0), j = y0 + get_global_id(1);          \
    const int k0 = z0 + get_global_id(2) * kz;                               \
    if (i < x0 || i >= x1 || j >= y1 || k0 >= z1)                            \
        return;                                                              \
    const int k1 = min(k0 + kz, z1);                                         \
    int c = origin + i + j * sy + (k0 - ZB) * sz
/* The interior kernels' one cell (i, j, k) at index c; outside the box: return. */
#define CELL_BEGIN                                                           \
    const int i = xs + (int)get_global_id(0), j = y0 + (int)get_global_id(1); \
    const int k = z0 + (int)get_global_id(2);                                \
    if (i < x0 || i >= x1 || j >= y1 || k >= z1)                             \
        return;                                                              \
    const int c = origin + i + j * sy + (k - ZB) * sz
/* CPML slots (and the free surface, below) from the whole model's cell (a
 * slab of it starts at gx0, gy0, gz0; profiles and psi are the slab's own) */
#define CPML_SLOTS                                                           \
    const int si = pml ? slab_slot(i + gx0, gnx, pml, 1) : -1;              \
    const int sj = pml ? slab_slot(j + gy0, gny, pml, 1) : -1

/* reads of a field at index x, for the windows */
#define G_SXZ(x) sxz[x]
#define G_SYZ(x) syz[x]
#define G_SZZ(x) szz[x]
#define G_VX(x) vx[x]
#define G_VY(x) vy[x]
#define G_VZ(x) vz[x]

/* The three velocity windows of the stress updates (read by G: an array
 * element or a recomputed velocity): declared, filled, next plane, slid. */
#define VWIN_DECLARE WIN(wvx); WIN(wvy); WIN(wvz)
#define VWIN_INIT(GX, GY, GZ, c) \
    WIN_INIT(wvx, GX, c, sz, LO_DP); WIN_INIT(wvy, GY, c, sz, LO_DP); WIN_INIT(wvz, GZ, c, sz, LO_DM)
#define VWIN_NEXT(GX, GY, GZ, c) \
    WIN_NEXT(wvx, GX, c, sz, LO_DP); WIN_NEXT(wvy, GY, c, sz, LO_DP); WIN_NEXT(wvz, GZ, c, sz, LO_DM)
#define VWIN_SHIFT WIN_SHIFT(wvx); WIN_SHIFT(wvy); WIN_SHIFT(wvz)

/* the velocity kernels' fields: old velocities, the new ones (may be the old), stresses, rho */
#define VELOCITY_FIELDS \
    __global const real *vx, __global const real *vy, __global const real *vz, \
    __global real *ox, __global real *oy, __global real *oz, \
    __global const real *restrict sxx, __global const real *restrict syy, \
    __global const real *restrict szz, __global const real *restrict sxy, \
    __global const real *restrict sxz, __global const real *restrict syz, \
    __global const real *restrict rho
/* the stress kernels' fields: new velocities, old stresses, the new ones (may be the old), lambda, mu */
#define STRESS_FIELDS \
    __global const real *restrict vx, __global const real *restrict vy, \
    __global const real *restrict vz, __global const real *sxx, __global const real *syy, \
    __global const real *szz, __global const real *sxy, __global const real *sxz, \
    __global const real *syz, __global real *qxx, __global real *qyy, __global real *qzz, \
    __global real *qxy, __global real *qxz, __global real *qyz, \
    __global const real *restrict lam, __global const real *restrict mu

/* The normal stresses' update (decl: a declaration's type, or nothing),
 * and the six new stresses stored at c. */
#define NORMAL_STRESSES(decl)                                                \
    decl nxx = sxx[c] + dt * (l2m * exx + l * (eyy + ezz));                  \
    decl nyy = syy[c] + dt * (l2m * eyy + l * (exx + ezz));                  \
    decl nzz = szz[c] + dt * (l2m * ezz + l * (exx + eyy))
#define STORE_STRESSES                                                       \
    qxx[c] = nxx;                                                            \
    qyy[c] = nyy;                                                            \
    qzz[c] = nzz;                                                            \
    qxy[c] = nxy;                                                            \
    qxz[c] = nxz;                                                            \
    qyz[c] = nyz

/* Velocities of the cells of box [x0,x1) x [y0,y1) x [z0,z1): out = in +
 * dt b div(sigma). out may be in (in place) or the other buffer set.
 * Work-item (xs + gx, y0 + gy, z0 + gz kz) walks kz planes; xs <= x0 is the
 * first x of the launch, chosen so that work-groups' rows start on an
 * aligned element (rows are padded to whole cache lines). */
/* Why 33 arguments: the 13 field buffers (VELOCITY_FIELDS), each axis's CPML profile and psi,
 * and the launch box and walk: one kernel serves whole-grid, sub-domain and split launches. */
__kernel void seis_velocity(VELOCITY_FIELDS,
                            __global const real *restrict profx, __global const real *restrict profy,
                            __global const real *restrict profz, __global real *restrict psix,
                            __global real *restrict psiy, __global real *restrict psiz, int nx,
                            int ny, int nz, int gx0, int gy0, int gz0, int gnx, int gny, int gnz,
                            int sy, int sz, int origin, int zb, int pml, int free_surface,
                            int xs, int x0, int y0, int z0, int x1, int y1, int z1, int kz,
                            real c1, real c2, real dt)
{
    VELOCITY_BASE;
    WALK_BEGIN;
    CPML_SLOTS;
    const real two_dt = 2 * dt;
    WIN(wxz);
    WIN(wyz);
    WIN(wzz);
    WIN_INIT(wxz, G_SXZ, c, sz, LO_DM);
    WIN_INIT(wyz, G_SYZ, c, sz, LO_DM);
    WIN_INIT(wzz, G_SZZ, c, sz, LO_DP);
    real r = rho[c];
    for (int k = k0; k < k1; k++, c += sz) {
        WIN_NEXT(wxz, G_SXZ, c, sz, LO_DM);
        WIN_NEXT(wyz, G_SYZ, c, sz, LO_DM);
        WIN_NEXT(wzz, G_SZZ, c, sz, LO_DP);
        real dxx = DP(sxx, c, 1), dxy = DM(sxy, c, 1), dxz = DM(sxz, c, 1);
        real dyx = DM(sxy, c, sy), dyy = DP(syy, c, sy), dyz = DM(syz, c, sy);
        real dzx = WIN_D(wxz), dzy = WIN_D(wyz), dzz = WIN_D(wzz);
        if (pml) {
            const int sk = slab_slot(k + gz0, gnz, pml, !free_surface);
            if (si >= 0) {
                const int ns = 2 * pml * ny * nz, q = si + 2 * pml * (j + ny * k);
                dxx = pml_d(psix, q, profx, nx, i, 3, dxx);
                dxy = pml_d(psix, ns + q, profx, nx, i, 0, dxy);
                dxz = pml_d(psix, 2 * ns + q, profx, nx, i, 0, dxz);
            }
            if (sj >= 0) {
                const int ns = nx * 2 * pml * nz, q = i + nx * (sj + 2 * pml * k);
                dyx = pml_d(psiy, q, profy, ny, j, 0, dyx);
                dyy = pml_d(psiy, ns + q, profy, ny, j, 3, dyy);
                dyz = pml_d(psiy, 2 * ns + q, profy, ny, j, 0, dyz);
            }
            if (sk >= 0) {
                const int ns = nx * ny * 2 * pml, q = i + nx * (j + ny * sk);
                dzx = pml_d(psiz, q, profz, nz, k, 0, dzx);
                dzy = pml_d(psiz, ns + q, profz, nz, k, 0, dzy);
                dzz = pml_d(psiz, 2 * ns + q, profz, nz, k, 3, dzz);
            }
        }
        const real rz = rho[c + sz]; /* the next plane's own */
        const real nvx = vx[c] + two_dt / (r + rho[c + 1]) * (dxx + dyx + dzx);
        const real nvy = vy[c] + two_dt / (r + rho[c + sy]) * (dxy + dyy + dzy);
        const real nvz = vz[c] + two_dt / (r + rz) * (dxz + dyz + dzz);
        ox[c] = nvx;
        oy[c] = nvy;
        oz[c] = nvz;
        r = rz;
        WIN_SHIFT(wxz);
        WIN_SHIFT(wyz);
        WIN_SHIFT(wzz);
    }
}

/* Stresses of the cells of the box from the new velocities: q = s + dt C
 * grad(v); q may be s (in place). Same walk as seis_velocity. */
/* Why 33 arguments: as seis_velocity (STRESS_FIELDS, CPML per axis, launch box and walk). */
__kernel void seis_stress(STRESS_FIELDS, __global const real *restrict profx,
                          __global const real *restrict profy, __global const real *restrict profz,
                          __global real *restrict psix, __global real *restrict psiy,
                          __global real *restrict psiz, int nx, int ny, int nz, int gx0, int gy0,
                          int gz0, int gnx, int gny, int gnz, int sy, int sz,
                          int origin, int zb, int pml, int free_surface, int xs, int x0, int y0, int z0,
                          int x1, int y1, int z1, int kz, real c1, real c2, real dt)
{
    STRESS_BASE;
    WALK_BEGIN;
    CPML_SLOTS;
    VWIN_DECLARE;
    VWIN_INIT(G_VX, G_VY, G_VZ, c);
    /* mu at c, c+1, c+sy: the previous plane read them as its +sz neighbours */
    real m = mu[c], mx = mu[c + 1], my = mu[c + sy];
    for (int k = k0; k < k1; k++, c += sz) {
        VWIN_NEXT(G_VX, G_VY, G_VZ, c);
        real exx = DM(vx, c, 1), eyy = DM(vy, c, sy), ezz = WIN_D(wvz);
        real vxy = DP(vx, c, sy), vyx = DP(vy, c, 1);
        real vxz = WIN_D(wvx), vzx = DP(vz, c, 1);
        real vyz = WIN_D(wvy), vzy = DP(vz, c, sy);
        const int gk = k + gz0, fs = free_surface && gk < 2;
        if (fs) {
            /* 4th-order vertical stencils would reach above the surface */
            const real h1 = c1 + 3 * c2;
            ezz = h1 * (DM_AT0(wvz) - DM_ATM1(wvz));
            if (gk == 0) {
                vxz = h1 * (DP_ATP1(wvx) - DP_AT0(wvx));
                vyz = h1 * (DP_ATP1(wvy) - DP_AT0(wvy));
            }
        }
        if (pml) {
            const int sk = slab_slot(k + gz0, gnz, pml, !free_surface);
            if (si >= 0) {
                const int ns = 2 * pml * ny * nz, q = si + 2 * pml * (j + ny * k);
                exx = pml_d(psix, 3 * ns + q, profx, nx, i, 0, exx);
                vyx = pml_d(psix, 4 * ns + q, profx, nx, i, 3, vyx);
                vzx = pml_d(psix, 5 * ns + q, profx, nx, i, 3, vzx);
            }
            if (sj >= 0) {
                const int ns = nx * 2 * pml * nz, q = i + nx * (sj + 2 * pml * k);
                vxy = pml_d(psiy, 3 * ns + q, profy, ny, j, 3, vxy);
                eyy = pml_d(psiy, 4 * ns + q, profy, ny, j, 0, eyy);
                vzy = pml_d(psiy, 5 * ns + q, profy, ny, j, 3, vzy);
            }
            if (sk >= 0) {
                const int ns = nx * ny * 2 * pml, q = i + nx * (j + ny * sk);
                vxz = pml_d(psiz, 3 * ns + q, profz, nz, k, 3, vxz);
                vyz = pml_d(psiz, 4 * ns + q, profz, nz, k, 3, vyz);
                ezz = pml_d(psiz, 5 * ns + q, profz, nz, k, 0, ezz);
            }
        }
        const real l = lam[c], l2m = l + 2 * m;
        const real mz = mu[c + sz], mzx = mu[c + 1 + sz], mzy = mu[c + sy + sz];
        real nxx, nyy, nzz;
        if (fs && gk == 0) {
            /* szz = 0 on the surface: dvz/dz = -lam/(lam+2mu) (dvx/dx + dvy/dy) */
            const real r = l2m > 0 ? l / l2m : 0;
            nxx = sxx[c] + dt * ((l2m - l * r) * exx + (l - l * r) * eyy);
            nyy = syy[c] + dt * ((l - l * r) * exx + (l2m - l * r) * eyy);
            nzz = 0;
        } else {
            NORMAL_STRESSES();
        }
        const real nxy = sxy[c] + dt * harm4(m, mx, my, mu[c + 1 + sy]) * (vxy + vyx);
        const real nxz = sxz[c] + dt * harm4(m, mx, mz, mzx) * (vxz + vzx);
        const real nyz = syz[c] + dt * harm4(m, my, mz, mzy) * (vyz + vzy);
        STORE_STRESSES;
        if (free_surface && gk < 3) {
            /* antisymmetric images above the surface for the next velocity pass
             * (this kernel reads no stress halo, so writing it here is safe) */
            if (gk == 0) {
                qxz[c - sz] = -nxz;
                qyz[c - sz] = -nyz;
            } else if (gk == 1) {
                qxz[c - 3 * sz] = -nxz;
                qyz[c - 3 * sz] = -nyz;
                qzz[c - 2 * sz] = -nzz;
            } else {
                qzz[c - 4 * sz] = -nzz;
            }
        }
        m = mz;
        mx = mzx;
        my = mzy;
        VWIN_SHIFT;
    }
}

/* New velocity at a cell from the old fields (the interior update of
 * seis_velocity: no CPML there). */
inline real vel_x(__global const real *vx, __global const real *sxx, __global const real *sxy,
                  __global const real *sxz, __global const real *rho, int c, int sy, int sz,
                  real c1, real c2, real two_dt)
{
    return vx[c] + two_dt / (rho[c] + rho[c + 1]) *
                       (DP(sxx, c, 1) + DM(sxy, c, sy) + DM(sxz, c, sz));
}
inline real vel_y(__global const real *vy, __global const real *sxy, __global const real *syy,
                  __global const real *syz, __global const real *rho, int c, int sy, int sz,
                  real c1, real c2, real two_dt)
{
    return vy[c] + two_dt / (rho[c] + rho[c + sy]) *
                       (DM(sxy, c, 1) + DP(syy, c, sy) + DM(syz, c, sz));
}
inline real vel_z(__global const real *vz, __global const real *sxz, __global const real *syz,
                  __global const real *szz, __global const real *rho, int c, int sy, int sz,
                  real c1, real c2, real two_dt)
{
    return vz[c] + two_dt / (rho[c] + rho[c + sz]) *
                       (DM(sxz, c, 1) + DM(syz, c, sy) + DP(szz, c, sz));
}

/* The interior kernels: one cell per work-item, no CPML and no free-surface
 * code, the update of the plain peer (bench/seismic/peer_vs.cu). The
 * general kernels above carry the CPML and surface branches in every
 * work-item: 110 / 128 registers for sm_90 at order 2 (clang -> PTX ->
 * ptxas) against 32 here, so a quarter of the warps per SM to hide DRAM
 * latency. The separate scheme runs these over the cells outside the CPML
 * slabs and the surface rows, the general kernels over the boxes around. */
__kernel void seis_velocity_in(VELOCITY_FIELDS, int sy, int sz, int origin,
                               int zb, int xs, int x0, int y0, int z0, int x1, int y1, int z1, real c1,
                               real c2, real dt)
{
    VELOCITY_BASE;
    CELL_BEGIN;
    const real two_dt = 2 * dt;
    const real nvx = vel_x(vx, sxx, sxy, sxz, rho, c, sy, sz, c1, c2, two_dt);
    const real nvy = vel_y(vy, sxy, syy, syz, rho, c, sy, sz, c1, c2, two_dt);
    const real nvz = vel_z(vz, sxz, syz, szz, rho, c, sy, sz, c1, c2, two_dt);
    ox[c] = nvx;
    oy[c] = nvy;
    oz[c] = nvz;
}

__kernel void seis_stress_in(STRESS_FIELDS, int sy, int sz, int origin,
                             int zb, int xs, int x0, int y0, int z0, int x1, int y1, int z1, real c1,
                             real c2, real dt)
{
    STRESS_BASE;
    CELL_BEGIN;
    const real exx = DM(vx, c, 1), eyy = DM(vy, c, sy), ezz = DM(vz, c, sz);
    const real l = lam[c], m = mu[c], l2m = l + 2 * m;
    const real mx = mu[c + 1], my = mu[c + sy], mz = mu[c + sz];
    NORMAL_STRESSES(const real);
    const real nxy = sxy[c] + dt * harm4(m, mx, my, mu[c + 1 + sy]) * (DP(vx, c, sy) + DP(vy, c, 1));
    const real nxz = sxz[c] + dt * harm4(m, mx, mz, mu[c + 1 + sz]) * (DP(vx, c, sz) + DP(vz, c, 1));
    const real nyz = syz[c] + dt * harm4(m, my, mz, mu[c + sy + sz]) * (DP(vy, c, sz) + DP(vz, c, sy));
    STORE_STRESSES;
}

/* The CPML shell of the separate scheme (plan cpml=1): the interior
 * kernels above run over every cell below the surface rows, then these
 * kernels add, cell by cell of the CPML slabs, what the CPML changes. The
 * CPML replaces a derivative d by ik d + psi', psi' = b psi + a d (pml_d),
 * and every update is linear in its derivatives, so the difference is
 * additive: coefficient * ((ik d + psi') - d), summed over the slab axes the
 * cell is in (a corner gets every axis's term). The stencils read only the
 * other phase's fields, which the pass in between did not change, so d is
 * the interior pass's own. One work-item per slab cell, 1D: the low z slab
 * planes [zs, kl) whole, then the planes [kl, kh) by the rows of the y slabs
 * whole and the x slabs' 2 pml cells of the other rows, then the high z slab
 * planes [kh, nz) whole; x fastest within each. Fields are addressed with
 * 64-bit indices (no launch bases: the launch is one). */
inline real pml_corr(__global real *psi, int slot, __global const real *prof, int n, int i,
                     int hoff, real d)
{
    return pml_d(psi, slot, prof, n, i, hoff, d) - d;
}

/* cell (i, j, k) of shell work-item g (0: past the end) */
inline int shell_cell(int g, int nx, int ny, int pml, int zs, int kl, int kh, int nz, int *i,
                      int *j, int *k)
{
    const int plane = nx * ny, nlow = (kl - zs) * plane;
    const int per = 2 * pml * nx + (ny - 2 * pml) * 2 * pml, nmid = (kh - kl) * per;
    if (g < nlow || g >= nlow + nmid) {
        const int h = g < nlow ? g : g - nlow - nmid;
        *k = (g < nlow ? zs : kh) + h / plane;
        *j = h % plane / nx;
        *i = h % nx;
        return *k < nz;
    }
    const int h = g - nlow, r = h % per;
    *k = kl + h / per;
    if (r < 2 * pml * nx) {
        const int jj = r / nx;
        *j = jj < pml ? jj : ny - 2 * pml + jj;
        *i = r % nx;
    } else {
        const int q = r - 2 * pml * nx, ii = q % (2 * pml);
        *j = pml + q / (2 * pml);
        *i = ii < pml ? ii : nx - 2 * pml + ii;
    }
    return 1;
}

#define SHELL_ARGS                                                                              \
    __global const real *restrict profx, __global const real *restrict profy,                   \
        __global const real *restrict profz, __global real *restrict psix,                      \
        __global real *restrict psiy, __global real *restrict psiz, int nx, int ny, int nz,     \
        int sy, int sz, int origin, int pml, int free_surface, int zs, int kl, int kh, real c1, \
        real c2, real dt
#define SHELL_BEGIN                                                                             \
    int i, j, k;                                                                                \
    if (!shell_cell((int)get_global_id(0), nx, ny, pml, zs, kl, kh, nz, &i, &j, &k))            \
        return;                                                                                 \
    const long c = origin + i + (long)j * sy + (long)k * sz;                                    \
    const int si = slab_slot(i, nx, pml, 1), sj = slab_slot(j, ny, pml, 1);                     \
    const int sk = slab_slot(k, nz, pml, !free_surface)

/* The velocities' CPML terms (the CPML part of seis_velocity), added to
 * what seis_velocity_in wrote: in place on the one buffer set. */
/* Why 32 arguments: the fields and rho, plus SHELL_ARGS (each axis's CPML profile and psi, the
 * grid and slab extents): all three axes' terms in one 1D launch. */
__kernel void seis_velocity_shell(__global real *vx, __global real *vy, __global real *vz,
                                  __global const real *restrict sxx,
                                  __global const real *restrict syy,
                                  __global const real *restrict szz,
                                  __global const real *restrict sxy,
                                  __global const real *restrict sxz,
                                  __global const real *restrict syz,
                                  __global const real *restrict rho, SHELL_ARGS, int total)
{
    if ((int)get_global_id(0) >= total)
        return;
    SHELL_BEGIN;
    real ux = 0, uy = 0, uz = 0;
    if (si >= 0) {
        const int ns = 2 * pml * ny * nz, q = si + 2 * pml * (j + ny * k);
        ux += pml_corr(psix, q, profx, nx, i, 3, DP(sxx, c, 1));
        uy += pml_corr(psix, ns + q, profx, nx, i, 0, DM(sxy, c, 1));
        uz += pml_corr(psix, 2 * ns + q, profx, nx, i, 0, DM(sxz, c, 1));
    }
    if (sj >= 0) {
        const int ns = nx * 2 * pml * nz, q = i + nx * (sj + 2 * pml * k);
        ux += pml_corr(psiy, q, profy, ny, j, 0, DM(sxy, c, sy));
        uy += pml_corr(psiy, ns + q, profy, ny, j, 3, DP(syy, c, sy));
        uz += pml_corr(psiy, 2 * ns + q, profy, ny, j, 0, DM(syz, c, sy));
    }
    if (sk >= 0) {
        const int ns = nx * ny * 2 * pml, q = i + nx * (j + ny * sk);
        ux += pml_corr(psiz, q, profz, nz, k, 0, DM(sxz, c, sz));
        uy += pml_corr(psiz, ns + q, profz, nz, k, 0, DM(syz, c, sz));
        uz += pml_corr(psiz, 2 * ns + q, profz, nz, k, 3, DP(szz, c, sz));
    }
    const real r = rho[c], two_dt = 2 * dt;
    vx[c] += two_dt / (r + rho[c + 1]) * ux;
    vy[c] += two_dt / (r + rho[c + sy]) * uy;
    vz[c] += two_dt / (r + rho[c + sz]) * uz;
}

/* The stresses' CPML terms (the CPML part of seis_stress), added to what
 * seis_stress_in wrote; a shear stress only where one of its two
 * derivatives has a term. Below the surface rows only (zs): those rows,
 * with their images, stay with seis_stress. */
/* Why 33 arguments: as seis_velocity_shell, with the stresses and lam, mu. */
__kernel void seis_stress_shell(__global const real *restrict vx,
                                __global const real *restrict vy,
                                __global const real *restrict vz, __global real *sxx,
                                __global real *syy, __global real *szz, __global real *sxy,
                                __global real *sxz, __global real *syz,
                                __global const real *restrict lam, __global const real *restrict mu,
                                SHELL_ARGS, int total)
{
    if ((int)get_global_id(0) >= total)
        return;
    SHELL_BEGIN;
    real exx = 0, eyy = 0, ezz = 0, vxy = 0, vyx = 0, vxz = 0, vzx = 0, vyz = 0, vzy = 0;
    if (si >= 0) {
        const int ns = 2 * pml * ny * nz, q = si + 2 * pml * (j + ny * k);
        exx = pml_corr(psix, 3 * ns + q, profx, nx, i, 0, DM(vx, c, 1));
        vyx = pml_corr(psix, 4 * ns + q, profx, nx, i, 3, DP(vy, c, 1));
        vzx = pml_corr(psix, 5 * ns + q, profx, nx, i, 3, DP(vz, c, 1));
    }
    if (sj >= 0) {
        const int ns = nx * 2 * pml * nz, q = i + nx * (sj + 2 * pml * k);
        vxy = pml_corr(psiy, 3 * ns + q, profy, ny, j, 3, DP(vx, c, sy));
        eyy = pml_corr(psiy, 4 * ns + q, profy, ny, j, 0, DM(vy, c, sy));
        vzy = pml_corr(psiy, 5 * ns + q, profy, ny, j, 3, DP(vz, c, sy));
    }
    if (sk >= 0) {
        const int ns = nx * ny * 2 * pml, q = i + nx * (j + ny * sk);
        vxz = pml_corr(psiz, 3 * ns + q, profz, nz, k, 3, DP(vx, c, sz));
        vyz = pml_corr(psiz, 4 * ns + q, profz, nz, k, 3, DP(vy, c, sz));
        ezz = pml_corr(psiz, 5 * ns + q, profz, nz, k, 0, DM(vz, c, sz));
    }
    const real l = lam[c], m = mu[c], l2m = l + 2 * m;
    sxx[c] += dt * (l2m * exx + l * (eyy + ezz));
    syy[c] += dt * (l2m * eyy + l * (exx + ezz));
    szz[c] += dt * (l2m * ezz + l * (exx + eyy));
    if (si >= 0 || sj >= 0)
        sxy[c] += dt * harm4(m, mu[c + 1], mu[c + sy], mu[c + 1 + sy]) * (vxy + vyx);
    if (si >= 0 || sk >= 0)
        sxz[c] += dt * harm4(m, mu[c + 1], mu[c + sz], mu[c + 1 + sz]) * (vxz + vzx);
    if (sj >= 0 || sk >= 0)
        syz[c] += dt * harm4(m, mu[c + sy], mu[c + sz], mu[c + sy + sz]) * (vyz + vzy);
}

/* Six stress components (or strain rates: xx, yy, zz and the shear sums
 * dvx/dy + dvy/dx, dvx/dz + dvz/dx, dvy/dz + dvz/dy). */
typedef struct {
    real xx, yy, zz, xy, xz, yz;
} sym6;

/* The end of a fused step at cell c: new stresses from the old ones (o),
 * the strain rates (e) and the moduli (lambda l; mu at the cell, m, and at
 * the other corners of the shear nodes), then the 9 stores. */
inline void fused_put(__global real *ox, __global real *oy, __global real *oz,
                      __global real *qxx, __global real *qyy, __global real *qzz,
                      __global real *qxy, __global real *qxz, __global real *qyz, int c, real ux,
                      real uy, real uz, sym6 o, sym6 e, real l, real m, real mx, real my,
                      real mxy, real mz, real mzx, real mzy, real dt)
{
    const real l2m = l + 2 * m;
    const real nxx = o.xx + dt * (l2m * e.xx + l * (e.yy + e.zz));
    const real nyy = o.yy + dt * (l2m * e.yy + l * (e.xx + e.zz));
    const real nzz = o.zz + dt * (l2m * e.zz + l * (e.xx + e.yy));
    const real nxy = o.xy + dt * harm4(m, mx, my, mxy) * e.xy;
    const real nxz = o.xz + dt * harm4(m, mx, mz, mzx) * e.xz;
    const real nyz = o.yz + dt * harm4(m, my, mz, mzy) * e.yz;
    ox[c] = ux;
    oy[c] = uy;
    oz[c] = uz;
    STORE_STRESSES;
}

/* Fused step of the interior box (no CPML, no surface rows, no force source
 * within reach): each work-item recomputes the new velocities its stress
 * stencil needs from the old fields, then writes new velocities and
 * stresses into the other buffer set. DRAM traffic per cell: 9 fields read,
 * 9 written, rho, lambda, mu read (84 B fp32 against 120 B for the two
 * kernels); the neighbours' velocity updates are recomputed from cache.
 * Walking z, the new velocities along z slide in windows: per plane 3 along
 * z plus 6 (order 2) or 18 (order 4) x/y neighbours are recomputed. */
/* the fused kernels' fields: old (read), new (written), materials */
#define FUSED_FIELDS                                                                                \
    __global const real *restrict vx, __global const real *restrict vy,                             \
        __global const real *restrict vz, __global const real *restrict sxx,                        \
        __global const real *restrict syy, __global const real *restrict szz,                       \
        __global const real *restrict sxy, __global const real *restrict sxz,                       \
        __global const real *restrict syz, __global real *restrict ox, __global real *restrict oy,  \
        __global real *restrict oz, __global real *restrict qxx, __global real *restrict qyy,       \
        __global real *restrict qzz, __global real *restrict qxy, __global real *restrict qxz,      \
        __global real *restrict qyz, __global const real *restrict rho,                             \
        __global const real *restrict lam, __global const real *restrict mu
/* a new velocity at c from the old fields (both fused kernels) */
#define VX(c) vel_x(vx, sxx, sxy, sxz, rho, c, sy, sz, c1, c2, two_dt)
#define VY(c) vel_y(vy, sxy, syy, syz, rho, c, sy, sz, c1, c2, two_dt)
#define VZ(c) vel_z(vz, sxz, syz, szz, rho, c, sy, sz, c1, c2, two_dt)
__kernel void seis_fused(FUSED_FIELDS, int sy, int sz, int origin, int zb, int xs, int x0, int y0, int z0,
                         int x1, int y1, int z1, int kz, real c1, real c2, real dt)
{
    FUSED_BASE;
    WALK_BEGIN;
    const real two_dt = 2 * dt;
    VWIN_DECLARE;
    VWIN_INIT(VX, VY, VZ, c);
    real m = mu[c], mx = mu[c + 1], my = mu[c + sy];
    for (int k = k0; k < k1; k++, c += sz) {
        VWIN_NEXT(VX, VY, VZ, c);
        const real ux = DP_AT0(wvx), uy = DP_AT0(wvy), uz = DM_AT0(wvz);
#if ORDER == 4
        const real exx = c1 * (ux - VX(c - 1)) + c2 * (VX(c + 1) - VX(c - 2));
        const real eyy = c1 * (uy - VY(c - sy)) + c2 * (VY(c + sy) - VY(c - 2 * sy));
        const real vxy = c1 * (VX(c + sy) - ux) + c2 * (VX(c + 2 * sy) - VX(c - sy));
        const real vyx = c1 * (VY(c + 1) - uy) + c2 * (VY(c + 2) - VY(c - 1));
        const real vzx = c1 * (VZ(c + 1) - uz) + c2 * (VZ(c + 2) - VZ(c - 1));
        const real vzy = c1 * (VZ(c + sy) - uz) + c2 * (VZ(c + 2 * sy) - VZ(c - sy));
#else
        const real exx = c1 * (ux - VX(c - 1)), eyy = c1 * (uy - VY(c - sy));
        const real vxy = c1 * (VX(c + sy) - ux), vyx = c1 * (VY(c + 1) - uy);
        const real vzx = c1 * (VZ(c + 1) - uz), vzy = c1 * (VZ(c + sy) - uz);
#endif
        const real ezz = WIN_D(wvz), vxz = WIN_D(wvx), vyz = WIN_D(wvy);
        const real mz = mu[c + sz], mzx = mu[c + 1 + sz], mzy = mu[c + sy + sz];
        const sym6 o = {sxx[c], syy[c], szz[c], sxy[c], sxz[c], syz[c]};
        const sym6 e = {exx, eyy, ezz, vxy + vyx, vxz + vzx, vyz + vzy};
        fused_put(ox, oy, oz, qxx, qyy, qzz, qxy, qxz, qyz, c, ux, uy, uz, o, e, lam[c], m, mx,
                  my, mu[c + 1 + sy], mz, mzx, mzy, dt);
        m = mz;
        mx = mzx;
        my = mzy;
        VWIN_SHIFT;
    }
}

/* The fused step with the new velocities shared through local memory: a
 * work-group of lx by ly work-items walks kz planes; per plane each
 * work-item computes the new velocities of its own column R planes ahead
 * (kept in its z windows, as in seis_fused), puts those of the current plane
 * into a tile with an R-wide halo in x and y, and the work-group computes
 * the halo (2R(lx+ly) columns, no corners) from the old fields; the stress
 * update then takes its x/y neighbours from the tile. Per cell that is 3
 * velocity evaluations plus 3*2R(lx+ly)/(lx ly) for the halo (about 1 at
 * order 2 and 2 at order 4 for 32x8) instead of the 9 / 21 of seis_fused.
 * DRAM traffic is the same 84 B per cell. Work-items outside the box still
 * take part in the barriers (and compute the tile's columns that active
 * cells need). lv: 3 (lx+2R)(ly+2R) reals. */
#define RR (ORDER / 2)
/* LDS_EARLY 1: a cell's own stress-phase loads are issued before the
 * velocity phase (in flight across it and the barrier, but 14 more
 * registers live: 70 against 56 at order 2 for sm_90); 0: after the
 * barrier. The tuner times both. */
#ifndef LDS_EARLY
#define LDS_EARLY 1
#endif
typedef struct {
    sym6 o;
    real l, mz, mzx, mzy, mxy;
} own_in;
inline own_in own_loads(__global const real *restrict sxx, __global const real *restrict syy,
                        __global const real *restrict szz, __global const real *restrict sxy,
                        __global const real *restrict sxz, __global const real *restrict syz,
                        __global const real *restrict lam, __global const real *restrict mu,
                        int c, int sy, int sz)
{
    const own_in w = {{sxx[c], syy[c], szz[c], sxy[c], sxz[c], syz[c]},
                      lam[c], mu[c + sz], mu[c + 1 + sz], mu[c + sy + sz], mu[c + 1 + sy]};
    return w;
}
#define TILE(comp, dx, dy) lv[(comp) * tn + (ty + RR + (dy)) * tw + tx + RR + (dx)]
/* Why 17 arguments: FUSED_FIELDS and the launch box and walk of seis_fused, plus the __local
 * tile. */
__kernel void seis_fused_lds(FUSED_FIELDS, __local real *lv, int sy, int sz, int origin, int zb, int xs,
                             int x0, int y0, int z0, int x1, int y1, int z1, int kz, real c1,
                             real c2, real dt)
{
    FUSED_BASE;
    const int lx = get_local_size(0), ly = get_local_size(1);
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int i = xs + get_global_id(0), j = y0 + get_global_id(1);
    const int k0 = z0 + get_group_id(2) * kz;
    if (k0 >= z1) /* the same for the whole work-group */
        return;
    const int k1 = min(k0 + kz, z1);
    const int tw = lx + 2 * RR, tn = tw * (ly + 2 * RR);
    const int gi = xs + get_group_id(0) * lx, gj = y0 + get_group_id(1) * ly; /* tile origin */
    /* own: an output cell; mine: a column whose velocities some output needs */
    const int own = i >= x0 && i < x1 && j < y1;
    const int mine = i >= x0 - RR && i < x1 + RR && j < y1 + RR;
    const real two_dt = 2 * dt;
    int c = origin + i + j * sy + (k0 - ZB) * sz;
    VWIN_DECLARE;
    if (mine) {
        VWIN_INIT(VX, VY, VZ, c);
    }
    real m = 0, mx = 0, my = 0;
    if (own) {
        m = mu[c];
        mx = mu[c + 1];
        my = mu[c + sy];
    }
    const int nhalo = 2 * RR * (lx + ly), t = tx + lx * ty;
    for (int k = k0; k < k1; k++, c += sz) {
#if LDS_EARLY
        own_in w = {{0, 0, 0, 0, 0, 0}, 0, 0, 0, 0, 0};
        if (own)
            w = own_loads(sxx, syy, szz, sxy, sxz, syz, lam, mu, c, sy, sz);
#endif
        if (mine) {
            VWIN_NEXT(VX, VY, VZ, c);
            TILE(0, 0, 0) = DP_AT0(wvx);
            TILE(1, 0, 0) = DP_AT0(wvy);
            TILE(2, 0, 0) = DM_AT0(wvz);
        }
        /* the halo: rows below/above the tile, then columns left/right */
        for (int h = t; h < nhalo; h += lx * ly) {
            int ax, ay;
            if (h < 2 * RR * lx) {
                const int r = h / lx;
                ax = h % lx;
                ay = r < RR ? r - RR : ly + r - RR;
            } else {
                const int q = h - 2 * RR * lx, col = q / ly;
                ay = q % ly;
                ax = col < RR ? col - RR : lx + col - RR;
            }
            const int hi = gi + ax, hj = gj + ay;
            if (hi >= x0 - RR && hi < x1 + RR && hj >= y0 - RR && hj < y1 + RR) {
                const int hc = origin + hi + hj * sy + (k - ZB) * sz, o = (ay + RR) * tw + ax + RR;
                lv[o] = VX(hc);
                lv[tn + o] = VY(hc);
                lv[2 * tn + o] = VZ(hc);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (own) {
#if !LDS_EARLY
            const own_in w = own_loads(sxx, syy, szz, sxy, sxz, syz, lam, mu, c, sy, sz);
#endif
            const real ux = TILE(0, 0, 0), uy = TILE(1, 0, 0), uz = TILE(2, 0, 0);
#if ORDER == 4
            const real exx = c1 * (ux - TILE(0, -1, 0)) + c2 * (TILE(0, 1, 0) - TILE(0, -2, 0));
            const real eyy = c1 * (uy - TILE(1, 0, -1)) + c2 * (TILE(1, 0, 1) - TILE(1, 0, -2));
            const real vxy = c1 * (TILE(0, 0, 1) - ux) + c2 * (TILE(0, 0, 2) - TILE(0, 0, -1));
            const real vyx = c1 * (TILE(1, 1, 0) - uy) + c2 * (TILE(1, 2, 0) - TILE(1, -1, 0));
            const real vzx = c1 * (TILE(2, 1, 0) - uz) + c2 * (TILE(2, 2, 0) - TILE(2, -1, 0));
            const real vzy = c1 * (TILE(2, 0, 1) - uz) + c2 * (TILE(2, 0, 2) - TILE(2, 0, -1));
#else
            const real exx = c1 * (ux - TILE(0, -1, 0)), eyy = c1 * (uy - TILE(1, 0, -1));
            const real vxy = c1 * (TILE(0, 0, 1) - ux), vyx = c1 * (TILE(1, 1, 0) - uy);
            const real vzx = c1 * (TILE(2, 1, 0) - uz), vzy = c1 * (TILE(2, 0, 1) - uz);
#endif
            const real ezz = WIN_D(wvz), vxz = WIN_D(wvx), vyz = WIN_D(wvy);
            const sym6 e = {exx, eyy, ezz, vxy + vyx, vxz + vzx, vyz + vzy};
            fused_put(ox, oy, oz, qxx, qyy, qzz, qxy, qxz, qyz, c, ux, uy, uz, w.o, e, w.l, m, mx,
                      my, w.mxy, w.mz, w.mzx, w.mzy, dt);
            m = w.mz;
            mx = w.mzx;
            my = w.mzy;
        }
        if (mine) {
            VWIN_SHIFT;
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the tile is rewritten next plane */
    }
}
#undef VX
#undef VY
#undef VZ
#undef TILE

/* Sources (cell indices 64-bit, whole-grid): field[index[q]] += coeff[q] * wavelet[source[q] * nsamples + n]
 * for the injections q in [first, end) of one pass (fields 0-2 velocity,
 * 3-8 stress). */
/* Why 18 arguments: all nine fields, since one launch injects into whichever field each source
 * names. */
__kernel void seis_inject(__global real *vx, __global real *vy, __global real *vz,
                          __global real *sxx, __global real *syy, __global real *szz,
                          __global real *sxy, __global real *sxz, __global real *syz,
                          __global const int *field, __global const long *index,
                          __global const int *source, __global const real *coeff,
                          __global const real *wavelet, int first, int end, int nsamples, int n)
{
    const int q = first + get_global_id(0);
    if (q >= end)
        return;
    const real add = coeff[q] * wavelet[source[q] * nsamples + n];
    const long c = index[q];
    switch (field[q]) {
    case 0: vx[c] += add; break;
    case 1: vy[c] += add; break;
    case 2: vz[c] += add; break;
    case 3: sxx[c] += add; break;
    case 4: syy[c] += add; break;
    case 5: szz[c] += add; break;
    case 6: sxy[c] += add; break;
    case 7: sxz[c] += add; break;
    default: syz[c] += add; break;
    }
}

/* Receivers: traces[(r*4 + comp)*steps + n] = vx, vy, vz, p of cell index[r]. */
__kernel void seis_record(__global const real *vx, __global const real *vy,
                          __global const real *vz, __global const real *sxx,
                          __global const real *syy, __global const real *szz,
                          __global const long *index, __global float *traces, int nrec, int steps,
                          int n)
{
    const int r = get_global_id(0);
    if (r >= nrec)
        return;
    const long c = index[r];
    __global float *t = traces + (size_t)r * 4 * steps + n;
    t[0] = (float)vx[c];
    t[steps] = (float)vy[c];
    t[2 * (size_t)steps] = (float)vz[c];
    t[3 * (size_t)steps] = (float)(-(sxx[c] + syy[c] + szz[c]) / 3);
}

/* Halo planes of a slab: planes (stride s0, along the cut) of e1 x e2
 * (strides s1, s2: the padded extents across it) of fields a, b, c, each
 * field only the planes its neighbour's stencil reads, packed into buf
 * (field plane, e2, e1) or unpacked from it. Copies only; 64-bit offsets (the high face of a large grid lies
 * beyond 2^31). */
__kernel void seis_halo(__global real *a, __global real *b, __global real *c,
                        __global real *buf, long start, int s0, int s1, int s2, int n0, int n1,
                        int p0, int p1, int p2, int e1, int e2, int at, int unpack)
{
    const int u = get_global_id(0), v = get_global_id(1), w = get_global_id(2);
    if (u >= e1 || v >= e2)
        return;
    /* w runs over the field planes: n0 of a from plane p0, n1 of b from
     * p1, the rest of c from p2 (planes relative to start) */
    const int f = w < n0 ? 0 : w < n0 + n1 ? 1 : 2;
    const int plane = f == 0 ? p0 + w : f == 1 ? p1 + w - n0 : p2 + w - n0 - n1;
    __global real *fld = f == 0 ? a : f == 1 ? b : c;
    const long x = start + (long)plane * s0 + (long)u * s1 + (long)v * s2;
    const int q = at + (w * e2 + v) * e1 + u;
    if (unpack)
        fld[x] = buf[q];
    else
        buf[q] = fld[x];
}
