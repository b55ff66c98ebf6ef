/* Ghost rows gathered on the device (scl_charmm_set_ghost_sources): over
 * steps whose box and owned positions change (a barostat's), the device's
 * ghost rows equal the caller's, computed as LAMMPS's forward_comm does
 * (source row plus one box length or tilt per swap), bit for bit, in an
 * orthogonal and a triclinic box; the forces equal those of an engine that
 * uploads every row, bit for bit, also after q changes; a ghost that is not
 * an image (1e-6 A off) leaves the gather off. */
#include "charmm_test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LAMMPS's swaps: x, then y (x += xy when triclinic), then z (x += xz,
 * y += yz), one addition each. */
static void shifted(const double *s, const int m[3], const scl_charmm_box *b, double *out)
{
    double a = s[0], c = s[1], e = s[2];
    for (int k = 0; k < abs(m[0]); k++)
        a += m[0] < 0 ? -b->prd[0] : b->prd[0];
    for (int k = 0; k < abs(m[1]); k++) {
        if (b->triclinic)
            a += m[1] < 0 ? -b->xy : b->xy;
        c += m[1] < 0 ? -b->prd[1] : b->prd[1];
    }
    for (int k = 0; k < abs(m[2]); k++) {
        if (b->triclinic) {
            a += m[2] < 0 ? -b->xz : b->xz;
            c += m[2] < 0 ? -b->yz : b->yz;
        }
        e += m[2] < 0 ? -b->prd[2] : b->prd[2];
    }
    out[0] = a, out[1] = c, out[2] = e;
}

typedef struct {
    int nlocal, nghost;
    int *src, *img; /* per ghost: owned source, images x y z */
} ghost_map;

/* Sources by tag and images from the orthogonal box the ghosts were made in. */
static void map_ghosts(const test_atoms *a, const scl_charmm_box *b, ghost_map *g)
{
    g->nlocal = a->nlocal, g->nghost = a->nghost;
    g->src = malloc((size_t)a->nghost * sizeof *g->src);
    g->img = malloc(3 * (size_t)a->nghost * sizeof *g->img);
    for (int k = 0; k < a->nghost; k++) {
        const int i = a->nlocal + k;
        int s = -1;
        for (int j = 0; j < a->nlocal && s < 0; j++)
            if (a->tag[j] == a->tag[i])
                s = j;
        g->src[k] = s;
        for (int d = 0; d < 3; d++)
            g->img[3 * k + d] = (int)lround((a->x[3 * i + d] - a->x[3 * s + d]) / b->prd[d]);
    }
}

/* x of the step: owned rows scaled about lo by s (and jittered), ghosts by
 * the swaps in box b. */
static void step_positions(const test_atoms *a, const ghost_map *g, const scl_charmm_box *b,
                           double s, uint64_t *rng, double *x)
{
    for (int i = 0; i < a->nlocal; i++)
        for (int d = 0; d < 3; d++)
            x[3 * i + d] = a->sys.lo[d] + (a->x[3 * i + d] - a->sys.lo[d]) * s +
                           0.01 * (test_uniform(rng) - 0.5);
    for (int k = 0; k < g->nghost; k++)
        shifted(x + 3 * (size_t)g->src[k], g->img + 3 * k, b,
                x + 3 * ((size_t)g->nlocal + (size_t)k));
}

