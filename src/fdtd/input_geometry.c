/* gprMax input, geometry: #box #sphere #cylinder #plate #edge #triangle
 * #cylindrical_sector and #geometry_objects_read (built in file order). */
#include "input_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cells whose centre satisfies inside(); the bounding box limits the scan. */
static void fill_shape(scl_fdtd_model *m, const double *geo, int cylinder, int mat, int averaging)
{
    const scl_grid3d *g = &m->grid;
    double d[3] = {g->dx, g->dy, g->dz};
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                double x[3] = {(i + 0.5) * d[0], (j + 0.5) * d[1], (k + 0.5) * d[2]};
                int in;
                if (!cylinder) {
                    double r2 = 0;
                    for (int a = 0; a < 3; a++)
                        r2 += (x[a] - geo[a]) * (x[a] - geo[a]);
                    in = r2 <= geo[3] * geo[3];
                } else {
                    /* distance to the axis segment p1-p2, within its ends */
                    double ax[3], v[3], len2 = 0, t = 0;
                    for (int a = 0; a < 3; a++) {
                        ax[a] = geo[3 + a] - geo[a];
                        v[a] = x[a] - geo[a];
                        len2 += ax[a] * ax[a];
                        t += v[a] * ax[a];
                    }
                    t = len2 > 0 ? t / len2 : 0;
                    double r2 = 0;
                    for (int a = 0; a < 3; a++)
                        r2 += pow(v[a] - t * ax[a], 2);
                    in = t >= 0 && t <= 1 && r2 <= geo[6] * geo[6];
                }
                if (in) {
                    int lo[3] = {i, j, k}, hi[3] = {i + 1, j + 1, k + 1};
                    scl_fdtd_fill_box(m, lo, hi, mat, averaging);
                }
            }
}

/* A thin object's 7 (to most) parameters, its box as cells. */
static scl_status line_cells(const input *in, const command *c, const scl_fdtd_model *m, int most,
                             int lo[3], int hi[3], char *err, size_t errlen)
{
    if (fdtd_in_nparams(in, c, 7, most, err, errlen))
        return SCL_ERR_INPUT;
    return fdtd_in_range_cells(in, c, m, 0, lo, hi, err, errlen);
}

/* How many axes of [lo, hi) have zero size (zero 1) or not (zero 0); *axis
 * the last of them (-1 if none). */
int fdtd_in_axes_where(const int lo[3], const int hi[3], int zero, int *axis)
{
    int n = 0;
    *axis = -1;
    for (int a = 0; a < 3; a++)
        if ((lo[a] == hi[a]) == zero) {
            *axis = a;
            n++;
        }
    return n;
}

/* #plate: x1 y1 z1 x2 y2 z2 mat [mat2]: zero extent on exactly one axis;
 * the faces of its cells on that plane (two materials: the first for the
 * plane's first axis' component, the second for the other's) */
scl_status fdtd_in_parse_plate(const input *in, const command *c, scl_fdtd_model *m, char *err,
                               size_t errlen)
{
    int lo[3], hi[3], flat;
    scl_status s = line_cells(in, c, m, 8, lo, hi, err, errlen);
    if (s != SCL_OK)
        return s;
    if (fdtd_in_axes_where(lo, hi, 1, &flat) != 1)
        return fdtd_in_fail(in, c, err, errlen,
                    "a plate has zero size on exactly one axis (after rounding to the grid)");
    if (m->mode2d == flat + 1)
        return fdtd_in_fail(in, c, err, errlen,
                    "in a 2D model a plate normal to the invariant axis lies on the domain wall; "
                    "use a plate normal to another axis");
    int u = flat == 0 ? 1 : 0, w = flat == 2 ? 1 : 2, mats[3] = {0, 0, 0};
    for (int t = 0; t < c->ntok - 6; t++) {
        int id = fdtd_in_material_of(in, c, m, c->tok[6 + t], err, errlen);
        if (id < 0)
            return SCL_ERR_INPUT;
        mats[t == 0 ? u : w] = id;
        if (c->ntok == 7)
            mats[0] = mats[1] = mats[2] = id;
    }
    m->objects++;
    for (int i = lo[u]; i < hi[u]; i++)
        for (int j = lo[w]; j < hi[w]; j++) {
            int q[3];
            q[flat] = lo[flat];
            q[u] = i;
            q[w] = j;
            if (scl_fdtd_build_face(m, flat, q, mats) != SCL_OK)
                return SCL_ERR_MEMORY;
        }
    return SCL_OK;
}

