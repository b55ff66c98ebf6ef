/* The OpenCL solver (every storage and streaming variant) and the OpenMP
 * baseline against the serial float oracle, by the benchmark's own rule:
 * every av_vels value and every cell's pressure within 1% relative, for
 * thousands of steps on random obstacles and awkward grid sizes. Also: the
 * total density is conserved, and read-out of the initial state is exact. */
#include "streamcl/lbm.h"
#include "test_util.h"

#include <string.h>

#define RULE 0.01 /* the benchmark's 1% */

typedef struct {
    const char *name;
    scl_lbm_storage storage;
    scl_lbm_streaming streaming;
} variant;

static const variant variants[] = {
    {"fp32 two lattices", SCL_LBM_FP32, SCL_LBM_TWO_LATTICES},
    {"fp32 in place (AA)", SCL_LBM_FP32, SCL_LBM_IN_PLACE},
    {"fp16 two lattices", SCL_LBM_FP16, SCL_LBM_TWO_LATTICES},
    {"fp16 in place (AA)", SCL_LBM_FP16, SCL_LBM_IN_PLACE},
};

/* Random blocks and scattered cells, about a fifth of the grid; a few cells of
 * the accelerated row are blocked too. */
static void random_obstacles(const scl_lbm_params *p, uint64_t *rng, unsigned char *mask)
{
    size_t n = (size_t)p->nx * (size_t)p->ny;
    memset(mask, 0, n);
    int blocks = 1 + (int)(test_uniform(rng) * 4);
    for (int b = 0; b < blocks; b++) {
        int w = 1 + (int)(test_uniform(rng) * p->nx / 5), h = 1 + (int)(test_uniform(rng) * p->ny / 5);
        int x0 = (int)(test_uniform(rng) * p->nx), y0 = (int)(test_uniform(rng) * p->ny);
        for (int y = y0; y < y0 + h && y < p->ny; y++)
            for (int x = x0; x < x0 + w && x < p->nx; x++)
                mask[(size_t)x + (size_t)y * p->nx] = 1;
    }
    for (size_t i = 0; i < n; i++)
        if (test_uniform(rng) < 0.05)
            mask[i] = 1;
    mask[(size_t)(p->ny - 2) * p->nx] = 1;
    mask[0] = 0; /* at least one fluid cell */
}

static int within(double got, double want)
{
    return fabs(got - want) <= RULE * fabs(want); /* false for NaN */
}

/* Worst relative error of av_vels and of the pressure field; counts misses. */
static void compare(const char *what, const scl_lbm_params *p, long steps, const float *av,
                    const float *av_ref, const float *pr, const float *pr_ref)
{
    long bad_av = 0, bad_pr = 0;
    double worst_av = 0, worst_pr = 0;
    for (long t = 0; t < steps; t++) {
        double e = fabs((double)av[t] - av_ref[t]) / fabs((double)av_ref[t]);
        if (!within(av[t], av_ref[t]))
            bad_av++;
        if (e > worst_av || e != e)
            worst_av = e;
    }
    size_t n = (size_t)p->nx * (size_t)p->ny;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)pr[i] - pr_ref[i]) / fabs((double)pr_ref[i]);
        if (!within(pr[i], pr_ref[i]))
            bad_pr++;
        if (e > worst_pr || e != e)
            worst_pr = e;
    }
    printf("  %-22s %dx%d %ld steps: worst av_vels %.2e, pressure %.2e (rule %.0e)\n", what,
           p->nx, p->ny, steps, worst_av, worst_pr, RULE);
    CHECK(bad_av == 0, "%s %dx%d: %ld of %ld av_vels outside 1%% (worst %.3e)", what, p->nx, p->ny,
          bad_av, steps, worst_av);
    CHECK(bad_pr == 0, "%s %dx%d: %ld of %zu pressures outside 1%% (worst %.3e)", what, p->nx,
          p->ny, bad_pr, n, worst_pr);
}

static double total_density(const float *f, size_t n9)
{
    double s = 0;
    for (size_t i = 0; i < n9; i++)
        s += f[i];
    return s;
}

/* tune: 1 times work-group shapes (slow on PoCL, which compiles each shape),
 * else force (NULL: the default shape). */
