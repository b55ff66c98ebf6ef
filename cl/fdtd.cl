/* Yee updates for streamcl fdtd. Options: FDTD_FP64 (double fields),
 * UNIFORM=id (one material everywhere: no index arrays read), PER_X/PER_Y/
 * PER_Z (periodic axes). Fields on the padded grid of grid3d (one halo
 * plane, x fastest): point (i,j,k) at base + i + px*j + pxy*k. */
#include "fdtd_real.clh"

#ifndef PER_X
#define PER_X 0
#endif
#ifndef PER_Y
#define PER_Y 0
#endif
#ifndef PER_Z
#define PER_Z 0
#endif
/* SUB_LO_X/Y/Z: a sub-domain whose low face on that axis is a cut between
 * sub-domains, not the PEC wall: its node plane 0 is updated like any
 * interior plane (reading the halo plane -1 the caller filled) */
#ifndef SUB_LO_X
#define SUB_LO_X 0
#endif
#ifndef SUB_LO_Y
#define SUB_LO_Y 0
#endif
#ifndef SUB_LO_Z
#define SUB_LO_Z 0
#endif
/* first updated node index along an axis: 1 (PEC faces) or 0 (periodic, or
 * the low face of a sub-domain is a cut) */
#define LO_X (1 - PER_X - SUB_LO_X)
#define LO_Y (1 - PER_Y - SUB_LO_Y)
#define LO_Z (1 - PER_Z - SUB_LO_Z)

#ifdef UNIFORM
#define MAT(ids, o) UNIFORM
#else
#define MAT(ids, o) ids[o]
#endif

/* Kernels walk along z (2.5D): work-item (i, j, c) updates the column
 * (i, j) over planes [c kz, c kz + kz) and keeps in registers the values of
 * the plane it has just read that the next plane needs (E at k+1 for H, H at
 * k-1 for E), so each field value leaves DRAM once per update instead of once
 * per plane that uses it; x/y neighbours come from the work-group's caches.
 * kz = 1 is the plain one-point-per-work-item kernel. Pointers that never
 * alias an output are restrict, so loads of a plane need not wait for the
 * stores of the previous one. */

/* H <- DA H - DB curl E; the three components a point owns, over the box
 * [ox, mx) x [oy, my) x [oz, mz) (the whole domain, or the part of a
 * sub-domain updated while its halo planes travel). Outputs and inputs may
 * be the same buffers (in place) or the two halves of a ping-pong pair. */
/* Why 30 arguments: OpenCL C 1.2 cannot put buffers in a struct, so each component in and out
 * and its material ids is one; the box bounds change per launch (halo overlap). */
__kernel void fdtd_h(__global real *hx, __global real *hy, __global real *hz,
                     __global const real *hxi, __global const real *hyi,
                     __global const real *hzi, __global const real *restrict ex,
                     __global const real *restrict ey, __global const real *restrict ez,
                     __global const uchar *idhx, __global const uchar *idhy,
                     __global const uchar *idhz, __constant real *da, __constant real *db,
                     int nx, int ny, int nz, int ox, int oy, int oz, int mx, int my, int mz,
                     int base, int px, int pxy, real rdx, real rdy, real rdz, int kz)
{
    int i = ox + (int)get_global_id(0) - 1, j = oy + get_global_id(1), k0 = oz + get_global_id(2) * kz;
    if (i < ox || i >= mx || j >= my || k0 >= mz)
        return; /* updated H points all have i, j, k < n */
    int k1 = min(k0 + kz, mz);
    int o = base + i + px * j + pxy * k0;
    /* +1 neighbours, wrapped on periodic axes */
    int sx = (PER_X && i == nx - 1) ? -(nx - 1) : 1;
    int sy = (PER_Y && j == ny - 1) ? -(ny - 1) * px : px;
    real ex0 = ex[o], ey0 = ey[o];
    for (int k = k0; k < k1; k++, o += pxy) {
        int sz = (PER_Z && k == nz - 1) ? -(nz - 1) * pxy : pxy;
        real ez0 = ez[o], exu = ex[o + sz], eyu = ey[o + sz];
        if (i >= LO_X) {
            int q = MAT(idhx, o);
            hx[o] = da[q] * hxi[o] - db[q] * ((ez[o + sy] - ez0) * rdy - (eyu - ey0) * rdz);
        }
        if (j >= LO_Y) {
            int q = MAT(idhy, o);
            hy[o] = da[q] * hyi[o] - db[q] * ((exu - ex0) * rdz - (ez[o + sx] - ez0) * rdx);
        }
        if (k >= LO_Z) {
            int q = MAT(idhz, o);
            hz[o] = da[q] * hzi[o] - db[q] * ((ey[o + sx] - ey0) * rdx - (ex[o + sy] - ex0) * rdy);
        }
        ex0 = exu; /* plane k+1 is the next plane's own */
        ey0 = eyu;
    }
}

/* E <- CA E + CB curl H over the box [ox, mx) x [oy, my) x [oz, mz) (the
 * whole domain, or the CPML slabs when the fused kernel's E is redone). */