/* #edge: x1 y1 z1 x2 y2 z2 mat: along exactly one axis */
scl_status fdtd_in_parse_edge(const input *in, const command *c, scl_fdtd_model *m, char *err,
                              size_t errlen)
{
    int lo[3], hi[3], run;
    scl_status s = line_cells(in, c, m, 7, lo, hi, err, errlen);
    if (s != SCL_OK)
        return s;
    if (fdtd_in_axes_where(lo, hi, 0, &run) != 1)
        return fdtd_in_fail(in, c, err, errlen,
                    "an edge runs along exactly one axis (after rounding to the grid)");
    if (m->mode2d && !m->te2d && m->mode2d != run + 1)
        return fdtd_in_fail(in, c, err, errlen,
                    "in a 2D TM model an edge runs along the invariant axis (others set a "
                    "component the model does not have)");
    if (m->te2d && m->mode2d == run + 1)
        return fdtd_in_fail(in, c, err, errlen,
                    "in a 2D TE model an edge runs across the invariant axis (along it, it "
                    "sets a component held at zero)");
    int mat = fdtd_in_material_of(in, c, m, c->tok[6], err, errlen);
    if (mat < 0)
        return SCL_ERR_INPUT;
    m->objects++;
    for (int i = lo[run]; i < hi[run]; i++) {
        int q[3] = {lo[0], lo[1], lo[2]};
        q[run] = i;
        if (scl_fdtd_build_edge(m, run, q, mat) != SCL_OK)
            return SCL_ERR_MEMORY;
    }
    return SCL_OK;
}

/* A real, or inf (sign in *inf, 0 when finite). */
static int real_or_inf(const input *in, const command *c, int t, double *v, int *inf, char *err,
                       size_t errlen)
{
    *inf = 0;
    if (fdtd_in_is_inf(c->tok[t], inf)) {
        *v = *inf > 0 ? INFINITY : -INFINITY;
        return 0;
    }
    return fdtd_in_reals(in, c, t, 1, v, err, errlen);
}

/* The node index of a length along axis a, in the domain; -1 (and err) if not. */
static int node_of(const input *in, const command *c, const scl_fdtd_model *m, int a, double v,
                   const char *what, char *err, size_t errlen)
{
    (void)in; /* the command names its own file */
    const scl_grid3d *g = &m->grid;
    double d[3] = {g->dx, g->dy, g->dz};
    int n[3] = {g->nx, g->ny, g->nz};
    double q = v / d[a];
    if (!(q >= 0) || q > n[a] * (1 + 1e-9) + 1e-9) {
        snprintf(err, errlen, "%s:%ld: %s: %s %c = %g m is outside the domain [0, %g] m",
                 c->file, c->line, c->cmd, what, "xyz"[a], v, n[a] * d[a]);
        return -1;
    }
    long k = scl_round_half_down(q);
    return (int)(k > n[a] ? n[a] : k);
}

/* Lower level and thickness in cells along a (gprMax's check_thickness). */
static scl_status thickness_cells(const input *in, const command *c, const scl_fdtd_model *m,
                                  int a, double lower, double thick, int *level, int *cells,
                                  char *err, size_t errlen)
{
    double d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    if (!(thick >= 0))
        return fdtd_in_fail(in, c, err, errlen, "the thickness must be >= 0");
    if ((*level = node_of(in, c, m, a, lower, "lower extent", err, errlen)) < 0 ||
        node_of(in, c, m, a, lower + thick, "upper extent", err, errlen) < 0)
        return SCL_ERR_INPUT;
    *cells = (int)scl_round_half_down(thick / d[a]);
    return SCL_OK;
}

