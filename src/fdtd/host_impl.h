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

/* The curl update of component a, written once for H and E: target T
 * (coefficients A, B by material) from two components of the other family,
 * U differenced along b and W along d ((a, b, d) cyclic):
 *   magnetic: T = A T - B ((U(+b) - U) rb - (W(+d) - W) rd)
 *   electric: T = A T + B ((U - U(-b)) rb - (W - W(-d)) rd) */
typedef struct {
    REAL *T;
    const REAL *U, *W;
    const unsigned char *id;
    const double *A, *B;
    REAL rb, rd;
} CAT(curl, SFX);

static CAT(curl, SFX) CAT(curl_of, SFX)(struct scl_fdtd_host *h, int a, int electric, const double dd[3])
{
    int b = (a + 1) % 3, d = (a + 2) % 3;
    CAT(curl, SFX) c = {.T = F(electric ? a : 3 + a),
                        .U = F(electric ? 3 + d : d),
                        .W = F(electric ? 3 + b : b),
                        .id = h->m->id[electric ? a : 3 + a],
                        .A = electric ? h->ca : h->da,
                        .B = electric ? h->cb : h->db,
                        .rb = (REAL)(1 / dd[b]),
                        .rd = (REAL)(1 / dd[d])};
    return c;
}

/* One row [o0, o1) of a PEC box, contiguous in i so that it vectorises (the
 * CPU baseline); ub, wd: the strides along b and d. */
static inline void CAT(curl_row, SFX)(const CAT(curl, SFX) *c, long ub, long wd, long o0, long o1,
                                      int electric)
{
    REAL *restrict T = c->T;
    const REAL *restrict U = c->U, *restrict W = c->W;
    const unsigned char *id = c->id;
    const double *A = c->A, *B = c->B;
    REAL rb = c->rb, rd = c->rd;
    if (electric) {
#pragma omp simd
        for (long o = o0; o < o1; o++)
            T[o] = (REAL)A[id[o]] * T[o] + (REAL)B[id[o]] * ((U[o] - U[o - ub]) * rb - (W[o] - W[o - wd]) * rd);
    } else {
#pragma omp simd
        for (long o = o0; o < o1; o++)
            T[o] = (REAL)A[id[o]] * T[o] - (REAL)B[id[o]] * ((U[o + ub] - U[o]) * rb - (W[o + wd] - W[o]) * rd);
    }
}

/* The H (electric 0) or E update of a PEC box (no periodic axis), row by
 * row. A component is updated off the boundary nodes it is tangential to:
 * H_a from node 1 along a, E_a from node 1 along b and d. */
static void CAT(update_box, SFX)(struct scl_fdtd_host *h, int electric)
{
    const scl_grid3d *g = &h->m->grid;
    const long s[3] = {1, g->px, g->px * g->py};
    const double dd[3] = {g->dx, g->dy, g->dz};
    CAT(curl, SFX) c[3];
    for (int a = 0; a < 3; a++)
        c[a] = CAT(curl_of, SFX)(h, a, electric, dd);
    int nx = g->nx;
#pragma omp parallel for collapse(2) num_threads(h->threads) if (h->threads > 1)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++) {
            long r = scl_grid3d_index(g, 0, j, k);
            for (int a = 0; a < 3; a++) {
                int b = (a + 1) % 3, d = (a + 2) % 3;
                int from1[3] = {0, 0, 0}; /* the axes along which it starts at node 1 */
                if (electric)
                    from1[b] = from1[d] = 1;
                else
                    from1[a] = 1;
                if ((from1[1] && j < 1) || (from1[2] && k < 1))
                    continue;
                CAT(curl_row, SFX)(&c[a], s[b], s[d], r + from1[0], r + nx, electric);
            }
        }
}

/* The same on any grid (a periodic axis wraps the neighbour), point by point. */
static void CAT(update_any, SFX)(struct scl_fdtd_host *h, int electric)
{
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3, d = (a + 2) % 3;
        int lo[3];
        for (int x = 0; x < 3; x++)
            lo[x] = (electric ? x != a : x == a) ? h->node_lo[x] : 0;
        CAT(curl, SFX) c = CAT(curl_of, SFX)(h, a, electric, h->dd);
#pragma omp parallel for collapse(2) num_threads(h->threads) if (h->threads > 1)
        for (int k = lo[2]; k < h->n[2]; k++)
            for (int j = lo[1]; j < h->n[1]; j++)
                for (int i = lo[0]; i < h->n[0]; i++) {
                    int p[3] = {i, j, k};
                    long o = scl_grid3d_index(&h->m->grid, i, j, k);
                    int q = c.id[o];
                    if (electric) {
                        long mb = CAT(minus, SFX)(h, b, p[b]), md = CAT(minus, SFX)(h, d, p[d]);
                        c.T[o] = (REAL)c.A[q] * c.T[o] +
                                 (REAL)c.B[q] * ((c.U[o] - c.U[o + mb]) * c.rb - (c.W[o] - c.W[o + md]) * c.rd);
                    } else {
                        long pb = CAT(plus, SFX)(h, b, p[b]), pd = CAT(plus, SFX)(h, d, p[d]);
                        c.T[o] = (REAL)c.A[q] * c.T[o] -
                                 (REAL)c.B[q] * ((c.U[o + pb] - c.U[o]) * c.rb - (c.W[o + pd] - c.W[o]) * c.rd);
                    }
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
    void (*update)(struct scl_fdtd_host *, int) = box ? CAT(update_box, SFX) : CAT(update_any, SFX);
    update(h, 0);
    for (int a = 0; a < 3; a++)
        if (h->T[a])
            CAT(cpml, SFX)(h, a, 0);
    CAT(hsources, SFX)(h, h->step);
    if (h->ndisp)
        CAT(disp_a, SFX)(h);
    update(h, 1);
    for (int a = 0; a < 3; a++)
        if (h->T[a])
            CAT(cpml, SFX)(h, a, 1);
    if (h->ndisp)
        CAT(disp_apply, SFX)(h);
    CAT(sources, SFX)(h, h->step);
    if (h->ntl)
        host_tlines(h);
    if (h->ndisp)
        CAT(disp_b, SFX)(h);
}

#undef F
#undef CAT
#undef CAT2
