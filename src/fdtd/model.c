/* The model: grid, materials per cell and per field component (with gprMax's
 * averaging on edges and faces), time step, coefficients, source terms. */
#include "streamcl/fdtd.h"
#include "core/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double scl_fdtd_courant_dt(double dx, double dy, double dz)
{
    return 1.0 / (SCL_FDTD_C0 * sqrt(1 / (dx * dx) + 1 / (dy * dy) + 1 / (dz * dz)));
}

void scl_fdtd_model_free(scl_fdtd_model *m)
{
    if (!m)
        return;
    free(m->mat);
    free(m->solid);
    free(m->rigid);
    for (int c = 0; c < 6; c++)
        free(m->id[c]);
    free(m->wave);
    free(m->src);
    free(m->rx_name);
    free(m->rx_ijk);
    free(m->rx_pos);
    memset(m, 0, sizeof *m);
}

scl_status scl_fdtd_model_init(scl_fdtd_model *m, int nx, int ny, int nz, double dx, double dy,
                               double dz, double stability, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    scl_status s = scl_grid3d_init(&m->grid, nx, ny, nz, dx, dy, dz, 1, 32, err, errlen);
    /* rows padded to 32 points: the kernels' work-group rows start aligned */
    if (s != SCL_OK)
        return s;
    if (!(stability > 0 && stability <= 1)) {
        scl_format_error(err, errlen,
                         "time step stability factor %g: must be in (0, 1] (1 is the Courant "
                         "limit, dt = %.6e s)",
                         stability, scl_fdtd_courant_dt(dx, dy, dz));
        return SCL_ERR_INPUT;
    }
    m->stability = stability;
    m->dt = stability * scl_fdtd_courant_dt(dx, dy, dz);
    size_t cells = (size_t)nx * ny * nz;
    m->mat = calloc(SCL_FDTD_MAX_MATERIALS, sizeof *m->mat);
    m->solid = malloc(cells);
    m->rigid = calloc(cells, 1);
    if (!m->mat || !m->solid || !m->rigid) {
        scl_fdtd_model_free(m);
        scl_format_error(err, errlen, "model of %zu cells: out of host memory", cells);
        return SCL_ERR_MEMORY;
    }
    memset(m->solid, 1, cells);
    m->mat[0] = (scl_fdtd_material){"pec", 1, INFINITY, 1, 0, 1, 0};
    m->mat[1] = (scl_fdtd_material){"free_space", 1, 0, 1, 0, 0, 1};
    m->nmat = 2;
    return SCL_OK;
}

int scl_fdtd_find_material(const scl_fdtd_model *m, const char *name)
{
    for (int i = 0; i < m->nmat; i++)
        if (strcmp(m->mat[i].name, name) == 0)
            return i;
    return -1;
}

int scl_fdtd_add_material(scl_fdtd_model *m, const char *name, double er, double se, double mr,
                          double sm, char *err, size_t errlen)
{
    if (!(er >= 1) || !(mr >= 1) || !(se >= 0) || !(sm >= 0) || !isfinite(er) || !isfinite(se) ||
        !isfinite(mr) || !isfinite(sm)) {
        scl_format_error(err, errlen,
                         "material '%s': need relative permittivity >= 1, conductivity >= 0, "
                         "relative permeability >= 1, magnetic loss >= 0 (got %g %g %g %g)",
                         name, er, se, mr, sm);
        return -1;
    }
    if (strlen(name) >= sizeof m->mat[0].name || scl_fdtd_find_material(m, name) >= 0) {
        scl_format_error(err, errlen, "material '%s': name too long or already defined", name);
        return -1;
    }
    if (m->nmat >= SCL_FDTD_MAX_MATERIALS) {
        scl_format_error(err, errlen, "material '%s': more than %d materials", name,
                         SCL_FDTD_MAX_MATERIALS);
        return -1;
    }
    scl_fdtd_material *x = &m->mat[m->nmat];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->er = er;
    x->se = se;
    x->mr = mr;
    x->sm = sm;
    x->averagable = 1;
    return m->nmat++;
}

static size_t cell(const scl_fdtd_model *m, int i, int j, int k)
{
    return (size_t)i + (size_t)m->grid.nx * ((size_t)j + (size_t)m->grid.ny * k);
}

void scl_fdtd_fill_box(scl_fdtd_model *m, const int lo[3], const int hi[3], int mat, int averaging)
{
    int rigid = !averaging || !m->mat[mat].averagable;
    for (int k = lo[2]; k < hi[2]; k++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int i = lo[0]; i < hi[0]; i++) {
                m->solid[cell(m, i, j, k)] = (unsigned char)mat;
                m->rigid[cell(m, i, j, k)] = (unsigned char)rigid;
            }
}

/* Index of a material with the mean properties of the listed ones, added
 * when no existing material has them. -1 when the table is full. */