static void run_case(scl_context *ctx, int nx, int ny, long steps, float omega, int tune,
                     const char *force, uint64_t *rng)
{
    scl_lbm_params p = {nx, ny, (int)steps, nx, 0.1f, 0.005f, omega};
    size_t n = (size_t)nx * ny, n9 = n * SCL_LBM_Q;
    unsigned char *mask = malloc(n);
    float *f = malloc(n9 * 4), *tmp = malloc(n9 * 4), *g = malloc(n9 * 4), *h = malloc(n9 * 4);
    float *av_ref = malloc(steps * 4), *av = malloc(steps * 4);
    float *pr_ref = malloc(n * 4), *pr = malloc(n * 4);
    if (!mask || !f || !tmp || !g || !h || !av_ref || !av || !pr_ref || !pr) {
        CHECK(0, "out of memory");
        goto out;
    }
    random_obstacles(&p, rng, mask);
    printf("grid %dx%d, omega %.3f, %ld fluid cells, %ld steps\n", nx, ny, (double)omega,
           scl_lbm_fluid_cells(&p, mask), steps);

    scl_lbm_ref_init(&p, f);
    double mass0 = total_density(f, n9);
    for (long t = 0; t < steps; t++)
        av_ref[t] = scl_lbm_ref_step(&p, mask, f, tmp);
    scl_lbm_fields(&p, mask, f, NULL, NULL, NULL, pr_ref);
    /* float rounding of thousands of collisions drifts ~1e-5; a lost or
     * duplicated population would drift by > 1e-3 */
    double ref_drift = fabs(total_density(f, n9) - mass0) / mass0;
    printf("  %-22s total density drift %.2e\n", "serial reference", ref_drift);
    CHECK(ref_drift <= 1e-4, "reference loses density: %.3e", ref_drift);

    /* the OpenMP baseline obeys the same rule */
    scl_lbm_ref_init(&p, g);
    float *a = g, *b = h;
    for (long t = 0; t < steps; t++)
        av[t] = scl_lbm_omp_step(&p, mask, &a, &b);
    scl_lbm_fields(&p, mask, a, NULL, NULL, NULL, pr);
    compare("OpenMP baseline", &p, steps, av, av_ref, pr, pr_ref);

    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        scl_lbm_options opt = {.storage = variants[v].storage,
                               .streaming = variants[v].streaming,
                               .tune = tune,
                               .force = force,
                               .batch = 1 + (int)(test_uniform(rng) * 300)};
        scl_lbm *lbm = NULL;
        CHECK_OK(ctx, scl_lbm_create(ctx, &p, mask, &opt, &lbm));
        if (!lbm)
            continue;
        int lx, ly;
        scl_lbm_work_group(lbm, &lx, &ly);
        printf("  %-22s work-group %dx%d, batch %d\n", variants[v].name, lx, ly, opt.batch);
        /* read-out of the initial state undoes the layout and the early acceleration */
        CHECK_OK(ctx, scl_lbm_read_speeds(lbm, g));
        scl_lbm_ref_init(&p, h);
        double worst0 = 0;
        for (size_t i = 0; i < n9; i++)
            worst0 = test_max(worst0, fabs((double)g[i] - h[i]) / h[i]);
        CHECK(worst0 <= (variants[v].storage == SCL_LBM_FP16 ? 1e-3 : 1e-6),
              "%s: initial state read back with relative error %.3e", variants[v].name, worst0);
        /* two calls with an odd split exercise batches and the AA parity */
        long first = steps / 3 | 1;
        for (long t = 0; t < steps; t++)
            av[t] = NAN;
        CHECK_OK(ctx, scl_lbm_step(lbm, first, av));
        CHECK_OK(ctx, scl_lbm_step(lbm, steps - first, av + first));
        CHECK(scl_lbm_steps_done(lbm) == steps, "steps done %ld", scl_lbm_steps_done(lbm));
        CHECK_OK(ctx, scl_lbm_read_fields(lbm, NULL, NULL, NULL, pr));
        compare(variants[v].name, &p, steps, av, av_ref, pr, pr_ref);
        CHECK_OK(ctx, scl_lbm_read_speeds(lbm, g));
        double mass = total_density(g, n9);
        double drift = fabs(mass - mass0) / mass0;
        double tol = variants[v].storage == SCL_LBM_FP16 ? 1e-3 : 1e-4;
        printf("  %-22s total density drift %.2e (tolerance %.0e)\n", variants[v].name, drift, tol);
        CHECK(drift <= tol, "%s: total density drifts by %.3e", variants[v].name, drift);
        scl_lbm_free(lbm);
    }
out:
    free(mask);
    free(f);
    free(tmp);
    free(g);
    free(h);
    free(av_ref);
    free(av);
    free(pr_ref);
    free(pr);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    printf("device: %s\n", scl_device(ctx)->name);
    run_case(ctx, 128, 256, 2000, 1.85f, 0, NULL, &rng);
    run_case(ctx, 100, 37, 3000, (float)(1.0 + 0.9 * test_uniform(&rng)), 0, "lx=32,ly=2", &rng);
    run_case(ctx, 7, 5, 1000, (float)(0.6 + 1.3 * test_uniform(&rng)), 1, NULL, &rng);
    scl_context_free(ctx);
    return test_summary("lbm_vs_reference");
}
