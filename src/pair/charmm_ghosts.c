/* Ghost rows from the owned rows on the device (scl_charmm_set_ghost_sources):
 * the images of each ghost derived on the host at set_atoms time and checked
 * against the caller's ghost rows with the kernel's arithmetic; then, each
 * step, only the owned rows (and q where it changed) go up and
 * src/pair/list/charmm_ghosts.cl fills the rest. */
#include "pair/charmm_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Most images per dimension derived (LAMMPS on one rank: 1, more only where
 * the cutoff exceeds the box). */
#define GHOST_MAX_IMAGE 8
/* How close (relative to the longest box length) a ghost row of the atom set
 * must be to its source row shifted by the derived images. */
#define GHOST_TOLERANCE 1e-12

void charmm_ghosts_forget(charmm_ghosts *g)
{
    g->on = 0;
    g->full_done = 0;
}

void charmm_ghosts_free(charmm_ghosts *g)
{
    scl_stream_free(g->img);
    scl_kernel_free(g->gather);
    free(g->img_host);
    free(g->q_host);
    memset(g, 0, sizeof *g);
}

static int box_ok(const scl_charmm_box *b)
{
    int ok = b != NULL;
    for (int d = 0; ok && d < 3; d++)
        ok = isfinite(b->prd[d]) && b->prd[d] > 0.0;
    return ok && isfinite(b->xy) && isfinite(b->xz) && isfinite(b->yz);
}

/* The kernel's arithmetic on the host: the source row plus the images'
 * shifts, one addition per swap in LAMMPS's order (x, then y, then z). */
static void image_of(const double *s, const int m[3], const scl_charmm_box *b, double out[3])
{
    double a = s[0], c1 = s[1], c2 = s[2];
    const double dx = m[0] < 0 ? -b->prd[0] : b->prd[0];
    for (int k = 0; k < abs(m[0]); k++)
        a += dx;
    const double dy = m[1] < 0 ? -b->prd[1] : b->prd[1], txy = m[1] < 0 ? -b->xy : b->xy;
    for (int k = 0; k < abs(m[1]); k++) {
        if (b->triclinic)
            a += txy;
        c1 += dy;
    }
    const double dz = m[2] < 0 ? -b->prd[2] : b->prd[2], txz = m[2] < 0 ? -b->xz : b->xz,
                 tyz = m[2] < 0 ? -b->yz : b->yz;
    for (int k = 0; k < abs(m[2]); k++) {
        if (b->triclinic) {
            a += txz;
            c1 += tyz;
        }
        c2 += dz;
    }
    out[0] = a, out[1] = c1, out[2] = c2;
}

/* Images of ghost row xg from source row xs (z first: the tilts of a
 * triclinic box shift x and y by the z and y images). 0 when out of range. */
static int derive_images(const double *xg, const double *xs, const scl_charmm_box *b, int m[3])
{
    const double t = b->triclinic ? 1.0 : 0.0;
    double iz = nearbyint((xg[2] - xs[2]) / b->prd[2]);
    double iy = nearbyint((xg[1] - xs[1] - t * iz * b->yz) / b->prd[1]);
    double ix = nearbyint((xg[0] - xs[0] - t * (iy * b->xy + iz * b->xz)) / b->prd[0]);
    const double im[3] = {ix, iy, iz};
    for (int d = 0; d < 3; d++) {
        if (!(fabs(im[d]) <= GHOST_MAX_IMAGE))
            return 0;
        m[d] = (int)im[d];
    }
    return 1;
}

/* Images of every ghost, each checked to give the caller's row (to rounding). */
static int build_images(scl_charmm *eng, const double *x, const int *src,
                        const scl_charmm_box *b)
{
    const int nlocal = eng->nlist.nlocal, nghost = eng->nlist.natoms - nlocal;
    int *img = eng->ghosts.img_host;
    /* rounding only: LAMMPS's borders of a triclinic box go through lamda
     * coordinates, its forward_comm (the gather's rule) does not */
    const double tol = GHOST_TOLERANCE * fmax(b->prd[0], fmax(b->prd[1], b->prd[2]));
    for (int g = 0; g < nghost; g++) {
        const int s = src[g];
        if (s < 0 || s >= nlocal)
            return 0;
        const double *xg = x + 3 * ((size_t)nlocal + (size_t)g), *xs = x + 3 * (size_t)s;
        int m[3];
        double r[3];
        if (!derive_images(xg, xs, b, m))
            return 0;
        image_of(xs, m, b, r);
        for (int d = 0; d < 3; d++)
            if (!(fabs(r[d] - xg[d]) <= tol))
                return 0;
        img[4 * g] = s, img[4 * g + 1] = m[0], img[4 * g + 2] = m[1], img[4 * g + 3] = m[2];
    }
    return 1;
}