/* Why 30 arguments: as fdtd_h (a buffer per component in, out and ids; per-launch box bounds). */
__kernel void fdtd_e(__global real *ex, __global real *ey, __global real *ez,
                     __global const real *exi, __global const real *eyi,
                     __global const real *ezi, __global const real *restrict hx,
                     __global const real *restrict hy, __global const real *restrict hz,
                     __global const uchar *idex, __global const uchar *idey,
                     __global const uchar *idez, __constant real *ca, __constant real *cb,
                     int nx, int ny, int nz, int ox, int oy, int oz, int mx, int my, int mz,
                     int base, int px, int pxy, real rdx, real rdy, real rdz, int kz)
{
    int i = ox + (int)get_global_id(0) - 1, j = oy + get_global_id(1), k0 = oz + get_global_id(2) * kz;
    if (i < ox || i >= mx || j >= my || k0 >= mz)
        return; /* updated E points all have i, j, k < n */
    int k1 = min(k0 + kz, mz);
    int o = base + i + px * j + pxy * k0;
    /* -1 neighbours, wrapped on periodic axes */
    int sx = (PER_X && i == 0) ? -(nx - 1) : 1;
    int sy = (PER_Y && j == 0) ? -(ny - 1) * px : px;
    int sz = (PER_Z && k0 == 0) ? -(nz - 1) * pxy : pxy;
    real hxm = hx[o - sz], hym = hy[o - sz]; /* plane k-1 (halo plane when k = 0) */
    for (int k = k0; k < k1; k++, o += pxy) {
        real hx0 = hx[o], hy0 = hy[o], hz0 = hz[o];
        if (j >= LO_Y && k >= LO_Z) {
            int q = MAT(idex, o);
            ex[o] = ca[q] * exi[o] + cb[q] * ((hz0 - hz[o - sy]) * rdy - (hy0 - hym) * rdz);
        }
        if (i >= LO_X && k >= LO_Z) {
            int q = MAT(idey, o);
            ey[o] = ca[q] * eyi[o] + cb[q] * ((hx0 - hxm) * rdz - (hz0 - hz[o - sx]) * rdx);
        }
        if (i >= LO_X && j >= LO_Y) {
            int q = MAT(idez, o);
            ez[o] = ca[q] * ezi[o] + cb[q] * ((hy0 - hy[o - sx]) * rdx - (hx0 - hx[o - sy]) * rdy);
        }
        hxm = hx0; /* plane k is the next plane's k-1 */
        hym = hy0;
    }
}

/* H at point o after the update, from the inputs (the fused kernel computes
 * its own H and the H values its E update needs at the -1 neighbours in x
 * and y; the one at z-1 it kept from the previous plane). */
#define HXN(o) (da[MAT(idhx, o)] * hxi[o] - db[MAT(idhx, o)] * ((ezi[(o) + px] - ezi[o]) * rdy - (eyi[(o) + pxy] - eyi[o]) * rdz))
#define HYN(o) (da[MAT(idhy, o)] * hyi[o] - db[MAT(idhy, o)] * ((exi[(o) + pxy] - exi[o]) * rdz - (ezi[(o) + 1] - ezi[o]) * rdx))
#define HZN(o) (da[MAT(idhz, o)] * hzi[o] - db[MAT(idhz, o)] * ((eyi[(o) + 1] - eyi[o]) * rdx - (exi[(o) + px] - exi[o]) * rdy))

/* CPML folded into the fused kernel (CPML_X/Y/Z: the axis has slabs). A
 * point in a slab updates its auxiliary fields psi in place of a separate
 * pass: the target gets sign coef ((kinv - 1) D + psi) and then psi <- b psi
 * + c D (gprMax's recursive integration, see host.c), D being the derivative
 * its own curl already formed. psi is stored for the slab planes only: along
 * the axis, planes [0, lo] and [n - hi, n] numbered 0 .. T-1; across it, x fastest: the x psi at
 * (plane, j, k) extents (T, ny + 1), the y and z psi in rows of the fields'
 * padded px from i = -1 (so that a work-group's row starts aligned, as its
 * field rows do) at (i, plane, k) and (i, j, plane), extents (px, T or ny + 1).
 * H psi is double-buffered like the fields (a work-item recomputes the
 * corrected H of its -1 neighbours from psi of step n while their owners
 * write psi of step n+1); E psi is touched by its owner only, in place. */
#ifndef CPML_X
#define CPML_X 0
#endif
#ifndef CPML_Y
#define CPML_Y 0
#endif
#ifndef CPML_Z
#define CPML_Z 0
#endif

/* static: with C99 inline semantics a plain 'inline' function has no
 * definition of its own, and a build that does not inline it (-O0, or a
 * compiler that keeps a call) fails to link */

/* slab plane of index ia (0 .. n), or -1 between the slabs (also the cpml=4
 * shell's x psi plane, which shares the fused kernel's x psi layout) */
static inline int cpml_plane(int ia, int lo, int hi, int n)
{
    return ia <= lo ? ia : ia >= n - hi ? ia - (n - hi) + lo + 1 : -1;
}

/* SHELL_YZ (cpml=4): the fused kernel's build with only CPML_X, and the
 * shell kernels over the y and z slabs only. The x slab cells are the
 * fused pass's: their H x terms always (they depend on E of step n only,
 * and the shell adds its y, z terms after them, the order of cpml=3), their
 * E x terms and E x psi only in rows outside the E shell (there shell_e
 * redoes E from the corrected H with every axis's terms, x psi included). */
#ifndef SHELL_YZ
#define SHELL_YZ 0
#endif

#if CPML_X || CPML_Y || CPML_Z

/* One pair at index ia of a profile (kinv, b, c, each of s entries from
 * cp[k]): the new psi into *p, and the term the target adds times sign coef,
 * which takes psi of the previous step (gprMax's recursive integration). */
static inline real cpml_term(__global const real *cp, int k, int ia, int s, real d, real psi, real *p)
{
    *p = cp[k + s + ia] * psi + cp[k + 2 * s + ia] * d;
    return (cp[k + ia] - (real)1) * d + psi;
}
#endif

/* One whole step in one pass (PEC box, no periodic axis): reads the six
 * components of step n once and writes the six of step n+1 into the other
 * buffers: 48 bytes per cell in fp32 instead of the 72 of separate H and E
 * kernels, for 4 recomputed H values per cell whose inputs the caches serve.
 * With CPML the slab points also apply their corrections (arguments after
 * kz; unused without CPML_*): phAB is psi of H component A along axis B
 * (output; phAB_i the input), peAB of E; cp holds per axis the profiles
 * kinv, b, c at nodes then at half nodes (n + 1 each) from offset cpX; loX /
 * hiX are the slab cells, tX = lo + hi + 2 the slab planes (0: no CPML on
 * that axis). Interior work-items skip the slab code: in x and y only edge
 * work-groups diverge, in z whole planes are in or out. part 0: every point
 * (launched over the box); part 1 (box) / part 2 (the ngx x ngy x ngz
 * work-groups' edge list, 1D over groups): the interior walks / the edge
 * walks, so that the interior runs in a build without the CPML code. */