/* the averaging flag and material of a volume object at tokens t, t + 1 */
static scl_status volume_material(const input *in, const command *c, const scl_fdtd_model *m,
                                  int t, int *mat, int *avg, char *err, size_t errlen)
{
    *mat = fdtd_in_material_of(in, c, m, c->tok[t], err, errlen);
    *avg = fdtd_in_averaging_flag(in, c, t + 1, err, errlen);
    return *mat < 0 || *avg < 0 ? SCL_ERR_INPUT : SCL_OK;
}

/* #triangle: x1 y1 z1 x2 y2 z2 x3 y3 z3 thickness mat [averaging]: vertices
 * rounded to nodes, sharing one coordinate (the normal); in a 2D model an
 * axis inf for all three is 0 and an inf thickness the domain's extent */
scl_status fdtd_in_parse_triangle(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                  size_t errlen)
{
    double up[3][3], thick, dv[3][3], d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    int inf[3][3], tinf, n[3] = {m->grid.nx, m->grid.ny, m->grid.nz}, node[3][3];
    if (c->ntok == 13)
        return fdtd_in_fail(in, c, err, errlen, "three materials (an anisotropic triangle) are not supported");
    if (fdtd_in_nparams(in, c, 11, 12, err, errlen) || real_or_inf(in, c, 9, &thick, &tinf, err, errlen))
        return SCL_ERR_INPUT;
    for (int v = 0; v < 3; v++)
        for (int a = 0; a < 3; a++)
            if (real_or_inf(in, c, 3 * v + a, &up[v][a], &inf[v][a], err, errlen))
                return SCL_ERR_INPUT;
    for (int a = 0; a < 3; a++) {
        int all = inf[0][a] && inf[1][a] && inf[2][a], any = inf[0][a] || inf[1][a] || inf[2][a];
        if (any && (!all || !m->mode2d))
            return fdtd_in_fail(in, c, err, errlen,
                        "'inf' is for 2D models, on one axis of all three vertices");
        if (all) {
            up[0][a] = up[1][a] = up[2][a] = 0;
            if (tinf)
                thick = n[a] * d[a], tinf = 0;
        }
    }
    if (tinf)
        return fdtd_in_fail(in, c, err, errlen, "an inf thickness needs the vertices' axis inf too");
    for (int v = 0; v < 3; v++)
        for (int a = 0; a < 3; a++) {
            if ((node[v][a] = node_of(in, c, m, a, up[v][a], "vertex", err, errlen)) < 0)
                return SCL_ERR_INPUT;
            dv[v][a] = node[v][a] * d[a];
        }
    int normal = -1;
    for (int a = 2; a >= 0; a--)
        if (node[0][a] == node[1][a] && node[1][a] == node[2][a])
            normal = a;
    double e1[3], e2[3], cr = 0;
    for (int a = 0; a < 3; a++)
        e1[a] = node[1][a] - node[0][a], e2[a] = node[2][a] - node[0][a];
    for (int a = 0; a < 3; a++)
        cr += fabs(e1[(a + 1) % 3] * e2[(a + 2) % 3] - e1[(a + 2) % 3] * e2[(a + 1) % 3]);
    if (cr == 0)
        return fdtd_in_fail(in, c, err, errlen, "the vertices must make a triangle after rounding to the grid");
    if (normal < 0)
        return fdtd_in_fail(in, c, err, errlen,
                    "the triangle must lie in a plane normal to x, y or z (the vertices share "
                    "one coordinate)");
    int level, cells, mat, avg;
    scl_status s;
    if ((s = thickness_cells(in, c, m, normal, up[0][normal], thick, &level, &cells, err, errlen)) ||
        (s = volume_material(in, c, m, 10, &mat, &avg, err, errlen)))
        return s;
    m->objects++;
    return scl_fdtd_build_triangle(m, (const double(*)[3])dv, normal, level, cells, mat, avg) < 0
               ? SCL_ERR_MEMORY : SCL_OK;
}

/* #cylindrical_sector: normal c1 c2 extent1 extent2 r start angle mat
 * [averaging]: angles in degrees, the centre rounded to the grid */
