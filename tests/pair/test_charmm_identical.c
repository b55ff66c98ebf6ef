/* Launch parameters never change the answer: in double precision the forces,
 * energies, virial and per-atom tallies are bitwise identical for every
 * threads-per-atom value, work-group size, one chunk vs many, and resident vs
 * streamed (rebuilt per chunk) neighbor lists, a chunk count the tuner chose
 * by timing real steps, lanes per atom of the list build, and with dynamic
 * pruning on vs off over steps that move the atoms past the inner skin (re-pruning).
 * Mixed precision agrees to float rounding across the same variations.
 * With argument "cluster": the cluster-pair kernel's lanes per atom and
 * work-groups against the "charmm" kind (tpa 1): the same pair math and
 * order-free double sums, so double is bitwise identical across kinds too. */
#include "charmm_test_util.h"

typedef struct {
    int tpa, chunks, wg;
    size_t budget;
    const char *what;
    int lanes; /* list_lanes (0: this device's default) */
} variant;

typedef struct {
    double *f, *e, *v;
    scl_charmm_result r;
    scl_charmm_stats st;
} outcome;

static int unsupported; /* variants the device refused as unsupported shapes */

static int run(scl_context *ctx, scl_charmm_params p, const test_atoms *a, const variant *v,
               outcome *o)
{
    size_t n = (size_t)a->nlocal;
    o->f = malloc(3 * n * sizeof *o->f);
    o->e = malloc(n * sizeof *o->e);
    o->v = malloc(6 * n * sizeof *o->v);
    p.threads_per_atom = v->tpa;
    p.chunks = v->chunks;
    p.tune = v->chunks == 0; /* chunks 0: the tuner times the chunk counts (real steps) */
    p.work_group = v->wg;
    p.max_device_bytes = v->budget;
    p.list_lanes = v->lanes;
    scl_status s = test_engine_step(ctx, &p, a, o->f, &o->r, o->e, o->v, &o->st);
    if (s == SCL_ERR_UNSUPPORTED) {
        /* a forced shape this device cannot take (e.g. the double-precision
         * cluster scratch at wg 256 is 16 bytes past NVIDIA's 48 KB) */
        printf("%s: not supported on this device (%s)\n", v->what, scl_last_error(ctx));
        unsupported++;
        return 0;
    }
    CHECK(s == SCL_OK, "%s: %s", v->what, scl_last_error(ctx));
    return s == SCL_OK;
}

static void outcome_free(outcome *o) { free(o->f), free(o->e), free(o->v); }

/* Per-tag, per-step displacement in [-scale, scale], so ghosts move with the
 * atoms they are images of. */
static double shake(int64_t tag, int step, int dim, double scale)
{
    uint64_t h = (uint64_t)tag * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(step + 1) * 0xBF58476D1CE4E5B9ULL ^
                 (uint64_t)(dim + 1) * 0x94D049BB133111EBULL;
    h ^= h >> 31;
    h *= 0xD6E8FEB86CD8B979ULL;
    h ^= h >> 29;
    return scale * (2.0 * (double)(h >> 11) * (1.0 / 9007199254740992.0) - 1.0);
}

/* Mixed with float partial sums over 8 pairs (the "fsum" plan value the
 * tuner may pick on GPUs; forced here through the context; the tallies then
 * accumulate in local memory) against the default double add per pair:
 * forces and energies to float rounding. kernel: the kind (one with fsum). */
static void fsum_agrees(const test_atoms *a, const char *kernel)
{
    static scl_env_options env;
    memset(&env, 0, sizeof env);
    env.context.force = "fsum=8";
    scl_context *ctx8 = test_context_with(&env);
    scl_context *ctx1 = test_context();
    if (!scl_device(ctx1)->fp64) {
        SKIP("fsum: mixed without fp64 accumulates in float anyway");
        scl_context_free(ctx8), scl_context_free(ctx1);
        return;
    }
    variant v = {4, 1, 64, 0, "fsum", 0};
    outcome o[2];
    scl_charmm_params p = test_params(&a->sys, SCL_PREC_MIXED);
    p.kernel = kernel;
    int ok = run(ctx1, p, a, &v, &o[0]);
    ok = run(ctx8, p, a, &v, &o[1]) && ok;
    if (ok) {
        size_t n3 = 3 * (size_t)a->nlocal;
        double ferr = rms_relative(o[1].f, o[0].f, n3);
        double ec = rel_error(o[1].r.ecoul, o[0].r.ecoul), ev = rel_error(o[1].r.evdwl, o[0].r.evdwl);
        double verr = 0, vmax = 0; /* relative to the largest component */
        for (int k = 0; k < 6; k++)
            vmax = test_max(vmax, fabs(o[0].r.virial[k]));
        for (int k = 0; k < 6; k++)
            verr = test_max(verr, fabs(o[1].r.virial[k] - o[0].r.virial[k]) / vmax);
        printf("mixed  fsum 8 vs 1 (%s): forces differ by %.2e, E_vdwl %.2e, E_coul %.2e, "
               "virial %.2e\n", kernel, ferr, ev, ec, verr);
        CHECK(within(ferr, 1e-6) && within(ec, 1e-7) && within(ev, 1e-6) && within(verr, 1e-6),
              "fsum 8: forces %g, E_coul %g, E_vdwl %g, virial %g", ferr, ec, ev, verr);
    }
    outcome_free(&o[0]), outcome_free(&o[1]);
    scl_context_free(ctx8), scl_context_free(ctx1);
}

