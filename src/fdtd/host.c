/* The plain C reference of the Yee update (serial or OpenMP), in double (the
 * test oracle) or float (the CPU baseline). */
#include "fdtd/fdtd_internal.h"
#include "fdtd/tline.h"
#include "core/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct scl_fdtd_host {
    const scl_fdtd_model *m;
    int fp64, threads;
    long step;
    int n[3];
    long s[3];
    int node_lo[3];       /* first updated node index: 1, or 0 on a periodic axis */
    double dd[3];
    void *f[6];
    int T[3];             /* CPML planes per axis (0: none) */
    void *psi[3][4];      /* per axis: H pairs 0,1 then E pairs 2,3 */
    scl_cpml_axis ax[3];
    double *ca, *cb, *da, *db;
    /* Debye poles: the E points with poles, their T per pole and phi */
    long ndisp;
    int *doff;
    unsigned char *dcomp;
    void *dT, *phi;
    double *dc; /* per material and pole: c0 c1 c2 complex (scl_fdtd_pole_coefficients) */
    /* transmission lines: per line V, I over FDTD_TLINE_NL cells and the
     * absorbing end's memory (2) */
    int ntl;
    double *tl;
};

static void host_tlines(struct scl_fdtd_host *h);


#define REAL double
#define SFX d
#include "host_impl.h"
#undef REAL
#undef SFX
#define REAL float
#define SFX f
#include "host_impl.h"
#undef REAL
#undef SFX

void scl_fdtd_host_free(scl_fdtd_host *h)
{
    if (!h)
        return;
    for (int c = 0; c < 6; c++)
        free(h->f[c]);
    for (int a = 0; a < 3; a++) {
        for (int q = 0; q < 4; q++)
            free(h->psi[a][q]);
        scl_cpml_axis_free(&h->ax[a]);
    }
    free(h->ca);
    free(h->doff);
    free(h->dcomp);
    free(h->dT);
    free(h->phi);
    free(h->dc);
    free(h->tl);
    free(h);
}

/* H component c at padded offset o, as a double (fdtd_tline_current). */
static double host_h(void *user, int c, long o)
{
    const struct scl_fdtd_host *h = user;
    return h->fp64 ? ((double *)h->f[3 + c])[o] : (double)((float *)h->f[3 + c])[o];
}

/* The lines after the E sources (gprMax's order): each active line takes
 * the current around its edge from H^{n+1/2}, advances, and sets the edge. */
static void host_tlines(struct scl_fdtd_host *h)
{
    const scl_fdtd_model *m = h->m;
    const scl_grid3d *g = &m->grid;
    double d[3] = {g->dx, g->dy, g->dz};
    for (int q = 0, t = 0; q < m->nsrc; q++) {
        const scl_fdtd_source *src = &m->src[q];
        if (src->kind != SCL_FDTD_TLINE)
            continue;
        double *v = h->tl + (size_t)t++ * (2 * FDTD_TLINE_NL + 2), *i = v + FDTD_TLINE_NL, whole, half;
        if (!fdtd_tline_active(m, q, h->step))
            continue;
        i[SCL_FDTD_TLINE_ANT] = fdtd_tline_current(m, q, host_h, h);
        fdtd_tline_drive(m, q, h->step, &whole, &half);
        fdtd_tline_currents(v, i, FDTD_TLINE_NL, src->resistance, half);
        fdtd_tline_voltages(v, i, FDTD_TLINE_NL, src->resistance, whole, i + FDTD_TLINE_NL);
        long o = scl_grid3d_index(g, src->ijk[0], src->ijk[1], src->ijk[2]);
        double e = -v[SCL_FDTD_TLINE_ANT] / d[src->pol];
        if (h->fp64)
            ((double *)h->f[src->pol])[o] = e;
        else
            ((float *)h->f[src->pol])[o] = (float)e;
    }
}

