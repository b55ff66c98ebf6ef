/* #geometry_view as gprMax 4 writes it: a VTKHDF file (VTK's HDF5 format,
 * version 2.2) of ImageData with one cell value per sampled cell, the
 * material number, and field data naming the materials. ParaView (5.10 on)
 * and VTK's vtkHDFReader open it. Written through a temporary file. */
#include "streamcl/fdtd.h"
#include "core/internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef STREAMCL_HAVE_HDF5
#include "fdtd/h5out.h"

/* gprMax's material numbers: pec 0, pmc 1 (which we do not have), free_space
 * 2, then the user's materials in the order of their definition. */
static uint32_t gprmax_id(int ours) { return ours == 0 ? 0u : (uint32_t)ours + 1u; }

/* The VTKHDF group of ImageData over cells [lo, lo + sz step) of spacing
 * step cells; returns the group (or < 0). */
static hid_t image_group(hid_t f, const scl_fdtd_model *m, const int lo[3], const int step[3],
                         const int sz[3])
{
    const scl_grid3d *g = &m->grid;
    double d[3] = {g->dx, g->dy, g->dz};
    hid_t root = H5Gcreate2(f, "VTKHDF", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (root < 0)
        return root;
    int64_t version[2] = {2, 2};
    int32_t extent[6] = {0, sz[0], 0, sz[1], 0, sz[2]};
    double origin[3], spacing[3];
    float direction[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int a = 0; a < 3; a++) {
        origin[a] = lo[a] * d[a];
        spacing[a] = step[a] * d[a];
    }
    int rc = 0;
    rc |= scl_fdtd_h5_attr(root, "Version", H5T_NATIVE_INT64, version, 2);
    rc |= scl_fdtd_h5_attr(root, "WholeExtent", H5T_NATIVE_INT32, extent, 6);
    rc |= scl_fdtd_h5_attr(root, "Origin", H5T_NATIVE_DOUBLE, origin, 3);
    rc |= scl_fdtd_h5_attr(root, "Spacing", H5T_NATIVE_DOUBLE, spacing, 3);
    rc |= scl_fdtd_h5_attr(root, "Direction", H5T_NATIVE_FLOAT, direction, 9);
    rc |= scl_fdtd_h5_attr_string(root, "Type", "ImageData", 1);
    if (rc) {
        H5Gclose(root);
        return -1;
    }
    return root;
}

static int write_view(hid_t f, const scl_fdtd_model *m, const scl_fdtd_geometry_view *v)
{
    const scl_grid3d *g = &m->grid;
    double d[3] = {g->dx, g->dy, g->dz};
    int sz[3];
    for (int a = 0; a < 3; a++)
        sz[a] = (v->hi[a] - v->lo[a] + v->step[a] - 1) / v->step[a];
    size_t cells = (size_t)sz[0] * sz[1] * sz[2];
    uint32_t *mat = malloc((cells ? cells : 1) * sizeof *mat);
    const char **names = malloc((size_t)(m->nmat + 1) * sizeof *names);
    if (!mat || !names) {
        free(mat);
        free(names);
        return -1;
    }
    size_t o = 0;
    for (int k = 0; k < sz[2]; k++)
        for (int j = 0; j < sz[1]; j++)
            for (int i = 0; i < sz[0]; i++) {
                size_t c = (size_t)(v->lo[0] + i * v->step[0]) +
                           (size_t)g->nx * ((size_t)(v->lo[1] + j * v->step[1]) +
                                            (size_t)g->ny * (size_t)(v->lo[2] + k * v->step[2]));
                mat[o++] = gprmax_id(m->solid[c]);
            }
    /* the names in gprMax's numbering; materials the averaging added are
     * never a cell's, and are left out after the user's */
    int nn = 0;
    names[nn++] = "pec";
    names[nn++] = "pmc";
    for (int q = 1; q < m->nmat && strncmp(m->mat[q].name, "averaged-", 9) != 0 &&
                    strncmp(m->mat[q].name, "voltage-source-", 15) != 0 &&
                    strcmp(m->mat[q].name, "te-frozen") != 0;
         q++)
        names[nn++] = m->mat[q].name;
    int rc = 0;
    hid_t root = image_group(f, m, v->lo, v->step, sz);
    if (root < 0) {
        free(mat);
        free(names);
        return -1;
    }
    hid_t cd = H5Gcreate2(root, "CellData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t fd = H5Gcreate2(root, "FieldData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (cd < 0 || fd < 0)
        rc = -1;
    if (!rc) {
        hsize_t dims[3] = {(hsize_t)sz[2], (hsize_t)sz[1], (hsize_t)sz[0]};
        rc |= scl_fdtd_h5_dataset(cd, "Material", H5T_NATIVE_UINT32, 3, dims, mat);
        hsize_t three = 3, six = 6;
        int64_t nxyz[3] = {g->nx, g->ny, g->nz}, pml[6];
        for (int q = 0; q < 6; q++)
            pml[q] = m->pml[q];
        rc |= scl_fdtd_h5_dataset(fd, "dx_dy_dz", H5T_NATIVE_DOUBLE, 1, &three, d);
        rc |= scl_fdtd_h5_dataset(fd, "nx_ny_nz", H5T_NATIVE_INT64, 1, &three, nxyz);
        rc |= scl_fdtd_h5_dataset(fd, "pml_thickness", H5T_NATIVE_INT64, 1, &six, pml);
        rc |= scl_fdtd_h5_strings(fd, "material_ids", names, (hsize_t)nn);
        const char *version_s = "streamcl-fdtd " STREAMCL_VERSION;
        hsize_t one = 1;
        rc |= scl_fdtd_h5_strings(fd, "gprMax_version", &version_s, one);
        /* positions of sources and receivers (metres), as gprMax lists them */
        for (int t = 0; t < 2 && !rc; t++) {
            int n = t ? m->nrx : m->nsrc;
            if (n == 0)
                continue;
            double *p = malloc((size_t)n * 3 * sizeof *p);
            if (!p) {
                rc = -1;
                break;
            }
            for (int q = 0; q < n; q++)
                for (int a = 0; a < 3; a++)
                    p[3 * q + a] = (t ? m->rx_ijk[q][a] : m->src[q].ijk[a]) * d[a];
            hsize_t dims2[2] = {(hsize_t)n, 3};
            rc |= scl_fdtd_h5_dataset(fd, t ? "receivers" : "sources", H5T_NATIVE_DOUBLE, 2, dims2, p);
            free(p);
        }
    }
    if (cd >= 0)
        H5Gclose(cd);
    if (fd >= 0)
        H5Gclose(fd);
    H5Gclose(root);
    free(mat);
    free(names);
    return rc;
}

/* Component c at point p (in cell units) from its staggered samples:
 * E along a at (i + 1/2 along a, j, k), H along a at (i along a, + 1/2 across). */
static double at_point(const scl_fdtd_model *m, const double *f, int c, const double p[3])
{
    const scl_grid3d *g = &m->grid;
    int n[3] = {g->nx, g->ny, g->nz}, lo[3];
    double w[3];
    for (int a = 0; a < 3; a++) {
        double half = c < 3 ? (a == c ? 0.5 : 0) : (a == c - 3 ? 0 : 0.5);
        double x = p[a] - half;
        int i = (int)floor(x);
        double t = x - i;
        if (i < 0)
            i = 0, t = 0;
        if (i >= n[a])
            i = n[a], t = 0;
        lo[a] = i;
        w[a] = t;
    }
    double v = 0;
    for (int q = 0; q < 8; q++) {
        int d[3] = {q & 1, (q >> 1) & 1, (q >> 2) & 1};
        double wt = 1;
        for (int a = 0; a < 3; a++)
            wt *= d[a] ? w[a] : 1 - w[a];
        if (wt != 0)
            v += wt * f[scl_grid3d_index(g, lo[0] + d[0], lo[1] + d[1], lo[2] + d[2])];
    }
    return v;
}

static int write_snap(hid_t f, const scl_fdtd_model *m, const scl_fdtd_snapshot *s,
                      const double *const fields[6])
{
    static const char *names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
    int sz[3];
    for (int a = 0; a < 3; a++)
        sz[a] = (s->hi[a] - s->lo[a] + s->step[a] - 1) / s->step[a];
    size_t cells = (size_t)sz[0] * sz[1] * sz[2];
    float *buf = malloc((cells ? cells : 1) * sizeof *buf);
    hid_t root = buf ? image_group(f, m, s->lo, s->step, sz) : -1;
    hid_t cd = root >= 0 ? H5Gcreate2(root, "CellData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    int rc = cd < 0 ? -1 : 0;
    for (int c = 0; c < 6 && !rc; c++) {
        size_t o = 0;
        for (int k = 0; k < sz[2]; k++)
            for (int j = 0; j < sz[1]; j++)
                for (int i = 0; i < sz[0]; i++) {
                    /* the centre of the output cell */
                    double p[3] = {s->lo[0] + (i + 0.5) * s->step[0], s->lo[1] + (j + 0.5) * s->step[1],
                                   s->lo[2] + (k + 0.5) * s->step[2]};
                    buf[o++] = (float)at_point(m, fields[c], c, p);
                }
        hsize_t dims[3] = {(hsize_t)sz[2], (hsize_t)sz[1], (hsize_t)sz[0]};
        rc |= scl_fdtd_h5_dataset(cd, names[c], H5T_NATIVE_FLOAT, 3, dims, buf);
    }
    if (cd >= 0)
        H5Gclose(cd);
    if (root >= 0)
        H5Gclose(root);
    free(buf);
    return rc;
}

typedef struct {
    const scl_fdtd_model *m;
    int v;
    const double *const *fields; /* snapshots only */
} view_file;

static int write_snap_file(hid_t f, const void *user)
{
    const view_file *w = user;
    return write_snap(f, w->m, &w->m->snap[w->v], w->fields);
}

static int write_view_file(hid_t f, const void *user)
{
    const view_file *w = user;
    return write_view(f, w->m, &w->m->gview[w->v]);
}

scl_status scl_fdtd_write_snapshot(const char *path, const scl_fdtd_model *m, int v,
                                   const double *const fields[6], char *err, size_t errlen)
{
    if (!m || v < 0 || v >= m->nsnap || !fields) {
        scl_format_error(err, errlen, "%s: no snapshot %d", path ? path : "(null)", v);
        return SCL_ERR_ARGUMENT;
    }
    view_file w = {.m = m, .v = v, .fields = fields};
    return scl_fdtd_h5_write(path, write_snap_file, &w, "the snapshot", err, errlen);
}

scl_status scl_fdtd_write_geometry_view(const char *path, const scl_fdtd_model *m, int v,
                                        char *err, size_t errlen)
{
    if (!m || v < 0 || v >= m->ngview) {
        scl_format_error(err, errlen, "%s: no geometry view %d", path ? path : "(null)", v);
        return SCL_ERR_ARGUMENT;
    }
    view_file w = {.m = m, .v = v, .fields = NULL};
    return scl_fdtd_h5_write(path, write_view_file, &w, "the geometry view", err, errlen);
}
#else
scl_status scl_fdtd_write_snapshot(const char *path, const scl_fdtd_model *m, int v,
                                   const double *const fields[6], char *err, size_t errlen)
{
    (void)m;
    (void)v;
    (void)fields;
    scl_format_error(err, errlen, "%s: built without HDF5 (apt-get install libhdf5-dev)", path);
    return SCL_ERR_UNSUPPORTED;
}

scl_status scl_fdtd_write_geometry_view(const char *path, const scl_fdtd_model *m, int v,
                                        char *err, size_t errlen)
{
    (void)m;
    (void)v;
    scl_format_error(err, errlen, "%s: built without HDF5 (apt-get install libhdf5-dev)", path);
    return SCL_ERR_UNSUPPORTED;
}
#endif
