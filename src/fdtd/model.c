/* The model: grid, materials per cell and per field component (with gprMax's
 * averaging on edges and faces), time step, coefficients, source terms. */
#include "streamcl/fdtd.h"
#include "fdtd/fdtd_internal.h"
#include "core/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TWO_PI 6.283185307179586476925286766559

double scl_fdtd_courant_dt(double dx, double dy, double dz)
{
    return 1.0 / (SCL_FDTD_C0 * sqrt(1 / (dx * dx) + 1 / (dy * dy) + 1 / (dz * dz)));
}

double scl_fdtd_model_courant(const scl_fdtd_model *m)
{
    const scl_grid3d *g = &m->grid;
    double d[3] = {g->dx, g->dy, g->dz}, sum = 0;
    /* 2D TM: the invariant axis has no derivative, so it leaves the limit */
    for (int a = 0; a < 3; a++)
        if (m->mode2d != a + 1)
            sum += 1 / (d[a] * d[a]);
    return 1.0 / (SCL_FDTD_C0 * sqrt(sum));
}

scl_status scl_fdtd_model_trace(scl_fdtd_model *m, int t, char *err, size_t errlen)
{
    const scl_grid3d *g = &m->grid;
    int n[3] = {g->nx, g->ny, g->nz}, still[3] = {0, 0, 0};
    if (m->ncases > 0 && (t < 0 || t >= m->ncases)) {
        scl_format_error(err, errlen, "trace %d: the model's #study has %d cases", t + 1, m->ncases);
        return SCL_ERR_INPUT;
    }
    for (int q = 0; q < m->nsrc + m->nrx; q++) {
        int is_src = q < m->nsrc, r = q - m->nsrc;
        const double *pos = m->ncases > 0 ? m->case_pos[(size_t)t * (size_t)(m->nsrc + m->nrx) + (size_t)q]
                          : is_src ? m->src[q].pos : m->rx_pos[r];
        const int *step = m->ncases > 0 ? still : is_src ? m->src_step : m->rx_step;
        int ijk[3];
        char why[256];
        if (scl_grid3d_locate(g, is_src ? "source" : "receiver", pos[0], pos[1], pos[2], ijk, why,
                              sizeof why) != SCL_OK) {
            scl_format_error(err, errlen, "%s", why);
            return SCL_ERR_INPUT;
        }
        for (int a = 0; a < 3; a++) {
            ijk[a] += t * step[a];
            if (ijk[a] < 0 || ijk[a] > n[a]) {
                scl_format_error(err, errlen,
                                 "trace %d: %s %d moves to cell %d along %c, outside [0, %d] "
                                 "(#%s_steps)",
                                 t + 1, is_src ? "source" : "receiver", is_src ? q + 1 : r + 1,
                                 ijk[a], "xyz"[a], n[a], is_src ? "src" : "rx");
                return SCL_ERR_INPUT;
            }
        }
        if (is_src && m->src[q].kind == SCL_FDTD_VOLTAGE && m->src[q].resistance != 0 &&
            (step[0] || step[1] || step[2]) && t != 0) {
            scl_format_error(err, errlen,
                             "trace %d: a resistive voltage source cannot move between traces "
                             "(its edge material is part of the model); use a hertzian dipole "
                             "or run the traces apart", t + 1);
            return SCL_ERR_UNSUPPORTED;
        }
        memcpy(is_src ? m->src[q].ijk : m->rx_ijk[r], ijk, sizeof ijk);
    }
    m->trace = t;
    return SCL_OK;
}

