/* Yee updates for streamcl fdtd. Options: FDTD_FP64 (double fields),
 * UNIFORM=id (one material everywhere: no index arrays read), PER_X/PER_Y/
 * PER_Z (periodic axes). Fields on the padded grid of grid3d (one halo
 * plane, x fastest): point (i,j,k) at base + i + px*j + pxy*k. */
#if FDTD_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

#ifndef PER_X
#define PER_X 0
#endif
#ifndef PER_Y
#define PER_Y 0
#endif
#ifndef PER_Z
#define PER_Z 0
#endif
/* first updated node index along an axis: 1 (PEC faces) or 0 (periodic) */
#define LO_X (1 - PER_X)
#define LO_Y (1 - PER_Y)
#define LO_Z (1 - PER_Z)

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

/* H <- DA H - DB curl E; the three components a point owns. Outputs and
 * inputs may be the same buffers (in place) or the two halves of a
 * ping-pong pair. */
__kernel void fdtd_h(__global real *hx, __global real *hy, __global real *hz,
                     __global const real *hxi, __global const real *hyi,
                     __global const real *hzi, __global const real *restrict ex,
                     __global const real *restrict ey, __global const real *restrict ez,
                     __global const uchar *idhx, __global const uchar *idhy,
                     __global const uchar *idhz, __constant real *da, __constant real *db,
                     int nx, int ny, int nz, int base, int px, int pxy, real rdx, real rdy,
                     real rdz, int kz)
{
    int i = (int)get_global_id(0) - 1, j = get_global_id(1), k0 = get_global_id(2) * kz;
    if (i < 0 || i >= nx || j >= ny || k0 >= nz)
        return; /* updated H points all have i, j, k < n */
    int k1 = min(k0 + kz, nz);
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

/* One whole step in one pass (PEC box, no periodic axis): reads the six
 * components of step n once and writes the six of step n+1 into the other
 * buffers: 48 bytes per cell in fp32 instead of the 72 of separate H and E
 * kernels, for 4 recomputed H values per cell whose inputs the caches serve. */
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
                         real rdx, real rdy, real rdz, int kz)
{
    int i = (int)get_global_id(0) - 1, j = get_global_id(1), k0 = get_global_id(2) * kz;
    if (i < 0 || i >= nx || j >= ny || k0 >= nz)
        return;
    int k1 = min(k0 + kz, nz);
    int o = base + i + px * j + pxy * k0;
    /* new H at (i, j, k-1): the first plane computes it, later ones keep it */
    real hxm = 0, hym = 0;
    if (k0 >= 1 && i >= 1)
        hxm = HXN(o - pxy);
    if (k0 >= 1 && j >= 1)
        hym = HYN(o - pxy);
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
        real hxn = hxv, hyn = hyv, hzn = hzv;
        if (i >= 1) {
            int q = MAT(idhx, o);
            hxn = da[q] * hxn - db[q] * ((ezi[o + px] - ezv) * rdy - (eyu - eyv) * rdz);
        }
        if (j >= 1) {
            int q = MAT(idhy, o);
            hyn = da[q] * hyn - db[q] * ((exu - exv) * rdz - (ezi[o + 1] - ezv) * rdx);
        }
        if (k >= 1) {
            int q = MAT(idhz, o);
            hzn = da[q] * hzn - db[q] * ((eyi[o + 1] - eyv) * rdx - (exi[o + px] - exv) * rdy);
        }
        real exn = exv, eyn = eyv, ezn = ezv;
        if (j >= 1 && k >= 1) {
            int q = MAT(idex, o);
            exn = ca[q] * exn + cb[q] * ((hzn - HZN(o - px)) * rdy - (hyn - hym) * rdz);
        }
        if (i >= 1 && k >= 1) {
            int q = MAT(idey, o);
            eyn = ca[q] * eyn + cb[q] * ((hxn - hxm) * rdz - (hzn - HZN(o - 1)) * rdx);
        }
        if (i >= 1 && j >= 1) {
            int q = MAT(idez, o);
            ezn = ca[q] * ezn + cb[q] * ((hyn - HYN(o - 1)) * rdx - (hxn - HXN(o - px)) * rdy);
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
 * (Roden & Gedney): psi <- b psi + c D, t += sign coef ((kinv - 1) D + psi),
 * where D is the derivative along the axis of the source field (electric:
 * s(p) - s(p - e_a), magnetic: s(p + e_a) - s(p), over the spacing).
 * Work-items (x, y, z) with the slab plane index in place of the axis
 * coordinate, so x stays fastest (coalesced on GPUs, vectorised on CPUs);
 * psi has the same layout (extent `planes` along the axis). */
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
    real p = pb[ia] * psi[pi] + pc[ia] * d;
    psi[pi] = p;
    t[o] += sign * coef[MAT(ids, o)] * ((kinv[ia] - (real)1) * d + p);
}

/* Sources after the E update: additive (E -= amp * value) or hard (E = value).
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
    if (hard[q])
        e[offset[q]] = v;
    else
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
