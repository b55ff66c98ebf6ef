/* Energy conservation of a 1,024-body Plummer sphere over 1,000 leapfrog
 * steps (relative drift < 1e-4), device energies against the reference, and
 * a short double-precision trajectory against the reference integrator. */
#include "nbody_test.h"

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    const size_t n = 1024;
    const double eps = 0.05, dt = 1e-3;
    double *pos = malloc(3 * n * sizeof *pos), *vel = malloc(3 * n * sizeof *vel),
           *mass = malloc(n * sizeof *mass), *rpos = malloc(3 * n * sizeof *rpos),
           *rvel = malloc(3 * n * sizeof *rvel), *racc = malloc(3 * n * sizeof *racc);
    if (!pos || !vel || !mass || !rpos || !rvel || !racc)
        return 2;
    scl_nbody_plummer(n, rng, pos, vel, mass);
    double k_ref, u_ref;
    scl_nbody_ref_energy(n, pos, vel, mass, 1.0, eps, 1, &k_ref, &u_ref);
    printf("Plummer n=%zu: kinetic %.6f potential %.6f (virial ratio %.3f)\n", n, k_ref, u_ref,
           -2 * k_ref / u_ref);

    for (int prec = 0; prec < 2; prec++) {
        const int single = prec == SCL_NBODY_SINGLE;
        if (!single && !scl_device(ctx)->fp64) {
            SKIP("double precision energy drift: the device has no fp64");
            continue;
        }
        scl_nbody_options opt = {.eps = eps, .dt = dt, .precision = (scl_nbody_precision)prec};
        scl_nbody *nb = NULL;
        CHECK_OK(ctx, scl_nbody_create(ctx, &opt, n, pos, vel, mass, &nb));
        if (!nb)
            continue;
        double k0 = 0, u0 = 0, k1 = 0, u1 = 0;
        CHECK_OK(ctx, scl_nbody_energy(nb, &k0, &u0));
        double tol0 = single ? 1e-6 : 1e-12;
        double de0 = fabs(k0 + u0 - (k_ref + u_ref)) / fabs(k_ref + u_ref);
        printf("%s: device energy at start %.10f, reference %.10f (rel. difference %.2e)\n",
               single ? "single" : "double", k0 + u0, k_ref + u_ref, de0);
        CHECK(de0 <= tol0, "initial energy differs by %.3e", de0);
        CHECK_OK(ctx, scl_nbody_step(nb, 1000));
        CHECK_OK(ctx, scl_nbody_energy(nb, &k1, &u1));
        double drift = fabs((k1 + u1) - (k0 + u0)) / fabs(k0 + u0);
        printf("%s: energy after 1000 steps %.10f, relative drift %.3e (tolerance 1e-4)\n",
               single ? "single" : "double", k1 + u1, drift);
        CHECK(isfinite(drift) && drift < 1e-4, "%s energy drift %.3e", single ? "single" : "double",
              drift);
        scl_nbody_free(nb);
    }

    /* 10 steps in double against the reference integrator */
    if (scl_device(ctx)->fp64) {
        scl_nbody_options opt = {.eps = eps, .dt = dt, .precision = SCL_NBODY_DOUBLE};
        scl_nbody *nb = NULL;
        CHECK_OK(ctx, scl_nbody_create(ctx, &opt, n, pos, vel, mass, &nb));
        memcpy(rpos, pos, 3 * n * sizeof *pos);
        memcpy(rvel, vel, 3 * n * sizeof *vel);
        CHECK(scl_nbody_ref_accel(n, rpos, mass, 1.0, eps, 1, racc) == SCL_OK, "reference");
        for (int s = 0; s < 10; s++)
            scl_nbody_ref_step(n, rpos, rvel, racc, mass, 1.0, eps, dt, 1);
        if (nb) {
            CHECK_OK(ctx, scl_nbody_step(nb, 10));
            CHECK_OK(ctx, scl_nbody_read(nb, pos, vel, NULL));
            double ep = test_rms_rel_error(pos, rpos, 3 * n), ev = test_rms_rel_error(vel, rvel, 3 * n);
            printf("double, 10 steps vs reference: positions %.2e, velocities %.2e (tol 1e-12)\n",
                   ep, ev);
            CHECK(ep <= 1e-12 && ev <= 1e-12, "trajectory differs: %.3e %.3e", ep, ev);
        }
        scl_nbody_free(nb);
    }
    free(pos);
    free(vel);
    free(mass);
    free(rpos);
    free(rvel);
    free(racc);
    scl_context_free(ctx);
    return test_summary("nbody_energy");
}
