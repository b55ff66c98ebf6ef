/* Tables shared by the OpenCL driver and the C reference (see internal.h). */
#include "seismic/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

scl_status seis_layout_init(seis_layout *g, int nx, int ny, int nz, double h, char *err,
                            size_t errlen)
{
    /* the model's cells are grid3d's integer nodes; grid3d checks (and
     * pads) one plane: its 32-bit point limit is the FDTD kernels', while
     * these address a launch from a 64-bit base (seis_launch_planes) */
    scl_status st = scl_grid3d_init(&g->grid, nx > 1 ? nx - 1 : 1, ny > 1 ? ny - 1 : 1, 1, h, h,
                                    h, SCL_SEIS_HALO, SEIS_ALIGN, err, errlen);
    if (st != SCL_OK)
        return st;
    if (nz < 1) {
        snprintf(err, errlen, "grid of %d x %d x %d cells: every axis needs >= 1 cell", nx, ny, nz);
        return SCL_ERR_INPUT;
    }
    g->grid.nz = g->grid.gnz = nz > 1 ? nz - 1 : 1;
    g->grid.pz = g->grid.nz + 1 + 2L * SCL_SEIS_HALO;
    g->nx = nx;
    g->ny = ny;
    g->nz = nz;
    g->px = g->grid.px;
    g->py = g->grid.py;
    g->pz = g->grid.pz;
    g->sy = g->px;
    g->sz = g->px * g->py;
    g->n = scl_grid3d_points(&g->grid);
    g->origin = scl_grid3d_index(&g->grid, 0, 0, 0);
    return SCL_OK;
}

/* Edge-replicating copy of a per-cell quantity of the window (wn cells;
 * local cell 0 is its cell woff) into the padded layout. */
static void pad_replicate(const seis_layout *g, const int wn[3], const int woff[3],
                          const double *cell, double *out)
{
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (g->n > SEIS_PAR_MIN)
#endif
    for (long k = 0; k < g->pz; k++)
        for (long j = 0; j < g->py; j++)
            for (long i = 0; i < g->px; i++) {
                long ci = i - SCL_SEIS_HALO + woff[0], cj = j - SCL_SEIS_HALO + woff[1];
                long ck = k - SCL_SEIS_HALO + woff[2];
                ci = ci < 0 ? 0 : ci >= wn[0] ? wn[0] - 1 : ci;
                cj = cj < 0 ? 0 : cj >= wn[1] ? wn[1] - 1 : cj;
                ck = ck < 0 ? 0 : ck >= wn[2] ? wn[2] - 1 : ck;
                out[i + j * g->sy + k * g->sz] = cell[ci + wn[0] * (cj + (long)wn[1] * ck)];
            }
}

/* grid3d's CPML profile along one axis of n cells (n-1 grid3d cells: the
 * wall sits on the first/last cell centre), plus the slab slots. */
static scl_status cpml_dir_init(seis_cpml_dir *p, int n, double h, int width_cells, int low_side,
                                const scl_cpml_grading *gr, double dt, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->width = width_cells > 0 ? 2 * width_cells : 0;
    scl_cpml_axis ax;
    scl_status st = scl_cpml_axis_build(&ax, n > 1 ? n - 1 : 1, h, dt,
                                        low_side ? width_cells : 0, width_cells, gr, err, errlen);
    if (st != SCL_OK)
        return st;
    double **arrays[6] = {&p->a_c, &p->b_c, &p->ik_c, &p->a_h, &p->b_h, &p->ik_h};
    const double *from[6] = {ax.c_node, ax.b_node, ax.kinv_node,
                             ax.c_half, ax.b_half, ax.kinv_half};
    for (int a = 0; a < 6; a++) {
        if (!(*arrays[a] = malloc((size_t)n * sizeof(double)))) {
            scl_cpml_axis_free(&ax);
            return SCL_ERR_MEMORY;
        }
        memcpy(*arrays[a], from[a], (size_t)n * sizeof(double));
    }
    scl_cpml_axis_free(&ax);
    if (!(p->slot = malloc((size_t)n * sizeof(int))))
        return SCL_ERR_MEMORY;
    for (int i = 0; i < n; i++) {
        p->slot[i] = -1;
        if (width_cells > 0) {
            if (i < width_cells && low_side)
                p->slot[i] = i;
            else if (i >= n - width_cells)
                p->slot[i] = i - (n - 2 * width_cells);
        }
    }
    return SCL_OK;
}