/* Pruned lists (inner skin 0.3 A: re-pruned every few of these steps) give
 * the same bits as the full lists in double, and the same forces to float
 * rounding in mixed, over 8 steps of up to 0.05 A per coordinate. Full lists
 * with kernel kind kinds[0], pruned with kinds[1] (NULL: the tuner's), list
 * build and prune lanes lanes[0] and lanes[1] (0: the device's). */
static void pruning_identical(scl_context *ctx, const test_atoms *a, const char *const kinds[2],
                              const int lanes[2])
{
    size_t n = (size_t)a->nlocal, nall = (size_t)(a->nlocal + a->nghost);
    double *x = malloc(3 * nall * sizeof *x), *f[2];
    f[0] = malloc(3 * n * sizeof *f[0]);
    f[1] = malloc(3 * n * sizeof *f[1]);
    CHECK(x && f[0] && f[1], "out of memory");
    for (int prec = SCL_PREC_MIXED; prec <= SCL_PREC_DOUBLE; prec++) {
        scl_charmm *eng[2] = {NULL, NULL};
        scl_charmm_result r[2];
        memcpy(x, a->x, 3 * nall * sizeof *x);
        for (int e = 0; e < 2; e++) {
            scl_charmm_params p = test_params(&a->sys, (scl_precision)prec);
            p.inner_skin = e == 0 ? -1.0 : 0.3;
            p.kernel = kinds[e];
            p.list_lanes = lanes[e];
            CHECK_OK(ctx, scl_charmm_create(ctx, &p, &eng[e]));
            CHECK_OK(ctx, scl_charmm_set_atoms(eng[e], a->nlocal, a->nghost, x, a->type, a->tag,
                                               a->sys.nspecial, a->sys.special,
                                               a->sys.maxspecial));
        }
        double worst = 0;
        int identical = 1;
        for (int step = 0; step < 8; step++) {
            for (size_t i = 0; i < nall; i++)
                for (int d = 0; d < 3; d++)
                    x[3 * i + (size_t)d] += shake(a->tag[i], step, d, 0.05);
            int tally = step == 7;
            for (int e = 0; e < 2; e++) {
                memset(f[e], 0, 3 * n * sizeof *f[e]);
                CHECK_OK(ctx, scl_charmm_compute(eng[e], x, a->q, tally, tally, 0, 0));
                CHECK_OK(ctx, scl_charmm_finish(eng[e], f[e], &r[e], NULL, NULL));
            }
            identical &= !memcmp(f[0], f[1], 3 * n * sizeof *f[0]) &&
                         (!tally || !memcmp(&r[0], &r[1], sizeof r[0]));
            worst = test_max(worst, rms_relative(f[1], f[0], 3 * n));
        }
        printf("%s pruned (%s, %d lanes) vs full lists (%s, %d lanes) over 8 moving steps: %s "
               "(forces differ by %.2e)\n",
               prec == SCL_PREC_DOUBLE ? "double" : "mixed ", kinds[1] ? kinds[1] : "tuned",
               lanes[1], kinds[0] ? kinds[0] : "tuned", lanes[0],
               identical ? "identical" : "not identical", worst);
        if (prec == SCL_PREC_DOUBLE)
            CHECK(identical, "double: pruned lists change the bits");
        else
            CHECK(within(worst, 1e-6), "mixed: pruned lists change forces by %g", worst);
        scl_charmm_free(eng[0]);
        scl_charmm_free(eng[1]);
    }
    free(x), free(f[0]), free(f[1]);
}

