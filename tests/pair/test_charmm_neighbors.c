/* Device neighbor lists: equal to a brute-force list (pairs and special
 * kinds; padding slots all point to the sentinel), regrow on overflow
 * without losing pairs, and padding never contributes to forces. */
#include "charmm_test_util.h"

static void list_matches(scl_context *ctx, const char *what, const test_atoms *a,
                         scl_charmm_params p, int expect_regrow)
{
    scl_charmm *eng = NULL;
    CHECK_OK(ctx, scl_charmm_create(ctx, &p, &eng));
    if (!eng)
        return;
    CHECK_OK(ctx, scl_charmm_set_atoms(eng, a->nlocal, a->nghost, a->x, a->type, a->tag,
                                       a->sys.nspecial, a->sys.special, a->sys.maxspecial));
    long mismatches = -1;
    CHECK_OK(ctx, scl_charmm_check_neighbors(eng, &mismatches));
    scl_charmm_stats st;
    CHECK_OK(ctx, scl_charmm_stats_get(eng, &st));
    printf("%s: %ld pairs, capacity %ld, %ld list builds, %ld mismatches vs brute force\n", what,
           st.neighbors, st.list_capacity, st.rebuilds, mismatches);
    CHECK(mismatches == 0, "%s: %ld mismatches", what, mismatches);
    CHECK(st.neighbors > 0 && st.list_capacity % 8 == 0, "%s: list shape", what);
    if (expect_regrow)
        CHECK(st.rebuilds >= 2 && st.list_capacity > p.neighbor_capacity,
              "%s: the list did not regrow (capacity %ld, builds %ld)", what, st.list_capacity,
              st.rebuilds);
    scl_charmm_free(eng);
}

/* Forces after an overflowing first build equal the reference. */
static void regrown_forces(scl_context *ctx, const test_atoms *a, scl_charmm_params p)
{
    size_t n3 = 3 * (size_t)a->nlocal;
    double *f = malloc(n3 * sizeof *f), *fref = malloc(n3 * sizeof *fref);
    scl_charmm_result r, rref;
    CHECK_OK(ctx, test_engine_step(ctx, &p, a, f, &r, NULL, NULL, NULL));
    CHECK_OK(ctx, test_reference(&p, a, fref, &rref, NULL, NULL));
    double err = rms_relative(f, fref, n3);
    printf("forces after regrowth: RMS relative error %.2e\n", err);
    CHECK(within(err, 1e-6), "regrown list forces error %g", err);
    free(f), free(fref);
}

