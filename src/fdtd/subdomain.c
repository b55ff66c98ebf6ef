/* Sub-domains of a model for decomposed runs (MPI in the streamcl command):
 * a slab of the global model along one axis, with the global model's
 * materials per component (averaged edges included, halo planes too), the
 * sources and receivers whose cells it owns, and the CPML profile of the
 * global axis read at the slab's offset. The solver learns from the grid's
 * offsets (ox, gnx, ...) which faces are cuts rather than PEC walls. */
#include "fdtd/fdtd_internal.h"
#include "core/fail.h"

#include <stdlib.h>
#include <string.h>

/* Owned along the cut axis: cells [lo, lo + n), and the closing node plane
 * of the global domain by the last slab. */
static int owned(int v, int lo, int n, int global_n)
{
    return (v >= lo && v < lo + n) || (v == global_n && lo + n == global_n);
}

/* Per-component material indices of the slab, halo planes included, from
 * the global arrays (every slab point has a global point: the cut axis keeps
 * [lo - 1, lo + n + 1] inside the global [-1, N + 1]). */
static void copy_ids(const scl_fdtd_model *g, scl_fdtd_model *s, int axis, int lo)
{
    const scl_grid3d *gg = &g->grid, *sg = &s->grid;
    int sh[3] = {0, 0, 0};
    sh[axis] = lo;
    for (int c = 0; c < 6; c++)
        for (int k = -1; k <= sg->nz + 1; k++)
            for (int j = -1; j <= sg->ny + 1; j++)
                for (int i = -1; i <= sg->nx + 1; i++)
                    s->id[c][scl_grid3d_index(sg, i, j, k)] =
                        g->id[c][scl_grid3d_index(gg, i + sh[0], j + sh[1], k + sh[2])];
}

static scl_status copy_points(const scl_fdtd_model *g, scl_fdtd_model *s, int axis, int lo, int n,
                              int **rx_index)
{
    int gn[3] = {g->grid.nx, g->grid.ny, g->grid.nz}, N = gn[axis];
    s->src = malloc(sizeof *s->src * (size_t)(g->nsrc ? g->nsrc : 1));
    s->rx_name = malloc(sizeof *s->rx_name * (size_t)(g->nrx ? g->nrx : 1));
    s->rx_ijk = malloc(sizeof *s->rx_ijk * (size_t)(g->nrx ? g->nrx : 1));
    s->rx_pos = malloc(sizeof *s->rx_pos * (size_t)(g->nrx ? g->nrx : 1));
    *rx_index = malloc(sizeof **rx_index * (size_t)(g->nrx ? g->nrx : 1));
    if (!s->src || !s->rx_name || !s->rx_ijk || !s->rx_pos || !*rx_index)
        return SCL_ERR_MEMORY;
    for (int q = 0; q < g->nsrc; q++)
        if (owned(g->src[q].ijk[axis], lo, n, N)) {
            s->src[s->nsrc] = g->src[q];
            s->src[s->nsrc++].ijk[axis] -= lo;
        }
    for (int r = 0; r < g->nrx; r++)
        if (owned(g->rx_ijk[r][axis], lo, n, N)) {
            memcpy(s->rx_name[s->nrx], g->rx_name[r], sizeof s->rx_name[0]);
            memcpy(s->rx_ijk[s->nrx], g->rx_ijk[r], sizeof s->rx_ijk[0]);
            memcpy(s->rx_pos[s->nrx], g->rx_pos[r], sizeof s->rx_pos[0]);
            s->rx_ijk[s->nrx][axis] -= lo;
            (*rx_index)[s->nrx++] = r;
        }
    return SCL_OK;
}

