/* scl_charmm_cluster_stats_get: what the cluster kind's force launches walk.
 * A random water box (awkward size), fixed-point (mixed) and double
 * positions: the launches bind the pruned lists, and
 * the pairs their masks keep within the cutoff are exactly the non-special
 * pairs within the cutoff by brute force (up to pairs within 1e-4 A of it,
 * where the fixed-point positions may decide the other way). */
#include "charmm_test_util.h"

#include <math.h>

static int is_special(const charmm_system *sys, int i, int64_t tag)
{
    const int64_t *sp = sys->special + (size_t)i * (size_t)sys->maxspecial;
    for (int k = 0; k < sys->nspecial[3 * i + 2]; k++)
        if (sp[k] == tag)
            return 1;
    return 0;
}

/* Ordered pairs (local i, any j) within rc, not special; *band: those within
 * 1e-4 A of rc either side (special or not). */
static long brute_pairs(const test_atoms *a, double rc, long *band)
{
    long n = 0;
    *band = 0;
    int na = a->nlocal + a->nghost;
    for (int i = 0; i < a->nlocal; i++)
        for (int j = 0; j < na; j++) {
            if (j == i)
                continue;
            double dx = a->x[3 * i] - a->x[3 * j], dy = a->x[3 * i + 1] - a->x[3 * j + 1],
                   dz = a->x[3 * i + 2] - a->x[3 * j + 2];
            double r = sqrt(dx * dx + dy * dy + dz * dz);
            *band += fabs(r - rc) < 1e-4;
            n += r < rc && !is_special(&a->sys, i, a->tag[j]);
        }
    return n;
}

static void check_kind(scl_context *ctx, const test_atoms *a, const char *kernel,
                       scl_precision prec, long expect, long band)
{
    scl_charmm_params p = test_params(&a->sys, prec);
    p.kernel = kernel;
    scl_charmm *eng = NULL;
    double *f = calloc(3 * (size_t)a->nlocal, sizeof *f);
    CHECK(f != NULL, "out of memory");
    scl_charmm_cluster_stats cs;
    CHECK_OK(ctx, scl_charmm_create(ctx, &p, &eng));
    CHECK(scl_charmm_cluster_stats_get(eng, NULL) == SCL_ERR_ARGUMENT, "NULL stats accepted");
    CHECK_OK(ctx, scl_charmm_set_atoms(eng, a->nlocal, a->nghost, a->x, a->type, a->tag,
                                       a->sys.nspecial, a->sys.special, a->sys.maxspecial));
    for (int step = 0; step < 2; step++) {
        CHECK_OK(ctx, scl_charmm_compute(eng, a->x, a->q, step, step, 0, 0));
        CHECK(scl_charmm_cluster_stats_get(eng, &cs) != SCL_OK, "stats read with a step in flight");
        CHECK_OK(ctx, scl_charmm_finish(eng, f, NULL, NULL, NULL));
    }
    CHECK_OK(ctx, scl_charmm_cluster_stats_get(eng, &cs));
    printf("%s %s: entries %ld, mask pairs %ld, within the cutoff %ld (brute force %ld, %ld in the "
           "1e-4 A band), warp steps %ld of %ld, launches inner %ld / unpruned %ld\n",
           kernel, prec == SCL_PREC_DOUBLE ? "double" : "mixed", cs.entries, cs.mask_pairs, cs.cut_pairs, expect, band, cs.warp_steps,
           cs.warp_steps_all, cs.launches_inner, cs.launches_full);
    if (!strcmp(kernel, "cluster")) {
        CHECK(cs.entries > 0 && cs.mask_pairs <= 64 * cs.entries && cs.cut_pairs <= cs.mask_pairs,
              "entries %ld, mask pairs %ld, within the cutoff %ld", cs.entries, cs.mask_pairs,
              cs.cut_pairs);
        CHECK(labs(cs.cut_pairs - expect) <= band, "pairs within the cutoff %ld, brute force %ld",
              cs.cut_pairs, expect);
        CHECK(cs.warp_steps <= cs.warp_steps_all && 32 * cs.warp_steps >= cs.mask_pairs &&
                  cs.warp_steps > 0,
              "warp steps %ld of %ld for %ld pairs", cs.warp_steps, cs.warp_steps_all,
              cs.mask_pairs);
        /* pruning is on by default: every launch walks the inner lists */
        CHECK(cs.launches_inner == 2 && cs.launches_full == 0, "launches inner %ld, unpruned %ld",
              cs.launches_inner, cs.launches_full);
    } else {
        CHECK(cs.entries == 0 && cs.launches_inner == 0 && cs.launches_full == 0,
              "%s kind: cluster stats not zero", kernel);
    }
    scl_charmm_free(eng);
    free(f);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    if (!scl_device(ctx)->fp64) {
        SKIP("the cluster kind runs on fp64 devices only");
        scl_context_free(ctx);
        return test_summary("test_charmm_cluster_stats");
    }
    test_atoms water = {0};
    int nmol = 300 + (int)(200 * test_uniform(&rng));
    CHECK(charmm_water_box(nmol, rng, &water.sys) == 0, "water box");
    CHECK(test_add_ghosts(&water, 12.0) == 0, "water ghosts");
    long band = 0, expect = brute_pairs(&water, 10.0, &band);
    /* fixed-point positions (mixed) and double4 ones */
    check_kind(ctx, &water, "cluster", SCL_PREC_MIXED, expect, band);
    check_kind(ctx, &water, "cluster", SCL_PREC_DOUBLE, expect, band);
    check_kind(ctx, &water, "charmm", SCL_PREC_MIXED, expect, band);
    test_atoms_free(&water);
    scl_context_free(ctx);
    return test_summary("test_charmm_cluster_stats");
}