/* Why 73 arguments and 350 lines: one pass over the whole step is the point (each value read
 * once), so all 12 field buffers, 6 id arrays, 4 tables and the 12 psi buffers of the CPML slabs
 * come in; the slab code is #if'd inside the walks so a build without CPML_* drops it. */
__kernel void fdtd_fused(__global real *restrict ex, __global real *restrict ey, __global real *restrict ez,
                         __global real *restrict hx, __global real *restrict hy, __global real *restrict hz,
                         __global const real *restrict exi, __global const real *restrict eyi,
                         __global const real *restrict ezi, __global const real *restrict hxi,
                         __global const real *restrict hyi, __global const real *restrict hzi,
                         __global const uchar *restrict idex, __global const uchar *restrict idey,
                         __global const uchar *restrict idez, __global const uchar *restrict idhx,
                         __global const uchar *restrict idhy, __global const uchar *restrict idhz,
                         __constant real *ca, __constant real *cb, __constant real *da,
                         __constant real *db, int nx, int ny, int nz, int base, int px, int pxy,
                         real rdx, real rdy, real rdz, int kz,
                         __global real *restrict phxy, __global real *restrict phxz,
                         __global real *restrict phyz, __global real *restrict phyx,
                         __global real *restrict phzx, __global real *restrict phzy,
                         __global const real *restrict phxy_i, __global const real *restrict phxz_i,
                         __global const real *restrict phyz_i, __global const real *restrict phyx_i,
                         __global const real *restrict phzx_i, __global const real *restrict phzy_i,
                         __global real *restrict pexy, __global real *restrict pexz,
                         __global real *restrict peyz, __global real *restrict peyx,
                         __global real *restrict pezx, __global real *restrict pezy,
                         __global const real *restrict cp, int cpx, int cpy, int cpz, int lox,
                         int loy, int loz, int hix, int hiy, int hiz, int tx, int ty, int tz,
                         int part, int ngx, int ngy, int ngz, int xl, int xh, int yl, int yh,
                         int zl, int zh)
{
    int i, j, k0;
    if (part == 2) {
        /* work-group w of the edge list: the edge z walks (every x, y), then
         * the edge y rows (inner z), then the edge x columns (inner y, z);
         * the edge groups along an axis are [0, l) and [h, ng) */
        int w = get_group_id(0), gx, gy, gz;
        int nze = zl + ngz - zh, nye = yl + ngy - yh, nxe = xl + ngx - xh;
        int na = nze * ngy * ngx, nb = (zh - zl) * nye * ngx;
        if (w < na) {
            gx = w % ngx;
            gy = w / ngx % ngy;
            gz = w / ngx / ngy;
            gz = gz < zl ? gz : zh + gz - zl;
        } else if (w - na < nb) {
            w -= na;
            gx = w % ngx;
            gy = w / ngx % nye;
            gy = gy < yl ? gy : yh + gy - yl;
            gz = zl + w / ngx / nye;
        } else {
            w -= na + nb;
            gx = w % nxe;
            gx = gx < xl ? gx : xh + gx - xl;
            gy = yl + w / nxe % (yh - yl);
            gz = zl + w / nxe / (yh - yl);
        }
        i = gx * (int)get_local_size(0) + (int)get_local_id(0) - 1;
        j = gy * (int)get_local_size(1) + (int)get_local_id(1);
        k0 = gz * kz;
    } else {
        i = (int)get_global_id(0) - 1;
        j = get_global_id(1);
        k0 = get_global_id(2) * kz;
    }
    if (i < 0 || i >= nx || j >= ny || k0 >= nz)
        return;
    int k1 = min(k0 + kz, nz);
    if (part) {
        /* the walks that meet a slab point or read one's corrected H (-1
         * neighbours; the walk's first plane also the plane below it) are
         * part 2's, the others part 1's: a kernel without the CPML code and
         * its registers does most of the grid */
        int edge = (tx && (i <= lox + 1 || i >= nx - hix)) || (ty && (j <= loy + 1 || j >= ny - hiy)) ||
                   (tz && (k0 <= loz + 1 || k1 - 1 >= nz - hiz));
        if (edge != (part == 2))
            return;
    }
    int o = base + i + px * j + pxy * k0;
#if CPML_X || CPML_Y || CPML_Z
    /* profile lengths; also psi extents: x psi (plane, j, k), y psi (i + 1, plane, k) and z
     * psi (i + 1, j, plane) in rows of px */
    int sx = nx + 1, sy = ny + 1, sz = nz + 1;
#endif
#if CPML_X
    int cx = cpml_plane(i, lox, hix, nx), cxm = cpml_plane(i - 1, lox, hix, nx);
    int pnx = cpx, phx = cpx + 3 * sx; /* node and half-node profiles */
#if SHELL_YZ
    /* the row's y lies outside the E shell (one plane more on a low face
     * with CPML): uniform per row, so only the warps at row ends diverge */
    int ey_in = j >= loy + (loy > 0) && j < ny - hiy;
#endif
#endif
#if CPML_Y
    int cy = cpml_plane(j, loy, hiy, ny), cym = cpml_plane(j - 1, loy, hiy, ny);
    int pny = cpy, phy = cpy + 3 * sy; /* node and half-node profiles */
#endif
#if CPML_Z
    int pnz = cpz, phz = cpz + 3 * sz; /* node and half-node profiles */
#endif
#if CPML_X || CPML_Y || CPML_Z
    real p; /* a new psi value */
#endif
    /* new H at (i, j, k-1): the first plane computes it, later ones keep it */
    real hxm = 0, hym = 0;
    if (k0 >= 1 && i >= 1) {
        hxm = HXN(o - pxy);
#if CPML_Y || CPML_Z
        real dbq = db[MAT(idhx, o - pxy)];
#endif
#if CPML_Y
        if (cy >= 0)
            hxm -= dbq * cpml_term(cp, phy, j, sy, (ezi[o - pxy + px] - ezi[o - pxy]) * rdy,
                                   phxy_i[i + 1 + px * (cy + ty * (k0 - 1))], &p);
#endif
#if CPML_Z
        int czm = cpml_plane(k0 - 1, loz, hiz, nz);
        if (czm >= 0)
            hxm += dbq * cpml_term(cp, phz, k0 - 1, sz, (eyi[o] - eyi[o - pxy]) * rdz,
                                   phxz_i[i + 1 + px * (j + sy * czm)], &p);
#endif
    }
    if (k0 >= 1 && j >= 1) {
        hym = HYN(o - pxy);
#if CPML_X || CPML_Z
        real dbq = db[MAT(idhy, o - pxy)];
#endif
#if CPML_X
        if (cx >= 0)
            hym += dbq * cpml_term(cp, phx, i, sx, (ezi[o - pxy + 1] - ezi[o - pxy]) * rdx,
                                   phyx_i[cx + tx * (j + sy * (k0 - 1))], &p);
#endif
#if CPML_Z
        int czm = cpml_plane(k0 - 1, loz, hiz, nz);
        if (czm >= 0)
            hym -= dbq * cpml_term(cp, phz, k0 - 1, sz, (exi[o] - exi[o - pxy]) * rdz,
                                   phyz_i[i + 1 + px * (j + sy * czm)], &p);
#endif
    }
    real exv = exi[o], eyv = eyi[o];
    /* the plane's first-touch (DRAM) values, loaded one plane ahead so that
     * two planes' loads are in flight per work-item */
    real exu = exi[o + pxy], eyu = eyi[o + pxy], ezv = ezi[o];
    real hxv = hxi[o], hyv = hyi[o], hzv = hzi[o];
    for (int k = k0; k < k1; k++, o += pxy) {
        real exu2 = 0, eyu2 = 0, ezv2 = 0, hxv2 = 0, hyv2 = 0, hzv2 = 0;
        if (k + 1 < k1) {
            int on = o + pxy;
            exu2 = exi[on + pxy];
            eyu2 = eyi[on + pxy];
            ezv2 = ezi[on];
            hxv2 = hxi[on];
            hyv2 = hyi[on];
            hzv2 = hzi[on];
        }
#if CPML_Z
        int cz = cpml_plane(k, loz, hiz, nz);
#endif
#if CPML_X && SHELL_YZ
        /* E x terms: the x slab cells whose E the shell does not redo */
        int cxe = ey_in && k >= loz + (loz > 0) && k < nz - hiz ? cx : -1;
#elif CPML_X
        int cxe = cx;
#endif
        real hxn = hxv, hyn = hyv, hzn = hzv;
        if (i >= 1) {
            int q = MAT(idhx, o);
            /* the same full expression as HXN: neighbours recompute it bit for bit */
            hxn = da[q] * hxn - db[q] * ((ezi[o + px] - ezv) * rdy - (eyu - eyv) * rdz);
#if CPML_Y || CPML_Z
            real dy = (ezi[o + px] - ezv) * rdy, dz = (eyu - eyv) * rdz;
#endif
#if CPML_Y
            if (cy >= 0) {
                int pi = i + 1 + px * (cy + ty * k);
                hxn -= db[q] * cpml_term(cp, phy, j, sy, dy, phxy_i[pi], &p);
                phxy[pi] = p;
            }
#endif
#if CPML_Z
            if (cz >= 0) {
                int pi = i + 1 + px * (j + sy * cz);
                hxn += db[q] * cpml_term(cp, phz, k, sz, dz, phxz_i[pi], &p);
                phxz[pi] = p;
            }
#endif
        }
        if (j >= 1) {
            int q = MAT(idhy, o);
            hyn = da[q] * hyn - db[q] * ((exu - exv) * rdz - (ezi[o + 1] - ezv) * rdx);
#if CPML_X || CPML_Z
            real dz = (exu - exv) * rdz, dx = (ezi[o + 1] - ezv) * rdx;
#endif
#if CPML_X
            if (cx >= 0) {
                int pi = cx + tx * (j + sy * k);
                hyn += db[q] * cpml_term(cp, phx, i, sx, dx, phyx_i[pi], &p);
                phyx[pi] = p;
            }
#endif
#if CPML_Z
            if (cz >= 0) {
                int pi = i + 1 + px * (j + sy * cz);
                hyn -= db[q] * cpml_term(cp, phz, k, sz, dz, phyz_i[pi], &p);
                phyz[pi] = p;
            }
#endif
        }
        if (k >= 1) {
            int q = MAT(idhz, o);
            hzn = da[q] * hzn - db[q] * ((eyi[o + 1] - eyv) * rdx - (exi[o + px] - exv) * rdy);
#if CPML_X || CPML_Y
            real dx = (eyi[o + 1] - eyv) * rdx, dy = (exi[o + px] - exv) * rdy;
#endif
#if CPML_X
            if (cx >= 0) {
                int pi = cx + tx * (j + sy * k);
                hzn -= db[q] * cpml_term(cp, phx, i, sx, dx, phzx_i[pi], &p);
                phzx[pi] = p;
            }
#endif
#if CPML_Y
            if (cy >= 0) {
                int pi = i + 1 + px * (cy + ty * k);
                hzn += db[q] * cpml_term(cp, phy, j, sy, dy, phzy_i[pi], &p);
                phzy[pi] = p;
            }
#endif
        }
        real exn = exv, eyn = eyv, ezn = ezv;
        if (j >= 1 && k >= 1) {
            /* Hz at (i, j-1, k), corrected as its owner does */
            real hzs = HZN(o - px);
#if CPML_X || CPML_Y
            real dbq = db[MAT(idhz, o - px)];
#endif
#if CPML_X
            if (cx >= 0)
                hzs -= dbq * cpml_term(cp, phx, i, sx, (eyi[o - px + 1] - eyi[o - px]) * rdx,
                                       phzx_i[cx + tx * (j - 1 + sy * k)], &p);
#endif
#if CPML_Y
            if (cym >= 0)
                hzs += dbq * cpml_term(cp, phy, j - 1, sy, (exv - exi[o - px]) * rdy,
                                       phzy_i[i + 1 + px * (cym + ty * k)], &p);
#endif
            int q = MAT(idex, o);
            exn = ca[q] * exn + cb[q] * ((hzn - hzs) * rdy - (hyn - hym) * rdz);
#if CPML_Y || CPML_Z
            real dy = (hzn - hzs) * rdy, dz = (hyn - hym) * rdz;
#endif
#if CPML_Y
            if (cy >= 0) {
                int pi = i + 1 + px * (cy + ty * k);
                exn += cb[q] * cpml_term(cp, pny, j, sy, dy, pexy[pi], &p);
                pexy[pi] = p;
            }
#endif
#if CPML_Z
            if (cz >= 0) {
                int pi = i + 1 + px * (j + sy * cz);
                exn -= cb[q] * cpml_term(cp, pnz, k, sz, dz, pexz[pi], &p);
                pexz[pi] = p;
            }
#endif
        }
        if (i >= 1 && k >= 1) {
            /* Hz at (i-1, j, k) */
            real hzw = HZN(o - 1);
#if CPML_X || CPML_Y
            real dbq = db[MAT(idhz, o - 1)];
#endif
#if CPML_X
            if (cxm >= 0)
                hzw -= dbq * cpml_term(cp, phx, i - 1, sx, (eyv - eyi[o - 1]) * rdx,
                                       phzx_i[cxm + tx * (j + sy * k)], &p);
#endif
#if CPML_Y
            if (cy >= 0)
                hzw += dbq * cpml_term(cp, phy, j, sy, (exi[o - 1 + px] - exi[o - 1]) * rdy,
                                       phzy_i[i + px * (cy + ty * k)], &p);
#endif
            int q = MAT(idey, o);
            eyn = ca[q] * eyn + cb[q] * ((hxn - hxm) * rdz - (hzn - hzw) * rdx);
#if CPML_X || CPML_Z
            real dz = (hxn - hxm) * rdz, dx = (hzn - hzw) * rdx;
#endif
#if CPML_X
            if (cxe >= 0) {
                int pi = cx + tx * (j + sy * k);
                eyn -= cb[q] * cpml_term(cp, pnx, i, sx, dx, peyx[pi], &p);
                peyx[pi] = p;
            }
#endif
#if CPML_Z
            if (cz >= 0) {
                int pi = i + 1 + px * (j + sy * cz);
                eyn += cb[q] * cpml_term(cp, pnz, k, sz, dz, peyz[pi], &p);
                peyz[pi] = p;
            }
#endif
        }
        if (i >= 1 && j >= 1) {
            /* Hy at (i-1, j, k) and Hx at (i, j-1, k) */
            real hyw = HYN(o - 1), hxs = HXN(o - px);
#if CPML_X || CPML_Z
            real dbw = db[MAT(idhy, o - 1)];
#endif
#if CPML_Y || CPML_Z
            real dbs = db[MAT(idhx, o - px)];
#endif
#if CPML_X
            if (cxm >= 0)
                hyw += dbw * cpml_term(cp, phx, i - 1, sx, (ezv - ezi[o - 1]) * rdx,
                                       phyx_i[cxm + tx * (j + sy * k)], &p);
#endif
#if CPML_Z
            if (cz >= 0)
                hyw -= dbw * cpml_term(cp, phz, k, sz, (exi[o - 1 + pxy] - exi[o - 1]) * rdz,
                                       phyz_i[i + px * (j + sy * cz)], &p);
#endif
#if CPML_Y
            if (cym >= 0)
                hxs -= dbs * cpml_term(cp, phy, j - 1, sy, (ezv - ezi[o - px]) * rdy,
                                       phxy_i[i + 1 + px * (cym + ty * k)], &p);
#endif
#if CPML_Z
            if (cz >= 0)
                hxs += dbs * cpml_term(cp, phz, k, sz, (eyi[o - px + pxy] - eyi[o - px]) * rdz,
                                       phxz_i[i + 1 + px * (j - 1 + sy * cz)], &p);
#endif
            int q = MAT(idez, o);
            ezn = ca[q] * ezn + cb[q] * ((hyn - hyw) * rdx - (hxn - hxs) * rdy);
#if CPML_X || CPML_Y
            real dx = (hyn - hyw) * rdx, dy = (hxn - hxs) * rdy;
#endif
#if CPML_X
            if (cxe >= 0) {
                int pi = cx + tx * (j + sy * k);
                ezn += cb[q] * cpml_term(cp, pnx, i, sx, dx, pezx[pi], &p);
                pezx[pi] = p;
            }
#endif
#if CPML_Y
            if (cy >= 0) {
                int pi = i + 1 + px * (cy + ty * k);
                ezn -= cb[q] * cpml_term(cp, pny, j, sy, dy, pezy[pi], &p);
                pezy[pi] = p;
            }
#endif
        }
        hx[o] = hxn; /* stores after every load of the plane */
        hy[o] = hyn;
        hz[o] = hzn;
        ex[o] = exn;
        ey[o] = eyn;
        ez[o] = ezn;
        hxm = hxn;
        hym = hyn;
        exv = exu;
        eyv = eyu;
        exu = exu2;
        eyu = eyu2;
        ezv = ezv2;
        hxv = hxv2;
        hyv = hyv2;
        hzv = hzv2;
    }
}