/* gprMax's CPML (its default: the first-order "HORIPML" recursive-integration
 * form, Giannakis & Giannopoulos), so that receivers near a PML agree with
 * gprMax's. Per profile sample, with sigma (S/m), kappa, alpha (S/m):
 *   t = 2 eps0 kappa + dt (alpha kappa + sigma)
 *   RA = (2 eps0 + dt alpha)/t, RB = 2 eps0 kappa/t,
 *   RE = (2 eps0 kappa - dt (alpha kappa + sigma))/t, RF = 2 sigma dt/(kappa t)
 * and the update uses the derivative D as RA D + RB Phi with Phi of the
 * previous step, then Phi <- RE Phi - RF D. Kept as psi = RB Phi (RB is fixed
 * per point): kinv = RA, b = RE, c = -RB RF, the target gets
 * (kinv - 1) D + psi(old) and psi <- b psi + c D. This bilinear form differs
 * from Roden & Gedney's exponential one by O((sigma dt/eps0)^2), which is
 * ~2 at the outer cells: the 1-2% receiver differences near a PML. */
static void ripml_coeffs(double alpha, double kappa, double sigma, double dt, double *kinv, double *b,
                         double *c)
{
    const double e2 = 2 * SCL_FDTD_EPS0;
    double t = e2 * kappa + dt * (alpha * kappa + sigma);
    double rb = e2 * kappa / t, rf = 2 * sigma * dt / (kappa * t);
    *kinv = (e2 + dt * alpha) / t;
    *b = (e2 * kappa - dt * (alpha * kappa + sigma)) / t;
    *c = -rb * rf;
}

/* One CFS parameter p at depth u (cells from the entrance) of T (gprMax's
 * calculate_values: constant is max; a polynomial from min to max). */
static double cfs_value(const scl_fdtd_cfs *cfs, int p, double u, int T, double max)
{
    if (cfs->profile[p] == 0)
        return max;
    double x = (cfs->reverse[p] ? T - u : u) / T;
    return cfs->min[p] + (max - cfs->min[p]) * pow(x, cfs->profile[p]);
}

/* Mean er * mr of the cells of the slab's entrance plane (the cells next to
 * the interior: plane `cell` of axis a), as gprMax grades each slab from. */
static double entrance_ermr(const scl_fdtd_model *m, int a, int cell)
{
    const scl_grid3d *g = &m->grid;
    int n[3] = {g->nx, g->ny, g->nz}, b = (a + 1) % 3, d = (a + 2) % 3;
    double er = 0, mr = 0;
    long cnt = 0;
    for (int v = 0; v < n[d]; v++)
        for (int u = 0; u < n[b]; u++) {
            int p[3];
            p[a] = cell;
            p[b] = u;
            p[d] = v;
            long c = p[0] + (long)n[0] * (p[1] + (long)n[1] * p[2]);
            const scl_fdtd_material *x = &m->mat[m->solid[c]];
            er += x->er;
            mr += x->mr;
            cnt++;
        }
    return cnt ? (er / cnt) * (mr / cnt) : 1;
}

/* One face's profile: depth j (cells from the entrance) of an E sample (j)
 * and an H sample (j + 1/2) out of T cells, alpha, kappa and sigma from the
 * model's CFS (gprMax's default: sigma_max (j/T)^4, sigma_max = 0.8 (4 + 1)/
 * (z0 d sqrt(er mr)) from its er, mr; kappa 1, alpha 0). */
static void face_profile(const scl_fdtd_cfs *cfs, scl_cpml_axis *ax, int lo, int T, int n, double d,
                         double dt, double ermr)
{
    const double z0 = SCL_FDTD_MU0 * SCL_FDTD_C0;
    scl_fdtd_cfs def = {0, {0, 0, 4}, {0, 0, 0}, 1, {0, 1, 0}, {0, 1, 0}};
    if (!cfs->set)
        cfs = &def;
    double smax = cfs->sigma_auto ? 0.8 * (cfs->profile[2] + 1) / (z0 * d * sqrt(ermr)) : cfs->max[2];
    for (int j = 0; j < T; j++) {
        /* node and half node of depth j: lo face counts down from node T,
         * the hi face up from node n - T */
        int ie = lo ? T - j : n - T + j, ih = lo ? T - 1 - j : n - T + j;
        for (int h = 0; h < 2; h++) {
            double u = j + 0.5 * h;
            double al = cfs_value(cfs, 0, u, T, cfs->max[0]), ka = cfs_value(cfs, 1, u, T, cfs->max[1]);
            double si = cfs_value(cfs, 2, u, T, smax);
            if (h)
                ripml_coeffs(al, ka, si, dt, &ax->kinv_half[ih], &ax->b_half[ih], &ax->c_half[ih]);
            else
                ripml_coeffs(al, ka, si, dt, &ax->kinv_node[ie], &ax->b_node[ie], &ax->c_node[ie]);
        }
    }
}

