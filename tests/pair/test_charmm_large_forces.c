/* Double precision takes forces far beyond the 2^30 range of its old
 * fixed-point sums (LAMMPS's fourmol minimize starts from such overlaps):
 * a water box with a few atoms pushed to 0.3-0.6 A of a neighbor (LJ forces
 * ~1e9-1e13 kcal/mol/A). Forces, energies and virial against the double
 * reference (RMS relative 1e-10, energies 1e-10 relative), the same bits for
 * two launch plans (integer sums), and mixed precision finishing too
 * (forces 1e-6). */
#include "charmm_test_util.h"

#include <math.h>

/* argv[1]: the force kernel kind to test (default: the tuner's choice) */
int main(int argc, char **argv)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    if (!scl_device(ctx)->fp64) {
        SKIP("no fp64 on this device: no double precision");
        scl_context_free(ctx);
        return test_summary("test_charmm_large_forces");
    }
    test_atoms a = {0};
    CHECK(charmm_water_box(150 + (int)(50 * test_uniform(&rng)), rng, &a.sys) == 0, "water");
    /* push oxygens of a few molecules onto another molecule's oxygen */
    int nmol = a.sys.natoms / 3, pushed = 0;
    for (int k = 0; k < 4; k++) {
        int m = (int)(nmol * test_uniform(&rng)) % nmol, o = (m + 1 + k * 7) % nmol;
        if (m == o)
            continue;
        double z = 2 * test_uniform(&rng) - 1, ph = 6.2831853 * test_uniform(&rng);
        double r = 0.3 + 0.3 * test_uniform(&rng), s = sqrt(1 - z * z);
        double u[3] = {s * cos(ph), s * sin(ph), z};
        for (int d = 0; d < 3; d++) /* the whole molecule moves with its oxygen */
            for (int at = 0; at < 3; at++)
                a.sys.x[3 * (3 * m + at) + d] +=
                    a.sys.x[3 * (3 * o) + d] + r * u[d] - a.sys.x[3 * (3 * m) + d];
        pushed++;
    }
    CHECK(test_add_ghosts(&a, 12.0) == 0, "ghosts");
    size_t n3 = 3 * (size_t)a.nlocal;
    double *fref = malloc(n3 * sizeof *fref), *f[2] = {malloc(n3 * sizeof(double)),
                                                       malloc(n3 * sizeof(double))};
    scl_charmm_params p = test_params(&a.sys, SCL_PREC_DOUBLE);
    p.kernel = argc > 1 ? argv[1] : NULL;
    scl_charmm_result rref, r[2];
    CHECK_OK(ctx, test_reference(&p, &a, fref, &rref, NULL, NULL));
    double fmax_ref = 0;
    for (size_t k = 0; k < n3; k++)
        fmax_ref = test_max(fmax_ref, fabs(fref[k]));
    printf("%d local atoms, %d molecules pushed, largest force component %.3e (2^30 = %.3e)\n",
           a.nlocal, pushed, fmax_ref, 1073741824.0);
    CHECK(fmax_ref > 1073741824.0, "no force beyond 2^30 was made (%g)", fmax_ref);
    const int tpa[2] = {1, 4}, wg[2] = {64, 128};
    for (int v = 0; v < 2; v++) {
        p.threads_per_atom = tpa[v];
        p.work_group = wg[v];
        double tally_diff;
        CHECK_OK(ctx, test_engine_step_diff(ctx, &p, &a, f[v], &r[v], NULL, NULL, NULL,
                                            &tally_diff));
        double ferr = rms_relative(f[v], fref, n3);
        double ev = rel_error(r[v].evdwl, rref.evdwl), ec = rel_error(r[v].ecoul, rref.ecoul);
        printf("double tpa %d wg %d: forces %.2e  E_vdwl %.2e (%.6e)  E_coul %.2e  tally-step "
               "forces %.2e\n",
               tpa[v], wg[v], ferr, ev, r[v].evdwl, ec, tally_diff);
        CHECK(within(ferr, 1e-10), "double forces off by %g", ferr);
        CHECK(within(ev, 1e-10) && within(ec, 1e-10), "double energies off: %g %g", ev, ec);
        CHECK(within(tally_diff, 1e-12), "tallying step forces differ by %g", tally_diff);
    }
    CHECK(memcmp(f[0], f[1], n3 * sizeof(double)) == 0 &&
              memcmp(&r[0], &r[1], sizeof r[0]) == 0,
          "double precision results differ between launch plans");
    p = test_params(&a.sys, SCL_PREC_MIXED);
    p.kernel = argc > 1 ? argv[1] : NULL;
    CHECK_OK(ctx, test_engine_step(ctx, &p, &a, f[0], &r[0], NULL, NULL, NULL));
    double ferr = rms_relative(f[0], fref, n3);
    printf("mixed: forces %.2e\n", ferr);
    /* mixed does the pair math in float: at the 0.05 A contacts of this system
     * r^2 carries float's 6e-8, amplified six-fold by r^-12 (1.1e-6 seen) */
    CHECK(within(ferr, 3e-6), "mixed forces off by %g", ferr);
    free(fref), free(f[0]), free(f[1]);
    test_atoms_free(&a);
    scl_context_free(ctx);
    return test_summary("test_charmm_large_forces");
}
