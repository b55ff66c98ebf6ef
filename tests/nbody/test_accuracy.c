/* Accelerations against the double C reference on random systems of awkward
 * sizes (RMS relative error <= 1e-6 single, <= 1e-12 double), and total
 * momentum conserved to rounding over leapfrog steps. */
#include "nbody_test.h"

static void check_accel(scl_context *ctx, scl_nbody_precision prec, size_t n, double eps,
                        uint64_t *rng)
{
    const int single = prec == SCL_NBODY_SINGLE;
    test_system sys;
    if (test_system_random(&sys, n, rng)) {
        CHECK(0, "out of memory");
        return;
    }
    double *acc = malloc(3 * n * sizeof *acc), *ref = malloc(3 * n * sizeof *ref);
    scl_nbody_options opt = {.G = 0.7, .eps = eps, .dt = 1e-3, .precision = prec};
    scl_nbody *nb = NULL;
    CHECK_OK(ctx, scl_nbody_create(ctx, &opt, n, sys.pos, sys.vel, sys.mass, &nb));
    if (nb && acc && ref) {
        CHECK_OK(ctx, scl_nbody_read(nb, NULL, NULL, acc));
        /* the oracle sees the system the device holds: in single precision
         * the float-rounded positions and masses */
        if (single) {
            test_round_to_float(sys.pos, 3 * n);
            test_round_to_float(sys.mass, n);
        }
        CHECK(scl_nbody_ref_accel(n, sys.pos, sys.mass, 0.7, eps, 1, ref) == SCL_OK, "reference");
        double err = test_rms_rel_error(acc, ref, 3 * n);
        double tol = single ? 1e-6 : 1e-12;
        printf("%s n=%zu eps=%.3g: RMS relative error %.3e (tolerance %.0e)\n",
               single ? "single" : "double", n, eps, err, tol);
        CHECK(err <= tol, "%s n=%zu eps=%g: RMS relative error %.3e > %.0e",
              single ? "single" : "double", n, eps, err, tol);
    }
    scl_nbody_free(nb);
    free(acc);
    free(ref);
    test_system_free(&sys);
}

/* Total momentum sum m v after steps: pairwise forces cancel, so it changes
 * only by rounding, relative to sum m |v| reached during the run. */
static void check_momentum(scl_context *ctx, scl_nbody_precision prec, size_t n, uint64_t *rng)
{
    const int single = prec == SCL_NBODY_SINGLE;
    test_system sys;
    if (test_system_random(&sys, n, rng)) {
        CHECK(0, "out of memory");
        return;
    }
    double p0[3] = {0, 0, 0}, p1[3] = {0, 0, 0}, scale = 0;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            p0[c] += sys.mass[i] * (single ? (double)(float)sys.vel[3 * i + c] : sys.vel[3 * i + c]);
    scl_nbody_options opt = {.G = 1.0, .eps = 0.05, .dt = 1e-3, .precision = prec};
    scl_nbody *nb = NULL;
    CHECK_OK(ctx, scl_nbody_create(ctx, &opt, n, sys.pos, sys.vel, sys.mass, &nb));
    if (nb) {
        CHECK_OK(ctx, scl_nbody_step(nb, 50));
        CHECK_OK(ctx, scl_nbody_read(nb, NULL, sys.vel, NULL));
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++) {
                p1[c] += sys.mass[i] * sys.vel[3 * i + c];
                scale += sys.mass[i] * fabs(sys.vel[3 * i + c]);
            }
        double dp = sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                         (p1[2] - p0[2]) * (p1[2] - p0[2]));
        /* 50 steps of rounding in the force sums (n terms each) */
        double tol = (single ? 1e-5 : 1e-13) * scale;
        printf("%s n=%zu: momentum change %.3e after 50 steps (sum m|v| %.3e, tolerance %.1e)\n",
               single ? "single" : "double", n, dp, scale, tol);
        CHECK(isfinite(dp) && dp <= tol, "%s: momentum changed by %.3e > %.3e",
              single ? "single" : "double", dp, tol);
    }
    scl_nbody_free(nb);
    test_system_free(&sys);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    const int fp64 = scl_device(ctx)->fp64;
    const size_t sizes[] = {1, 2, 3, test_awkward_size(&rng, 100, 400),
                            test_awkward_size(&rng, 1000, 2000)};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        double eps = k % 2 ? 0.0 : 0.01 + 0.05 * test_uniform(&rng);
        check_accel(ctx, SCL_NBODY_SINGLE, sizes[k], eps, &rng);
        if (fp64)
            check_accel(ctx, SCL_NBODY_DOUBLE, sizes[k], eps, &rng);
    }
    size_t n = test_awkward_size(&rng, 300, 500);
    check_momentum(ctx, SCL_NBODY_SINGLE, n, &rng);
    if (fp64)
        check_momentum(ctx, SCL_NBODY_DOUBLE, n, &rng);
    else
        SKIP("double precision accelerations and momentum: the device has no fp64");
    scl_context_free(ctx);
    return test_summary("nbody_accuracy");
}