/* CPML correction of one field pair in the slabs of axis `axis`
 * (gprMax's RIPML, host.c): t += sign coef ((kinv - 1) D + psi), then
 * psi <- b psi + c D,
 * where D is the derivative along the axis of the source field (electric:
 * s(p) - s(p - e_a), magnetic: s(p + e_a) - s(p), over the spacing).
 * Work-items (x, y, z) with the slab plane index in place of the axis
 * coordinate, so x stays fastest (coalesced on GPUs, vectorised on CPUs);
 * psi has the same layout (extent `planes` along the axis). */
/* Why 28 arguments: one kernel serves the slabs of every axis and both fields, so the axis, its
 * slab extents and strides are arguments rather than six kernels. */
__kernel void fdtd_cpml(__global real *restrict t, __global const real *restrict s, __global real *restrict psi,
                        __global const uchar *restrict ids, __constant real *coef,
                        __global const real *restrict kinv, __global const real *restrict pb,
                        __global const real *restrict pc, int axis, int planes, int lo_cells,
                        int hi_cells, int na, int sa, int e0, int e1, int lo0, int hi0, int lo1,
                        int hi1, int lo2, int hi2, int base, int px, int pxy, int electric,
                        real ra, real sign)
{
    int c0 = get_global_id(0), c1 = get_global_id(1), c2 = get_global_id(2);
    int pl = axis == 0 ? c0 : axis == 1 ? c1 : c2;
    if (c0 >= e0 || c1 >= e1 || pl >= planes)
        return;
    int ia = pl <= lo_cells ? pl : na - hi_cells + (pl - lo_cells - 1);
    int p0 = axis == 0 ? ia : c0, p1 = axis == 1 ? ia : c1, p2 = axis == 2 ? ia : c2;
    if (p0 < lo0 || p0 > hi0 || p1 < lo1 || p1 > hi1 || p2 < lo2 || p2 > hi2 || pc[ia] == 0)
        return;
    int o = base + p0 + px * p1 + pxy * p2;
    real d = electric ? (s[o] - s[o - sa]) * ra : (s[o + sa] - s[o]) * ra;
    int pi = c0 + e0 * (c1 + e1 * c2);
    real p = psi[pi];
    psi[pi] = pb[ia] * p + pc[ia] * d;
    t[o] += sign * coef[MAT(ids, o)] * ((kinv[ia] - (real)1) * d + p);
}