void scl_fdtd_model_free(scl_fdtd_model *m)
{
    if (!m)
        return;
    free(m->mat);
    free(m->solid);
    free(m->rigid);
    free(m->rigid_h);
    free(m->solid_h);
    free(m->owner);
    free(m->fixed);
    for (int w = 0; w < m->nwave && m->wave; w++) {
        free(m->wave[w].t);
        free(m->wave[w].v);
    }
    for (int c = 0; c < 6; c++)
        free(m->id[c]);
    free(m->wave);
    free(m->src);
    free(m->rx_name);
    free(m->rx_ijk);
    free(m->rx_pos);
    free(m->case_pos);
    free(m->case_id);
    free(m->study_csv);
    free(m->gview);
    free(m->snap);
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
    m->rigid = calloc(cells, sizeof *m->rigid);
    if (!m->mat || !m->solid || !m->rigid) {
        scl_fdtd_model_free(m);
        scl_format_error(err, errlen, "model of %zu cells: out of host memory", cells);
        return SCL_ERR_MEMORY;
    }
    memset(m->solid, 1, cells);
    m->mat[0] = (scl_fdtd_material){.name = "pec", .er = 1, .se = INFINITY, .mr = 1, .pec = 1};
    m->mat[1] = (scl_fdtd_material){.name = "free_space", .er = 1, .mr = 1, .averagable = 1};
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

/* H's own rigid and solid arrays, made (a copy of rigid and solid) when a
 * PEC object built without averaging is about to cover a rigid cell of
 * another material: gprMax builds PEC on E alone, so H keeps the earlier
 * object's material there. 0, or -1 when out of memory. */
static int split_h(scl_fdtd_model *m, const int lo[3], const int hi[3])
{
    if (m->rigid_h)
        return 0;
    int need = 0;
    for (int k = lo[2]; k < hi[2] && !need; k++)
        for (int j = lo[1]; j < hi[1] && !need; j++)
            for (int i = lo[0]; i < hi[0] && !need; i++)
                need = m->rigid[cell(m, i, j, k)] && !m->mat[m->solid[cell(m, i, j, k)]].pec;
    if (!need)
        return 0;
    size_t cells = (size_t)m->grid.nx * m->grid.ny * m->grid.nz;
    m->rigid_h = malloc(cells * sizeof *m->rigid_h);
    m->solid_h = malloc(cells);
    if (!m->rigid_h || !m->solid_h) {
        free(m->rigid_h);
        free(m->solid_h);
        m->rigid_h = NULL;
        m->solid_h = NULL;
        return -1;
    }
    memcpy(m->rigid_h, m->rigid, cells * sizeof *m->rigid_h);
    memcpy(m->solid_h, m->solid, cells);
    return 0;
}

void scl_fdtd_fill_box(scl_fdtd_model *m, const int lo[3], const int hi[3], int mat, int averaging)
{
    unsigned int rigid = (!averaging || !m->mat[mat].averagable) ? (m->objects ? m->objects : 1) : 0;
    int pec = m->mat[mat].pec;
    if (pec && rigid && split_h(m, lo, hi) != 0) {
        m->h_nomem = 1;
        return;
    }
    for (int k = lo[2]; k < hi[2]; k++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int i = lo[0]; i < hi[0]; i++) {
                size_t c = cell(m, i, j, k);
                m->solid[c] = (unsigned char)mat;
                m->rigid[c] = rigid;
                if (m->owner)
                    m->owner[c] = m->objects;
                if (m->rigid_h && !(pec && rigid)) {
                    m->solid_h[c] = (unsigned char)mat;
                    m->rigid_h[c] = rigid;
                }
            }
}

/* The cells in the domain around component c at node ijk (E along a: the
 * cells at offsets {0,-1} along the two other axes; H along a: {0,-1} along
 * a), into out; their count. */
static int cells_around(const scl_fdtd_model *m, int c, const int ijk[3], size_t out[4])
{
    const scl_grid3d *g = &m->grid;
    int a = c % 3, b = (a + 1) % 3, d = (a + 2) % 3, n = 0;
    for (int q = 0; q < (c < 3 ? 4 : 2); q++) {
        int p[3] = {ijk[0], ijk[1], ijk[2]};
        if (c < 3) {
            p[b] -= q & 1;
            p[d] -= (q >> 1) & 1;
        } else {
            p[a] -= q;
        }
        if (p[0] >= 0 && p[1] >= 0 && p[2] >= 0 && p[0] < g->nx && p[1] < g->ny && p[2] < g->nz)
            out[n++] = cell(m, p[0], p[1], p[2]);
    }
    return n;
}

/* Does the fixed component f keep its material? Not when a later object
 * built without averaging touches it (it set the component itself), nor
 * when later averaged objects filled every cell around it (gprMax unset
 * the rigid flags there and averages it again). */
static int fixed_holds(const scl_fdtd_model *m, const scl_fdtd_fixed *f)
{
    size_t around[4];
    int later = 0, n = cells_around(m, f->comp, f->ijk, around);
    for (int q = 0; q < n; q++) {
        if (m->rigid[around[q]] > f->object)
            return 0;
        later += m->owner[around[q]] > f->object;
    }
    return n == 0 || later < n;
}

/* Harmonic mean of two non-negative values, 0 when either is 0. */
static double harmonic2(double a, double b)
{
    return a > 0 && b > 0 ? 2 * a * b / (a + b) : 0;
}

/* Index of a material with the mean properties of the listed ones, added
 * when no existing material has them. mr and sm are the harmonic mean of
 * the two cells of an H face (magnetic, n == 2) unless the model asks for
 * the arithmetic one, as everything else. -1
 * when the table is full. */
static int averaged(scl_fdtd_model *m, const int *ids, int n, int magnetic)
{
    double er = 0, se = 0, mr = 0, sm = 0;
    for (int q = 0; q < n; q++) {
        er += m->mat[ids[q]].er / n;
        se += m->mat[ids[q]].se / n;
        mr += m->mat[ids[q]].mr / n;
        sm += m->mat[ids[q]].sm / n;
    }
    if (magnetic && n == 2 && !m->magnetic_arithmetic) {
        /* gprMax 4.0.1's default (its #magnetic_averaging: harmonic): B
         * normal to the face is continuous, so the cells are in series */
        mr = harmonic2(m->mat[ids[0]].mr, m->mat[ids[1]].mr);
        sm = harmonic2(m->mat[ids[0]].sm, m->mat[ids[1]].sm);
    }
    for (int q = 2; q < m->nmat; q++) {
        scl_fdtd_material *x = &m->mat[q];
        if (x->er == er && x->se == se && x->mr == mr && x->sm == sm && !x->pec && !x->npoles &&
            !x->frozen)
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
 * (its object was built without averaging; for H not a PEC one); otherwise
 * a PEC cell makes an E edge PEC and leaves an H face to the other cell,
 * equal cells give their material and different ones an averaged material
 * (as gprMax 4.0.1 builds its per-component IDs, as its
 * #geometry_objects_write shows them). */
int scl_fdtd_component_material(scl_fdtd_model *m, int c, int i, int j, int k)
{
    int ijk[3] = {i, j, k}, ids[4] = {1, 1, 1, 1}, rigid_id = -1;
    unsigned int rigid_last = 0;
    size_t around[4];
    int n = cells_around(m, c, ijk, around);
    /* H's rigid cells: a PEC object's are not (gprMax builds it on E) */
    const int split = c >= 3 && m->rigid_h;
    const unsigned int *rigid = split ? m->rigid_h : m->rigid;
    const unsigned char *solid = split ? m->solid_h : m->solid;
    for (int q = 0; q < n; q++) {
        size_t ci = around[q];
        if (rigid[ci] > rigid_last && (c < 3 || !m->mat[solid[ci]].pec)) {
            rigid_id = solid[ci]; /* the object built last */
            rigid_last = rigid[ci];
        }
        ids[q] = m->solid[ci];
    }
    if (n == 0)
        return 1;
    if (rigid_id >= 0) /* a later object built without averaging beats a PEC one */
        return rigid_id;
    if (c < 3) /* a PEC cell makes every edge it touches PEC */
        for (int q = 0; q < n; q++)
            if (m->mat[ids[q]].pec)
                return 0;
    int same = 1;
    for (int q = 1; q < n; q++)
        same &= ids[q] == ids[0];
    if (same)
        return ids[0];
    if (c >= 3) /* gprMax 4.0.1 leaves a PEC cell out of an H face: the other's */
        for (int q = 0; q < n; q++)
            if (m->mat[ids[q]].pec)
                return ids[n - 1 - q];
    return averaged(m, ids, n, c >= 3);
}

/* 2D TE: E along the invariant axis a held at zero (pec), H across it
 * frozen, so that no derivative along a enters the live E_b, E_d, H_a. */
static scl_status te_components(scl_fdtd_model *m, char *err, size_t errlen)
{
    int a = m->mode2d - 1, frozen = scl_fdtd_find_material(m, "te-frozen");
    if (frozen < 0) {
        if (m->nmat >= SCL_FDTD_MAX_MATERIALS) {
            scl_format_error(err, errlen, "2D TE: more than %d materials", SCL_FDTD_MAX_MATERIALS);
            return SCL_ERR_INPUT;
        }
        frozen = m->nmat++;
        m->mat[frozen] = (scl_fdtd_material){.name = "te-frozen", .er = 1, .mr = 1, .frozen = 1};
    }
    long pts = scl_grid3d_points(&m->grid);
    for (long o = 0; o < pts; o++) {
        m->id[a][o] = 0;
        m->id[3 + (a + 1) % 3][o] = (unsigned char)frozen;
        m->id[3 + (a + 2) % 3][o] = (unsigned char)frozen;
    }
    return SCL_OK;
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

/* The cells around component c's nodes of row (j, k) along x that lie in
 * the domain across x: each one's solid row (at cell x = 0) and x offset
 * (0 or -1), as cells_around orders them; their count. */
static int row_cells(const scl_fdtd_model *m, int c, int j, int k, const unsigned char *rows[4],
                     int dx[4])
{
    const scl_grid3d *g = &m->grid;
    int a = c % 3, b = (a + 1) % 3, d = (a + 2) % 3, n = 0;
    for (int q = 0; q < (c < 3 ? 4 : 2); q++) {
        int p[3] = {0, j, k};
        if (c < 3) {
            p[b] -= q & 1;
            p[d] -= (q >> 1) & 1;
        } else {
            p[a] -= q;
        }
        if (p[1] >= 0 && p[2] >= 0 && p[1] < g->ny && p[2] < g->nz) {
            rows[n] = m->solid + cell(m, 0, p[1], p[2]);
            dx[n++] = p[0];
        }
    }
    return n;
}

/* Whether node x's cells in the domain (x + dx in [0, nx)) hold one
 * material; *s: it (-1: no cell in the domain). */
static int node_agrees(const unsigned char *const r[4], const int dx[4], int n, int nx, int x,
                       int *s)
{
    int v = -1;
    for (int q = 0; q < n; q++) {
        const int at = x + dx[q];
        if (at < 0 || at >= nx)
            continue;
        if (v >= 0 && r[q][at] != v)
            return 0;
        v = r[q][at];
    }
    *s = v;
    return 1;
}

/* Nodes [lo, nx) of a row whose n (2 or 4) cells are all in the domain:
 * out = to[cell material] (meaningful where they agree; to NULL: the
 * identity, a pass the compiler vectorises); nonzero if some node's cells
 * disagree. One pass without branches. */
static int inner_nodes(const unsigned char *const r[4], const int dx[4], int n, int lo, int nx,
                       const unsigned char *to, unsigned char *out)
{
    unsigned diff = 0;
    if (!to && n == 2) {
        for (int i = lo; i < nx; i++) {
            const unsigned char v = r[0][i + dx[0]];
            diff |= (unsigned)(v ^ r[1][i + dx[1]]);
            out[i] = v;
        }
    } else if (!to) {
        for (int i = lo; i < nx; i++) {
            const unsigned char v = r[0][i + dx[0]];
            diff |= (unsigned)((v ^ r[1][i + dx[1]]) | (v ^ r[2][i + dx[2]]) | (v ^ r[3][i + dx[3]]));
            out[i] = v;
        }
    } else if (n == 2) {
        for (int i = lo; i < nx; i++) {
            const unsigned v = r[0][i + dx[0]];
            diff |= v ^ r[1][i + dx[1]];
            out[i] = to[v];
        }
    } else {
        for (int i = lo; i < nx; i++) {
            const unsigned v = r[0][i + dx[0]];
            diff |= (v ^ r[1][i + dx[1]]) | (v ^ r[2][i + dx[2]]) | (v ^ r[3][i + dx[3]]);
            out[i] = to[v];
        }
    }
    return diff != 0;
}

/* The row's nodes whose cells in the domain all hold one material s: the
 * component takes s (an E edge of PEC cells: 0; to[] maps that), which is
 * what scl_fdtd_component_material gives there whatever the rigid flags (the
 * rigid cell, the PEC test and the agreement all name s) and without
 * adding a material; no cell in the domain: free space. Written into out
 * (the row at x = 0); the count of the other nodes, left to
 * scl_fdtd_component_material. */
static long agreed_row(const scl_fdtd_model *m, int c, int j, int k, const unsigned char *to,
                       int identity, unsigned char *out)
{
    const int nx = m->grid.nx;
    const unsigned char *r[4];
    int dx[4], lo = 0, from = nx + 1, to_x = nx + 1;
    const int n = row_cells(m, c, j, k, r, dx);
    for (int q = 0; q < n; q++)
        lo |= dx[q] < 0;
    if ((n == 2 || n == 4) && !inner_nodes(r, dx, n, lo, nx, identity ? NULL : to, out)) {
        from = lo; /* all of [lo, nx) agreed */
        to_x = nx;
    }
    long left = 0;
    /* the nodes not agreed yet: all, or those outside [from, to_x) */
    for (int i = from == 0 ? to_x : 0; i <= nx; i = i + 1 == from ? to_x : i + 1) {
        int s;
        if (node_agrees(r, dx, n, nx, i, &s))
            out[i] = s < 0 ? 1 : to[s];
        else
            left++;
    }
    return left;
}

/* Every component's material at every node (scl_fdtd_component_material), rows in
 * parallel where the cells around a node agree (most of any model: no
 * material is added there), then the rest in the serial order of the
 * nodes, so that averaged materials are numbered as one pass would. */
static scl_status component_materials(scl_fdtd_model *m)
{
    const scl_grid3d *g = &m->grid;
    const long rows = (long)(g->ny + 1) * (g->nz + 1);
    unsigned char to[2][SCL_FDTD_MAX_MATERIALS]; /* [H][material]: E edges of PEC cells are 0 */
    int same[2] = {1, 1}; /* to[H] is the identity (PEC is material 0 alone, as usual) */
    for (int q = 0; q < SCL_FDTD_MAX_MATERIALS; q++) {
        to[0][q] = m->mat[q].pec ? 0 : (unsigned char)q;
        to[1][q] = (unsigned char)q;
        same[0] &= to[0][q] == q;
    }
    /* a PEC object built over a rigid one keeps the rigid one's material on
     * H faces (solid_h) where solid says PEC: the cells' agreement in solid
     * does not decide H there, so H goes node by node */
    const int h_by_node = m->rigid_h != NULL;
    unsigned char *rest = malloc((size_t)(6 * rows));
    if (!rest)
        return SCL_ERR_MEMORY;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) if (6 * rows > 4096)
#endif
    for (long q = 0; q < 6 * rows; q++) {
        const int c = (int)(q / rows), j = (int)(q % rows % (g->ny + 1));
        const int k = (int)(q % rows / (g->ny + 1));
        unsigned char *out = m->id[c] + scl_grid3d_index(g, 0, j, k);
        rest[q] = (c >= 3 && h_by_node) || agreed_row(m, c, j, k, to[c >= 3], same[c >= 3], out) > 0;
    }
    scl_status st = SCL_OK;
    for (long q = 0; q < 6 * rows && st == SCL_OK; q++) {
        if (!rest[q])
            continue;
        const int c = (int)(q / rows), j = (int)(q % rows % (g->ny + 1));
        const int k = (int)(q % rows / (g->ny + 1));
        unsigned char *out = m->id[c] + scl_grid3d_index(g, 0, j, k);
        const unsigned char *r[4];
        int dx[4], s;
        const int n = row_cells(m, c, j, k, r, dx);
        for (int i = 0; i <= g->nx && st == SCL_OK; i++) {
            if (!(c >= 3 && h_by_node) && node_agrees(r, dx, n, g->nx, i, &s))
                continue; /* agreed_row wrote it */
            const int id = scl_fdtd_component_material(m, c, i, j, k);
            if (id < 0)
                st = SCL_ERR_INPUT;
            else
                out[i] = (unsigned char)id;
        }
    }
    free(rest);
    return st;
}

scl_status scl_fdtd_model_finish(scl_fdtd_model *m, char *err, size_t errlen)
{
    const scl_grid3d *g = &m->grid;
    double limit = scl_fdtd_model_courant(m);
    int cells[3] = {g->nx, g->ny, g->nz};
    if (m->mode2d < 0 || m->mode2d > 3 ||
        (m->mode2d && cells[m->mode2d - 1] != (m->te2d ? 2 : 1)) || (m->te2d && !m->mode2d)) {
        scl_format_error(err, errlen, "2D mode %d: needs %s along the invariant axis",
                         m->mode2d, m->te2d ? "two cells (TE)" : "one cell");
        return SCL_ERR_INPUT;
    }
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
    if (m->h_nomem) {
        scl_format_error(err, errlen, "H materials under a PEC object: out of host memory");
        return SCL_ERR_MEMORY;
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
    const scl_status mats = component_materials(m);
    if (mats == SCL_ERR_MEMORY) {
        scl_format_error(err, errlen, "material indices: out of host memory");
        return SCL_ERR_MEMORY;
    }
    if (mats != SCL_OK) {
        scl_format_error(err, errlen,
                         "more than %d materials with the averaged ones; build objects without "
                         "averaging (c = n)",
                         SCL_FDTD_MAX_MATERIALS);
        return SCL_ERR_INPUT;
    }
    for (int q = 0; q < m->nfixed; q++) {
        const scl_fdtd_fixed *f = &m->fixed[q];
        if (fixed_holds(m, f))
            m->id[f->comp][scl_grid3d_index(g, f->ijk[0], f->ijk[1], f->ijk[2])] =
                (unsigned char)f->mat;
    }
    if (m->te2d && te_components(m, err, errlen) != SCL_OK)
        return SCL_ERR_INPUT;
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

scl_status scl_fdtd_add_poles(scl_fdtd_model *m, int mat, scl_fdtd_pole_kind kind, int npoles,
                              const double *par, char *err, size_t errlen)
{
    static const char *names[3] = {"Debye", "Lorentz", "Drude"};
    int per = kind == SCL_FDTD_LORENTZ ? 3 : 2;
    if (mat < 2 || mat >= m->nmat || kind < SCL_FDTD_DEBYE || kind > SCL_FDTD_DRUDE) {
        scl_format_error(err, errlen, "poles: material %d is not a user material", mat);
        return SCL_ERR_INPUT;
    }
    scl_fdtd_material *x = &m->mat[mat];
    if (npoles < 1 || x->npoles + npoles > SCL_FDTD_MAX_POLES) {
        scl_format_error(err, errlen, "material '%s': 1 to %d poles in all", x->name,
                         SCL_FDTD_MAX_POLES);
        return SCL_ERR_INPUT;
    }
    for (int p = 0; p < npoles; p++) {
        const double *v = par + per * p;
        int ok = 1;
        for (int k = 0; k < per; k++)
            ok &= isfinite(v[k]) && v[k] >= 0;
        ok &= v[1] > 0 && (kind == SCL_FDTD_DEBYE || v[per - 1] > 0);
        if (kind == SCL_FDTD_LORENTZ) /* an oscillating pole: damping below 2 pi f */
            ok &= v[2] < TWO_PI * v[1];
        if (!ok) {
            scl_format_error(err, errlen,
                             "material '%s': %s pole %d: values must be finite, positive%s",
                             x->name, names[kind], p + 1,
                             kind == SCL_FDTD_LORENTZ ? ", damping below 2 pi f" : "");
            return SCL_ERR_INPUT;
        }
    }
    for (int p = 0; p < npoles; p++) {
        const double *v = par + per * p;
        int k = x->npoles++;
        if (kind == SCL_FDTD_DEBYE) {
            x->w[k][0] = v[0] / v[1];
            x->w[k][1] = 0;
            x->q[k][0] = -1 / v[1];
            x->q[k][1] = 0;
        } else if (kind == SCL_FDTD_LORENTZ) {
            double wp2 = pow(TWO_PI * v[1], 2), r = sqrt(wp2 - v[2] * v[2]);
            x->w[k][0] = 0;
            x->w[k][1] = -wp2 * v[0] / r;
            x->q[k][0] = -v[2];
            x->q[k][1] = r;
        } else {
            double wp2 = pow(TWO_PI * v[0], 2);
            x->w[k][0] = -wp2 / v[1];
            x->w[k][1] = 0;
            x->q[k][0] = -v[1];
            x->q[k][1] = 0;
            x->pole_se += SCL_FDTD_EPS0 * wp2 / v[1];
        }
    }
    x->averagable = 0;
    return SCL_OK;
}

/* -(w/q) (exp(q t) - 1) for complex w, q: expm1 keeps slow poles exact */
static void pole_integral(const double w[2], const double q[2], double t, double out[2])
{
    double x = q[0] * t, y = q[1] * t;
    double em[2] = {expm1(x) * cos(y) - 2 * pow(sin(0.5 * y), 2), exp(x) * sin(y)};
    double qq = q[0] * q[0] + q[1] * q[1];
    double wq[2] = {(w[0] * q[0] + w[1] * q[1]) / qq, (w[1] * q[0] - w[0] * q[1]) / qq};
    out[0] = -(wq[0] * em[0] - wq[1] * em[1]);
    out[1] = -(wq[0] * em[1] + wq[1] * em[0]);
}

void scl_fdtd_pole_coefficients(const scl_fdtd_model *m, int q, int p, double c[6])
{
    const scl_fdtd_material *x = &m->mat[q];
    double dt = m->dt, e2 = exp(0.5 * x->q[p][0] * dt), e1 = exp(x->q[p][0] * dt);
    c[0] = SCL_FDTD_EPS0 * e2 * cos(0.5 * x->q[p][1] * dt);
    c[1] = SCL_FDTD_EPS0 * e2 * sin(0.5 * x->q[p][1] * dt);
    c[2] = e1 * cos(x->q[p][1] * dt);
    c[3] = e1 * sin(x->q[p][1] * dt);
    double z[2];
    pole_integral(x->w[p], x->q[p], dt, z);
    c[4] = z[0] / dt;
    c[5] = z[1] / dt;
}

void scl_fdtd_coefficients(const scl_fdtd_model *m, double *ca, double *cb, double *da,
                           double *db)
{
    for (int q = 0; q < m->nmat; q++) {
        const scl_fdtd_material *x = &m->mat[q];
        /* poles add -eps0/dt sum Re(-(w/q)(exp(q dt/2) - 1)) to both terms,
         * Drude poles a conductivity */
        double poles = 0, se = x->se + x->pole_se;
        for (int p = 0; p < x->npoles; p++) {
            double z[2];
            pole_integral(x->w[p], x->q[p], 0.5 * m->dt, z);
            poles -= z[0];
        }
        double ea = SCL_FDTD_EPS0 * (x->er + poles) / m->dt + 0.5 * se;
        double eb = SCL_FDTD_EPS0 * (x->er + poles) / m->dt - 0.5 * se;
        double ha = SCL_FDTD_MU0 * x->mr / m->dt + 0.5 * x->sm;
        double hb = SCL_FDTD_MU0 * x->mr / m->dt - 0.5 * x->sm;
        ca[q] = x->pec ? 0 : eb / ea;
        cb[q] = x->pec ? 0 : 1 / ea;
        da[q] = x->frozen ? 1 : hb / ha;
        db[q] = x->frozen ? 0 : 1 / ha;
    }
}

double scl_fdtd_source_value(const scl_fdtd_model *m, int s, long n)
{
    const scl_fdtd_source *src = &m->src[s];
    const scl_grid3d *g = &m->grid;
    double d[3] = {g->dx, g->dy, g->dz};
    if (src->kind == SCL_FDTD_TLINE) /* a line sets its edge itself (tline.c) */
        return 0;
    if (src->kind == SCL_FDTD_VOLTAGE && src->resistance == 0) {
        /* gprMax's hard source prescribes E^{n+1} = -V((n+1) dt)/d while
         * (n+1) dt is in its window and leaves the edge to the update
         * outside it (not clamped to zero) */
        double t = (n + 1) * m->dt;
        if (t < src->start || (src->stop >= 0 && t > src->stop))
            return NAN;
        return -scl_fdtd_wave_value(m, src->wave, t - src->start) / d[src->pol];
    }
    /* additive sources: a current at (n + 1/2) dt while n dt is in the window */
    double t = n * m->dt;
    if (t < src->start || (src->stop >= 0 && t > src->stop))
        return 0;
    if (src->kind == SCL_FDTD_MAGNETIC) /* gprMax: the wave at n dt; H -= db * this */
        return scl_fdtd_wave_value(m, src->wave, t - src->start) / (g->dx * g->dy * g->dz);
    double v = scl_fdtd_wave_value(m, src->wave, t - src->start + 0.5 * m->dt);
    if (src->kind == SCL_FDTD_HERTZIAN)
        return v * d[src->pol] / (g->dx * g->dy * g->dz); /* E -= cb * this */
    return v / (src->resistance * d[(src->pol + 1) % 3] * d[(src->pol + 2) % 3]);
}

/* E points whose material has poles: offsets in the padded layout and the
 * component (0-2); the count, or -1 when out of memory. */
long scl_fdtd_dispersive_points(const scl_fdtd_model *m, int **off, unsigned char **comp)
{
    long pts = scl_grid3d_points(&m->grid), n = 0;
    *off = NULL;
    *comp = NULL;
    int poles = 0;
    for (int q = 0; q < m->nmat; q++)
        poles |= m->mat[q].npoles > 0;
    if (!poles) /* nothing to look for at every point */
        return 0;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (int c = 0; c < 3; c++)
            for (long o = 0; o < pts; o++)
                if (m->mat[m->id[c][o]].npoles > 0) {
                    if (pass) {
                        (*off)[n] = (int)o;
                        (*comp)[n] = (unsigned char)c;
                    }
                    n++;
                }
        if (pass == 0 && n > 0) {
            *off = malloc((size_t)n * sizeof **off);
            *comp = malloc((size_t)n);
            if (!*off || !*comp) {
                free(*off);
                free(*comp);
                *off = NULL;
                *comp = NULL;
                return -1;
            }
        }
        if (n == 0)
            break;
    }
    return n;
}

int scl_fdtd_model_uniform(const scl_fdtd_model *m)
{
    const scl_grid3d *g = &m->grid;
    const unsigned char first = m->id[0][scl_grid3d_index(g, 0, 0, 0)];
    if (m->mat[first].pec)
        return 0;
    /* row by row, without a branch per node (a 1024^3 model has 6.5e9) */
    for (int c = 0; c < 6; c++)
        for (int k = 0; k <= g->nz; k++)
            for (int j = 0; j <= g->ny; j++) {
                const unsigned char *row = m->id[c] + scl_grid3d_index(g, 0, j, k);
                unsigned diff = 0;
                for (int i = 0; i <= g->nx; i++)
                    diff |= (unsigned)(row[i] ^ first);
                if (diff)
                    return 0;
            }
    return 1;
}
