/* The reference update, written once for REAL = double and float (host.c
 * includes this file twice, with SFX naming the variant). Generic in the axis:
 * component a with (a, b, d) cyclic, strides s[], so each loop is one formula. */
#define CAT2(x, y) x##_##y
#define CAT(x, y) CAT2(x, y)
#define F(c) ((REAL *)h->f[c])

/* Offset to the neighbour at -1 / +1 along axis ax from coordinate p. */
static inline long CAT(minus, SFX)(const struct scl_fdtd_host *h, int ax, int p)
{
    return (p == 0 && h->m->periodic[ax]) ? (long)(h->n[ax] - 1) * h->s[ax] : -h->s[ax];
}
static inline long CAT(plus, SFX)(const struct scl_fdtd_host *h, int ax, int p)
{
    return (p == h->n[ax] - 1 && h->m->periodic[ax]) ? -(long)(h->n[ax] - 1) * h->s[ax] : h->s[ax];
}

/* The main updates for a PEC box (no periodic axis), written so that the
 * inner loop over i is contiguous and vectorises: this is the CPU baseline.
 * Same arithmetic, term for term, as the generic loops below. */
static void CAT(update_h_box, SFX)(struct scl_fdtd_host *h)
{
    const scl_grid3d *g = &h->m->grid;
    const long px = g->px, pxy = g->px * g->py;
    REAL *restrict hx = F(3), *restrict hy = F(4), *restrict hz = F(5);
    const REAL *restrict ex = F(0), *restrict ey = F(1), *restrict ez = F(2);
    const unsigned char *ix = h->m->id[3], *iy = h->m->id[4], *iz = h->m->id[5];
    const double *da = h->da, *db = h->db;
    REAL rdx = (REAL)(1 / g->dx), rdy = (REAL)(1 / g->dy), rdz = (REAL)(1 / g->dz);
    int nx = g->nx;
#pragma omp parallel for collapse(2) num_threads(h->threads) if (h->threads > 1)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++) {
            long r = scl_grid3d_index(g, 0, j, k);
#pragma omp simd
            for (long o = r + 1; o < r + nx; o++)
                hx[o] = (REAL)da[ix[o]] * hx[o] -
                        (REAL)db[ix[o]] * ((ez[o + px] - ez[o]) * rdy - (ey[o + pxy] - ey[o]) * rdz);
            if (j >= 1)
#pragma omp simd
                for (long o = r; o < r + nx; o++)
                    hy[o] = (REAL)da[iy[o]] * hy[o] -
                            (REAL)db[iy[o]] * ((ex[o + pxy] - ex[o]) * rdz - (ez[o + 1] - ez[o]) * rdx);
            if (k >= 1)
#pragma omp simd
                for (long o = r; o < r + nx; o++)
                    hz[o] = (REAL)da[iz[o]] * hz[o] -
                            (REAL)db[iz[o]] * ((ey[o + 1] - ey[o]) * rdx - (ex[o + px] - ex[o]) * rdy);
        }
}

static void CAT(update_e_box, SFX)(struct scl_fdtd_host *h)
{
    const scl_grid3d *g = &h->m->grid;
    const long px = g->px, pxy = g->px * g->py;
    REAL *restrict ex = F(0), *restrict ey = F(1), *restrict ez = F(2);
    const REAL *restrict hx = F(3), *restrict hy = F(4), *restrict hz = F(5);
    const unsigned char *ix = h->m->id[0], *iy = h->m->id[1], *iz = h->m->id[2];
    const double *ca = h->ca, *cb = h->cb;
    REAL rdx = (REAL)(1 / g->dx), rdy = (REAL)(1 / g->dy), rdz = (REAL)(1 / g->dz);
    int nx = g->nx;
#pragma omp parallel for collapse(2) num_threads(h->threads) if (h->threads > 1)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++) {
            long r = scl_grid3d_index(g, 0, j, k);
            if (j >= 1 && k >= 1)
#pragma omp simd
                for (long o = r; o < r + nx; o++)
                    ex[o] = (REAL)ca[ix[o]] * ex[o] +
                            (REAL)cb[ix[o]] * ((hz[o] - hz[o - px]) * rdy - (hy[o] - hy[o - pxy]) * rdz);
            if (k >= 1)
#pragma omp simd
                for (long o = r + 1; o < r + nx; o++)
                    ey[o] = (REAL)ca[iy[o]] * ey[o] +
                            (REAL)cb[iy[o]] * ((hx[o] - hx[o - pxy]) * rdz - (hz[o] - hz[o - 1]) * rdx);
            if (j >= 1)
#pragma omp simd
                for (long o = r + 1; o < r + nx; o++)
                    ez[o] = (REAL)ca[iz[o]] * ez[o] +
                            (REAL)cb[iz[o]] * ((hy[o] - hy[o - 1]) * rdx - (hx[o] - hx[o - px]) * rdy);
        }
}