scl_status fdtd_in_parse_sector(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                size_t errlen)
{
    double v[7], d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    int n[3] = {m->grid.nx, m->grid.ny, m->grid.nz}, inf;
    if (c->ntok == 11)
        return fdtd_in_fail(in, c, err, errlen, "three materials (an anisotropic sector) are not supported");
    if (fdtd_in_nparams(in, c, 9, 10, err, errlen))
        return SCL_ERR_INPUT;
    const char *nt = c->tok[0];
    if (!nt[0] || nt[1] || !strchr("xyzXYZ", nt[0]))
        return fdtd_in_fail(in, c, err, errlen, "the normal is x, y or z");
    int a = (nt[0] | 0x20) - 'x', u = a == 0 ? 1 : 0, w = a == 2 ? 1 : 2;
    if (m->mode2d && m->mode2d != a + 1)
        return fdtd_in_fail(in, c, err, errlen, "in a 2D model the sector's normal is the invariant axis");
    for (int t = 0; t < 7; t++) {
        if (real_or_inf(in, c, t + 1, &v[t], &inf, err, errlen))
            return SCL_ERR_INPUT;
        if (inf && (!m->mode2d || (t != 2 && t != 3)))
            return fdtd_in_fail(in, c, err, errlen, "'inf' is for the extents of a sector in a 2D model");
        if (inf)
            v[t] = t == 2 ? 0 : n[a] * d[a];
    }
    double c1 = scl_round_half_down(v[0] / d[u]) * d[u], c2 = scl_round_half_down(v[1] / d[w]) * d[w];
    if (!(v[4] > 0))
        return fdtd_in_fail(in, c, err, errlen, "the radius must be positive");
    if (!(v[5] >= 0 && v[5] < 360 && v[6] > 0 && v[6] < 360))
        return fdtd_in_fail(in, c, err, errlen,
                    "the start angle is in [0, 360) degrees and the sector angle in (0, 360)");
    int level, cells, mat, avg;
    scl_status s;
    if ((s = thickness_cells(in, c, m, a, v[2], v[3] - v[2], &level, &cells, err, errlen)) ||
        (s = volume_material(in, c, m, 8, &mat, &avg, err, errlen)))
        return s;
    m->objects++;
    const double deg = 3.14159265358979323846 / 180;
    return scl_fdtd_build_sector(m, a, c1, c2, v[4], v[5] * deg, v[6] * deg, level, cells, mat, avg) < 0
               ? SCL_ERR_MEMORY : SCL_OK;
}

/* #box, #sphere, #cylinder */
scl_status fdtd_in_parse_solid(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen)
{
    char why[512];
    scl_status s;
    int kind = c->cmd[1] == 'b' ? 0 : c->cmd[1] == 's' ? 1 : 2;
    int ngeo = kind == 0 ? 6 : kind == 1 ? 4 : 7;
    m->objects++; /* shared edges of objects built without averaging: the later wins */
    double geo[7];
    if (fdtd_in_nparams(in, c, ngeo + 1, ngeo + 2, err, errlen) || fdtd_in_reals(in, c, 0, ngeo, geo, err, errlen))
        return SCL_ERR_INPUT;
    int mat = fdtd_in_material_of(in, c, m, c->tok[ngeo], err, errlen);
    int avg = fdtd_in_averaging_flag(in, c, ngeo + 1, err, errlen);
    if (mat < 0 || avg < 0)
        return SCL_ERR_INPUT;
    if (kind == 0) {
        int lo[3], hi[3];
        if ((s = fdtd_in_box_cells(in, c, &m->grid, geo, lo, hi, err, errlen)) != SCL_OK)
            return s;
        scl_fdtd_fill_box(m, lo, hi, mat, avg);
    } else {
        double r = geo[kind == 1 ? 3 : 6];
        if (!(r > 0))
            return fdtd_in_fail(in, c, err, errlen, "radius must be positive");
        /* the centre (or both axis ends) must lie in the domain */
        for (int a = 0; a < 3; a++) {
            double ext[3] = {m->grid.nx * m->grid.dx, m->grid.ny * m->grid.dy, m->grid.nz * m->grid.dz};
            double c0 = kind == 1 ? geo[a] : fmin(geo[a], geo[3 + a]);
            double c1 = kind == 1 ? geo[a] : fmax(geo[a], geo[3 + a]);
            if (c0 < 0 || c1 > ext[a] * (1 + 1e-9)) {
                snprintf(why, sizeof why, "centre/axis %c = %g m is outside the domain [0, %g] m",
                         "xyz"[a], c0 < 0 ? c0 : c1, ext[a]);
                return fdtd_in_fail(in, c, err, errlen, why);
            }
        }
        fill_shape(m, geo, kind == 2, mat, avg);
    }
    return SCL_OK;
}

