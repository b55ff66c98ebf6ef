/* Thin and planar objects as gprMax rasterises them: #plate and #edge set
 * field components directly (fixed components, resolved in
 * scl_fdtd_model_finish after the averaging), #triangle and
 * #cylindrical_sector test cell centres and either set the faces of those
 * cells on their plane (zero thickness) or fill cells (a prism). */
#include "streamcl/fdtd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cell centres on a triangle's edge or a sector's boundary are decided by
 * the rule (edges and the end ray outside, the start ray and the arc
 * inside), not by the rounding of the arithmetic: gprMax's float32 tests
 * of such points are the rule's intent. Relative to the shape's size. */
#define EDGE_TOL 1e-9

/* the cell owner array appears with the first fixed component: cells
 * filled before it belong to objects older than any fixed component */
static scl_status add_fixed(scl_fdtd_model *m, int comp, const int p[3], int mat)
{
    const scl_grid3d *g = &m->grid;
    int n[3] = {g->nx, g->ny, g->nz};
    for (int x = 0; x < 3; x++)
        if (p[x] < 0 || p[x] > n[x])
            return SCL_OK; /* outside the grid: nothing to set */
    if (!m->owner) {
        m->owner = calloc((size_t)g->nx * g->ny * g->nz, sizeof *m->owner);
        if (!m->owner)
            return SCL_ERR_MEMORY;
    }
    if (m->nfixed == m->capfixed) {
        int cap = m->capfixed ? 2 * m->capfixed : 64;
        scl_fdtd_fixed *f = realloc(m->fixed, (size_t)cap * sizeof *f);
        if (!f)
            return SCL_ERR_MEMORY;
        m->fixed = f;
        m->capfixed = cap;
    }
    scl_fdtd_fixed *f = &m->fixed[m->nfixed++];
    f->comp = comp;
    memcpy(f->ijk, p, sizeof f->ijk);
    f->mat = mat;
    f->object = m->objects;
    return SCL_OK;
}

scl_status scl_fdtd_build_edge(scl_fdtd_model *m, int a, const int p[3], int mat)
{
    return add_fixed(m, a, p, mat);
}

scl_status scl_fdtd_build_face(scl_fdtd_model *m, int a, const int p[3], const int mat[3])
{
    int b = (a + 1) % 3, d = (a + 2) % 3;
    int pd[3] = {p[0], p[1], p[2]}, pb[3] = {p[0], p[1], p[2]};
    pd[d]++;
    pb[b]++;
    scl_status s = add_fixed(m, b, p, mat[b]);
    if (s == SCL_OK)
        s = add_fixed(m, b, pd, mat[b]);
    if (s == SCL_OK)
        s = add_fixed(m, d, p, mat[d]);
    if (s == SCL_OK)
        s = add_fixed(m, d, pb, mat[d]);
    return s;
}

/* The two in-plane axes of a plane normal to a, in gprMax's order. */
static void plane_axes(int a, int *u, int *w)
{
    *u = a == 0 ? 1 : 0;
    *w = a == 2 ? 1 : 2;
}

/* The cell at in-plane (i, j) of the plane normal to a at level: its face,
 * or its prism of thick cells. */
static scl_status build_column(scl_fdtd_model *m, int a, int i, int j, int level, int thick,
                               int mat, int averaging)
{
    int u, w, n[3] = {m->grid.nx, m->grid.ny, m->grid.nz};
    plane_axes(a, &u, &w);
    int p[3];
    p[u] = i;
    p[w] = j;
    p[a] = level;
    if (thick == 0) {
        int mats[3] = {mat, mat, mat};
        return scl_fdtd_build_face(m, a, p, mats);
    }
    int lo[3] = {p[0], p[1], p[2]}, hi[3] = {p[0] + 1, p[1] + 1, p[2] + 1};
    lo[a] = level < 0 ? 0 : level;
    hi[a] = level + thick > n[a] ? n[a] : level + thick;
    if (hi[a] > lo[a])
        scl_fdtd_fill_box(m, lo, hi, mat, averaging);
    return SCL_OK;
}