static void cpml_dir_free(seis_cpml_dir *p)
{
    free(p->a_c);
    free(p->b_c);
    free(p->ik_c);
    free(p->a_h);
    free(p->b_h);
    free(p->ik_h);
    free(p->slot);
    memset(p, 0, sizeof *p);
}

/* Keep the profiles of cells [lo, lo + n) (a slab's own along its cut). */
static void cpml_dir_slice(seis_cpml_dir *p, int lo, int n)
{
    double *arrays[6] = {p->a_c, p->b_c, p->ik_c, p->a_h, p->b_h, p->ik_h};
    for (int a = 0; a < 6; a++)
        memmove(arrays[a], arrays[a] + lo, (size_t)n * sizeof(double));
    memmove(p->slot, p->slot + lo, (size_t)n * sizeof(int));
    p->n = n;
}

long seis_cpml_slab(const seis_setup *s, int d)
{
    const long nx = s->g.nx, ny = s->g.ny, nz = s->g.nz, w = s->dir[d].width;
    return d == 0 ? w * ny * nz : d == 1 ? nx * w * nz : nx * ny * w;
}

/* Whether the whole model's cell (i,j,k) is one of this setup's own. */
static int own_cell(const seis_setup *s, int i, int j, int k)
{
    const int p[3] = {i - s->off[0], j - s->off[1], k - s->off[2]};
    const int n[3] = {s->g.nx, s->g.ny, s->g.nz};
    return s->cut < 0 || (p[s->cut] >= 0 && p[s->cut] < n[s->cut]);
}

/* An injection at the whole model's cell (i,j,k), where it is one of ours. */
static void add_injection(seis_setup *s, int field, int i, int j, int k, int src, double coeff)
{
    if (coeff == 0 || !own_cell(s, i, j, k))
        return;
    i -= s->off[0];
    j -= s->off[1];
    k -= s->off[2];
    seis_injection *q = &s->inj[s->ninj++];
    q->field = field;
    q->index = seis_index(&s->g, i, j, k);
    q->source = src;
    q->coeff = coeff;
}

/* The padded material arrays rho, lambda, mu from the window m (wn cells,
 * local cell 0 at woff); the window's largest vp. */
static double setup_materials(seis_setup *s, const scl_seis_model *m, const int woff[3],
                              double *tmp)
{
    const seis_layout *g = &s->g;
    const int wn[3] = {m->nx, m->ny, m->nz};
    const size_t cells = (size_t)m->nx * m->ny * m->nz;
    double vp_max = 0;
    const int par = cells > (size_t)SEIS_PAR_MIN;
    (void)par;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(max : vp_max) if (par)
#endif
    for (size_t q = 0; q < cells; q++) {
        tmp[q] = m->rho[q];
        if (m->vp[q] > vp_max)
            vp_max = m->vp[q];
    }
    pad_replicate(g, wn, woff, tmp, s->rho);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (par)
#endif
    for (size_t q = 0; q < cells; q++)
        tmp[q] = (double)m->rho[q] * ((double)m->vp[q] * m->vp[q] - 2.0 * m->vs[q] * m->vs[q]);
    pad_replicate(g, wn, woff, tmp, s->lam);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (par)
#endif
    for (size_t q = 0; q < cells; q++)
        tmp[q] = (double)m->rho[q] * m->vs[q] * m->vs[q];
    pad_replicate(g, wn, woff, tmp, s->mu);
    return vp_max;
}