static void CAT(update_h, SFX)(struct scl_fdtd_host *h)
{
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3, d = (a + 2) % 3;
        int lo[3], hi[3];
        lo[a] = h->node_lo[a], hi[a] = h->n[a] - 1;
        lo[b] = 0, hi[b] = h->n[b] - 1;
        lo[d] = 0, hi[d] = h->n[d] - 1;
        REAL *H = F(3 + a);
        const REAL *Eb = F(b), *Ed = F(d);
        const unsigned char *id = h->m->id[3 + a];
        REAL rb = (REAL)(1 / h->dd[b]), rd = (REAL)(1 / h->dd[d]);
#pragma omp parallel for collapse(2) num_threads(h->threads) if (h->threads > 1)
        for (int k = lo[2]; k <= hi[2]; k++)
            for (int j = lo[1]; j <= hi[1]; j++)
                for (int i = lo[0]; i <= hi[0]; i++) {
                    int p[3] = {i, j, k};
                    long o = scl_grid3d_index(&h->m->grid, i, j, k);
                    long pb = CAT(plus, SFX)(h, b, p[b]), pd = CAT(plus, SFX)(h, d, p[d]);
                    int q = id[o];
                    H[o] = (REAL)h->da[q] * H[o] -
                           (REAL)h->db[q] * ((Ed[o + pb] - Ed[o]) * rb - (Eb[o + pd] - Eb[o]) * rd);
                }
    }
}

static void CAT(update_e, SFX)(struct scl_fdtd_host *h)
{
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3, d = (a + 2) % 3;
        int lo[3], hi[3];
        lo[a] = 0, hi[a] = h->n[a] - 1;
        lo[b] = h->node_lo[b], hi[b] = h->n[b] - 1;
        lo[d] = h->node_lo[d], hi[d] = h->n[d] - 1;
        REAL *E = F(a);
        const REAL *Hb = F(3 + b), *Hd = F(3 + d);
        const unsigned char *id = h->m->id[a];
        REAL rb = (REAL)(1 / h->dd[b]), rd = (REAL)(1 / h->dd[d]);
#pragma omp parallel for collapse(2) num_threads(h->threads) if (h->threads > 1)
        for (int k = lo[2]; k <= hi[2]; k++)
            for (int j = lo[1]; j <= hi[1]; j++)
                for (int i = lo[0]; i <= hi[0]; i++) {
                    int p[3] = {i, j, k};
                    long o = scl_grid3d_index(&h->m->grid, i, j, k);
                    long mb = CAT(minus, SFX)(h, b, p[b]), md = CAT(minus, SFX)(h, d, p[d]);
                    int q = id[o];
                    E[o] = (REAL)h->ca[q] * E[o] +
                           (REAL)h->cb[q] * ((Hd[o] - Hd[o + mb]) * rb - (Hb[o] - Hb[o + md]) * rd);
                }
    }
}

/* CPML correction in the slabs of axis a: for the field pair (target t,
 * source f) with derivative along a, t += sign coef ((kinv - 1) D + psi),
 * then psi <- b psi + c D (gprMax's recursive integration, host.c).
 * electric: D uses f(p) - f(p - e_a); magnetic: f(p + e_a) - f(p). */
