/* A run in blocks (what each MPI rank of `streamcl nbody` does, here all in
 * one process): 37 bodies split into blocks of 20, 1 and 16, each block its
 * own system with all bodies as sources, the blocks' positions packed and
 * put block by block in the bodies' order. Positions, velocities,
 * accelerations and potentials must equal one system of all 37 bodies bit
 * for bit after 15 steps (the sums run over the sources in the same order;
 * tiles of 16 make blocks start inside a tile), in single and double.
 * Adding the blocks in another order stays close (rounding only). The calls
 * refuse sources out of range, a second source set and scl_nbody_step on a
 * system with sources. */
#include "nbody_test.h"

enum { NB = 3, STEPS = 15 };
static const size_t block_first[NB] = {0, 20, 21}, block_count[NB] = {20, 1, 16};

/* One force evaluation of every block system over the sources in `order`. */
static void evaluate(scl_context *ctx, scl_nbody *const sys[NB], void *const packed[NB],
                     const int order[NB], unsigned close)
{
    for (int b = 0; b < NB; b++)
        CHECK_OK(ctx, scl_nbody_pack(sys[b], packed[b]));
    for (int t = 0; t < NB; t++)
        for (int q = 0; q < NB; q++) {
            const int b = order[q];
            CHECK_OK(ctx, scl_nbody_put_sources(sys[t], block_first[b], block_count[b], packed[b]));
            const unsigned flags = (q == 0 ? SCL_NBODY_BEGIN : 0u) | (q == NB - 1 ? close : 0u);
            CHECK_OK(ctx, scl_nbody_accumulate(sys[t], block_first[b], block_count[b], flags));
        }
}

/* The block systems' state in the bodies' order: pos, vel, acc (3n each)
 * and phi (n). */
static void read_blocks(scl_context *ctx, scl_nbody *const sys[NB], double *out, size_t n)
{
    for (int b = 0; b < NB; b++) {
        const size_t f = block_first[b];
        CHECK_OK(ctx, scl_nbody_read(sys[b], out + 3 * f, out + 3 * n + 3 * f,
                                     out + 6 * n + 3 * f));
        CHECK_OK(ctx, scl_nbody_potentials(sys[b], out + 9 * n + f));
    }
}

static void run(scl_context *ctx, const test_system *s, scl_nbody_precision prec)
{
    const char *name = prec == SCL_NBODY_DOUBLE ? "double" : "single";
    const size_t n = s->n;
    scl_nbody_options opt = {.eps = 0.05, .dt = 1e-3, .precision = prec,
                             .force = "V=2,wg=8,tile=16"};
    scl_nbody *full = NULL, *sys[NB] = {NULL, NULL, NULL};
    void *packed[NB] = {NULL, NULL, NULL};
    double *want = calloc(10 * n, sizeof *want), *got = calloc(10 * n, sizeof *got);
    CHECK_OK(ctx, scl_nbody_create(ctx, &opt, n, s->pos, s->vel, s->mass, &full));
    for (int b = 0; b < NB; b++) {
        const size_t f = block_first[b];
        CHECK_OK(ctx, scl_nbody_create(ctx, &opt, block_count[b], s->pos + 3 * f, s->vel + 3 * f,
                                       s->mass + f, &sys[b]));
        if (sys[b])
            CHECK_OK(ctx, scl_nbody_sources_create(sys[b], n));
        packed[b] = malloc(scl_nbody_block_bytes(sys[b], block_count[b]) + 1);
    }
    if (!full || !sys[0] || !sys[1] || !sys[2] || !want || !got || !packed[0] || !packed[1] ||
        !packed[2]) {
        CHECK(0, "%s: set-up failed", name);
        goto done;
    }
    static const int in_order[NB] = {0, 1, 2}, ring[NB] = {1, 2, 0};
    evaluate(ctx, sys, packed, in_order, SCL_NBODY_CLOSE);
    for (int k = 0; k < STEPS; k++) {
        for (int b = 0; b < NB; b++)
            CHECK_OK(ctx, scl_nbody_drift(sys[b]));
        evaluate(ctx, sys, packed, in_order, SCL_NBODY_CLOSE | SCL_NBODY_KICK);
    }
    CHECK_OK(ctx, scl_nbody_step(full, STEPS));
    CHECK_OK(ctx, scl_nbody_read(full, want, want + 3 * n, want + 6 * n));
    CHECK_OK(ctx, scl_nbody_potentials(full, want + 9 * n));
    read_blocks(ctx, sys, got, n);
    for (size_t i = 0; i < 10 * n; i++) /* NaN-safe: a NaN is never equal */
        CHECK(got[i] == want[i] && signbit(got[i]) == signbit(want[i]),
              "%s: value %zu (field %zu) %.17g, one system %.17g", name, i, i / (3 * n), got[i],
              want[i]);
    double ek[2], ep[2];
    CHECK_OK(ctx, scl_nbody_energy(full, &ek[0], &ep[0]));
    scl_nbody_energy_sum(n, got + 3 * n, s->mass, got + 9 * n, &ek[1], &ep[1]);
    CHECK(ek[0] == ek[1] && ep[0] == ep[1], "%s: energies %.17g %.17g, one system %.17g %.17g",
          name, ek[1], ep[1], ek[0], ep[0]);
    /* the blocks in ring order (1, 2, 0): the same forces up to rounding */
    evaluate(ctx, sys, packed, ring, SCL_NBODY_CLOSE);
    read_blocks(ctx, sys, got, n);
    CHECK_CLOSE_PEAK("acceleration, blocks in ring order", (long)(3 * n), got + 6 * n,
                     want + 6 * n, prec == SCL_NBODY_DOUBLE ? 1e-12 : 1e-5);
done:
    for (int b = 0; b < NB; b++) {
        scl_nbody_free(sys[b]);
        free(packed[b]);
    }
    scl_nbody_free(full);
    free(want);
    free(got);
}