static void run_steps(scl_context *ctx, const test_atoms *a, const ghost_map *g, int triclinic,
                      uint64_t *rng)
{
    scl_charmm_params p = test_params(&a->sys, SCL_PREC_MIXED);
    /* es: gathered, its owned rows from a device stream (the position source) */
    scl_charmm *eg = NULL, *eu = NULL, *es = NULL;
    CHECK_OK(ctx, scl_charmm_create(ctx, &p, &eg));
    CHECK_OK(ctx, scl_charmm_create(ctx, &p, &eu));
    CHECK_OK(ctx, scl_charmm_create(ctx, &p, &es));
    if (!eg || !eu || !es)
        return;
    const int n = a->nlocal + a->nghost;
    double *x = malloc(3 * (size_t)n * sizeof *x), *q = malloc((size_t)n * sizeof *q);
    double *fg = calloc(3 * (size_t)a->nlocal, sizeof *fg), *fu = calloc(3 * (size_t)a->nlocal, sizeof *fu);
    double *rows = malloc(3 * (size_t)(a->nghost + 1) * sizeof *rows);
    double *fs = calloc(3 * (size_t)a->nlocal, sizeof *fs), *xoff = malloc(3 * (size_t)n * sizeof *xoff);
    scl_stream *xsrc = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "test.xsrc", SCL_DOUBLE, 3 * (size_t)a->nlocal, 1, 1, 0, &xsrc));
    CHECK_OK(ctx, scl_charmm_set_position_source(es, xsrc));
    memcpy(q, a->q, (size_t)n * sizeof *q);
    scl_charmm_box b = {{0}, 0, 0, 0, triclinic};
    for (int d = 0; d < 3; d++)
        b.prd[d] = a->sys.hi[d] - a->sys.lo[d];
    if (triclinic)
        b.xy = 1.5, b.xz = -0.7, b.yz = 0.9;
    step_positions(a, g, &b, 1.0, rng, x);
    CHECK_OK(ctx, scl_charmm_set_atoms(eg, a->nlocal, a->nghost, x, a->type, a->tag, a->sys.nspecial,
                                       a->sys.special, a->sys.maxspecial));
    CHECK_OK(ctx, scl_charmm_set_atoms(eu, a->nlocal, a->nghost, x, a->type, a->tag, a->sys.nspecial,
                                       a->sys.special, a->sys.maxspecial));
    CHECK_OK(ctx, scl_charmm_set_atoms(es, a->nlocal, a->nghost, x, a->type, a->tag, a->sys.nspecial,
                                       a->sys.special, a->sys.maxspecial));
    int usable = -1, usable_s = -1;
    CHECK_OK(ctx, scl_charmm_set_ghost_sources(es, x, g->src, &b, &usable_s));
    CHECK(usable_s == 1, "triclinic %d: the source engine's gather is off", triclinic);
    CHECK_OK(ctx, scl_charmm_set_ghost_sources(eg, x, g->src, &b, &usable));
    CHECK(usable == 1, "triclinic %d: the ghosts are exact images, yet usable %d", triclinic, usable);
    const long before = scl_charmm_ghost_steps(eg);
    for (int step = 0; step < 4; step++) {
        const double s = 1.0 + 0.002 * step; /* the barostat's box */
        scl_charmm_box bs = b;
        for (int d = 0; d < 3; d++)
            bs.prd[d] = b.prd[d] * s;
        bs.xy = b.xy * s, bs.xz = b.xz * s, bs.yz = b.yz * s;
        if (step > 0)
            step_positions(a, g, &bs, s, rng, x);
        if (step == 2) /* a charge changes: it goes up again */
            for (int i = 0; i < n; i++)
                if (a->tag[i] == a->tag[0])
                    q[i] = -q[i];
        CHECK_OK(ctx, scl_charmm_set_ghost_box(eg, &bs));
        CHECK_OK(ctx, scl_charmm_set_ghost_box(es, &bs));
        /* es's caller x: owned rows far off (after the first step they must not be read) */
        memcpy(xoff, x, 3 * (size_t)n * sizeof *x);
        for (size_t k = 0; step > 0 && k < 3 * (size_t)a->nlocal; k++)
            xoff[k] += 1000.0;
        CHECK_OK(ctx, scl_stream_write_range(xsrc, 0, 3 * (size_t)a->nlocal, x, 1, NULL));
        memset(fs, 0, 3 * (size_t)a->nlocal * sizeof *fs);
        CHECK_OK(ctx, scl_charmm_compute(es, xoff, q, 1, 1, 0, 0));
        scl_charmm_result rs;
        CHECK_OK(ctx, scl_charmm_finish(es, fs, &rs, NULL, NULL));
        memset(fg, 0, 3 * (size_t)a->nlocal * sizeof *fg);
        memset(fu, 0, 3 * (size_t)a->nlocal * sizeof *fu);
        CHECK_OK(ctx, scl_charmm_compute(eg, x, q, 1, 1, 0, 0));
        CHECK_OK(ctx, scl_charmm_compute(eu, x, q, 1, 1, 0, 0));
        scl_charmm_result rg, ru;
        CHECK_OK(ctx, scl_charmm_finish(eg, fg, &rg, NULL, NULL));
        CHECK_OK(ctx, scl_charmm_finish(eu, fu, &ru, NULL, NULL));
        CHECK_OK(ctx, scl_charmm_read_positions(eg, a->nlocal, a->nghost, rows));
        long differ = 0;
        for (size_t k = 0; k < 3 * (size_t)a->nghost; k++)
            differ += !(rows[k] == x[3 * (size_t)a->nlocal + k]);
        CHECK(differ == 0, "triclinic %d step %d: %ld ghost coordinates differ from the swaps'",
              triclinic, step, differ);
        CHECK(!memcmp(fg, fu, 3 * (size_t)a->nlocal * sizeof *fg) && rg.ecoul == ru.ecoul &&
                  rg.evdwl == ru.evdwl,
              "triclinic %d step %d: forces or energies differ from the uploading engine's",
              triclinic, step);
        CHECK(!memcmp(fs, fu, 3 * (size_t)a->nlocal * sizeof *fs) && rs.ecoul == ru.ecoul &&
                  rs.evdwl == ru.evdwl,
              "triclinic %d step %d: with the owned rows from a device stream, forces or "
              "energies differ from the uploading engine's", triclinic, step);
    }
    scl_stream *xint = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "test.xint", SCL_INT, 3, 1, 1, 0, &xint));
    CHECK(scl_charmm_set_position_source(es, xint) == SCL_ERR_ARGUMENT, "an int stream accepted");
    scl_stream_free(xint), scl_stream_free(xsrc);
    free(fs), free(xoff);
    scl_charmm_free(es);
    CHECK(scl_charmm_ghost_steps(eg) - before == 3, "gathered %ld steps of 4 (want 3: all but the first)",
          scl_charmm_ghost_steps(eg) - before);
    /* a ghost 1e-6 A off its image: the gather stays off for the set */
    const double s3 = 1.0 + 0.002 * 3; /* the last step's box */
    scl_charmm_box bl = b;
    for (int d = 0; d < 3; d++)
        bl.prd[d] = b.prd[d] * s3;
    bl.xy = b.xy * s3, bl.xz = b.xz * s3, bl.yz = b.yz * s3;
    double *xg = x + 3 * ((size_t)n - 1);
    xg[1] += 1e-6; /* (rounding of the box's order is accepted: 1e-12 of it) */
    CHECK_OK(ctx, scl_charmm_set_atoms(eg, a->nlocal, a->nghost, x, a->type, a->tag, a->sys.nspecial,
                                       a->sys.special, a->sys.maxspecial));
    CHECK_OK(ctx, scl_charmm_set_ghost_sources(eg, x, g->src, &bl, &usable));
    CHECK(usable == 0, "a ghost 1e-6 A off its image, yet usable %d", usable);
    const long gathered = scl_charmm_ghost_steps(eg);
    for (int step = 0; step < 2; step++) {
        CHECK_OK(ctx, scl_charmm_set_ghost_box(eg, &bl));
        CHECK_OK(ctx, scl_charmm_compute(eg, x, q, 0, 0, 0, 0));
        CHECK_OK(ctx, scl_charmm_finish(eg, fg, NULL, NULL, NULL));
    }
    CHECK(scl_charmm_ghost_steps(eg) == gathered, "gathered with the gather off");
    free(x), free(q), free(fg), free(fu), free(rows);
    scl_charmm_free(eg), scl_charmm_free(eu);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    if (!scl_device(ctx)->fp64) {
        SKIP("the ghost gather fills the device's double x: the device has no fp64");
        scl_context_free(ctx);
        return test_summary("test_charmm_ghosts");
    }
    test_atoms a = {0};
    CHECK(charmm_water_box(300 + (int)(100 * test_uniform(&rng)), rng, &a.sys) == 0, "water");
    CHECK(test_add_ghosts(&a, 12.0) == 0, "ghosts");
    scl_charmm_box b = {{0}, 0, 0, 0, 0};
    for (int d = 0; d < 3; d++)
        b.prd[d] = a.sys.hi[d] - a.sys.lo[d];
    ghost_map g;
    map_ghosts(&a, &b, &g);
    run_steps(ctx, &a, &g, 0, &rng);
    run_steps(ctx, &a, &g, 1, &rng);
    free(g.src), free(g.img);
    test_atoms_free(&a);
    scl_context_free(ctx);
    return test_summary("test_charmm_ghosts");
}
