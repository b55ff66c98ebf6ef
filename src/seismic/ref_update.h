/* The reference update, written once for REAL = float and double
 * (included by reference.c with REAL and FN defined). The cell functions
 * follow cl/seismic.cl line by line; the interior of each row (no CPML, no
 * free-surface special case) runs in a loop without their tests. */

typedef struct {
    REAL *f[F_COUNT];                 /* padded fields */
    REAL *rho, *lam, *mu;             /* padded materials */
    REAL *psi[3];                     /* 6 memory variables per direction */
    REAL *pa_c[3], *pb_c[3], *pik_c[3], *pa_h[3], *pb_h[3], *pik_h[3];
    REAL c1, c2, dt;
} FN(fields);

/* Staggered differences: forward (to the half node above c) and backward. */
#define DP(a, c, s) (c1 * (a[(c) + (s)] - a[c]) + c2 * (a[(c) + 2 * (s)] - a[(c) - (s)]))
#define DM(a, c, s) (c1 * (a[c] - a[(c) - (s)]) + c2 * (a[(c) + (s)] - a[(c) - 2 * (s)]))

/* CPML: memory variable psi (slot >= 0 in the layer) of derivative d. */
static inline REAL FN(pml)(REAL *psi, long slot, REAL a, REAL b, REAL ik, REAL d)
{
    if (slot < 0)
        return d;
    const REAL p = b * psi[slot] + a * d;
    psi[slot] = p;
    return d * ik + p;
}

/* Harmonic mean of four moduli; a zero one (fluid) gives 1/0 = inf and so
 * 0 without a branch (moduli are never negative), which lets rows vectorise. */
static inline REAL FN(harm4)(REAL m0, REAL m1, REAL m2, REAL m3)
{
    return (REAL)4 / ((REAL)1 / m0 + (REAL)1 / m1 + (REAL)1 / m2 + (REAL)1 / m3);
}

/* One cell's velocities. sl[d] are the cell's slots in the three slabs
 * (-1 outside); slab sizes ns[d]. */
static inline void FN(vel_cell)(const FN(fields) *F, const seis_layout *g, long c, int i, int j,
                                int k, const long sl[3], const long ns[3])
{
    const REAL c1 = F->c1, c2 = F->c2;
    REAL *vx = F->f[F_VX], *vy = F->f[F_VY], *vz = F->f[F_VZ];
    const REAL *sxx = F->f[F_SXX], *syy = F->f[F_SYY], *szz = F->f[F_SZZ];
    const REAL *sxy = F->f[F_SXY], *sxz = F->f[F_SXZ], *syz = F->f[F_SYZ];
    const long sy = g->sy, sz = g->sz;
    REAL dxx = DP(sxx, c, 1), dxy = DM(sxy, c, 1), dxz = DM(sxz, c, 1);
    REAL dyx = DM(sxy, c, sy), dyy = DP(syy, c, sy), dyz = DM(syz, c, sy);
    REAL dzx = DM(sxz, c, sz), dzy = DM(syz, c, sz), dzz = DP(szz, c, sz);
    if (sl) {
        REAL *px = F->psi[0], *py = F->psi[1], *pz = F->psi[2];
        const long sx_ = sl[0], sy_ = sl[1], sz_ = sl[2];
        if (sx_ >= 0) {
            dxx = FN(pml)(px, 0 * ns[0] + sx_, F->pa_h[0][i], F->pb_h[0][i], F->pik_h[0][i], dxx);
            dxy = FN(pml)(px, 1 * ns[0] + sx_, F->pa_c[0][i], F->pb_c[0][i], F->pik_c[0][i], dxy);
            dxz = FN(pml)(px, 2 * ns[0] + sx_, F->pa_c[0][i], F->pb_c[0][i], F->pik_c[0][i], dxz);
        }
        if (sy_ >= 0) {
            dyx = FN(pml)(py, 0 * ns[1] + sy_, F->pa_c[1][j], F->pb_c[1][j], F->pik_c[1][j], dyx);
            dyy = FN(pml)(py, 1 * ns[1] + sy_, F->pa_h[1][j], F->pb_h[1][j], F->pik_h[1][j], dyy);
            dyz = FN(pml)(py, 2 * ns[1] + sy_, F->pa_c[1][j], F->pb_c[1][j], F->pik_c[1][j], dyz);
        }
        if (sz_ >= 0) {
            dzx = FN(pml)(pz, 0 * ns[2] + sz_, F->pa_c[2][k], F->pb_c[2][k], F->pik_c[2][k], dzx);
            dzy = FN(pml)(pz, 1 * ns[2] + sz_, F->pa_c[2][k], F->pb_c[2][k], F->pik_c[2][k], dzy);
            dzz = FN(pml)(pz, 2 * ns[2] + sz_, F->pa_h[2][k], F->pb_h[2][k], F->pik_h[2][k], dzz);
        }
    }
    const REAL *rho = F->rho, two_dt = 2 * F->dt;
    vx[c] += two_dt / (rho[c] + rho[c + 1]) * (dxx + dyx + dzx);
    vy[c] += two_dt / (rho[c] + rho[c + sy]) * (dxy + dyy + dzy);
    vz[c] += two_dt / (rho[c] + rho[c + sz]) * (dxz + dyz + dzz);
}

