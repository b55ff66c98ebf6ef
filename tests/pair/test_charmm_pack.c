/* Device packing of positions (cl/charmm_pack.cl, fp64 devices): the packed
 * stream (and the mixed residuals) equal bit for bit what the host packing
 * charmm_pack_positions() computes, for randomly moved atoms including coordinates on
 * exact ties (x - origin = (k + 1/2) unit: round to nearest even), in every
 * precision; and the lagged pruning decision recomputes a step whose inner
 * lists some atom outgrew: the forces equal those of the host packing path
 * (exact pruning decision) bit for bit (double precision: fixed-point sums). */
#include "charmm_test_util.h"
#include "pair/charmm_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int residuals_of(const scl_charmm *eng, int tally)
{
    return eng->params.precision == SCL_PREC_MIXED && charmm_forces_pair_double(&eng->forces, tally);
}

/* The caller's x and q on the device for other modules (scl_charmm_positions
 * while pending, scl_charmm_last_positions until the next set_atoms): the
 * doubles given, bit for bit; none after set_atoms. */
static void positions_shared(scl_context *ctx, scl_charmm *eng, int n, const double *x,
                             const double *q, int pending)
{
    int np = -1, nl = -1;
    const scl_stream *sp = scl_charmm_positions(eng, &np);
    const scl_stream *sl = scl_charmm_last_positions(eng, &nl);
    CHECK(sl && nl == n, "last positions: %p, %d atoms (want %d)", (const void *)sl, nl, n);
    CHECK(pending ? sp == sl && np == n : !sp && np == 0, "pending %d: positions %p, %d atoms",
          pending, (const void *)sp, np);
    if (!sl || nl != n || sl != eng->xq_dev)
        return;
    double *xq = malloc(4 * (size_t)n * sizeof *xq);
    CHECK_OK(ctx, scl_stream_read_range(eng->xq_dev, 0, 4 * (size_t)n, xq, 1, NULL));
    CHECK(!memcmp(xq, x, 3 * (size_t)n * sizeof *x) &&
              !memcmp(xq + 3 * (size_t)n, q, (size_t)n * sizeof *q),
          "the device copy differs from the caller's x and q");
    free(xq);
}

static void pack_matches(scl_context *ctx, const test_atoms *a, scl_precision prec, int tally,
                         int tally_double, uint64_t *rng)
{
    scl_charmm_params p = test_params(&a->sys, prec);
    p.mixed_tally_double = tally_double;
    scl_charmm *eng = NULL;
    CHECK_OK(ctx, scl_charmm_create(ctx, &p, &eng));
    if (!eng)
        return;
    if (!eng->dev_pack) {
        SKIP("precision %d: no device packing (no fp64)", (int)prec);
        scl_charmm_free(eng);
        return;
    }
    int n = a->nlocal + a->nghost;
    size_t n3 = 3 * (size_t)n;
    double *x = malloc(n3 * sizeof *x), *f = calloc(3 * (size_t)a->nlocal, sizeof *f);
    CHECK_OK(ctx, scl_charmm_set_atoms(eng, a->nlocal, a->nghost, a->x, a->type, a->tag,
                                       a->sys.nspecial, a->sys.special, a->sys.maxspecial));
    long ties = 0;
    for (int step = 0; step < 3; step++) {
        for (size_t k = 0; k < n3; k++) {
            x[k] = a->x[k] + 0.1 * (test_uniform(rng) - 0.5);
            if (prec != SCL_PREC_DOUBLE && test_uniform(rng) < 0.2) { /* an exact tie */
                int c = (int)(k % 3);
                const charmm_nlist *nl = &eng->nlist;
                double kk = floor((x[k] - nl->origin[c]) / nl->unit);
                double v = (kk + 0.5) * nl->unit;
                double xt = nl->origin[c] + v;
                if (xt - nl->origin[c] == v) {
                    x[k] = xt;
                    ties++;
                }
            }
        }
        CHECK_OK(ctx, scl_charmm_compute(eng, x, a->q, tally, tally, 0, 0));
        positions_shared(ctx, eng, n, x, a->q, 1);
        CHECK_OK(ctx, scl_charmm_finish(eng, f, NULL, NULL, NULL));
        positions_shared(ctx, eng, n, x, a->q, 0);
        size_t na = (size_t)n + 1, es = prec == SCL_PREC_DOUBLE ? 32 : 16;
        char *dev = malloc(na * es), *dev_lo = malloc(na * 16);
        char *host = malloc(na * es), *host_lo = malloc(na * 16);
        CHECK_OK(ctx, scl_stream_read_range(eng->pos, 0, na, dev, 1, NULL));
        int res = residuals_of(eng, tally);
        if (res)
            CHECK_OK(ctx, scl_stream_read_range(eng->pos_lo, 0, na, dev_lo, 1, NULL));
        CHECK_OK(ctx, charmm_nlist_host_maps(&eng->nlist));
        CHECK(charmm_pack_positions(&eng->nlist, x, a->q, host, res ? (float *)host_lo : NULL) < 0,
              "host packing refused the atoms");
        long diff = 0, diff_lo = 0;
        for (size_t b = 0; b < na; b++) {
            diff += memcmp(dev + b * es, host + b * es, es) != 0;
            if (res)
                diff_lo += memcmp(dev_lo + b * 16, host_lo + b * 16, 16) != 0;
        }
        free(host), free(host_lo);
        printf("precision %d tally %d step %d: %zu atoms packed, %ld differ, %ld residuals "
               "differ\n",
               (int)prec, tally, step, na, diff, diff_lo);
        CHECK(diff == 0 && diff_lo == 0, "device packing differs: %ld positions, %ld residuals",
              diff, diff_lo);
        free(dev), free(dev_lo);
    }
    CHECK_OK(ctx, scl_charmm_set_atoms(eng, a->nlocal, a->nghost, a->x, a->type, a->tag,
                                       a->sys.nspecial, a->sys.special, a->sys.maxspecial));
    int nafter = -1;
    CHECK(!scl_charmm_last_positions(eng, &nafter) && nafter == 0,
          "last positions after set_atoms: %d atoms", nafter);
    if (prec != SCL_PREC_DOUBLE) {
        printf("  %ld coordinates on exact ties\n", ties);
        CHECK(ties > 0, "no ties were made");
    }
    free(x), free(f);
    scl_charmm_free(eng);
}