/* Atoms with 0 and 1 neighbors (7 padding slots): exactly the pair force. */
static void padding_is_inert(scl_context *ctx, uint64_t *rng)
{
    double eps = 0.2, sig = 3.0;
    scl_charmm_params p;
    scl_charmm_params_default(&p);
    p.ntypes = 1;
    p.epsilon = &eps;
    p.sigma = &sig;
    p.g_ewald = 0.3;
    p.precision = SCL_PREC_DOUBLE;
    p.tune = 0;
    double r = 3.0 + 5.0 * test_uniform(rng);
    /* a pair, and a lone atom far from it */
    double x[9] = {1.0, 2.0, 3.0, 1.0 + r, 2.0, 3.0, 80.0, 80.0, 80.0};
    double q[3] = {0.5, -0.7, 0.9}, f[9] = {0}, fref[9] = {0};
    int type[3] = {0, 0, 0};
    scl_charmm *eng = NULL;
    scl_charmm_result res, rref;
    char err[256];
    CHECK_OK(ctx, scl_charmm_create(ctx, &p, &eng));
    if (!eng)
        return;
    CHECK_OK(ctx, scl_charmm_set_atoms(eng, 3, 0, x, type, NULL, NULL, NULL, 0));
    CHECK_OK(ctx, scl_charmm_compute(eng, x, q, 1, 1, 0, 0));
    CHECK_OK(ctx, scl_charmm_finish(eng, f, &res, NULL, NULL));
    CHECK(scl_charmm_reference(&p, 3, 0, x, q, type, NULL, NULL, NULL, 0, fref, &rref, NULL,
                               NULL, err, sizeof err) == SCL_OK,
          "reference: %s", err);
    /* double precision sums in 2^-32 fixed point: one pair is exact to that quantum */
    double tol = 1e-9 * fabs(fref[0]) + 4.0 / 4294967296.0;
    printf("pair at r = %.3f: force %.12g vs %.12g; lone atom force %g %g %g\n", r, f[0],
           fref[0], f[6], f[7], f[8]);
    CHECK(fabs(f[0] - fref[0]) <= tol && fabs(f[3] - fref[3]) <= tol && f[1] == 0 && f[2] == 0,
          "pair force %g vs %g", f[0], fref[0]);
    CHECK(f[6] == 0 && f[7] == 0 && f[8] == 0, "lone atom has force %g %g %g", f[6], f[7], f[8]);
    CHECK(fabs(res.ecoul + res.evdwl - rref.ecoul - rref.evdwl) <=
              1e-9 * fabs(rref.ecoul + rref.evdwl) + 4.0 / 4294967296.0,
          "pair energy %.12g vs %.12g", res.ecoul + res.evdwl, rref.ecoul + rref.evdwl);
    scl_charmm_free(eng);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    test_atoms a = {0};
    int nmol = 100 + (int)(150 * test_uniform(&rng));
    CHECK(charmm_water_box(nmol, rng, &a.sys) == 0, "water box");
    CHECK(test_add_ghosts(&a, 12.0) == 0, "ghosts");

    scl_charmm_params p = test_params(&a.sys, SCL_PREC_MIXED);
    list_matches(ctx, "water, mixed", &a, p, 0);
    p.precision = SCL_PREC_DOUBLE;
    p.chunks = 3;
    list_matches(ctx, "water, double, 3 chunks", &a, p, 0);
    p = test_params(&a.sys, SCL_PREC_MIXED);
    p.neighbor_capacity = 8; /* far too small: must regrow, never truncate */
    list_matches(ctx, "water, capacity 8", &a, p, 1);
    regrown_forces(ctx, &a, p);
    /* the GPUs' lanes per atom (holes between the lanes' pairs), here too */
    for (int lanes = 2; lanes <= 8; lanes *= 2) {
        char what[64];
        p = test_params(&a.sys, SCL_PREC_MIXED);
        p.list_lanes = lanes;
        p.chunks = lanes == 8 ? 2 : 1;
        snprintf(what, sizeof what, "water, mixed, %d lanes per atom", lanes);
        list_matches(ctx, what, &a, p, 0);
        p.neighbor_capacity = 8;
        snprintf(what, sizeof what, "water, %d lanes, capacity 8", lanes);
        list_matches(ctx, what, &a, p, 1);
        p.kernel = "charmm"; /* the build and prune of GPUs under their force kind */
        regrown_forces(ctx, &a, p);
    }
    /* long lists (skin 6: ~1800 slots an atom): the prune marks only the
     * first 128 blocks of 8 slots in local memory and tests the rest again */
    for (int lanes = 1; lanes <= 8; lanes *= 8) {
        p = test_params(&a.sys, SCL_PREC_MIXED);
        p.kernel = "charmm";
        p.list_lanes = lanes;
        p.skin = 6.0;
        printf("skin 6, charmm kind, %d lane(s): ", lanes);
        regrown_forces(ctx, &a, p);
    }
    /* tags past 2^32 (the build's range test looks at their low 32 bits):
     * every tag and special partner moved by 3 * 2^32 + 5 */
    {
        const int64_t shift = 3 * ((int64_t)1 << 32) + 5;
        int nall = a.nlocal + a.nghost, nsp = a.nlocal * a.sys.maxspecial;
        for (int k = 0; k < nall; k++)
            a.tag[k] += shift;
        for (int k = 0; k < nsp; k++)
            a.sys.special[k] += shift;
        for (int lanes = 1; lanes <= 8; lanes *= 8) {
            p = test_params(&a.sys, SCL_PREC_MIXED);
            p.list_lanes = lanes;
            list_matches(ctx, lanes == 1 ? "water, tags past 2^32, 1 lane"
                                         : "water, tags past 2^32, 8 lanes",
                         &a, p, 0);
        }
        for (int k = 0; k < nall; k++)
            a.tag[k] -= shift;
        for (int k = 0; k < nsp; k++)
            a.sys.special[k] -= shift;
    }
    padding_is_inert(ctx, &rng);

    test_atoms_free(&a);
    scl_context_free(ctx);
    return test_summary("test_charmm_neighbors");
}