scl_status scl_charmm_set_ghost_sources(scl_charmm *eng, const double *x, const int *src,
                                        const scl_charmm_box *box, int *usable)
{
    static const char *fn = "scl_charmm_set_ghost_sources";
    if (!eng)
        return SCL_ERR_ARGUMENT;
    charmm_ghosts *g = &eng->ghosts;
    g->on = 0;
    if (usable)
        *usable = 0;
    const int nghost = eng->nlist.natoms - eng->nlist.nlocal;
    if (!usable || (nghost > 0 && (!x || !src)) || !box_ok(box))
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, fn,
                        "x, src and usable must not be NULL, box lengths finite and > 0");
    if (!eng->dev_pack || !eng->nlist.have_atoms || eng->pending)
        return scl_fail(eng->ctx, eng->dev_pack ? SCL_ERR_ARGUMENT : SCL_ERR_UNSUPPORTED, fn,
                        eng->dev_pack ? "no atom set, or a step is in flight"
                                      : "the engine packs positions on the host (no fp64, or "
                                        "host_pack): there are no device positions to fill");
    size_t need = 4 * (size_t)(nghost > 0 ? nghost : 1);
    if (g->img_cap < need) {
        int *n = realloc(g->img_host, need * sizeof *n);
        if (!n)
            return scl_fail(eng->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
        g->img_host = n, g->img_cap = need;
    }
    if (!build_images(eng, x, src, box))
        return SCL_OK; /* some ghost is not an exact image: every row goes up */
    scl_status s = SCL_OK;
    if (!g->gather)
        s = scl_kernel_create(eng->ctx, "charmm_ghosts", "charmm_ghost_gather", NULL, &g->gather);
    if (s == SCL_OK)
        scl_kernel_set_label(g->gather, "charmm ghost gather");
    if (s == SCL_OK)
        s = charmm_stream_reserve(eng->ctx, &g->img, "charmm ghost images", SCL_INT4,
                                  need / 4, 0);
    if (s == SCL_OK && nghost > 0)
        s = scl_stream_write_range(g->img, 0, (size_t)nghost, g->img_host, 0, NULL);
    if (s != SCL_OK)
        return s;
    g->on = 1;
    *usable = 1;
    return SCL_OK;
}

scl_status scl_charmm_set_ghost_box(scl_charmm *eng, const scl_charmm_box *box)
{
    if (!eng)
        return SCL_ERR_ARGUMENT;
    if (!box_ok(box))
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, "scl_charmm_set_ghost_box",
                        "box lengths must be finite and > 0, tilts finite");
    eng->ghosts.box = *box;
    eng->ghosts.box_fresh = 1;
    return SCL_OK;
}

long scl_charmm_ghost_steps(const scl_charmm *eng) { return eng ? eng->ghosts.steps : 0; }

scl_status scl_charmm_set_position_source(scl_charmm *eng, const scl_stream *x)
{
    if (!eng)
        return SCL_ERR_ARGUMENT;
    if (x && scl_stream_type(x) != SCL_DOUBLE)
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, "scl_charmm_set_position_source",
                        "the positions must be a stream of doubles (3 a row)");
    eng->ghosts.source = x;
    return SCL_OK;
}

/* the owned rows into the device x: from the position source, or up */
static scl_status owned_rows(scl_charmm *eng, const double *xs, size_t nloc)
{
    const scl_stream *src = eng->ghosts.source;
    if (nloc == 0)
        return SCL_OK;
    if (!src)
        return scl_stream_write_range(eng->xq_dev, 0, 3 * nloc, xs, 0, &eng->ev_upload[0]);
    if (scl_stream_count(src) < 3 * nloc)
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, "scl_charmm_compute",
                        "the position source holds %zu values, fewer than 3 * %zu owned atoms",
                        scl_stream_count(src), nloc);
    return scl_stream_copy(eng->xq_dev, 0, src, 0, 3 * nloc, &eng->ev_upload[0]);
}