/* Shell corrections (cpml=3): after the fused kernel without CPML code has
 * updated every point, two launches over exactly the slab cells of all six
 * faces (the "shell": the union of the slabs [0, lo) and [n - hi, n) of each
 * axis) apply the CPML: fdtd_shell_h adds the H corrections (from E of step
 * n) to H of step n+1, then fdtd_shell_e redoes E there from E of step n and
 * the corrected H, with its own corrections (gprMax's order, host.c: E sees
 * the corrected H). Each shell cell is one work-item, once, whatever the
 * number of slabs it lies in (corners take two or three axes' terms), so a
 * field value is read and written once per launch. The shell is laid out as
 * three disjoint parts, 1D over work-items: the z slabs (whole padded rows of
 * px from i = -1, so that a row starts aligned), the y slabs between them
 * (the same rows), and the x slabs in the middle (slab cells of x fastest,
 * lo + hi per row). psi of axis a is stored over that axis's slab planes
 * with x (or the x plane) fastest, so consecutive work-items touch
 * consecutive psi in every part: x psi (u, j, k) of extent (lox + hix, ny),
 * y psi (i + 1, u, k) and z psi (i + 1, j, u) in rows of px, u the slab plane
 * (0 .. lo + hi - 1). The E shell has one plane more on the low side (node
 * lo reads the corrected H of half node lo - 1). cp holds per axis kinv, b, c
 * at nodes then at half nodes (n + 1 each) from offset cpX; a sample whose c
 * is 0 is skipped, as the reference skips it. */