static int averaged(scl_fdtd_model *m, const int *ids, int n)
{
    double er = 0, se = 0, mr = 0, sm = 0;
    for (int q = 0; q < n; q++) {
        er += m->mat[ids[q]].er / n;
        se += m->mat[ids[q]].se / n;
        mr += m->mat[ids[q]].mr / n;
        sm += m->mat[ids[q]].sm / n;
    }
    for (int q = 2; q < m->nmat; q++) {
        scl_fdtd_material *x = &m->mat[q];
        if (x->er == er && x->se == se && x->mr == mr && x->sm == sm && !x->pec)
            return q;
    }
    if (m->nmat >= SCL_FDTD_MAX_MATERIALS)
        return -1;
    scl_fdtd_material *x = &m->mat[m->nmat];
    snprintf(x->name, sizeof x->name, "averaged-%d", m->nmat);
    x->er = er;
    x->se = se;
    x->mr = mr;
    x->sm = sm;
    return m->nmat++;
}

/* Material of a component point from the cells around it: E edges touch 4
 * cells, H faces 2 (those outside the domain are skipped). A rigid cell wins
 * (its object was built without averaging); otherwise equal cells give their
 * material and different ones an averaged material. */
static int component_material(scl_fdtd_model *m, int c, int i, int j, int k)
{
    const scl_grid3d *g = &m->grid;
    int a = c % 3, b = (a + 1) % 3, d = (a + 2) % 3;
    int base[3] = {i, j, k}, ids[4], n = 0, rigid_id = -1;
    /* E along a: the cells at offsets {0,-1} along b and d; H along a: {0,-1} along a */
    for (int q = 0; q < (c < 3 ? 4 : 2); q++) {
        int p[3] = {base[0], base[1], base[2]};
        if (c < 3) {
            p[b] -= q & 1;
            p[d] -= (q >> 1) & 1;
        } else {
            p[a] -= q;
        }
        if (p[0] < 0 || p[1] < 0 || p[2] < 0 || p[0] >= g->nx || p[1] >= g->ny || p[2] >= g->nz)
            continue;
        size_t ci = cell(m, p[0], p[1], p[2]);
        if (m->rigid[ci] && (c < 3 || !m->mat[m->solid[ci]].pec))
            rigid_id = m->solid[ci];
        ids[n++] = m->solid[ci];
    }
    if (n == 0)
        return 1;
    if (c < 3) /* a PEC cell makes every edge it touches PEC */
        for (int q = 0; q < n; q++)
            if (m->mat[ids[q]].pec)
                return 0;
    if (rigid_id >= 0)
        return rigid_id;
    int same = 1;
    for (int q = 1; q < n; q++)
        same &= ids[q] == ids[0];
    if (same)
        return ids[0];
    if (c >= 3) { /* H averaging skips PEC cells: their mu is free space's */
        for (int q = 0; q < n; q++)
            if (m->mat[ids[q]].pec)
                ids[q] = 1;
        if (ids[0] == ids[n - 1])
            return ids[0];
    }
    return averaged(m, ids, n);
}

scl_status scl_fdtd_model_set_dt(scl_fdtd_model *m, double dt, char *err, size_t errlen)
{
    const scl_grid3d *g = &m->grid;
    double limit = scl_fdtd_courant_dt(g->dx, g->dy, g->dz);
    if (!(dt > 0) || dt > limit) {
        scl_format_error(err, errlen,
                         "time step %.6e s is above the Courant limit %.6e s of cells %g x %g x %g m",
                         dt, limit, g->dx, g->dy, g->dz);
        return SCL_ERR_INPUT;
    }
    long iterations = m->iterations;
    if (m->time_window > 0) {
        double steps = ceil(m->time_window / dt) + 1;
        if (!(steps <= 100000000.0)) { /* checked before the conversion: no overflow */
            scl_format_error(err, errlen,
                             "time step %.6e s needs %.3g iterations for the %.6e s time window; "
                             "at most 1e8",
                             dt, steps, m->time_window);
            return SCL_ERR_INPUT;
        }
        iterations = (long)steps;
    }
    const double whole_run = (double)(m->iterations - 1) * m->dt; /* the input's default stop */
    for (int q = 0; q < m->nsrc; q++)
        if (m->src[q].stop == whole_run)
            m->src[q].stop = (double)(iterations - 1) * dt;
    m->dt = dt;
    m->iterations = iterations;
    return scl_fdtd_model_finish(m, err, errlen);
}

