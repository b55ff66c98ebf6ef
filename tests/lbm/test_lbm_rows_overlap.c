/* The overlapped halo exchange of row-split solvers (scl_lbm_step_rows_overlap,
 * the library side of `streamcl lbm --mpi` without MPI): S slabs, each on its
 * own context and thread as the ranks would be, swap edges through a barrier
 * in the swap callback (called while their interior rows update). The states
 * must equal the whole-lattice solver's bit for bit, for S = 1 (the slab is
 * its own neighbour), 3 and 7 (slabs of 2 rows: no interior launch; and one
 * of 1 row: one edge launch), in fp32 and fp16, with work-groups 1 and (for 1
 * and 3 slabs) 4 rows high (the interior's partials after both edges'), over several
 * batches and calls (the halos stay filled between calls). |u| sums within
 * 1e-6 of av_vels (another summation order). Misuse refused: a whole-lattice
 * solver, NULL buffers. */
#include "lbm_slabs.h"
#include "streamcl/lbm.h"
#include "test_util.h"

#include <pthread.h>
#include <string.h>

#define MAX_SLABS 8

typedef struct split split;
typedef struct {
    split *s;
    int index;
    scl_context *ctx;
    scl_lbm *lbm;
    char *buf;      /* the solver's staging: to_below, to_above, from_below, from_above */
    double *sums;   /* per step */
    scl_status status;
    char error[512];
    long swaps;
} slab;

struct split {
    int count;
    size_t bytes;
    pthread_barrier_t barrier;
    slab slab[MAX_SLABS];
    long steps;
};

/* Every slab's edges of this step are on the host: copy the neighbours' into
 * our halo buffers. Two barriers: all edges read, then all copied (before
 * any slab's next step overwrites its edges). */
static scl_status swap(void *user, scl_lbm *lbm)
{
    (void)lbm;
    slab *me = user;
    split *s = me->s;
    int below = (me->index + s->count - 1) % s->count, above = (me->index + 1) % s->count;
    me->swaps++;
    pthread_barrier_wait(&s->barrier);
    memcpy(me->buf + 2 * s->bytes, s->slab[below].buf + 1 * s->bytes, s->bytes);
    memcpy(me->buf + 3 * s->bytes, s->slab[above].buf + 0 * s->bytes, s->bytes);
    pthread_barrier_wait(&s->barrier);
    return SCL_OK;
}

static void *run_slab(void *arg)
{
    slab *me = arg;
    split *s = me->s;
    char *b = me->buf;
    /* prime the halos of the initial state (as the command does once) */
    me->status = scl_lbm_read_edges(me->lbm, b, b + s->bytes);
    swap(me, me->lbm);
    if (me->status == SCL_OK)
        me->status = scl_lbm_write_halos(me->lbm, b + 2 * s->bytes, b + 3 * s->bytes);
    /* then the steps in three calls of uneven length */
    long cut[4] = {0, 1, s->steps / 2, s->steps};
    for (int c = 0; c < 3; c++) {
        scl_status st = scl_lbm_step_rows_overlap(me->lbm, cut[c + 1] - cut[c], me->sums + cut[c],
                                                  b, b + s->bytes, b + 2 * s->bytes,
                                                  b + 3 * s->bytes, swap, me);
        if (me->status == SCL_OK && st != SCL_OK) {
            me->status = st;
            snprintf(me->error, sizeof me->error, "%s", scl_last_error(me->ctx));
        }
    }
    return NULL;
}