/* slab plane of cell coordinate v (slabs [0, l) and [n - h, n)), or -1 */
static inline int shell_u(int v, int l, int h, int n)
{
    return v < l ? v : v >= n - h ? l + v - (n - h) : -1;
}

/* The cell (i, j, k) of shell work-item w; 0 when it has none. */
static inline int shell_cell(int w, int nx, int ny, int nz, int px, int lx, int hx, int ly, int hy,
                             int lz, int hz, int *i, int *j, int *k)
{
    int sx = lx + hx, sy = ly + hy, sz = lz + hz, cy = ny - sy, cz = nz - sz;
    int rz = ny * sz, ry = sy * cz; /* rows of the z and y parts */
    if (w / px < rz + ry) {
        int r = w / px, u;
        *i = w - r * px - 1;
        if (r < rz) {
            *j = r % ny;
            u = r / ny;
            *k = u < lz ? u : nz - hz + u - lz;
        } else {
            r -= rz;
            u = r % sy;
            *j = u < ly ? u : ny - hy + u - ly;
            *k = lz + r / sy;
        }
        return *i >= 0 && *i < nx;
    }
    w -= px * (rz + ry);
    if (sx == 0 || w >= sx * cy * cz)
        return 0;
    int u = w % sx, r = w / sx;
    *i = u < lx ? u : nx - hx + u - lx;
    *j = ly + r % cy;
    *k = lz + r / cy;
    return 1;
}

/* One psi pair at profile sample ia (kinv, b, c from cp[k], s apart): psi
 * updated in place, the term the target adds times sign coef returned. */
static inline real shell_term(__global const real *cp, int k, int ia, int s, real d,
                              __global real *psi)
{
    real old = *psi;
    *psi = cp[k + s + ia] * old + cp[k + 2 * s + ia] * d;
    return (cp[k + ia] - (real)1) * d + old;
}

/* One axis of a shell cell: u its slab plane (-1 where the cell has no
 * term: outside the slab, or c 0 at the sample), at the cell's index along
 * it, k the offset of the kinv row of its samples (half nodes for H, nodes
 * for E), s the row length, psi the index of its psi in the axis's rows. */
typedef struct {
    int u, at, k, s, psi;
} shell_axis;

static inline shell_axis shell_axis_of(int u, int at, int k, int s, int psi)
{
    shell_axis a;
    a.u = u;
    a.at = at;
    a.k = k;
    a.s = s;
    a.psi = psi;
    return a;
}

/* The cell of this work-item as its three axes and offset *o; 0 when it has
 * none. onh: 1 for the H shell (half-node samples), 0 for the E shell. */