/* Wavelet samples and injection points of the sources (global cells; a
 * slab keeps the injections at its own cells). */
static void setup_sources(seis_setup *s, const scl_seis_config *c, double h)
{
    const seis_layout *g = &s->g;
    const double h3 = h * h * h, dt = c->dt;
    for (int q = 0; q < c->nsources; q++) {
        const scl_seis_source *src = &c->sources[q];
        const int moment = src->kind != SCL_SEIS_FORCE;
        for (long n = 0; n <= c->steps; n++)
            s->wavelet[(size_t)q * (size_t)(c->steps + 1) + (size_t)n] =
                scl_wavelet_sample(&src->wavelet, (n + (moment ? 0.5 : 0.0)) * dt, dt);
        const int i = src->i, j = src->j, k = src->k;
        if (!moment) {
            if (!own_cell(s, i, j, k))
                continue;
            const long ci = seis_index(g, i - s->off[0], j - s->off[1], k - s->off[2]);
            const long step[3] = {1, g->sy, g->sz};
            for (int a = 0; a < 3; a++) {
                const double rho_node = 0.5 * (s->rho[ci] + s->rho[ci + step[a]]);
                add_injection(s, F_VX + a, i, j, k, q, dt * src->dir[a] / (rho_node * h3));
            }
            continue;
        }
        double mt[6] = {1, 1, 1, 0, 0, 0};
        if (src->kind == SCL_SEIS_MOMENT)
            memcpy(mt, src->m, sizeof mt);
        const double f = -dt / h3;
        add_injection(s, F_SXX, i, j, k, q, f * mt[0]);
        add_injection(s, F_SYY, i, j, k, q, f * mt[1]);
        add_injection(s, F_SZZ, i, j, k, q, f * mt[2]);
        /* off-diagonal terms: the four shear nodes around the centre (a node
         * outside the grid is dropped) */
        const int shear[3] = {F_SXY, F_SXZ, F_SYZ};
        const int ax[3][2] = {{0, 1}, {0, 2}, {1, 2}};
        for (int t = 0; t < 3; t++)
            for (int u = 0; u < 2; u++)
                for (int v = 0; v < 2; v++) {
                    int p[3] = {i, j, k};
                    p[ax[t][0]] -= u;
                    p[ax[t][1]] -= v;
                    if (p[0] < 0 || p[1] < 0 || p[2] < 0)
                        continue;
                    add_injection(s, shear[t], p[0], p[1], p[2], q, 0.25 * f * mt[3 + t]);
                }
    }
}

scl_status seis_setup_create(const scl_seis_model *m, const scl_seis_config *c, seis_setup *s,
                             char *err, size_t errlen)
{
    return seis_setup_slab(m, c, NULL, s, err, errlen);
}