static void CAT(cpml, SFX)(struct scl_fdtd_host *h, int a, int electric)
{
    int b = (a + 1) % 3, d = (a + 2) % 3;
    const scl_cpml_axis *ax = &h->ax[a];
    const double *kinv = electric ? ax->kinv_node : ax->kinv_half;
    const double *cb = electric ? ax->b_node : ax->b_half;
    const double *cc = electric ? ax->c_node : ax->c_half;
    REAL ra = (REAL)(1 / h->dd[a]);
    for (int pair = 0; pair < 2; pair++) {
        /* electric: E_b <- -dH_d, E_d <- +dH_b; magnetic: H_b <- +dE_d, H_d <- -dE_b */
        int tcomp = pair == 0 ? b : d, fcomp = pair == 0 ? d : b;
        REAL sign = (REAL)((pair == 0) == electric ? -1 : 1);
        REAL *T = F(electric ? tcomp : 3 + tcomp);
        const REAL *S = F(electric ? 3 + fcomp : fcomp);
        const unsigned char *id = h->m->id[electric ? tcomp : 3 + tcomp];
        const double *coef = electric ? h->cb : h->db;
        REAL *psi = (REAL *)h->psi[a][electric * 2 + pair];
        /* ranges of the target component off the axis a */
        int lo[3], hi[3];
        for (int x = 0; x < 3; x++) {
            int half = electric ? (x == tcomp) : (x != tcomp);
            lo[x] = half ? 0 : h->node_lo[x];
            hi[x] = h->n[x] - 1;
        }
        int T_a = h->T[a];
        /* x fastest, the slab plane index in place of the axis coordinate;
         * psi has that layout too (as the OpenCL kernel) */
        int e[3] = {h->n[0] + 1, h->n[1] + 1, h->n[2] + 1};
        e[a] = T_a;
#pragma omp parallel for collapse(2) num_threads(h->threads) if (h->threads > 1)
        for (int c2 = 0; c2 < e[2]; c2++)
            for (int c1 = 0; c1 < e[1]; c1++)
                for (int c0 = 0; c0 < e[0]; c0++) {
                    int c[3] = {c0, c1, c2}, pl = c[a];
                    int ia = pl <= ax->lo ? pl : h->n[a] - ax->hi + (pl - ax->lo - 1);
                    int p[3] = {c0, c1, c2};
                    p[a] = ia;
                    if (p[0] < lo[0] || p[0] > hi[0] || p[1] < lo[1] || p[1] > hi[1] ||
                        p[2] < lo[2] || p[2] > hi[2] || cc[ia] == 0)
                        continue;
                    long o = scl_grid3d_index(&h->m->grid, p[0], p[1], p[2]);
                    REAL D = electric ? (S[o] - S[o - h->s[a]]) * ra : (S[o + h->s[a]] - S[o]) * ra;
                    long pi = c0 + (long)e[0] * (c1 + (long)e[1] * c2);
                    REAL old = psi[pi];
                    psi[pi] = (REAL)cb[ia] * old + (REAL)cc[ia] * D;
                    T[o] += sign * (REAL)coef[id[o]] * (((REAL)kinv[ia] - 1) * D + old);
                }
    }
}

static void CAT(sources, SFX)(struct scl_fdtd_host *h, long n)
{
    const scl_fdtd_model *m = h->m;
    for (int s = 0; s < m->nsrc; s++) {
        const scl_fdtd_source *src = &m->src[s];
        long o = scl_grid3d_index(&m->grid, src->ijk[0], src->ijk[1], src->ijk[2]);
        REAL *E = F(src->pol);
        if (src->kind == SCL_FDTD_MAGNETIC)
            continue; /* after the H update: hsources */
        double v = scl_fdtd_source_value(m, s, n);
        if (src->kind == SCL_FDTD_VOLTAGE && src->resistance == 0) {
            if (!isnan(v)) /* NaN: outside its window, the edge is free */
                E[o] = (REAL)v;
        } else if (n >= 0)
            E[o] -= (REAL)(h->cb[m->id[src->pol][o]] * v);
    }
}