/* A file a command names: the path as given, else beside the input file
 * (gprMax's order). */
void fdtd_in_beside_input(const input *in, const char *name, char *path, size_t size)
{
    const char *slash = strrchr(in->r.path, '/');
    snprintf(path, size, "%s", name);
    FILE *probe = fopen(path, "r");
    if (probe)
        fclose(probe);
    else if (name[0] != '/' && slash)
        snprintf(path, size, "%.*s%s", (int)(slash - in->r.path + 1), in->r.path, name);
}

#define GEO_MATERIALS 256

/* The #material lines of a geometry file's materials file, added to the
 * model as gprMax names them (NAME{STEM}, STEM the file's name without
 * its extension; one already defined is reused): their model indices in
 * map, their number in *count. Other commands are refused (FILE:LINE). */
static scl_status geometry_materials(const input *in, const command *c, const char *path,
                                     scl_fdtd_model *m, int *map, int *count, char *err,
                                     size_t errlen)
{
    scl_linereader r;
    char why[900] = "", *line, *tok[8];
    if (scl_linereader_open(&r, path, why, sizeof why) != SCL_OK)
        return fdtd_in_fail(in, c, err, errlen, why);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path, *dot = strrchr(base, '.');
    int stem = dot ? (int)(dot - base) : (int)strlen(base), rc;
    scl_status s = SCL_OK;
    *count = 0;
    while ((rc = scl_linereader_next(&r, &line, why, sizeof why)) == 1) {
        if (line[0] != '#' || line[1] == '#')
            continue; /* gprMax: other lines, and ## comments, are not commands */
        double v[4];
        char name[64], msg[600];
        if (strncmp(line, "#material:", 10) != 0)
            s = scl_linereader_fail(&r, why, sizeof why, "only #material lines are supported in a materials file");
        else if (scl_split_tokens(line + 10, tok, 7) != 5 || scl_parse_real(tok[0], &v[0]) ||
                 scl_parse_real(tok[1], &v[1]) || scl_parse_real(tok[2], &v[2]) ||
                 scl_parse_real(tok[3], &v[3]))
            s = scl_linereader_fail(&r, why, sizeof why, "#material needs er se mr sm name");
        else if (*count == GEO_MATERIALS)
            s = scl_linereader_fail(&r, why, sizeof why, "more than %d materials", GEO_MATERIALS);
        else if (snprintf(name, sizeof name, "%s{%.*s}", tok[4], stem, base) >= (int)sizeof name)
            s = scl_linereader_fail(&r, why, sizeof why, "the material's name is too long");
        else {
            int id = scl_fdtd_find_material(m, name);
            if (id < 0)
                id = scl_fdtd_add_material(m, name, v[0], v[1], v[2], v[3], msg, sizeof msg);
            if (id < 0)
                s = scl_linereader_fail(&r, why, sizeof why, "%s", msg);
            map[(*count)++] = id;
        }
        if (s != SCL_OK)
            break;
    }
    scl_linereader_close(&r);
    if (s != SCL_OK || rc < 0)
        return fdtd_in_fail(in, c, err, errlen, why);
    return SCL_OK;
}

/* The cells of a geometry file placed at lo: each index a material of map
 * (-1: nothing), built as cells (averaging as asked); in a 2D model the
 * file's layers across the invariant axis are the model's, or its first
 * layer copied (gprMax 4 broadcasts and reduces that axis). */