scl_status seis_setup_slab(const scl_seis_model *m, const scl_seis_config *c,
                           const scl_seis_slab *slab, seis_setup *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    int ln[3] = {m->nx, m->ny, m->nz}, woff[3] = {0, 0, 0};
    s->cut = slab ? slab->axis : -1;
    s->gn[0] = slab ? slab->nx : m->nx;
    s->gn[1] = slab ? slab->ny : m->ny;
    s->gn[2] = slab ? slab->nz : m->nz;
    if (slab) { /* the window holds 2 planes more on each side of the cut */
        ln[s->cut] = slab->n;
        woff[s->cut] = 2;
        s->off[s->cut] = slab->lo;
    }
    scl_status st = seis_layout_init(&s->g, ln[0], ln[1], ln[2], m->h, err, errlen);
    if (st != SCL_OK)
        return st;
    const seis_layout *g = &s->g;
    const size_t cells = (size_t)m->nx * m->ny * m->nz;
    s->order = c->order;
    s->c1 = (c->order == 4 ? 9.0 / 8.0 : 1.0) / m->h;
    s->c2 = (c->order == 4 ? -1.0 / 24.0 : 0.0) / m->h;
    s->dt = c->dt;
    s->steps = c->steps;
    s->free_surface = c->free_surface;
    s->pml = c->pml;
    s->nsources = c->nsources;
    s->nrec = c->nreceivers;

    double *tmp = calloc(cells, sizeof(double));
    s->rho = malloc((size_t)g->n * sizeof(double));
    s->lam = malloc((size_t)g->n * sizeof(double));
    s->mu = malloc((size_t)g->n * sizeof(double));
    s->wavelet = calloc((size_t)(c->nsources > 0 ? c->nsources : 1) * (size_t)(c->steps + 1),
                        sizeof(double));
    /* at most 15 injections per source: 3 normal + 3 x 4 shear nodes */
    s->inj = calloc((size_t)(c->nsources > 0 ? c->nsources : 1) * 15, sizeof(seis_injection));
    s->rec_index = calloc((size_t)(c->nreceivers > 0 ? c->nreceivers : 1), sizeof(long));
    if (!tmp || !s->rho || !s->lam || !s->mu || !s->wavelet || !s->inj || !s->rec_index) {
        free(tmp);
        seis_setup_free(s);
        snprintf(err, errlen, "seismic: out of host memory for %d x %d x %d cells", m->nx, m->ny,
                 m->nz);
        return SCL_ERR_MEMORY;
    }
    double vp_max = setup_materials(s, m, woff, tmp);
    free(tmp);
    if (slab)
        vp_max = slab->vp_max;

    /* CPML (Komatitsch & Martin 2007): grading order 2, kappa 1, alpha = pi f */
    const double R = c->pml_r > 0 ? c->pml_r : 1e-4;
    double fpml = c->pml_f;
    if (fpml <= 0)
        fpml = c->nsources > 0 ? c->sources[0].wavelet.freq : 0;
    const scl_cpml_grading gr = {
        2, c->pml > 0 ? scl_cpml_seismic_dmax(2, vp_max, c->pml * m->h, R) : 0, 1.0, M_PI * fpml};
    for (int d = 0; d < 3; d++) {
        const int low = !(d == 2 && c->free_surface);
        st = cpml_dir_init(&s->dir[d], s->gn[d], m->h, c->pml, low, &gr, c->dt, err, errlen);
        if (st != SCL_OK) {
            seis_setup_free(s);
            if (st == SCL_ERR_MEMORY)
                snprintf(err, errlen, "seismic: out of host memory for CPML profiles");
            return st;
        }
        if (d == s->cut)
            cpml_dir_slice(&s->dir[d], slab->lo, slab->n);
    }
    setup_sources(s, c, m->h);
    for (int r = 0; r < c->nreceivers; r++)
        s->rec_index[r] = seis_index(g, c->receivers[r].i - s->off[0], c->receivers[r].j - s->off[1],
                                     c->receivers[r].k - s->off[2]);
    return SCL_OK;
}

void seis_setup_free(seis_setup *s)
{
    free(s->rho);
    free(s->lam);
    free(s->mu);
    for (int d = 0; d < 3; d++)
        cpml_dir_free(&s->dir[d]);
    free(s->wavelet);
    free(s->inj);
    free(s->rec_index);
    memset(s, 0, sizeof *s);
}

void seis_unpad_float(const seis_layout *g, const float *in, double *out)
{
    for (long k = 0; k < g->nz; k++)
        for (long j = 0; j < g->ny; j++)
            for (long i = 0; i < g->nx; i++)
                out[i + g->nx * (j + (long)g->ny * k)] = in[seis_index(g, (int)i, (int)j, (int)k)];
}

void seis_unpad_double(const seis_layout *g, const double *in, double *out)
{
    for (long k = 0; k < g->nz; k++)
        for (long j = 0; j < g->ny; j++)
            for (long i = 0; i < g->nx; i++)
                out[i + g->nx * (j + (long)g->ny * k)] = in[seis_index(g, (int)i, (int)j, (int)k)];
}