static void run_split(const scl_lbm_params *p, const unsigned char *obst, scl_lbm_storage storage,
                      int slabs, int ly, long steps)
{
    const char *st = storage == SCL_LBM_FP16 ? "fp16" : "fp32";
    char force[32];
    snprintf(force, sizeof force, "lx=16,ly=%d", ly);
    scl_lbm_options opt = {.storage = storage, .tune = 0, .force = force, .batch = 5};
    split *s = calloc(1, sizeof *s);
    size_t n = (size_t)p->nx * (size_t)p->ny;
    size_t state = n * SCL_LBM_Q * sizeof(float);
    float *av = malloc((size_t)steps * sizeof *av), *f_whole = malloc(state);
    float *f_split = malloc(state), *f_slab = malloc(state);
    scl_context *wctx = test_context();
    scl_lbm *whole = NULL;
    if (!s || !av || !f_whole || !f_split || !f_slab || !wctx) {
        CHECK(0, "out of memory or no context");
        goto out;
    }
    s->count = slabs;
    s->steps = steps;
    CHECK_OK(wctx, scl_lbm_create(wctx, p, obst, &opt, &whole));
    int y0 = 0, ok = whole != NULL;
    for (int i = 0; i < slabs && ok; i++) {
        slab *me = &s->slab[i];
        int rows = p->ny / slabs + (i < p->ny % slabs);
        me->s = s;
        me->index = i;
        me->ctx = test_context();
        me->sums = calloc((size_t)steps, sizeof *me->sums);
        ok = me->ctx && me->sums;
        if (ok)
            CHECK_OK(me->ctx, scl_lbm_create_rows(me->ctx, p, obst, y0, rows, &opt, &me->lbm));
        ok = ok && me->lbm && (me->buf = scl_lbm_halo_staging(me->lbm));
        y0 += rows;
    }
    CHECK(ok, "%s, %d slabs: setup failed", st, slabs);
    if (!ok)
        goto out;
    s->bytes = scl_lbm_halo_bytes(s->slab[0].lbm);
    CHECK_OK(wctx, scl_lbm_step(whole, steps, av));
    pthread_barrier_init(&s->barrier, NULL, (unsigned)slabs);
    pthread_t th[MAX_SLABS];
    for (int i = 0; i < slabs; i++)
        pthread_create(&th[i], NULL, run_slab, &s->slab[i]);
    for (int i = 0; i < slabs; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&s->barrier);
    long fluid_all = 0;
    for (int i = 0; i < slabs; i++) {
        slab *me = &s->slab[i];
        CHECK(me->status == SCL_OK, "%s, %d slabs: slab %d: %s", st, slabs, i, me->error);
        CHECK(me->swaps == steps + 1, "%s, %d slabs: slab %d swapped %ld times for %ld steps", st,
              slabs, i, me->swaps, steps);
        fluid_all += lbm_gather_slab(me->ctx, me->lbm, p->nx, n, f_slab, f_split);
    }
    CHECK_OK(wctx, scl_lbm_read_speeds(whole, f_whole));
    size_t differ = lbm_count_differ(f_whole, f_split, n * SCL_LBM_Q);
    CHECK(differ == 0, "%s, %d slabs, ly %d: %zu of %zu distributions differ from the whole "
          "lattice's", st, slabs, ly, differ, n * SCL_LBM_Q);
    long bad = 0;
    double last = 0;
    for (long t = 0; t < steps; t++) {
        double total = 0;
        for (int i = 0; i < slabs; i++)
            total += s->slab[i].sums[t];
        last = total / (double)fluid_all;
        bad += !(fabs(last - av[t]) <= 1e-6 * fabs(av[t]));
    }
    CHECK(bad == 0, "%s, %d slabs, ly %d: %ld av_vels beyond 1e-6", st, slabs, ly, bad);
    printf("%s, %d slabs, ly %d, %ld steps: %zu distributions differ, av_vels[last] %.9g vs "
           "%.9g\n", st, slabs, ly, steps, differ, last, (double)av[steps - 1]);
out:
    for (int i = 0; s && i < slabs; i++) {
        scl_lbm_free(s->slab[i].lbm);
        free(s->slab[i].sums);
        if (s->slab[i].ctx)
            scl_context_free(s->slab[i].ctx);
    }
    scl_lbm_free(whole);
    if (wctx)
        scl_context_free(wctx);
    free(s);
    free(av);
    free(f_whole);
    free(f_split);
    free(f_slab);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_lbm_params p;
    unsigned char *obst = lbm_test_lattice(&rng, &p);
    static const int splits[] = {1, 3, 7};
    for (int st = 0; st < 2; st++)
        for (size_t j = 0; j < sizeof splits / sizeof *splits; j++)
            for (int ly = 1; ly <= (splits[j] < 7 ? 4 : 1); ly *= 4) /* 4 rows: > 2x a 1-row slab */
                run_split(&p, obst, st ? SCL_LBM_FP16 : SCL_LBM_FP32, splits[j], ly, 23);

    scl_context *ctx = test_context();
    scl_lbm *m = NULL;
    scl_lbm_options two = {.tune = 0, .force = "lx=16,ly=1"};
    char buf[4096];
    CHECK_OK(ctx, scl_lbm_create(ctx, &p, obst, &two, &m));
    CHECK(m && !scl_lbm_halo_staging(m), "a whole lattice has no halo staging");
    CHECK(m && scl_lbm_step_rows_overlap(m, 1, NULL, buf, buf, buf, buf, swap, NULL) ==
                   SCL_ERR_ARGUMENT &&
              strstr(scl_last_error(ctx), "not a row-split solver"),
          "overlap on a whole lattice: %s", scl_last_error(ctx));
    scl_lbm_free(m);
    m = NULL;
    CHECK_OK(ctx, scl_lbm_create_rows(ctx, &p, obst, 3, 4, &two, &m));
    CHECK(m && scl_lbm_step_rows_overlap(m, 1, NULL, NULL, buf, buf, buf, swap, NULL) ==
                   SCL_ERR_ARGUMENT,
          "overlap with a NULL buffer: %s", scl_last_error(ctx));
    scl_lbm_free(m);
    free(obst);
    scl_context_free(ctx);
    return test_summary("lbm_rows_overlap");
}