static inline int shell_axes(__global const real *cp, int cpx, int cpy, int cpz, int nx, int ny, int nz,
                             int base, int px, int pxy, int lox, int hix, int loy, int hiy, int loz,
                             int hiz, int onh, shell_axis *x, shell_axis *y, shell_axis *z, int *o)
{
    int i, j, k;
#if SHELL_YZ
    int xl = 0, xh = 0; /* no x part: the fused pass does the x slabs */
#else
    int xl = lox, xh = hix;
#endif
    if (!shell_cell((int)get_global_id(0), nx, ny, nz, px, xl, xh, loy, hiy, loz, hiz, &i, &j, &k))
        return 0;
    *o = base + i + px * j + pxy * k;
    int sx = nx + 1, sy = ny + 1, sz = nz + 1, r = 3 * onh;
#if SHELL_YZ
    /* lox, hix: the x slab cells as the fused kernel has them; x terms in
     * the E shell only (the fused pass gave H its x terms), x psi in the
     * fused kernel's layout (plane, j, k) of extents (lo + hi + 2, ny + 1) */
    int ux = !onh && lox + hix > 0 ? cpml_plane(i, lox, hix, nx) : -1;
    int xpsi = ux + (lox + hix + 2) * (j + sy * k);
#else
    int ux = shell_u(i, lox, hix, nx), xpsi = ux + (lox + hix) * (j + ny * k);
#endif
    int uy = shell_u(j, loy, hiy, ny), uz = shell_u(k, loz, hiz, nz);
    ux = ux >= 0 && cp[cpx + (r + 2) * sx + i] != 0 ? ux : -1;
    uy = uy >= 0 && cp[cpy + (r + 2) * sy + j] != 0 ? uy : -1;
    uz = uz >= 0 && cp[cpz + (r + 2) * sz + k] != 0 ? uz : -1;
    *x = shell_axis_of(ux, i, cpx + r * sx, sx, xpsi);
    *y = shell_axis_of(uy, j, cpy + r * sy, sy, i + 1 + px * (uy + (loy + hiy) * k));
    *z = shell_axis_of(uz, k, cpz + r * sz, sz, i + 1 + px * (j + ny * uz));
    return 1;
}

/* v plus c times the term of axis a (difference d, psi rows psi) where the
 * cell has one; c carries the sign the curl gives the term. */
static inline real shell_add(real v, real c, __global const real *cp, shell_axis a, real d,
                             __global real *psi)
{
    return a.u >= 0 ? v + c * shell_term(cp, a.k, a.at, a.s, d, psi + a.psi) : v;
}

/* H corrections over the H shell (lo/hi: the slab cells per axis, 0 0 on an
 * axis without CPML). hx.. is H of step n+1 (corrected in place), ex.. E of
 * step n; phAB: psi of H component A along axis B. */
/* Why 35 arguments: all three axes' corrections in one 1D launch: 3 fields, 3 sources, 3 id
 * arrays, 6 psi buffers, the profiles and the six slab extents (no buffers in structs in OpenCL
 * C 1.2). */
__kernel void fdtd_shell_h(__global real *restrict hx, __global real *restrict hy, __global real *restrict hz,
                           __global const real *restrict ex, __global const real *restrict ey,
                           __global const real *restrict ez, __global const uchar *restrict idhx,
                           __global const uchar *restrict idhy, __global const uchar *restrict idhz,
                           __constant real *db, __global real *restrict phxy, __global real *restrict phxz,
                           __global real *restrict phyz, __global real *restrict phyx,
                           __global real *restrict phzx, __global real *restrict phzy,
                           __global const real *restrict cp, int cpx, int cpy, int cpz, int nx, int ny,
                           int nz, int base, int px, int pxy, real rdx, real rdy, real rdz, int lox,
                           int hix, int loy, int hiy, int loz, int hiz)
{
    shell_axis x, y, z;
    int o;
    if (!shell_axes(cp, cpx, cpy, cpz, nx, ny, nz, base, px, pxy, lox, hix, loy, hiy, loz, hiz, 1, &x,
                    &y, &z, &o))
        return;
    if (x.at >= 1 && (y.u >= 0 || z.u >= 0)) { /* Hx: -dEz/dy, +dEy/dz */
        real c = db[MAT(idhx, o)];
        real v = shell_add(hx[o], -c, cp, y, (ez[o + px] - ez[o]) * rdy, phxy);
        hx[o] = shell_add(v, c, cp, z, (ey[o + pxy] - ey[o]) * rdz, phxz);
    }
    if (y.at >= 1 && (x.u >= 0 || z.u >= 0)) { /* Hy: +dEz/dx, -dEx/dz */
        real c = db[MAT(idhy, o)];
        real v = shell_add(hy[o], c, cp, x, (ez[o + 1] - ez[o]) * rdx, phyx);
        hy[o] = shell_add(v, -c, cp, z, (ex[o + pxy] - ex[o]) * rdz, phyz);
    }
    if (z.at >= 1 && (x.u >= 0 || y.u >= 0)) { /* Hz: -dEy/dx, +dEx/dy */
        real c = db[MAT(idhz, o)];
        real v = shell_add(hz[o], -c, cp, x, (ey[o + 1] - ey[o]) * rdx, phzx);
        hz[o] = shell_add(v, c, cp, y, (ex[o + px] - ex[o]) * rdy, phzy);
    }
}

/* E over the E shell, redone from E of step n (exi..) and the corrected H
 * of step n+1, with the E corrections (node samples); every point the
 * fused kernel updated there is written again (its E used uncorrected H). */
/* Why 39 arguments: as fdtd_shell_h, plus E of step n to redo the update from. */
__kernel void fdtd_shell_e(__global real *restrict ex, __global real *restrict ey, __global real *restrict ez,
                           __global const real *restrict exi, __global const real *restrict eyi,
                           __global const real *restrict ezi, __global const real *restrict hx,
                           __global const real *restrict hy, __global const real *restrict hz,
                           __global const uchar *restrict idex, __global const uchar *restrict idey,
                           __global const uchar *restrict idez, __constant real *ca, __constant real *cb,
                           __global real *restrict pexy, __global real *restrict pexz,
                           __global real *restrict peyz, __global real *restrict peyx,
                           __global real *restrict pezx, __global real *restrict pezy,
                           __global const real *restrict cp, int cpx, int cpy, int cpz, int nx, int ny,
                           int nz, int base, int px, int pxy, real rdx, real rdy, real rdz, int lox,
                           int hix, int loy, int hiy, int loz, int hiz)
{
    shell_axis x, y, z;
    int o;
    if (!shell_axes(cp, cpx, cpy, cpz, nx, ny, nz, base, px, pxy, lox, hix, loy, hiy, loz, hiz, 0, &x,
                    &y, &z, &o))
        return;
    real hx0 = hx[o], hy0 = hy[o], hz0 = hz[o];
    if (y.at >= 1 && z.at >= 1) { /* Ex: +dHz/dy, -dHy/dz */
        int q = MAT(idex, o);
        real dy = (hz0 - hz[o - px]) * rdy, dz = (hy0 - hy[o - pxy]) * rdz;
        real v = ca[q] * exi[o] + cb[q] * (dy - dz);
        v = shell_add(v, cb[q], cp, y, dy, pexy);
        ex[o] = shell_add(v, -cb[q], cp, z, dz, pexz);
    }
    if (x.at >= 1 && z.at >= 1) { /* Ey: +dHx/dz, -dHz/dx */
        int q = MAT(idey, o);
        real dz = (hx0 - hx[o - pxy]) * rdz, dx = (hz0 - hz[o - 1]) * rdx;
        real v = ca[q] * eyi[o] + cb[q] * (dz - dx);
        v = shell_add(v, -cb[q], cp, x, dx, peyx);
        ey[o] = shell_add(v, cb[q], cp, z, dz, peyz);
    }
    if (x.at >= 1 && y.at >= 1) { /* Ez: +dHy/dx, -dHx/dy */
        int q = MAT(idez, o);
        real dx = (hy0 - hy[o - 1]) * rdx, dy = (hx0 - hx[o - px]) * rdy;
        real v = ca[q] * ezi[o] + cb[q] * (dx - dy);
        v = shell_add(v, cb[q], cp, x, dx, pezx);
        ez[o] = shell_add(v, -cb[q], cp, y, dy, pezy);
    }
}

