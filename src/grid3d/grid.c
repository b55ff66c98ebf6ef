/* Grid dimensions, padded indexing, sub-domains, node location, slices. */
#include "streamcl/grid3d.h"
#include "core/fail.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static long round_up(long v, long m) { return (v + m - 1) / m * m; }

static scl_status set_storage(scl_grid3d *g, int align, char *err, size_t errlen)
{
    long h2 = 2L * g->halo;
    g->px = round_up(g->nx + 1 + h2, align);
    g->py = g->ny + 1 + h2;
    g->pz = g->nz + 1 + h2;
    double points = (double)g->px * (double)g->py * (double)g->pz;
    if (points > (double)INT_MAX) {
        scl_format_error(err, errlen,
                         "grid %dx%dx%d cells (+%d halo): %.0f points exceed the 32-bit "
                         "index of the kernels (%d); split the domain",
                         g->nx, g->ny, g->nz, g->halo, points, INT_MAX);
        return SCL_ERR_TOO_LARGE;
    }
    return SCL_OK;
}

scl_status scl_grid3d_init(scl_grid3d *g, int nx, int ny, int nz, double dx, double dy,
                           double dz, int halo, int align, char *err, size_t errlen)
{
    if (!g) {
        scl_format_error(err, errlen, "scl_grid3d_init: NULL grid");
        return SCL_ERR_ARGUMENT;
    }
    memset(g, 0, sizeof *g);
    if (nx < 1 || ny < 1 || nz < 1) {
        scl_format_error(err, errlen, "grid of %d x %d x %d cells: every axis needs >= 1 cell",
                         nx, ny, nz);
        return SCL_ERR_INPUT;
    }
    if (!(dx > 0 && dy > 0 && dz > 0) || !isfinite(dx) || !isfinite(dy) || !isfinite(dz)) {
        scl_format_error(err, errlen, "cell size %g x %g x %g m: spacings must be positive and finite",
                         dx, dy, dz);
        return SCL_ERR_INPUT;
    }
    if (halo < 0 || halo > 16 || align < 1 || align > 1024) {
        scl_format_error(err, errlen, "halo %d / align %d out of range ([0,16] / [1,1024])",
                         halo, align);
        return SCL_ERR_INPUT;
    }
    g->nx = g->gnx = nx;
    g->ny = g->gny = ny;
    g->nz = g->gnz = nz;
    g->dx = dx;
    g->dy = dy;
    g->dz = dz;
    g->halo = halo;
    return set_storage(g, align, err, errlen);
}

/* Cells [start, start+count) of part c of an axis of n cells in p parts. */
static void split_axis(int n, int p, int c, int *start, int *count)
{
    int base = n / p, extra = n % p;
    *count = base + (c < extra);
    *start = c * base + (c < extra ? c : extra);
}

scl_status scl_grid3d_subdomain(const scl_grid3d *global, const int parts[3],
                                const int coords[3], int halo, int align, scl_grid3d *sub,
                                char *err, size_t errlen)
{
    int n[3] = {global->nx, global->ny, global->nz};
    int start[3], count[3];
    for (int a = 0; a < 3; a++) {
        if (parts[a] < 1 || parts[a] > n[a] || coords[a] < 0 || coords[a] >= parts[a]) {
            scl_format_error(err, errlen,
                             "sub-domain %d of %d along axis %c of %d cells: out of range",
                             coords[a], parts[a], "xyz"[a], n[a]);
            return SCL_ERR_INPUT;
        }
        split_axis(n[a], parts[a], coords[a], &start[a], &count[a]);
    }
    scl_status s = scl_grid3d_init(sub, count[0], count[1], count[2], global->dx, global->dy,
                                   global->dz, halo, align, err, errlen);
    if (s != SCL_OK)
        return s;
    sub->ox = global->ox + start[0];
    sub->oy = global->oy + start[1];
    sub->oz = global->oz + start[2];
    sub->gnx = global->gnx;
    sub->gny = global->gny;
    sub->gnz = global->gnz;
    return SCL_OK;
}

long scl_round_half_down(double v)
{
    /* saturate beyond long's range (a 1e50 m domain): the callers' size checks refuse it */
    if (!(fabs(v) < 9.0e18))
        return v > 0 ? LONG_MAX : LONG_MIN;
    double f = floor(v);
    return (long)(v - f > 0.5 ? f + 1 : f);
}

scl_status scl_grid3d_locate(const scl_grid3d *g, const char *what, double x, double y,
                             double z, int ijk[3], char *err, size_t errlen)
{
    double p[3] = {x, y, z}, d[3] = {g->dx, g->dy, g->dz};
    int o[3] = {g->ox, g->oy, g->oz}, n[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3; a++) {
        double q = p[a] / d[a];
        if (!isfinite(q) || fabs(q) > 1e9) {
            scl_format_error(err, errlen, "%s: coordinate %c = %g is not a usable number",
                             what, "xyz"[a], p[a]);
            return SCL_ERR_INPUT;
        }
        long i = scl_round_half_down(q) - o[a];
        if (i < 0 || i > n[a]) {
            scl_format_error(err, errlen,
                             "%s: %c = %g m is outside the domain [%g, %g] m", what, "xyz"[a],
                             p[a], o[a] * d[a], (o[a] + n[a]) * d[a]);
            return SCL_ERR_INPUT;
        }
        ijk[a] = (int)i;
    }
    return SCL_OK;
}

/* The two in-plane axes of a slice normal to axis, and their extents. */
static int slice_shape(const scl_grid3d *g, int axis, int index, int *w, int *h)
{
    int n[3] = {g->nx, g->ny, g->nz};
    if (axis < 0 || axis > 2 || index < 0 || index > n[axis])
        return -1;
    int a = axis == 0 ? 1 : 0, b = axis == 2 ? 1 : 2;
    *w = n[a] + 1;
    *h = n[b] + 1;
    return 0;
}

#define SLICE_BODY                                                                         \
    int ww, hh;                                                                            \
    if (slice_shape(g, axis, index, &ww, &hh) != 0)                                        \
        return -1;                                                                         \
    for (int v = 0; v < hh; v++)                                                           \
        for (int u = 0; u < ww; u++) {                                                     \
            int ijk[3];                                                                    \
            ijk[axis] = index;                                                             \
            ijk[axis == 0 ? 1 : 0] = u;                                                    \
            ijk[axis == 2 ? 1 : 2] = v;                                                    \
            out[(long)v * ww + u] = (float)field[scl_grid3d_index(g, ijk[0], ijk[1], ijk[2])]; \
        }                                                                                  \
    if (w)                                                                                 \
        *w = ww;                                                                           \
    if (h)                                                                                 \
        *h = hh;                                                                           \
    return (long)ww * hh;

long scl_grid3d_slice_float(const scl_grid3d *g, const float *field, int axis, int index,
                            float *out, int *w, int *h)
{
    SLICE_BODY
}

long scl_grid3d_slice_double(const scl_grid3d *g, const double *field, int axis, int index,
                             float *out, int *w, int *h)
{
    SLICE_BODY
}