double scl_fdtd_pml_ermr(const scl_fdtd_model *m, int f)
{
    const scl_grid3d *g = &m->grid;
    int a = f % 3, n = a == 0 ? g->nx : a == 1 ? g->ny : g->nz;
    if (m->pml_ermr[f] > 0)
        return m->pml_ermr[f];
    if (!m->solid)
        return 1;
    return entrance_ermr(m, a, f < 3 ? m->pml[f] - 1 : n - m->pml[f]);
}

/* One axis's profile over N cells (the whole axis: N is the grid's global
 * count; fdtd_internal.h), each slab graded from scl_fdtd_pml_ermr. */
scl_status scl_fdtd_cpml_profile(const scl_fdtd_model *m, int a, int N, scl_cpml_axis *ax, char *err,
                                 size_t errlen)
{
    const scl_grid3d *g = &m->grid;
    double d = a == 0 ? g->dx : a == 1 ? g->dy : g->dz;
    int lo = m->pml[a], hi = m->pml[a + 3];
    memset(ax, 0, sizeof *ax);
    /* the shared builder checks the layout and sizes the arrays (kinv
     * 1, b = c = 0 outside); the faces are then filled with gprMax's form */
    scl_cpml_grading gr = {4, 0, 1, 0};
    scl_status s = scl_cpml_axis_build(ax, N, d, m->dt, lo, hi, &gr, err, errlen);
    if (s != SCL_OK)
        return s;
    if (lo)
        face_profile(&m->cfs, ax, 1, lo, N, d, m->dt, scl_fdtd_pml_ermr(m, a));
    if (hi)
        face_profile(&m->cfs, ax, 0, hi, N, d, m->dt, scl_fdtd_pml_ermr(m, a + 3));
    return SCL_OK;
}

/* The CPML profile of every axis with PML cells (fdtd_internal.h). */
scl_status scl_fdtd_cpml_axes(const scl_fdtd_model *m, scl_cpml_axis ax[3], int T[3], char *err,
                              size_t errlen)
{
    const scl_grid3d *g = &m->grid;
    int n[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3; a++) {
        memset(&ax[a], 0, sizeof ax[a]);
        T[a] = 0;
        if (!m->pml[a] && !m->pml[a + 3])
            continue;
        scl_status s = scl_fdtd_cpml_profile(m, a, n[a], &ax[a], err, errlen);
        if (s != SCL_OK)
            return s;
        T[a] = (m->pml[a] + 1) + (m->pml[a + 3] + 1);
    }
    return SCL_OK;
}