static void refusals(scl_context *ctx, const test_system *s)
{
    scl_nbody_options opt = {.eps = 0.05, .dt = 1e-3, .force = "V=2,wg=8,tile=16"};
    scl_nbody *nb = NULL;
    CHECK_OK(ctx, scl_nbody_create(ctx, &opt, 5, s->pos, s->vel, s->mass, &nb));
    if (!nb)
        return;
    float block[4 * 5] = {0};
    CHECK(scl_nbody_accumulate(nb, 0, 5, SCL_NBODY_BEGIN) == SCL_ERR_ARGUMENT &&
              strstr(scl_last_error(ctx), "outside"),
          "accumulate without sources: %s", scl_last_error(ctx));
    CHECK(scl_nbody_sources_create(nb, 4) == SCL_ERR_ARGUMENT, "fewer sources than bodies");
    CHECK_OK(ctx, scl_nbody_sources_create(nb, 9));
    CHECK(scl_nbody_sources_create(nb, 9) == SCL_ERR_ARGUMENT, "a second source set");
    CHECK(scl_nbody_put_sources(nb, 5, 5, block) == SCL_ERR_ARGUMENT &&
              strstr(scl_last_error(ctx), "[5, 10) outside the 9"),
          "sources past the end: %s", scl_last_error(ctx));
    CHECK(scl_nbody_accumulate(nb, 8, 2, SCL_NBODY_BEGIN) == SCL_ERR_ARGUMENT,
          "accumulate past the end");
    CHECK(scl_nbody_step(nb, 1) == SCL_ERR_ARGUMENT && strstr(scl_last_error(ctx), "sources"),
          "step with sources: %s", scl_last_error(ctx));
    CHECK_OK(ctx, scl_nbody_put_sources(nb, 4, 5, block));
    scl_nbody_free(nb);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    test_system sys;
    if (test_system_random(&sys, 37, &rng))
        return 2;
    run(ctx, &sys, SCL_NBODY_SINGLE);
    if (scl_device(ctx)->fp64)
        run(ctx, &sys, SCL_NBODY_DOUBLE);
    else
        SKIP("double precision: %s has no fp64", scl_device(ctx)->name);
    refusals(ctx, &sys);
    test_system_free(&sys);
    scl_context_free(ctx);
    return test_summary("nbody_blocks");
}
