/* Every launch-plan choice (V, work-group, tile) gives the same accelerations
 * and trajectory within rounding, on an awkward N that exercises the
 * zero-mass padding; an illegal plan is refused with a message. */
#include "nbody_test.h"

typedef struct {
    int V, wg, tile;
} shape;

/* Accelerations after 3 steps with the plan forced to sh. */
static int run_plan(scl_context *ctx, scl_nbody_precision prec, const test_system *sys, shape sh,
                    double *state)
{
    char force[64];
    snprintf(force, sizeof force, "V=%d,wg=%d,tile=%d", sh.V, sh.wg, sh.tile);
    scl_nbody_options opt = {.G = 1.0, .eps = 0.02, .dt = 1e-3, .precision = prec, .force = force};
    scl_nbody *nb = NULL;
    scl_status s = scl_nbody_create(ctx, &opt, sys->n, sys->pos, sys->vel, sys->mass, &nb);
    if (s == SCL_OK)
        s = scl_nbody_step(nb, 3);
    if (s == SCL_OK)
        s = scl_nbody_read(nb, state, state + 3 * sys->n, state + 6 * sys->n);
    CHECK(s == SCL_OK, "plan %s: %s", force, scl_last_error(ctx));
    scl_nbody_free(nb);
    return s == SCL_OK ? 0 : -1;
}

static void compare_plans(scl_context *ctx, scl_nbody_precision prec, const test_system *sys,
                          const shape *shapes, int count)
{
    const int single = prec == SCL_NBODY_SINGLE;
    const size_t len = 9 * sys->n;
    double *first = malloc(len * sizeof *first), *other = malloc(len * sizeof *other);
    if (!first || !other || run_plan(ctx, prec, sys, shapes[0], first)) {
        CHECK(0, "baseline plan failed");
        free(first);
        free(other);
        return;
    }
    /* same summation order in every plan; only contraction into FMAs may differ */
    const double tol = single ? 1e-6 : 1e-13;
    for (int i = 1; i < count; i++) {
        if (run_plan(ctx, prec, sys, shapes[i], other))
            continue;
        double err = test_rms_rel_error(other + 6 * sys->n, first + 6 * sys->n, 3 * sys->n);
        double perr = test_rms_rel_error(other, first, 3 * sys->n);
        printf("%s V=%-2d wg=%-3d tile=%-4d: acceleration difference %.2e, positions %.2e\n",
               single ? "single" : "double", shapes[i].V, shapes[i].wg, shapes[i].tile, err, perr);
        CHECK(err <= tol && perr <= tol, "V=%d wg=%d tile=%d differs: %.3e / %.3e (tolerance %.0e)",
              shapes[i].V, shapes[i].wg, shapes[i].tile, err, perr, tol);
    }
    free(first);
    free(other);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    test_system sys;
    if (test_system_random(&sys, test_awkward_size(&rng, 700, 600), &rng))
        return 2;
    printf("n = %zu\n", sys.n);
    /* every V; work-group and tile varied around V = 4 (each is a kernel build) */
    const shape shapes[] = {{1, 16, 64},  {2, 16, 64},  {4, 16, 64},  {8, 16, 64},
                            {16, 16, 64}, {4, 64, 64},  {4, 32, 256}, {4, 8, 512},
                            {1, 128, 128}};
    const int count = (int)(sizeof shapes / sizeof shapes[0]);
    compare_plans(ctx, SCL_NBODY_SINGLE, &sys, shapes, count);
    if (scl_device(ctx)->fp64)
        compare_plans(ctx, SCL_NBODY_DOUBLE, &sys, shapes, 5);
    else
        SKIP("double precision plans: the device has no fp64");

    /* illegal plans are refused by the core's plan rules before anything is
     * built, naming the key, the value and the requirement */
    const char *bad[] = {"V=3,wg=16,tile=64", "V=4,wg=64,tile=32", "V=4,wg=16,tile=48"};
    const char *why[] = {"V=3: must be a power of two", "tile=32 must be a multiple of wg=64",
                         "tile=48: must be a power of two"};
    for (int i = 0; i < 3; i++) {
        scl_nbody_options opt = {.eps = 0.02, .dt = 1e-3, .force = bad[i]};
        scl_nbody *nb = NULL;
        scl_status s = scl_nbody_create(ctx, &opt, sys.n, sys.pos, sys.vel, sys.mass, &nb);
        CHECK(s == SCL_ERR_ARGUMENT && !nb && strstr(scl_last_error(ctx), why[i]),
              "plan %s: got %s '%s'", bad[i], scl_status_name(s), scl_last_error(ctx));
        scl_nbody_free(nb);
    }
    test_system_free(&sys);
    scl_context_free(ctx);
    return test_summary("nbody_plans");
}