scl_status scl_fdtd_host_create(const scl_fdtd_model *m, int fp64, int threads,
                                scl_fdtd_host **out, char *err, size_t errlen)
{
    *out = NULL;
    scl_fdtd_host *h = calloc(1, sizeof *h);
    if (!h || !m->id[0]) {
        free(h);
        scl_format_error(err, errlen, "scl_fdtd_host_create: %s",
                         h ? "model not finished" : "out of host memory");
        return h ? SCL_ERR_ARGUMENT : SCL_ERR_MEMORY;
    }
    const scl_grid3d *g = &m->grid;
    h->m = m;
    h->fp64 = fp64;
    h->threads = threads > 1 ? threads : 1;
    int n[3] = {g->nx, g->ny, g->nz};
    double d[3] = {g->dx, g->dy, g->dz};
    long s[3] = {1, g->px, g->px * g->py};
    for (int a = 0; a < 3; a++) {
        h->n[a] = n[a];
        h->s[a] = s[a];
        h->dd[a] = d[a];
        h->node_lo[a] = m->periodic[a] ? 0 : 1;
    }
    size_t es = fp64 ? sizeof(double) : sizeof(float);
    long pts = scl_grid3d_points(g);
    scl_status st = scl_fdtd_cpml_axes(m, h->ax, h->T, err, errlen);
    int ok = st == SCL_OK;
    for (int c = 0; c < 6 && ok; c++)
        ok = (h->f[c] = calloc((size_t)pts, es)) != NULL;
    for (int a = 0; a < 3 && ok; a++)
        for (int q = 0; q < 4 && h->T[a] && ok; q++)
            ok = (h->psi[a][q] = calloc((size_t)h->T[a] * (n[(a + 1) % 3] + 1) *
                                            (n[(a + 2) % 3] + 1),
                                        es)) != NULL;
    if (ok)
        ok = (h->ca = malloc(4 * (size_t)m->nmat * sizeof(double))) != NULL;
    if (ok)
        ok = (h->ndisp = scl_fdtd_dispersive_points(m, &h->doff, &h->dcomp)) >= 0;
    h->ntl = scl_fdtd_model_tlines(m);
    if (ok && h->ntl)
        ok = (h->tl = calloc((size_t)h->ntl * (2 * FDTD_TLINE_NL + 2), sizeof(double))) != NULL;
    if (ok && h->ndisp > 0) {
        h->dT = calloc((size_t)h->ndisp * SCL_FDTD_MAX_POLES * 2, es);
        h->phi = calloc((size_t)h->ndisp, es);
        h->dc = calloc((size_t)m->nmat * SCL_FDTD_MAX_POLES * 6, sizeof(double));
        ok = h->dT && h->phi && h->dc;
        for (int q = 0; q < m->nmat && ok; q++)
            for (int p = 0; p < m->mat[q].npoles; p++)
                scl_fdtd_pole_coefficients(m, q, p, h->dc + ((size_t)q * SCL_FDTD_MAX_POLES + p) * 6);
    }
    if (!ok) {
        scl_fdtd_host_free(h);
        if (st == SCL_OK) {
            scl_format_error(err, errlen, "scl_fdtd_host_create: out of host memory");
            st = SCL_ERR_MEMORY;
        }
        return st;
    }
    h->cb = h->ca + m->nmat;
    h->da = h->cb + m->nmat;
    h->db = h->da + m->nmat;
    scl_fdtd_coefficients(m, h->ca, h->cb, h->da, h->db);
    *out = h;
    return SCL_OK;
}

static void record(scl_fdtd_host *h, scl_receivers *rx)
{
    if (!rx || h->step >= rx->nt)
        return;
    for (int t = 0; t < h->ntl && rx->n >= h->m->nrx + h->ntl && rx->ncomp >= 2; t++) {
        const double *v = h->tl + (size_t)t * (2 * FDTD_TLINE_NL + 2);
        scl_receivers_series(rx, h->m->nrx + t, 0)[h->step] = v[SCL_FDTD_TLINE_ANT];
        scl_receivers_series(rx, h->m->nrx + t, 1)[h->step] = v[FDTD_TLINE_NL + SCL_FDTD_TLINE_ANT];
    }
    for (int r = 0; r < rx->n && r < h->m->nrx; r++) {
        const int *p = h->m->rx_ijk[r];
        long o = scl_grid3d_index(&h->m->grid, p[0], p[1], p[2]);
        for (int c = 0; c < 6 && c < rx->ncomp; c++)
            scl_receivers_series(rx, r, c)[h->step] =
                h->fp64 ? ((double *)h->f[c])[o] : (double)((float *)h->f[c])[o];
    }
}

void scl_fdtd_host_run(scl_fdtd_host *h, long steps, scl_receivers *rx)
{
    for (long n = 0; n < steps; n++) {
        if (h->step == 0 && h->fp64) /* hard sources' E at t = 0 (gprMax's) */
            sources_d(h, -1);
        else if (h->step == 0)
            sources_f(h, -1);
        record(h, rx);
        if (h->fp64)
            step_d(h);
        else
            step_f(h);
        h->step++;
    }
}

long scl_fdtd_host_steps(const scl_fdtd_host *h) { return h->step; }

void scl_fdtd_host_get(const scl_fdtd_host *h, int c, double *out)
{
    long pts = scl_grid3d_points(&h->m->grid);
    for (long i = 0; i < pts; i++)
        out[i] = h->fp64 ? ((double *)h->f[c])[i] : (double)((float *)h->f[c])[i];
}

void scl_fdtd_host_set(scl_fdtd_host *h, int c, const double *in)
{
    long pts = scl_grid3d_points(&h->m->grid);
    for (long i = 0; i < pts; i++) {
        if (h->fp64)
            ((double *)h->f[c])[i] = in[i];
        else
            ((float *)h->f[c])[i] = (float)in[i];
    }
}
