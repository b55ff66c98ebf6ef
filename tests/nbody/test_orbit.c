/* A two-body circular orbit (eps = 0, so the exact 1/r^2 path with the j = i
 * guard) returns to its start after one period within 1e-3 of the
 * separation; the C reference does the same. */
#include "nbody_test.h"

static double orbit_error(const double *pos, const double *start, double separation)
{
    double e = 0;
    for (int k = 0; k < 6; k++) {
        if (!isfinite(pos[k]))
            return INFINITY;
        e = test_max(e, fabs(pos[k] - start[k]));
    }
    return e / separation;
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    /* random masses, separation, orientation in the x-y plane and G */
    const double m1 = 0.2 + test_uniform(&rng), m2 = 0.2 + test_uniform(&rng);
    const double d = 0.5 + test_uniform(&rng), G = 0.5 + test_uniform(&rng);
    const double angle = 6.283185307179586 * test_uniform(&rng);
    const double M = m1 + m2, omega = sqrt(G * M / (d * d * d));
    const double period = 6.283185307179586 / omega;
    const long steps = 2000;
    const double ux = cos(angle), uy = sin(angle);
    /* body 1 at -d m2/M, body 2 at +d m1/M along u; velocities perpendicular */
    const double r1 = d * m2 / M, r2 = d * m1 / M;
    double pos[6] = {-r1 * ux, -r1 * uy, 0, r2 * ux, r2 * uy, 0};
    double vel[6] = {r1 * omega * uy, -r1 * omega * ux, 0, -r2 * omega * uy, r2 * omega * ux, 0};
    double mass[2] = {m1, m2}, start[6], out[6];
    memcpy(start, pos, sizeof pos);
    printf("m1 %.3f m2 %.3f d %.3f G %.3f period %.4f, %ld steps\n", m1, m2, d, G, period, steps);

    for (int prec = 0; prec < 2; prec++) {
        if (prec == SCL_NBODY_DOUBLE && !scl_device(ctx)->fp64) {
            SKIP("double precision orbit: the device has no fp64");
            continue;
        }
        scl_nbody_options opt = {.G = G, .eps = 0.0, .dt = period / (double)steps,
                                 .precision = (scl_nbody_precision)prec};
        scl_nbody *nb = NULL;
        CHECK_OK(ctx, scl_nbody_create(ctx, &opt, 2, pos, vel, mass, &nb));
        if (!nb)
            continue;
        CHECK_OK(ctx, scl_nbody_step(nb, steps));
        CHECK_OK(ctx, scl_nbody_read(nb, out, NULL, NULL));
        double err = orbit_error(out, start, d);
        printf("%s: after one period, max position error / separation %.3e\n",
               prec ? "double" : "single", err);
        CHECK(err <= 1e-3, "%s orbit missed its start by %.3e of the separation",
              prec ? "double" : "single", err);
        scl_nbody_free(nb);
    }

    /* the reference leapfrog follows the same orbit */
    double acc[6];
    CHECK(scl_nbody_ref_accel(2, pos, mass, G, 0.0, 0, acc) == SCL_OK, "reference accel");
    for (long s = 0; s < steps; s++)
        scl_nbody_ref_step(2, pos, vel, acc, mass, G, 0.0, period / (double)steps, 0);
    double err = orbit_error(pos, start, d);
    printf("reference: max position error / separation %.3e\n", err);
    CHECK(err <= 1e-3, "reference orbit missed by %.3e", err);
    scl_context_free(ctx);
    return test_summary("nbody_orbit");
}