/* A run of steps where one atom jumps past half the inner skin after steps
 * of small moves: the lagged decision keeps the lists, the pack kernel
 * flags them stale, and finish recomputes. Forces equal the host path's. */
static void redo_matches(scl_context *ctx, const test_atoms *a, uint64_t *rng)
{
    scl_charmm_params p = test_params(&a->sys, SCL_PREC_DOUBLE);
    scl_charmm *dev = NULL, *host = NULL;
    CHECK_OK(ctx, scl_charmm_create(ctx, &p, &dev));
    p.host_pack = 1;
    CHECK_OK(ctx, scl_charmm_create(ctx, &p, &host));
    if (!dev || !host || !dev->dev_pack) {
        SKIP("redo: no device packing");
        scl_charmm_free(dev), scl_charmm_free(host);
        return;
    }
    CHECK(!host->dev_pack, "the host path was not taken");
    int n = a->nlocal + a->nghost, nl = a->nlocal;
    size_t n3 = 3 * (size_t)n;
    double *x = malloc(n3 * sizeof *x);
    double *fd = malloc(3 * (size_t)nl * sizeof *fd), *fh = malloc(3 * (size_t)nl * sizeof *fh);
    memcpy(x, a->x, n3 * sizeof *x);
    scl_charmm *engs[2] = {dev, host};
    for (int e = 0; e < 2; e++)
        CHECK_OK(ctx, scl_charmm_set_atoms(engs[e], a->nlocal, a->nghost, a->x, a->type, a->tag,
                                           a->sys.nspecial, a->sys.special, a->sys.maxspecial));
    /* a local atom jumps (its ghost images stay: both engines see the same x) */
    int victim = (int)(nl * test_uniform(rng));
    double jump = 0.75 * dev->nlist.inner_skin; /* past inner_skin/2, within skin/2 */
    long diffs = 0;
    for (int step = 0; step < 6; step++) {
        for (size_t k = 0; k < n3; k++)
            x[k] += 1e-4 * (test_uniform(rng) - 0.5);
        if (step == 3)
            x[3 * victim] += jump;
        for (int e = 0; e < 2; e++) {
            double *f = e ? fh : fd;
            memset(f, 0, 3 * (size_t)nl * sizeof *f);
            CHECK_OK(ctx, scl_charmm_compute(engs[e], x, a->q, 1, 1, 0, 0));
            CHECK_OK(ctx, scl_charmm_finish(engs[e], f, NULL, NULL, NULL));
        }
        diffs += memcmp(fd, fh, 3 * (size_t)nl * sizeof *fd) != 0;
    }
    printf("redo: %ld prunes (device packing) vs %ld (host), %ld recomputed steps, %ld steps "
           "with different forces\n",
           dev->nlist.prunes, host->nlist.prunes, dev->prune_redos, diffs);
    CHECK(dev->prune_redos >= 1, "the late prune was not caught");
    CHECK(diffs == 0, "%ld steps differ from the host packing path", diffs);
    free(x), free(fd), free(fh);
    scl_charmm_free(dev), scl_charmm_free(host);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    test_atoms a = {0};
    CHECK(charmm_water_box(300 + (int)(100 * test_uniform(&rng)), rng, &a.sys) == 0, "water");
    CHECK(test_add_ghosts(&a, 12.0) == 0, "ghosts");
    scl_precision precs[3] = {SCL_PREC_SINGLE, SCL_PREC_MIXED, SCL_PREC_DOUBLE};
    for (int k = 0; k < 3; k++)
        for (int tally = 0; tally < 3; tally++) { /* 2: tally with double pair math (mixed) */
            if (tally == 2 && precs[k] != SCL_PREC_MIXED)
                continue;
            if (precs[k] != SCL_PREC_DOUBLE || scl_device(ctx)->fp64)
                pack_matches(ctx, &a, precs[k], tally > 0, tally == 2, &rng);
            else
                SKIP("double precision packing: the device has no fp64");
        }
    if (scl_device(ctx)->fp64)
        redo_matches(ctx, &a, &rng);
    else
        SKIP("prune redo: the device has no fp64");
    test_atoms_free(&a);
    scl_context_free(ctx);
    return test_summary("test_charmm_pack");
}
