/* Row-split solvers (the library side of the MPI decomposition, with no MPI):
 * a lattice cut into S slabs on one context, halos copied between them by
 * hand before every step, must evolve bitwise as the whole-lattice solver
 * (the updates are local), for S = 1 (the slab is its own neighbour through
 * the periodic wrap), 2, 3, 4 and ny (every slab one row), fp32 and fp16, on
 * 13 rows (prime) with random obstacles. The slabs' |u| sums, added in
 * double, give av_vels within 1e-6 (not bitwise: another summation order).
 * Misuse is refused: in-place streaming, rows outside the lattice,
 * scl_lbm_step on a slab. */
#include "lbm_slabs.h"
#include "streamcl/lbm.h"
#include "test_util.h"

#include <string.h>

#define MAX_SLABS 16

typedef struct {
    scl_lbm *slab[MAX_SLABS];
    int count;
    unsigned char *edges; /* per slab: to_below, to_above (halo_bytes each) */
    size_t bytes;
    int current;          /* the slab stepping now */
} split;

/* Fill the stepping slab's halos from its neighbours' edges (read before any
 * slab of this step moved). */
static scl_status exchange(void *user, scl_lbm *lbm)
{
    split *s = user;
    int i = s->current, below = (i + s->count - 1) % s->count, above = (i + 1) % s->count;
    return scl_lbm_write_halos(lbm, s->edges + (2 * (size_t)below + 1) * s->bytes,
                               s->edges + 2 * (size_t)above * s->bytes);
}

static void run_split(scl_context *ctx, const scl_lbm_params *p, const unsigned char *obst,
                      scl_lbm_storage storage, int slabs, long steps)
{
    const char *st = storage == SCL_LBM_FP16 ? "fp16" : "fp32";
    scl_lbm_options opt = {.storage = storage, .tune = 0, .force = "lx=16,ly=1"};
    scl_lbm *whole = NULL;
    split s = {.count = slabs};
    size_t n = (size_t)p->nx * (size_t)p->ny;
    float *av = malloc((size_t)steps * sizeof *av), *f_whole = malloc(n * SCL_LBM_Q * sizeof(float));
    float *f_split = malloc(n * SCL_LBM_Q * sizeof(float)), *f_slab = malloc(n * SCL_LBM_Q * sizeof(float));
    double *total = calloc((size_t)steps, sizeof *total);
    CHECK_OK(ctx, scl_lbm_create(ctx, p, obst, &opt, &whole));
    int y0 = 0;
    for (int i = 0; i < slabs; i++) {
        int rows = p->ny / slabs + (i < p->ny % slabs);
        CHECK_OK(ctx, scl_lbm_create_rows(ctx, p, obst, y0, rows, &opt, &s.slab[i]));
        y0 += rows;
    }
    if (!whole || !s.slab[slabs - 1] || !av || !f_whole || !f_split || !f_slab || !total)
        goto out;
    s.bytes = scl_lbm_halo_bytes(s.slab[0]);
    s.edges = malloc(2 * (size_t)slabs * s.bytes);
    CHECK_OK(ctx, scl_lbm_step(whole, steps, av));
    long fluid_all = 0;
    for (long t = 0; t < steps; t++) {
        for (int i = 0; i < slabs; i++)
            CHECK_OK(ctx, scl_lbm_read_edges(s.slab[i], s.edges + 2 * (size_t)i * s.bytes,
                                             s.edges + (2 * (size_t)i + 1) * s.bytes));
        for (int i = 0; i < slabs; i++) {
            double sum = 0;
            s.current = i;
            CHECK_OK(ctx, scl_lbm_step_rows(s.slab[i], 1, &sum, exchange, &s));
            total[t] += sum;
        }
    }
    for (int i = 0; i < slabs; i++)
        fluid_all += lbm_gather_slab(ctx, s.slab[i], p->nx, n, f_slab, f_split);
    CHECK_OK(ctx, scl_lbm_read_speeds(whole, f_whole));
    size_t differ = lbm_count_differ(f_whole, f_split, n * SCL_LBM_Q);
    CHECK(differ == 0, "%s, %d slabs: %zu of %zu distributions differ from the whole lattice's",
          st, slabs, differ, n * SCL_LBM_Q);
    CHECK(fluid_all == scl_lbm_fluid_cells(p, obst), "%s, %d slabs: fluid cells %ld", st, slabs,
          fluid_all);
    long bad = 0;
    for (long t = 0; t < steps; t++) {
        double a = total[t] / (double)fluid_all;
        bad += !(fabs(a - av[t]) <= 1e-6 * fabs(av[t]));
    }
    CHECK(bad == 0, "%s, %d slabs: %ld av_vels beyond 1e-6", st, slabs, bad);
    printf("%s, %d slabs, %ld steps: %zu distributions differ, av_vels[last] %.9g vs %.9g\n", st,
           slabs, steps, differ, total[steps - 1] / (double)fluid_all, (double)av[steps - 1]);
out:
    for (int i = 0; i < slabs; i++)
        scl_lbm_free(s.slab[i]);
    scl_lbm_free(whole);
    free(s.edges);
    free(av);
    free(f_whole);
    free(f_split);
    free(f_slab);
    free(total);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    printf("device: %s\n", scl_device(ctx)->name);
    scl_lbm_params p;
    unsigned char *obst = lbm_test_lattice(&rng, &p);
    static const int splits[] = {1, 2, 3, 4, 13};
    for (int st = 0; st < 2; st++)
        for (size_t j = 0; j < sizeof splits / sizeof *splits; j++)
            run_split(ctx, &p, obst, st ? SCL_LBM_FP16 : SCL_LBM_FP32, splits[j], 150);

    scl_lbm *m = NULL;
    scl_lbm_options aa = {.streaming = SCL_LBM_IN_PLACE, .tune = 0, .force = "lx=16,ly=1"};
    CHECK(scl_lbm_create_rows(ctx, &p, obst, 0, 5, &aa, &m) == SCL_ERR_UNSUPPORTED && !m,
          "in place on slabs: %s", scl_last_error(ctx));
    scl_lbm_options two = {.tune = 0, .force = "lx=16,ly=1"};
    CHECK(scl_lbm_create_rows(ctx, &p, obst, 10, 4, &two, &m) == SCL_ERR_ARGUMENT && !m,
          "rows 10..14 of 13: %s", scl_last_error(ctx));
    CHECK(scl_lbm_create_rows(ctx, &p, obst, 0, 0, &two, &m) == SCL_ERR_ARGUMENT && !m,
          "no rows: %s", scl_last_error(ctx));
    CHECK_OK(ctx, scl_lbm_create_rows(ctx, &p, obst, 3, 4, &two, &m));
    float av;
    CHECK(m && scl_lbm_step(m, 1, &av) == SCL_ERR_ARGUMENT &&
              strstr(scl_last_error(ctx), "scl_lbm_step_rows"),
          "scl_lbm_step on a slab: %s", scl_last_error(ctx));
    scl_lbm_free(m);
    free(obst);
    scl_context_free(ctx);
    return test_summary("lbm_rows");
}