/* One cell's stresses; fs: the free surface is on and k < 2. */
static inline void FN(stress_cell)(const FN(fields) *F, const seis_layout *g, long c, int i,
                                   int j, int k, const long sl[3], const long ns[3], int fs)
{
    const REAL c1 = F->c1, c2 = F->c2;
    const REAL *vx = F->f[F_VX], *vy = F->f[F_VY], *vz = F->f[F_VZ];
    REAL *sxx = F->f[F_SXX], *syy = F->f[F_SYY], *szz = F->f[F_SZZ];
    REAL *sxy = F->f[F_SXY], *sxz = F->f[F_SXZ], *syz = F->f[F_SYZ];
    const long sy = g->sy, sz = g->sz;
    REAL exx = DM(vx, c, 1), eyy = DM(vy, c, sy), ezz = DM(vz, c, sz);
    REAL vxy = DP(vx, c, sy), vyx = DP(vy, c, 1);
    REAL vxz = DP(vx, c, sz), vzx = DP(vz, c, 1);
    REAL vyz = DP(vy, c, sz), vzy = DP(vz, c, sy);
    if (fs) {
        /* 4th-order vertical stencils would reach above the surface */
        const REAL h1 = F->c1 + 3 * F->c2; /* = 1/h for both orders */
        if (k <= 1)
            ezz = h1 * (vz[c] - vz[c - sz]);
        if (k == 0) {
            vxz = h1 * (vx[c + sz] - vx[c]);
            vyz = h1 * (vy[c + sz] - vy[c]);
        }
    }
    if (sl) {
        REAL *px = F->psi[0], *py = F->psi[1], *pz = F->psi[2];
        const long sx_ = sl[0], sy_ = sl[1], sz_ = sl[2];
        if (sx_ >= 0) {
            exx = FN(pml)(px, 3 * ns[0] + sx_, F->pa_c[0][i], F->pb_c[0][i], F->pik_c[0][i], exx);
            vyx = FN(pml)(px, 4 * ns[0] + sx_, F->pa_h[0][i], F->pb_h[0][i], F->pik_h[0][i], vyx);
            vzx = FN(pml)(px, 5 * ns[0] + sx_, F->pa_h[0][i], F->pb_h[0][i], F->pik_h[0][i], vzx);
        }
        if (sy_ >= 0) {
            vxy = FN(pml)(py, 3 * ns[1] + sy_, F->pa_h[1][j], F->pb_h[1][j], F->pik_h[1][j], vxy);
            eyy = FN(pml)(py, 4 * ns[1] + sy_, F->pa_c[1][j], F->pb_c[1][j], F->pik_c[1][j], eyy);
            vzy = FN(pml)(py, 5 * ns[1] + sy_, F->pa_h[1][j], F->pb_h[1][j], F->pik_h[1][j], vzy);
        }
        if (sz_ >= 0) {
            vxz = FN(pml)(pz, 3 * ns[2] + sz_, F->pa_h[2][k], F->pb_h[2][k], F->pik_h[2][k], vxz);
            vyz = FN(pml)(pz, 4 * ns[2] + sz_, F->pa_h[2][k], F->pb_h[2][k], F->pik_h[2][k], vyz);
            ezz = FN(pml)(pz, 5 * ns[2] + sz_, F->pa_c[2][k], F->pb_c[2][k], F->pik_c[2][k], ezz);
        }
    }
    const REAL dt = F->dt, lam = F->lam[c], mu = F->mu[c], l2m = lam + 2 * mu;
    const REAL *m = F->mu;
    if (fs && k == 0) {
        /* szz = 0 on the surface: dvz/dz = -lam/(lam+2mu) (dvx/dx + dvy/dy) */
        const REAL r = l2m > 0 ? lam / l2m : 0;
        sxx[c] += dt * ((l2m - lam * r) * exx + (lam - lam * r) * eyy);
        syy[c] += dt * ((lam - lam * r) * exx + (l2m - lam * r) * eyy);
        szz[c] = 0;
    } else {
        sxx[c] += dt * (l2m * exx + lam * (eyy + ezz));
        syy[c] += dt * (l2m * eyy + lam * (exx + ezz));
        szz[c] += dt * (l2m * ezz + lam * (exx + eyy));
    }
    sxy[c] += dt * FN(harm4)(m[c], m[c + 1], m[c + sy], m[c + 1 + sy]) * (vxy + vyx);
    sxz[c] += dt * FN(harm4)(m[c], m[c + 1], m[c + sz], m[c + 1 + sz]) * (vxz + vzx);
    syz[c] += dt * FN(harm4)(m[c], m[c + sy], m[c + sz], m[c + sy + sz]) * (vyz + vzy);
}