/* Sources after the E update: additive (E -= amp * value) or hard (E = value,
 * unless NaN: scl_fdtd_source_value).
 * values holds nsrc values per step of the chunk, step-major. */
__kernel void fdtd_source(__global real *ex, __global real *ey, __global real *ez,
                          __global const int *offset, __global const int *pol,
                          __global const int *hard, __global const real *amp,
                          __global const real *values, int nsrc, int slot)
{
    int q = get_global_id(0);
    if (q >= nsrc)
        return;
    __global real *e = pol[q] == 0 ? ex : pol[q] == 1 ? ey : ez;
    real v = values[slot * nsrc + q];
    if (hard[q]) {
        if (!isnan(v)) /* NaN: outside its window, the edge is left free */
            e[offset[q]] = v;
    } else
        e[offset[q]] -= amp[q] * v;
}

/* Receivers before the step: six components per receiver into slot. */
__kernel void fdtd_record(__global const real *ex, __global const real *ey,
                          __global const real *ez, __global const real *hx,
                          __global const real *hy, __global const real *hz,
                          __global const int *offset, __global real *out, int nrx, int slot)
{
    int r = get_global_id(0);
    if (r >= nrx)
        return;
    int o = offset[r];
    __global real *dst = out + (slot * nrx + r) * 6;
    dst[0] = ex[o];
    dst[1] = ey[o];
    dst[2] = ez[o];
    dst[3] = hx[o];
    dst[4] = hy[o];
    dst[5] = hz[o];
}

/* Dispersive poles (gprMax's recursive convolution, see fdtd.h): one
 * work-item per E point of a dispersive material; off/comp/mat list the
 * points, T holds maxp complex auxiliary values per point (re, im), dc the
 * complex coefficients c0 c1 c2 per material and pole, np the poles per
 * material. Part A before the E update (E^n). */
__kernel void fdtd_debye_a(__global const real *ex, __global const real *ey,
                           __global const real *ez, __global const int *off,
                           __global const uchar *comp, __global const uchar *mat,
                           __global const int *np, __global const real *dc, __global real *T,
                           __global real *phi, int n, int maxp)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int c = comp[i], q = mat[i];
    __global const real *e = c == 0 ? ex : c == 1 ? ey : ez;
    real ev = e[off[i]], acc = 0;
    for (int p = 0; p < np[q]; p++) {
        __global const real *k = dc + (q * maxp + p) * 6;
        __global real *t = T + (i * maxp + p) * 2;
        real tr = t[0], ti = t[1];
        acc += k[0] * tr - k[1] * ti;
        t[0] = k[2] * tr - k[3] * ti + k[4] * ev;
        t[1] = k[2] * ti + k[3] * tr + k[5] * ev;
    }
    phi[i] = acc;
}

/* After the E update and its CPML: E -= cb phi. */
__kernel void fdtd_debye_apply(__global real *ex, __global real *ey, __global real *ez,
                               __global const int *off, __global const uchar *comp,
                               __global const uchar *mat, __global const real *cb,
                               __global const real *phi, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int c = comp[i];
    __global real *e = c == 0 ? ex : c == 1 ? ey : ez;
    e[off[i]] -= cb[mat[i]] * phi[i];
}

/* Part B after the sources, with E^{n+1}. */
__kernel void fdtd_debye_b(__global const real *ex, __global const real *ey,
                           __global const real *ez, __global const int *off,
                           __global const uchar *comp, __global const uchar *mat,
                           __global const int *np, __global const real *dc, __global real *T,
                           int n, int maxp)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int c = comp[i], q = mat[i];
    __global const real *e = c == 0 ? ex : c == 1 ? ey : ez;
    real ev = e[off[i]];
    for (int p = 0; p < np[q]; p++) {
        __global const real *k = dc + (q * maxp + p) * 6;
        T[(i * maxp + p) * 2] -= k[4] * ev;
        T[(i * maxp + p) * 2 + 1] -= k[5] * ev;
    }
}

/* Halo planes of a sub-domain (domain decomposition): two components' whole
 * padded plane from offset start (c0, c1 along the plane's axes with
 * strides s0, s1, extents e0, e1) into buf (component a, then b), or back
 * (unpack). */
__kernel void fdtd_plane(__global real *a, __global real *b, __global real *buf, int start,
                         int s0, int s1, int e0, int e1, int unpack)
{
    int c0 = get_global_id(0), c1 = get_global_id(1);
    if (c0 >= e0 || c1 >= e1)
        return;
    int o = start + c0 * s0 + c1 * s1, q = c0 + e0 * c1, n = e0 * e1;
    if (unpack) {
        a[o] = buf[q];
        b[o] = buf[n + q];
    } else {
        buf[q] = a[o];
        buf[n + q] = b[o];
    }
}