scl_status scl_fdtd_model_subdomain(const scl_fdtd_model *g, int axis, int lo, int n,
                                    scl_fdtd_model *s, int **rx_index, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    *rx_index = NULL;
    const scl_grid3d *gg = &g->grid;
    int gn[3] = {gg->nx, gg->ny, gg->nz};
    if (axis < 0 || axis > 2 || !g->id[0] || lo < 0 || n < 1 || lo + n > gn[axis] ||
        gg->ox || gg->oy || gg->oz) {
        scl_format_error(err, errlen, "scl_fdtd_model_subdomain: cells [%d, %d) along axis %d "
                         "of a finished whole model of %d cells", lo, lo + n, axis,
                         axis >= 0 && axis < 3 ? gn[axis] : 0);
        return SCL_ERR_ARGUMENT;
    }
    if (scl_fdtd_model_tlines(g) > 0) {
        scl_format_error(err, errlen, "scl_fdtd_model_subdomain: transmission lines run on one "
                         "device (no --decomp; a B-scan's traces may be farmed out)");
        return SCL_ERR_UNSUPPORTED;
    }
    if (g->periodic[axis] && n < gn[axis]) {
        scl_format_error(err, errlen, "scl_fdtd_model_subdomain: the periodic %c axis cannot be cut",
                         "xyz"[axis]);
        return SCL_ERR_UNSUPPORTED;
    }
    int sn[3] = {gn[0], gn[1], gn[2]};
    sn[axis] = n;
    scl_status st = scl_grid3d_init(&s->grid, sn[0], sn[1], sn[2], gg->dx, gg->dy, gg->dz,
                                    gg->halo, 32, err, errlen);
    if (st != SCL_OK)
        return st;
    s->grid.ox = axis == 0 ? lo : 0;
    s->grid.oy = axis == 1 ? lo : 0;
    s->grid.oz = axis == 2 ? lo : 0;
    s->grid.gnx = gn[0];
    s->grid.gny = gn[1];
    s->grid.gnz = gn[2];
    memcpy(s->title, g->title, sizeof s->title);
    s->mode2d = g->mode2d;
    s->dt = g->dt;
    s->stability = g->stability;
    s->iterations = g->iterations;
    s->time_window = g->time_window;
    memcpy(s->pml, g->pml, sizeof s->pml); /* the global CPML: the solver cuts it */
    s->cfs = g->cfs;
    for (int f = 0; f < 6; f++) /* the whole model's grading on every rank */
        s->pml_ermr[f] = g->pml[f] ? scl_fdtd_pml_ermr(g, f) : 0;
    memcpy(s->periodic, g->periodic, sizeof s->periodic);
    memcpy(s->src_step, g->src_step, sizeof s->src_step);
    memcpy(s->rx_step, g->rx_step, sizeof s->rx_step);
    s->trace = g->trace;
    s->objects = g->objects;
    s->nmat = g->nmat;
    s->nwave = g->nwave;
    long pts = scl_grid3d_points(&s->grid);
    size_t cells = (size_t)sn[0] * sn[1] * sn[2];
    s->mat = calloc(SCL_FDTD_MAX_MATERIALS, sizeof *s->mat);
    s->solid = calloc(cells, 1);
    s->wave = malloc(sizeof *s->wave * (size_t)(g->nwave ? g->nwave : 1));
    int ok = s->mat && s->solid && s->wave;
    for (int c = 0; c < 6 && ok; c++)
        ok = (s->id[c] = calloc((size_t)pts, 1)) != NULL;
    if (ok)
        ok = copy_points(g, s, axis, lo, n, rx_index) == SCL_OK;
    if (!ok) {
        scl_fdtd_model_free(s);
        free(*rx_index);
        *rx_index = NULL;
        scl_format_error(err, errlen, "scl_fdtd_model_subdomain: out of host memory");
        return SCL_ERR_MEMORY;
    }
    memcpy(s->mat, g->mat, sizeof *s->mat * (size_t)g->nmat);
    memcpy(s->wave, g->wave, sizeof *s->wave * (size_t)g->nwave);
    int sh[3] = {0, 0, 0};
    sh[axis] = lo;
    for (int k = 0; k < sn[2]; k++)
        for (int j = 0; j < sn[1]; j++)
            memcpy(s->solid + (size_t)sn[0] * (j + (size_t)sn[1] * k),
                   g->solid + (size_t)gn[0] * (j + sh[1] + (size_t)gn[1] * (k + sh[2])) + sh[0],
                   (size_t)sn[0]);
    copy_ids(g, s, axis, lo);
    return SCL_OK;
}