/* The interior run of a row (n cells from padded index c0): the same
 * arithmetic as the cell functions without the CPML and surface tests, on
 * restrict pointers so that the compiler vectorises it. */
static void FN(vel_row)(const FN(fields) *F, long sy, long sz, long c0, int n)
{
    REAL *restrict vx = F->f[F_VX] + c0, *restrict vy = F->f[F_VY] + c0, *restrict vz = F->f[F_VZ] + c0;
    const REAL *restrict sxx = F->f[F_SXX] + c0, *restrict syy = F->f[F_SYY] + c0;
    const REAL *restrict szz = F->f[F_SZZ] + c0, *restrict sxy = F->f[F_SXY] + c0;
    const REAL *restrict sxz = F->f[F_SXZ] + c0, *restrict syz = F->f[F_SYZ] + c0;
    const REAL *restrict rho = F->rho + c0;
    const REAL c1 = F->c1, c2 = F->c2, two_dt = 2 * F->dt;
#ifdef _OPENMP
#pragma omp simd
#endif
    for (long c = 0; c < n; c++) {
        vx[c] += two_dt / (rho[c] + rho[c + 1]) * (DP(sxx, c, 1) + DM(sxy, c, sy) + DM(sxz, c, sz));
        vy[c] += two_dt / (rho[c] + rho[c + sy]) * (DM(sxy, c, 1) + DP(syy, c, sy) + DM(syz, c, sz));
        vz[c] += two_dt / (rho[c] + rho[c + sz]) * (DM(sxz, c, 1) + DM(syz, c, sy) + DP(szz, c, sz));
    }
}

static void FN(stress_row)(const FN(fields) *F, long sy, long sz, long c0, int n)
{
    const REAL *restrict vx = F->f[F_VX] + c0, *restrict vy = F->f[F_VY] + c0;
    const REAL *restrict vz = F->f[F_VZ] + c0;
    REAL *restrict sxx = F->f[F_SXX] + c0, *restrict syy = F->f[F_SYY] + c0;
    REAL *restrict szz = F->f[F_SZZ] + c0, *restrict sxy = F->f[F_SXY] + c0;
    REAL *restrict sxz = F->f[F_SXZ] + c0, *restrict syz = F->f[F_SYZ] + c0;
    const REAL *restrict lam = F->lam + c0, *restrict mu = F->mu + c0;
    const REAL c1 = F->c1, c2 = F->c2, dt = F->dt;
#ifdef _OPENMP
#pragma omp simd
#endif
    for (long c = 0; c < n; c++) {
        const REAL exx = DM(vx, c, 1), eyy = DM(vy, c, sy), ezz = DM(vz, c, sz);
        const REAL l = lam[c], m = mu[c], l2m = l + 2 * m;
        sxx[c] += dt * (l2m * exx + l * (eyy + ezz));
        syy[c] += dt * (l2m * eyy + l * (exx + ezz));
        szz[c] += dt * (l2m * ezz + l * (exx + eyy));
        sxy[c] += dt * FN(harm4)(m, mu[c + 1], mu[c + sy], mu[c + 1 + sy]) * (DP(vx, c, sy) + DP(vy, c, 1));
        sxz[c] += dt * FN(harm4)(m, mu[c + 1], mu[c + sz], mu[c + 1 + sz]) * (DP(vx, c, sz) + DP(vz, c, 1));
        syz[c] += dt * FN(harm4)(m, mu[c + sy], mu[c + sz], mu[c + sy + sz]) * (DP(vy, c, sz) + DP(vz, c, sy));
    }
}