/* Magnetic dipoles, after the H update and its CPML (gprMax's order). */
static void CAT(hsources, SFX)(struct scl_fdtd_host *h, long n)
{
    const scl_fdtd_model *m = h->m;
    for (int s = 0; s < m->nsrc; s++) {
        const scl_fdtd_source *src = &m->src[s];
        if (src->kind != SCL_FDTD_MAGNETIC)
            continue;
        long o = scl_grid3d_index(&m->grid, src->ijk[0], src->ijk[1], src->ijk[2]);
        F(3 + src->pol)[o] -= (REAL)(h->db[m->id[3 + src->pol][o]] * scl_fdtd_source_value(m, s, n));
    }
}

/* Dispersive poles, part A (before the E update, with E^n): phi and T
 * (complex, re and im side by side). */
static void CAT(disp_a, SFX)(struct scl_fdtd_host *h)
{
    REAL *T = h->dT, *phi = h->phi;
    for (long i = 0; i < h->ndisp; i++) {
        int c = h->dcomp[i];
        long o = h->doff[i];
        int q = h->m->id[c][o];
        const scl_fdtd_material *x = &h->m->mat[q];
        REAL e = F(c)[o], acc = 0;
        for (int p = 0; p < x->npoles; p++) {
            const double *k = h->dc + ((size_t)q * SCL_FDTD_MAX_POLES + p) * 6;
            REAL *t = &T[(i * SCL_FDTD_MAX_POLES + p) * 2];
            REAL tr = t[0], ti = t[1];
            acc += (REAL)k[0] * tr - (REAL)k[1] * ti;
            t[0] = (REAL)k[2] * tr - (REAL)k[3] * ti + (REAL)k[4] * e;
            t[1] = (REAL)k[2] * ti + (REAL)k[3] * tr + (REAL)k[5] * e;
        }
        phi[i] = acc;
    }
}

/* After the E update and its CPML: E -= cb phi. */
static void CAT(disp_apply, SFX)(struct scl_fdtd_host *h)
{
    const REAL *phi = h->phi;
    for (long i = 0; i < h->ndisp; i++) {
        int c = h->dcomp[i];
        long o = h->doff[i];
        F(c)[o] -= (REAL)h->cb[h->m->id[c][o]] * phi[i];
    }
}

/* Part B, after the sources, with E^{n+1}. */
static void CAT(disp_b, SFX)(struct scl_fdtd_host *h)
{
    REAL *T = h->dT;
    for (long i = 0; i < h->ndisp; i++) {
        int c = h->dcomp[i];
        long o = h->doff[i];
        int q = h->m->id[c][o];
        REAL e = F(c)[o];
        for (int p = 0; p < h->m->mat[q].npoles; p++) {
            const double *k = h->dc + ((size_t)q * SCL_FDTD_MAX_POLES + p) * 6;
            REAL *t = &T[(i * SCL_FDTD_MAX_POLES + p) * 2];
            t[0] -= (REAL)k[4] * e;
            t[1] -= (REAL)k[5] * e;
        }
    }
}

static void CAT(step, SFX)(struct scl_fdtd_host *h)
{
    int box = !h->m->periodic[0] && !h->m->periodic[1] && !h->m->periodic[2];
    if (box)
        CAT(update_h_box, SFX)(h);
    else
        CAT(update_h, SFX)(h);
    for (int a = 0; a < 3; a++)
        if (h->T[a])
            CAT(cpml, SFX)(h, a, 0);
    CAT(hsources, SFX)(h, h->step);
    if (h->ndisp)
        CAT(disp_a, SFX)(h);
    if (box)
        CAT(update_e_box, SFX)(h);
    else
        CAT(update_e, SFX)(h);
    for (int a = 0; a < 3; a++)
        if (h->T[a])
            CAT(cpml, SFX)(h, a, 1);
    if (h->ndisp)
        CAT(disp_apply, SFX)(h);
    CAT(sources, SFX)(h, h->step);
    if (h->ndisp)
        CAT(disp_b, SFX)(h);
}

#undef F
#undef CAT
#undef CAT2