/* The CPML of one axis of a sub-domain: the global profile read from the
 * sub-domain's offset, and the slab cells of the global CPML that fall in
 * it (lo: planes [0, lo], hi: [n - hi, n]; a slab of the global CPML that
 * misses the sub-domain leaves 0 cells, whose one plane gets the global
 * profile there: c = 0 in the interior, no correction). */
static scl_status cut_axis(const scl_fdtd_model *m, int a, scl_cpml_axis *ax, int *T, int *lo,
                           int *hi, char *err, size_t errlen)
{
    const scl_grid3d *g = &m->grid;
    const int ns[3] = {g->nx, g->ny, g->nz}, os[3] = {g->ox, g->oy, g->oz};
    const int Ns[3] = {g->gnx, g->gny, g->gnz};
    int n = ns[a], o = os[a], N = Ns[a];
    int glo = m->pml[a], ghi = m->pml[a + 3];
    scl_cpml_axis whole;
    scl_status s = scl_fdtd_cpml_profile(m, a, N, &whole, err, errlen);
    if (s != SCL_OK)
        return s;
    int l = glo > 0 && glo - o >= 0 ? (glo - o < n ? glo - o : n) : -1;
    int h = ghi > 0 && N - ghi - o <= n ? n - (N - ghi - o > 0 ? N - ghi - o : 0) : -1;
    if (l < 0 && h < 0) {
        scl_cpml_axis_free(&whole);
        return SCL_OK; /* no slab plane here */
    }
    *lo = l < 0 ? 0 : l;
    *hi = h < 0 ? 0 : h;
    /* no low slab: its one plane (index 0) is also the high slab's first
     * when that spans the sub-domain; counted once (the kernels take the
     * profile at the index, whichever slab lists it) */
    if (l < 0 && *hi == n)
        *hi = n - 1;
    *T = (*lo + 1) + (*hi + 1);
    ax->n = n;
    ax->lo = *lo;
    ax->hi = *hi;
    double *block = malloc(6 * ((size_t)n + 1) * sizeof *block);
    if (!block) {
        scl_cpml_axis_free(&whole);
        scl_format_error(err, errlen, "CPML profile: out of host memory");
        return SCL_ERR_MEMORY;
    }
    double **dst[6] = {&ax->kinv_node, &ax->b_node, &ax->c_node,
                       &ax->kinv_half, &ax->b_half, &ax->c_half};
    const double *src[6] = {whole.kinv_node, whole.b_node, whole.c_node,
                            whole.kinv_half, whole.b_half, whole.c_half};
    for (int p = 0; p < 6; p++) {
        *dst[p] = block + (size_t)p * (n + 1); /* kinv_node first: freed as one block */
        memcpy(*dst[p], src[p] + o, ((size_t)n + 1) * sizeof *block);
    }
    scl_cpml_axis_free(&whole);
    return SCL_OK;
}

scl_status scl_fdtd_cpml_local(const scl_fdtd_model *m, scl_cpml_axis ax[3], int T[3], int lo[3],
                               int hi[3], char *err, size_t errlen)
{
    const scl_grid3d *g = &m->grid;
    int n[3] = {g->nx, g->ny, g->nz}, o[3] = {g->ox, g->oy, g->oz};
    int gn[3] = {g->gnx, g->gny, g->gnz};
    for (int a = 0; a < 3; a++) {
        memset(&ax[a], 0, sizeof ax[a]);
        T[a] = lo[a] = hi[a] = 0;
    }
    for (int a = 0; a < 3; a++) {
        if (!m->pml[a] && !m->pml[a + 3])
            continue;
        scl_status s;
        if (o[a] == 0 && gn[a] == n[a]) { /* the whole axis */
            s = scl_fdtd_cpml_profile(m, a, n[a], &ax[a], err, errlen);
            lo[a] = m->pml[a];
            hi[a] = m->pml[a + 3];
            T[a] = (lo[a] + 1) + (hi[a] + 1);
        } else {
            s = cut_axis(m, a, &ax[a], &T[a], &lo[a], &hi[a], err, errlen);
        }
        if (s != SCL_OK) {
            for (int b = 0; b < 3; b++)
                scl_cpml_axis_free(&ax[b]);
            return s;
        }
    }
    return SCL_OK;
}