static scl_status place_geometry(const input *in, const command *c, scl_fdtd_model *m,
                                 const int lo[3], const int fn[3], const int *cells,
                                 const int *map, int nmap, int avg, char *err, size_t errlen)
{
    int n[3] = {m->grid.nx, m->grid.ny, m->grid.nz}, ext[3] = {fn[0], fn[1], fn[2]};
    int inv = m->mode2d ? m->mode2d - 1 : -1;
    if (inv >= 0)
        ext[inv] = n[inv];
    for (int a = 0; a < 3; a++)
        if (lo[a] + ext[a] > n[a]) {
            char why[200];
            snprintf(why, sizeof why, "the geometry's %d cells along %c from cell %d leave the domain (%d cells)",
                     ext[a], "xyz"[a], lo[a], n[a]);
            return fdtd_in_fail(in, c, err, errlen, why);
        }
    /* cell by cell in gprMax's order (x slowest), each its own object: a
     * shared edge goes to the later cell, as there */
    for (int i = 0; i < ext[0]; i++)
        for (int j = 0; j < ext[1]; j++)
            for (int k = 0; k < ext[2]; k++) {
                int f[3] = {i, j, k};
                if (inv >= 0 && fn[inv] != n[inv])
                    f[inv] = 0;
                int q = cells[f[0] + (long)fn[0] * (f[1] + (long)fn[1] * f[2])];
                if (q == -1)
                    continue;
                if (q < 0 || q >= nmap) {
                    char why[200];
                    snprintf(why, sizeof why, "index %d at cell (%d, %d, %d) of the file names none of its %d materials",
                             q, f[0], f[1], f[2], nmap);
                    return fdtd_in_fail(in, c, err, errlen, why);
                }
                int p0[3] = {lo[0] + i, lo[1] + j, lo[2] + k}, p1[3] = {p0[0] + 1, p0[1] + 1, p0[2] + 1};
                m->objects++;
                scl_fdtd_fill_box(m, p0, p1, map[q], avg);
            }
    return SCL_OK;
}

/* #geometry_objects_read: x y z GEOMETRY.h5 MATERIALS.txt [averaging]: the
 * older gprMax form (an HDF5 file of cell indices and a text file of
 * #material lines), at the cell of x y z; the file's cell size must round
 * to the model's (gprMax's test) and files with per-component arrays (/ID,
 * written by #geometry_objects_write) are refused. Built without averaging
 * unless 'y' (gprMax 4's optional flag). */
scl_status fdtd_in_parse_geometry_read(const input *in, const command *c, scl_fdtd_model *m,
                                       char *err, size_t errlen)
{
    double p[3], fd[3], d[3] = {m->grid.dx, m->grid.dy, m->grid.dz};
    int lo[3], fn[3], comps, *cells = NULL, map[GEO_MATERIALS], nmap = 0, avg = 0;
    char geo[1024], mat[1024], why[1200];
    scl_status s;
    if (fdtd_in_nparams(in, c, 5, 6, err, errlen) || fdtd_in_reals(in, c, 0, 3, p, err, errlen))
        return SCL_ERR_INPUT;
    if (c->ntok == 6 && (avg = fdtd_in_averaging_flag(in, c, 5, err, errlen)) < 0)
        return SCL_ERR_INPUT;
    for (int a = 0; a < 3; a++)
        if ((lo[a] = node_of(in, c, m, a, p[a], "corner", err, errlen)) < 0)
            return SCL_ERR_INPUT;
    fdtd_in_beside_input(in, c->tok[3], geo, sizeof geo);
    fdtd_in_beside_input(in, c->tok[4], mat, sizeof mat);
    if ((s = scl_fdtd_read_geometry(geo, fn, fd, &cells, &comps, why, sizeof why)) != SCL_OK) {
        fdtd_in_fail(in, c, err, errlen, why);
        return s;
    }
    for (int a = 0; a < 3 && s == SCL_OK; a++)
        if (scl_round_half_down(fd[a] / d[a]) != 1)
            s = fdtd_in_fail(in, c, err, errlen, "the geometry file's dx_dy_dz does not match the model's cells");
    if (s == SCL_OK && comps)
        s = fdtd_in_fail(in, c, err, errlen,
                 "geometry files with per-component arrays (/ID, /rigidE, /rigidH: written by "
                 "#geometry_objects_write) are not supported; /data alone is read");
    if (s == SCL_OK)
        s = geometry_materials(in, c, mat, m, map, &nmap, err, errlen);
    if (s == SCL_OK)
        s = place_geometry(in, c, m, lo, fn, cells, map, nmap, avg, err, errlen);
    free(cells);
    return s;
}