/* Rows: the interior run [x0, x1) of a row outside the y/z layers goes
 * through a loop without the CPML and surface tests, the rest through the
 * CPML-aware cell. */
static void FN(cell_slots)(const seis_setup *s, int i, int j, int k, long sl[3])
{
    const int si = s->dir[0].slot[i], sj = s->dir[1].slot[j], sk = s->dir[2].slot[k];
    const long nx = s->g.nx, ny = s->g.ny;
    sl[0] = si < 0 ? -1 : si + s->dir[0].width * (j + ny * (long)k);
    sl[1] = sj < 0 ? -1 : i + nx * (sj + s->dir[1].width * (long)k);
    sl[2] = sk < 0 ? -1 : i + nx * (j + ny * (long)sk);
}

static void FN(pass)(const seis_setup *s, const FN(fields) *F, int stress, int threads)
{
    const seis_layout *g = &s->g;
    const long ns[3] = {seis_cpml_slab(s, 0), seis_cpml_slab(s, 1), seis_cpml_slab(s, 2)};
    const int nx = g->nx, ny = g->ny, nz = g->nz;
    const int xlo = s->dir[0].width ? s->pml : 0, xhi = nx - (s->dir[0].width ? s->pml : 0);
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads > 1 ? threads : 1) if (threads > 1)
#endif
    for (int k = 0; k < nz; k++) {
        const int fs = s->free_surface && k < 2;
        for (int j = 0; j < ny; j++) {
            const int edge_row = s->dir[1].slot[j] >= 0 || s->dir[2].slot[k] >= 0 || fs;
            const long row = seis_index(g, 0, j, k);
            for (int i = 0; i < nx; i++) {
                if (!edge_row && i == xlo) {
                    /* interior run: no layer, no surface */
                    if (stress)
                        FN(stress_row)(F, g->sy, g->sz, row + xlo, xhi - xlo);
                    else
                        FN(vel_row)(F, g->sy, g->sz, row + xlo, xhi - xlo);
                    i = xhi - 1;
                    continue;
                }
                long sl[3];
                FN(cell_slots)(s, i, j, k, sl);
                const int any = sl[0] >= 0 || sl[1] >= 0 || sl[2] >= 0;
                if (stress)
                    FN(stress_cell)(F, g, row + i, i, j, k, any ? sl : NULL, ns, fs);
                else
                    FN(vel_cell)(F, g, row + i, i, j, k, any ? sl : NULL, ns);
            }
        }
    }
    if (stress && s->free_surface) {
        /* antisymmetric images above the surface for the next velocity pass */
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                const long c = seis_index(g, i, j, 0), z = g->sz;
                REAL *sxz = F->f[F_SXZ], *syz = F->f[F_SYZ], *szz = F->f[F_SZZ];
                sxz[c - z] = -sxz[c];
                syz[c - z] = -syz[c];
                if (nz > 1) {
                    sxz[c - 2 * z] = -sxz[c + z];
                    syz[c - 2 * z] = -syz[c + z];
                    szz[c - z] = -szz[c + z];
                }
                if (nz > 2)
                    szz[c - 2 * z] = -szz[c + 2 * z];
            }
    }
}

static void FN(inject)(const seis_setup *s, const FN(fields) *F, int stress, long n)
{
    for (int q = 0; q < s->ninj; q++) {
        const seis_injection *in = &s->inj[q];
        if ((in->field >= F_SXX) != stress)
            continue;
        const REAL coeff = (REAL)in->coeff;
        const REAL w = (REAL)s->wavelet[(size_t)in->source * (size_t)(s->steps + 1) + (size_t)n];
        F->f[in->field][in->index] += coeff * w;
    }
}

static void FN(record)(const seis_setup *s, const FN(fields) *F, float *traces, long n)
{
    for (int r = 0; r < s->nrec; r++) {
        const long c = s->rec_index[r];
        float *t = traces + (size_t)r * SCL_SEIS_NCOMP * (size_t)s->steps + (size_t)n;
        t[0] = (float)F->f[F_VX][c];
        t[(size_t)s->steps] = (float)F->f[F_VY][c];
        t[2 * (size_t)s->steps] = (float)F->f[F_VZ][c];
        t[3 * (size_t)s->steps] =
            (float)(-(F->f[F_SXX][c] + F->f[F_SYY][c] + F->f[F_SZZ][c]) / 3);
    }
}

#undef DP
#undef DM