int charmm_ghosts_active(const scl_charmm *eng)
{
    const charmm_ghosts *g = &eng->ghosts;
    return g->on && g->full_done && g->box_fresh && eng->xq_dev != NULL;
}

/* q as last uploaded, to compare the next steps' with. */
scl_status charmm_ghosts_uploaded_all(scl_charmm *eng, const double *q)
{
    charmm_ghosts *g = &eng->ghosts;
    g->box_fresh = 0;
    if (!g->on)
        return SCL_OK;
    const size_t n = (size_t)eng->nlist.natoms;
    if (g->q_cap < n + 1) {
        double *nq = realloc(g->q_host, (n + 1) * sizeof *nq);
        if (!nq)
            return scl_fail(eng->ctx, SCL_ERR_MEMORY, "scl_charmm_compute", "out of host memory");
        g->q_host = nq, g->q_cap = n + 1;
    }
    memcpy(g->q_host, q, n * sizeof *q);
    g->full_done = 1;
    return SCL_OK;
}

/* The owned rows of x up (from the caller's memory where it keeps them
 * unchanged, else through the staging), q where it changed, then the
 * gather kernel. */
scl_status charmm_ghosts_upload(scl_charmm *eng, const double *x, const double *q)
{
    charmm_ghosts *g = &eng->ghosts;
    const size_t n = (size_t)eng->nlist.natoms, nloc = (size_t)eng->nlist.nlocal;
    const int q_changed = n > 0 && memcmp(g->q_host, q, n * sizeof *q) != 0;
    const double *xs = x, *qs = q;
    scl_status s = SCL_OK;
    g->box_fresh = 0;
    if (!eng->direct_inputs && !g->source) {
        void *xq;
        s = charmm_stage_reserve(eng->ctx, &eng->stage[STAGE_XQ], 4 * n * sizeof(double) + 8, &xq);
        if (s != SCL_OK)
            return s;
        xs = xq, qs = (const double *)xq + 3 * n;
        const charmm_copy c[2] = {{xq, x, 3 * nloc * sizeof(double)},
                                  {(double *)xq + 3 * n, q, q_changed ? n * sizeof(double) : 0}};
        charmm_copy_parallel(c, 2, eng->host_threads);
    }
    if (g->source && q_changed && !eng->direct_inputs) { /* q only through the staging */
        void *xq;
        s = charmm_stage_reserve(eng->ctx, &eng->stage[STAGE_XQ], 4 * n * sizeof(double) + 8, &xq);
        if (s != SCL_OK)
            return s;
        qs = (const double *)xq + 3 * n;
        memcpy((double *)xq + 3 * n, q, n * sizeof *q);
    }
    s = owned_rows(eng, xs, nloc);
    if (s == SCL_OK && q_changed) {
        s = scl_stream_write_range(eng->xq_dev, 3 * n, n, qs, 0, &eng->ev_upload[1]);
        memcpy(g->q_host, q, n * sizeof *q);
    }
    const int nghost = (int)(n - nloc);
    const scl_charmm_box *b = &g->box;
    const scl_arg_stream streams[] = {{"x", eng->xq_dev}, {"img", g->img}};
    const scl_arg_int ints[] = {{"nlocal", (int)nloc}, {"nghost", nghost},
                                {"triclinic", b->triclinic != 0}};
    const scl_arg_real reals[] = {{"xprd", b->prd[0]}, {"yprd", b->prd[1]}, {"zprd", b->prd[2]},
                                  {"xy", b->xy},       {"xz", b->xz},       {"yz", b->yz}};
    if (s == SCL_OK && nghost > 0)
        s = scl_kernel_bind(g->gather, streams, 2, ints, 3);
    if (s == SCL_OK && nghost > 0)
        s = scl_kernel_bind_reals(g->gather, reals, 6);
    size_t local = 64, global = ((size_t)nghost + local - 1) / local * local;
    if (s == SCL_OK && nghost > 0)
        s = scl_kernel_launch(g->gather, 1, &global, &local, NULL);
    if (s == SCL_OK)
        g->steps++;
    return s;
}