scl_status scl_fdtd_model_finish(scl_fdtd_model *m, char *err, size_t errlen)
{
    const scl_grid3d *g = &m->grid;
    double limit = scl_fdtd_courant_dt(g->dx, g->dy, g->dz);
    if (!(m->dt > 0) || m->dt > limit) {
        scl_format_error(err, errlen,
                         "time step %.6e s is above the Courant limit %.6e s of cells %g x %g x %g m",
                         m->dt, limit, g->dx, g->dy, g->dz);
        return SCL_ERR_INPUT;
    }
    int n[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3; a++) {
        /* at least one cell between the slabs: where they met, a half node
         * would belong to both and be corrected twice */
        if (m->pml[a] < 0 || m->pml[a + 3] < 0 ||
            ((m->pml[a] || m->pml[a + 3]) && m->pml[a] + m->pml[a + 3] >= n[a])) {
            scl_format_error(err, errlen,
                             "%d + %d PML cells leave no interior cell of the %d along %c",
                             m->pml[a], m->pml[a + 3], n[a], "xyz"[a]);
            return SCL_ERR_INPUT;
        }
        if (m->periodic[a] && (m->pml[a] || m->pml[a + 3])) {
            scl_format_error(err, errlen, "axis %c is periodic and has PML cells", "xyz"[a]);
            return SCL_ERR_INPUT;
        }
    }
    long pts = scl_grid3d_points(g);
    for (int c = 0; c < 6; c++) {
        free(m->id[c]);
        m->id[c] = calloc((size_t)pts, 1); /* halo and unused points: pec, never updated */
        if (!m->id[c]) {
            scl_format_error(err, errlen, "material indices: out of host memory");
            return SCL_ERR_MEMORY;
        }
    }
    for (int c = 0; c < 6; c++)
        for (int k = 0; k <= g->nz; k++)
            for (int j = 0; j <= g->ny; j++)
                for (int i = 0; i <= g->nx; i++) {
                    int id = component_material(m, c, i, j, k);
                    if (id < 0) {
                        scl_format_error(err, errlen,
                                         "more than %d materials with the averaged ones; build "
                                         "objects without averaging (c = n)",
                                         SCL_FDTD_MAX_MATERIALS);
                        return SCL_ERR_INPUT;
                    }
                    m->id[c][scl_grid3d_index(g, i, j, k)] = (unsigned char)id;
                }
    /* resistive voltage sources add their conductivity on their edge */
    for (int s = 0; s < m->nsrc; s++) {
        scl_fdtd_source *src = &m->src[s];
        if (src->kind != SCL_FDTD_VOLTAGE || src->resistance == 0)
            continue;
        double d[3] = {g->dx, g->dy, g->dz};
        int p = src->pol;
        long o = scl_grid3d_index(g, src->ijk[0], src->ijk[1], src->ijk[2]);
        scl_fdtd_material base = m->mat[m->id[p][o]];
        char name[64];
        snprintf(name, sizeof name, "voltage-source-%d", s);
        int id = scl_fdtd_add_material(m, name, base.er,
                                       base.se + d[p] / (src->resistance * d[(p + 1) % 3] *
                                                         d[(p + 2) % 3]),
                                       base.mr, base.sm, err, errlen);
        if (id < 0)
            return SCL_ERR_INPUT;
        m->mat[id].averagable = 0;
        m->id[p][o] = (unsigned char)id;
    }
    return SCL_OK;
}

void scl_fdtd_coefficients(const scl_fdtd_model *m, double *ca, double *cb, double *da,
                           double *db)
{
    for (int q = 0; q < m->nmat; q++) {
        const scl_fdtd_material *x = &m->mat[q];
        double ea = SCL_FDTD_EPS0 * x->er / m->dt + 0.5 * x->se;
        double eb = SCL_FDTD_EPS0 * x->er / m->dt - 0.5 * x->se;
        double ha = SCL_FDTD_MU0 * x->mr / m->dt + 0.5 * x->sm;
        double hb = SCL_FDTD_MU0 * x->mr / m->dt - 0.5 * x->sm;
        ca[q] = x->pec ? 0 : eb / ea;
        cb[q] = x->pec ? 0 : 1 / ea;
        da[q] = hb / ha;
        db[q] = 1 / ha;
    }
}

double scl_fdtd_source_value(const scl_fdtd_model *m, int s, long n)
{
    const scl_fdtd_source *src = &m->src[s];
    double t = n * m->dt;
    if (t < src->start || (src->stop >= 0 && t > src->stop))
        return 0;
    const scl_grid3d *g = &m->grid;
    double d[3] = {g->dx, g->dy, g->dz};
    double v = scl_wavelet_value(&m->wave[src->wave].w, t - src->start + 0.5 * m->dt);
    if (src->kind == SCL_FDTD_HERTZIAN)
        return v * d[src->pol] / (g->dx * g->dy * g->dz); /* E -= cb * this */
    if (src->resistance == 0)
        return -v / d[src->pol];                          /* E = this */
    return v / (src->resistance * d[(src->pol + 1) % 3] * d[(src->pol + 2) % 3]);
}

int scl_fdtd_model_uniform(const scl_fdtd_model *m)
{
    const scl_grid3d *g = &m->grid;
    int first = m->id[0][scl_grid3d_index(g, 0, 0, 0)];
    if (m->mat[first].pec)
        return 0;
    for (int c = 0; c < 6; c++)
        for (int k = 0; k <= g->nz; k++)
            for (int j = 0; j <= g->ny; j++)
                for (int i = 0; i <= g->nx; i++)
                    if (m->id[c][scl_grid3d_index(g, i, j, k)] != first)
                        return 0;
    return 1;
}