/* In-plane cell range [lo, hi) of the plane's axis x covering [c0, c1] m,
 * clipped to the grid. */
static void span(const scl_fdtd_model *m, int x, double c0, double c1, int pad, int *lo, int *hi)
{
    double d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    int n[3] = {m->grid.nx, m->grid.ny, m->grid.nz};
    double l = floor(c0 / d[x]) - pad, h = ceil(c1 / d[x]) + pad;
    *lo = l < 0 ? 0 : (int)l;
    *hi = h > n[x] ? n[x] : (int)h;
}

long scl_fdtd_build_triangle(scl_fdtd_model *m, const double v[3][3], int a, int level, int thick,
                             int mat, int averaging)
{
    int u, w;
    plane_axes(a, &u, &w);
    double d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    double y1 = v[0][u], z1 = v[0][w], y2 = v[1][u], z2 = v[1][w], y3 = v[2][u], z3 = v[2][w];
    /* barycentric coordinates s, t of a cell centre; inside: s, t > 0, s + t < 1 */
    double area2 = -z2 * y3 + z1 * (-y2 + y3) + y1 * (z2 - z3) + y2 * z3;
    if (area2 == 0)
        return 0;
    int i0, i1, j0, j1;
    span(m, u, fmin(y1, fmin(y2, y3)), fmax(y1, fmax(y2, y3)), 1, &i0, &i1);
    span(m, w, fmin(z1, fmin(z2, z3)), fmax(z1, fmax(z2, z3)), 1, &j0, &j1);
    long count = 0;
    for (int i = i0; i < i1; i++)
        for (int j = j0; j < j1; j++) {
            double y = (i + 0.5) * d[u], z = (j + 0.5) * d[w];
            double s = (z1 * y3 - y1 * z3 + (z3 - z1) * y + (y1 - y3) * z) / area2;
            double t = (y1 * z2 - z1 * y2 + (z1 - z2) * y + (y2 - y1) * z) / area2;
            /* a centre on an edge is outside, whatever the rounding */
            if (!(s > EDGE_TOL && t > EDGE_TOL && s + t < 1 - EDGE_TOL))
                continue;
            if (build_column(m, a, i, j, level, thick, mat, averaging) != SCL_OK)
                return -1;
            count++;
        }
    return count;
}

/* The point (x, y) relative to the centre is in the sector from angle start
 * through angle: within r, on or counter-clockwise of the start ray and
 * strictly clockwise of the end ray (a sector wider than half a turn is the
 * union of the two half-planes rather than their intersection). */
static int in_sector(double x, double y, double r, double start, double angle)
{
    if (x * x + y * y > r * r * (1 + EDGE_TOL))
        return 0;
    double sx = cos(start), sy = sin(start), ex = cos(start + angle), ey = sin(start + angle);
    double tol = EDGE_TOL * r;
    int after_start = sx * y - sy * x >= -tol, before_end = ex * y - ey * x < -tol;
    return angle <= M_PI ? after_start && before_end : after_start || before_end;
}

long scl_fdtd_build_sector(scl_fdtd_model *m, int a, double c1, double c2, double r, double start,
                           double angle, int level, int thick, int mat, int averaging)
{
    int u, w;
    plane_axes(a, &u, &w);
    double d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    int i0, i1, j0, j1;
    span(m, u, c1 - r, c1 + r, 0, &i0, &i1);
    span(m, w, c2 - r, c2 + r, 0, &j0, &j1);
    long count = 0;
    for (int i = i0; i < i1; i++)
        for (int j = j0; j < j1; j++) {
            if (!in_sector((i + 0.5) * d[u] - c1, (j + 0.5) * d[w] - c2, r, start, angle))
                continue;
            if (build_column(m, a, i, j, level, thick, mat, averaging) != SCL_OK)
                return -1;
            count++;
        }
    return count;
}