int main(int argc, char **argv)
{
    const int cluster = argc > 1 && !strcmp(argv[1], "cluster");
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    test_atoms a = {0};
    int nmol = 150 + (int)(150 * test_uniform(&rng));
    CHECK(charmm_water_box(nmol, rng, &a.sys) == 0, "water box");
    CHECK(test_add_ghosts(&a, 12.0) == 0, "ghosts");
    size_t n = (size_t)a.nlocal;
    /* a budget that holds everything but the lists of all atoms at once */
    size_t stream_budget = 200 * n * 4 + (size_t)(a.nlocal + a.nghost) * 200 + (1u << 20);
    const variant variants[] = {
        {1, 1, 64, 0, "tpa 1, 1 chunk", 0},     {2, 1, 64, 0, "tpa 2", 0},
        {4, 1, 128, 0, "tpa 4, wg 128", 0},     {8, 1, 32, 0, "tpa 8, wg 32", 0},
        {16, 1, 64, 0, "tpa 16", 0},            {32, 2, 64, 0, "tpa 32, 2 chunks", 0},
        {1, 3, 64, 0, "3 chunks", 0},           {4, 7, 64, 0, "tpa 4, 7 chunks", 0},
        {1, 0, 64, 0, "tuned chunks", 0},       {4, 3, 64, 0, "8 list lanes", 8},
        {2, 1, 64, 0, "2 list lanes", 2},       {2, 2, 64, stream_budget, "streamed lists", 8},
    };
    const variant cluster_variants[] = {
        {1, 1, 64, 0, "charmm kind, tpa 1", 0}, {1, 1, 64, 0, "cluster tpa 1", 0},
        {2, 1, 64, 0, "cluster tpa 2", 0},      {4, 1, 128, 0, "cluster tpa 4, wg 128", 0},
        {8, 1, 64, 0, "cluster tpa 8", 0},      {2, 1, 256, 0, "cluster tpa 2, wg 256", 0},
    };
    const variant *vs = cluster ? cluster_variants : variants;
    int nv = cluster ? (int)(sizeof cluster_variants / sizeof cluster_variants[0])
                     : (int)(sizeof variants / sizeof variants[0]);
    for (int prec = SCL_PREC_MIXED; prec <= SCL_PREC_DOUBLE; prec++) {
        scl_charmm_params p = test_params(&a.sys, (scl_precision)prec);
        outcome base;
        p.kernel = cluster ? "charmm" : NULL;
        if (!run(ctx, p, &a, &vs[0], &base))
            break;
        p.kernel = cluster ? "cluster" : NULL;
        for (int k = 1; k < nv; k++) {
            outcome o;
            if (!run(ctx, p, &a, &vs[k], &o)) {
                outcome_free(&o);
                continue;
            }
            if (cluster)
                CHECK(!strcmp(o.st.kernel, "cluster"), "%s ran kernel %s", vs[k].what,
                      o.st.kernel);
            else if (k == nv - 1)
                CHECK(o.st.chunks >= 2, "streamed variant ran in %d chunks", o.st.chunks);
            if (prec == SCL_PREC_DOUBLE) {
                int same_f = !memcmp(o.f, base.f, 3 * n * sizeof *o.f);
                int same_r = !memcmp(&o.r, &base.r, sizeof o.r);
                int same_atom = !memcmp(o.e, base.e, n * sizeof *o.e) &&
                                !memcmp(o.v, base.v, 6 * n * sizeof *o.v);
                printf("double %-18s forces %s, energies/virial %s, per-atom %s\n",
                       vs[k].what, same_f ? "identical" : "DIFFER",
                       same_r ? "identical" : "DIFFER", same_atom ? "identical" : "DIFFER");
                CHECK(same_f && same_r && same_atom, "double, %s: not bitwise identical",
                      vs[k].what);
            } else {
                double ferr = rms_relative(o.f, base.f, 3 * n);
                double eerr = rel_error(o.r.ecoul, base.r.ecoul);
                printf("mixed  %-18s forces differ by %.2e, E_coul by %.2e\n", vs[k].what,
                       ferr, eerr);
                /* 1e-7: each shape groups other pairs into the float
                 * partial sums of fsum 8 (the GPUs' plan): 3-7e-9 on the
                 * H200, against ~1e-12 with a double add per pair */
                CHECK(within(ferr, 1e-6) && within(eerr, 1e-7), "mixed, %s: %g %g",
                      vs[k].what, ferr, eerr);
            }
            outcome_free(&o);
        }
        outcome_free(&base);
    }
    static const char *const tuned[2] = {NULL, NULL}, *const kinds[2] = {"charmm", "cluster"};
    static const int lanes_full8[2] = {8, 0}, lanes8[2] = {8, 8};
    pruning_identical(ctx, &a, cluster ? kinds : tuned, lanes_full8);
    if (!cluster) { /* the GPUs' build and prune (8 lanes) under the charmm kind */
        static const char *const charmm[2] = {"charmm", "charmm"};
        pruning_identical(ctx, &a, charmm, lanes8);
    }
    fsum_agrees(&a, cluster ? "cluster" : "charmm");
    /* a shape or two may not fit a device; most must run */
    CHECK(unsupported <= 2, "%d forced launch shapes unsupported on this device", unsupported);
    test_atoms_free(&a);
    scl_context_free(ctx);
    return test_summary("test_charmm_identical");
}
