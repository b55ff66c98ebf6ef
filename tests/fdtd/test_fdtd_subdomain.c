/* Sub-domain solvers (the MPI decomposition without MPI): a model cut into
 * slabs along each axis (scl_fdtd_model_subdomain), one solver per slab on
 * one context, halo planes moved between them in process
 * (scl_fdtd_halo_read/_write), against the whole model's solver: every
 * owned point of all six components and every receiver sample bitwise
 * equal, in fp32 and fp64. The model has what the cuts must carry:
 * averaged and unaveraged materials, a PEC box, a dispersive (Debye) box,
 * CPML of different thickness per face (a slab wholly inside it, one that
 * holds its inner face), sources and receivers on the cuts, uneven slabs
 * and one-cell slabs. The overlapped run (scl_fdtd_run_overlap) too: one
 * context and thread per slab as the ranks would be, the planes swapped
 * through mailboxes between barriers. */
#include "streamcl/fdtd.h"
#include "test_util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NX 10
#define NY 9
#define NZ 7
#define STEPS 40
#define MAX_PARTS 16

static int build(scl_fdtd_model *m)
{
    char err[1024];
    if (scl_fdtd_model_init(m, NX, NY, NZ, 2e-3, 2e-3, 2e-3, 1.0, err, sizeof err) != SCL_OK) {
        CHECK(0, "model: %s", err);
        return -1;
    }
    int pml[6] = {2, 3, 2, 3, 2, 3};
    memcpy(m->pml, pml, sizeof pml);
    int soil = scl_fdtd_add_material(m, "soil", 4, 0.01, 1, 0, err, sizeof err);
    int rock = scl_fdtd_add_material(m, "rock", 7, 0, 1.5, 0, err, sizeof err);
    int wet = scl_fdtd_add_material(m, "wet", 3, 0.001, 1, 0, err, sizeof err);
    double debye[2] = {20, 1e-11};
    if (soil < 0 || rock < 0 || wet < 0 ||
        scl_fdtd_add_poles(m, wet, SCL_FDTD_DEBYE, 1, debye, err, sizeof err) != SCL_OK) {
        CHECK(0, "materials: %s", err);
        return -1;
    }
    int a0[3] = {0, 0, 0}, a1[3] = {NX, NY, 3}, b0[3] = {3, 2, 2}, b1[3] = {7, 6, 5};
    int c0[3] = {5, 4, 3}, c1[3] = {6, 5, 4}, d0[3] = {1, 5, 1}, d1[3] = {4, 8, 5};
    scl_fdtd_fill_box(m, a0, a1, soil, 1);
    scl_fdtd_fill_box(m, b0, b1, rock, 0);
    scl_fdtd_fill_box(m, c0, c1, 0, 1); /* pec */
    scl_fdtd_fill_box(m, d0, d1, wet, 0);
    m->nwave = 1;
    m->wave = calloc(1, sizeof *m->wave);
    m->nsrc = 2;
    m->src = calloc(2, sizeof *m->src);
    m->nrx = 4;
    m->rx_name = calloc(4, sizeof *m->rx_name);
    m->rx_ijk = calloc(4, sizeof *m->rx_ijk);
    m->rx_pos = calloc(4, sizeof *m->rx_pos);
    if (!m->wave || !m->src || !m->rx_name || !m->rx_ijk || !m->rx_pos)
        return -1;
    m->wave[0].w = (scl_wavelet){SCL_WAVE_RICKER, 1, 2e10, 0, 0};
    /* on cuts of 3 slabs along x (4,3,3: x = 4, 7), y (3,3,3: 3, 6), z (3,2,2: 3, 5) */
    m->src[0] = (scl_fdtd_source){SCL_FDTD_HERTZIAN, 2, {4, 3, 3}, {0, 0, 0}, 0, 0, -1, 0};
    m->src[1] = (scl_fdtd_source){SCL_FDTD_HERTZIAN, 0, {7, 6, 5}, {0, 0, 0}, 0, 0, -1, 0};
    int rx[4][3] = {{4, 6, 5}, {7, 3, 3}, {2, 2, 2}, {NX - 1, NY, NZ}};
    for (int r = 0; r < 4; r++) {
        memcpy(m->rx_ijk[r], rx[r], sizeof rx[r]);
        snprintf(m->rx_name[r], sizeof m->rx_name[r], "rx%d", r + 1);
    }
    m->iterations = STEPS;
    if (scl_fdtd_model_finish(m, err, sizeof err) != SCL_OK) {
        CHECK(0, "finish: %s", err);
        return -1;
    }
    return 0;
}

typedef struct {
    scl_fdtd **f;
    int p;
} link_t;

/* H of the slab below into this one's plane -1, after this one's H update
 * (the slab below has run the step already). */
static scl_status pull_h(void *user, scl_fdtd *f, int field)
{
    link_t *l = user;
    if (field != 1 || l->p == 0)
        return SCL_OK;
    size_t n = scl_fdtd_halo_bytes(f);
    void *buf = malloc(n);
    scl_status s = buf ? scl_fdtd_halo_read(l->f[l->p - 1], 1, buf) : SCL_ERR_MEMORY;
    if (s == SCL_OK)
        s = scl_fdtd_halo_write(f, 1, buf);
    free(buf);
    return s;
}

/* E of the slab above (not yet stepped: E of this step) into plane n. */
static scl_status pull_e(scl_fdtd **f, int p, int parts)
{
    if (p == parts - 1)
        return SCL_OK;
    size_t n = scl_fdtd_halo_bytes(f[p]);
    void *buf = malloc(n);
    scl_status s = buf ? scl_fdtd_halo_read(f[p + 1], 0, buf) : SCL_ERR_MEMORY;
    if (s == SCL_OK)
        s = scl_fdtd_halo_write(f[p], 0, buf);
    free(buf);
    return s;
}

/* Owned points of slab sm (cells [lo, lo + n) along axis, the last slab
 * also its closing plane) against the whole run's arrays. */
static long compare_fields(const scl_fdtd_model *gm, const scl_fdtd_model *sm, int axis, int lo,
                           int last, double *const whole[6], scl_fdtd *f, double *buf)
{
    long bad = 0;
    const scl_grid3d *g = &gm->grid, *s = &sm->grid;
    int n[3] = {s->nx, s->ny, s->nz}, sh[3] = {0, 0, 0};
    sh[axis] = lo;
    int top[3] = {n[0], n[1], n[2]};
    top[axis] = last ? n[axis] : n[axis] - 1;
    for (int c = 0; c < 6; c++) {
        if (scl_fdtd_get(f, c, buf) != SCL_OK)
            return -1;
        for (int k = 0; k <= top[2]; k++)
            for (int j = 0; j <= top[1]; j++)
                for (int i = 0; i <= top[0]; i++) {
                    double a = buf[scl_grid3d_index(s, i, j, k)];
                    double b = whole[c][scl_grid3d_index(g, i + sh[0], j + sh[1], k + sh[2])];
                    bad += memcmp(&a, &b, sizeof a) != 0;
                }
    }
    return bad;
}

static long compare_rx(const scl_receivers *whole, const scl_receivers *part, const int *index)
{
    long bad = 0;
    for (int r = 0; r < part->n; r++)
        for (int c = 0; c < 6; c++)
            bad += memcmp(scl_receivers_series(part, r, c), scl_receivers_series(whole, index[r], c),
                          STEPS * sizeof(double)) != 0;
    return bad;
}

/* The model cut into parts slabs along axis, stepped in lockstep. */
static void split_run(scl_context *ctx, const scl_fdtd_model *gm, const scl_fdtd_options *o,
                      int axis, int parts, double *const whole[6], const scl_receivers *wrx)
{
    scl_fdtd_model sm[MAX_PARTS];
    scl_fdtd *f[MAX_PARTS] = {0};
    int *index[MAX_PARTS] = {0}, lo[16], cnt[16], N = axis == 0 ? NX : axis == 1 ? NY : NZ, ok = 1;
    char err[1024];
    for (int p = 0; p < parts; p++) {
        cnt[p] = N / parts + (p < N % parts);
        lo[p] = p * (N / parts) + (p < N % parts ? p : N % parts);
        memset(&sm[p], 0, sizeof sm[p]);
        scl_status s = scl_fdtd_model_subdomain(gm, axis, lo[p], cnt[p], &sm[p], &index[p], err, sizeof err);
        CHECK(s == SCL_OK, "subdomain %d: %s", p, err);
        if (s == SCL_OK)
            CHECK_OK(ctx, s = scl_fdtd_create(ctx, &sm[p], o, &f[p]));
        ok &= s == SCL_OK;
    }
    for (long t = 0; t < STEPS && ok; t++)
        for (int p = 0; p < parts && ok; p++) {
            link_t l = {f, p};
            scl_status s = pull_e(f, p, parts);
            if (s == SCL_OK)
                s = scl_fdtd_run_exchange(f[p], 1, pull_h, &l);
            CHECK_OK(ctx, s);
            ok = s == SCL_OK;
        }
    long pts = scl_grid3d_points(&gm->grid), bad = 0, rbad = 0;
    double *buf = malloc((size_t)pts * sizeof *buf);
    for (int p = 0; p < parts && ok && buf; p++) {
        bad += compare_fields(gm, &sm[p], axis, lo[p], p == parts - 1, whole, f[p], buf);
        scl_receivers rx = {0};
        if (scl_receivers_create(&rx, sm[p].nrx, 6, STEPS, err, sizeof err) == SCL_OK &&
            scl_fdtd_read_receivers(f[p], &rx) == SCL_OK)
            rbad += compare_rx(wrx, &rx, index[p]);
        else
            rbad++;
        scl_receivers_free(&rx);
    }
    if (ok)
        CHECK(bad == 0 && rbad == 0, "%s, %d slabs along %c: %ld field points and %ld receiver "
              "series differ from the whole run's", o->fp64 ? "fp64" : "fp32", parts, "xyz"[axis],
              bad, rbad);
    free(buf);
    for (int p = 0; p < parts; p++) {
        scl_fdtd_free(f[p]);
        scl_fdtd_model_free(&sm[p]);
        free(index[p]);
    }
}

typedef struct overlap_run overlap_run;
typedef struct {
    overlap_run *run;
    int p;
    scl_fdtd *f;
    scl_status s;
} slab_thread;
struct overlap_run {
    int parts;
    size_t bytes;
    char *down[MAX_PARTS], *up[MAX_PARTS]; /* E planes going down, H planes going up */
    pthread_barrier_t barrier;
    slab_thread t[MAX_PARTS];
};

/* The transport of a slab's thread: its plane into its mailbox, then the
 * neighbour's (E from above, H from below) once every slab has posted. */
static scl_status mailbox(void *user, int field, const void *send, void *recv)
{
    slab_thread *t = user;
    overlap_run *r = t->run;
    char **box = field ? r->up : r->down;
    int from = field ? t->p - 1 : t->p + 1;
    memcpy(box[t->p], send, r->bytes);
    pthread_barrier_wait(&r->barrier);
    if (from >= 0 && from < r->parts)
        memcpy(recv, box[from], r->bytes);
    pthread_barrier_wait(&r->barrier); /* read before the next post */
    return SCL_OK;
}

/* A context per slab as test_context makes it, but keeping the kernel
 * cache its first call emptied (the slabs build the same programs). */
static scl_context *slab_context(void)
{
    static scl_env_options env;
    memset(&env, 0, sizeof env);
    scl_env_options_read(&env);
    char err[1024];
    scl_context *ctx = NULL;
    if (scl_context_create(&env.context, &ctx, err, sizeof err) != SCL_OK)
        CHECK(0, "context: %s", err);
    return ctx;
}

static void *slab_main(void *arg)
{
    slab_thread *t = arg;
    t->s = scl_fdtd_run_overlap(t->f, STEPS, mailbox, t);
    return NULL;
}

/* The model cut into parts slabs along axis, each on its own context and
 * thread, halos swapped behind the interior updates. */
static void overlap_split(const scl_fdtd_model *gm, const scl_fdtd_options *o, int axis, int parts,
                          double *const whole[6], const scl_receivers *wrx)
{
    static overlap_run r;
    scl_fdtd_model sm[MAX_PARTS];
    scl_context *ctx[MAX_PARTS] = {0};
    int *index[MAX_PARTS] = {0}, lo[MAX_PARTS], N = axis == 0 ? NX : axis == 1 ? NY : NZ, ok = 1;
    char err[1024];
    memset(&r, 0, sizeof r);
    r.parts = parts;
    for (int p = 0; p < parts && ok; p++) {
        int cnt = N / parts + (p < N % parts);
        lo[p] = p * (N / parts) + (p < N % parts ? p : N % parts);
        memset(&sm[p], 0, sizeof sm[p]);
        ok = scl_fdtd_model_subdomain(gm, axis, lo[p], cnt, &sm[p], &index[p], err, sizeof err) == SCL_OK;
        CHECK(ok, "subdomain %d: %s", p, err);
        ctx[p] = ok ? slab_context() : NULL;
        ok = ctx[p] != NULL;
        r.t[p] = (slab_thread){&r, p, NULL, SCL_OK};
        if (ok)
            CHECK_OK(ctx[p], r.t[p].s = scl_fdtd_create(ctx[p], &sm[p], o, &r.t[p].f));
        ok = ok && r.t[p].s == SCL_OK;
        r.bytes = ok ? scl_fdtd_halo_bytes(r.t[p].f) : 0;
        ok = ok && (r.down[p] = malloc(r.bytes)) && (r.up[p] = malloc(r.bytes));
    }
    if (ok) {
        pthread_t th[MAX_PARTS];
        pthread_barrier_init(&r.barrier, NULL, (unsigned)parts);
        for (int p = 0; p < parts; p++)
            pthread_create(&th[p], NULL, slab_main, &r.t[p]);
        for (int p = 0; p < parts; p++)
            pthread_join(th[p], NULL);
        pthread_barrier_destroy(&r.barrier);
        for (int p = 0; p < parts; p++) {
            CHECK(r.t[p].s == SCL_OK, "overlapped slab %d: %s", p, scl_last_error(ctx[p]));
            ok = ok && r.t[p].s == SCL_OK;
        }
    }
    long pts = scl_grid3d_points(&gm->grid), bad = 0, rbad = 0;
    double *buf = malloc((size_t)pts * sizeof *buf);
    for (int p = 0; p < parts && ok && buf; p++) {
        bad += compare_fields(gm, &sm[p], axis, lo[p], p == parts - 1, whole, r.t[p].f, buf);
        scl_receivers rx = {0};
        if (scl_receivers_create(&rx, sm[p].nrx, 6, STEPS, err, sizeof err) == SCL_OK &&
            scl_fdtd_read_receivers(r.t[p].f, &rx) == SCL_OK)
            rbad += compare_rx(wrx, &rx, index[p]);
        else
            rbad++;
        scl_receivers_free(&rx);
    }
    if (ok)
        CHECK(bad == 0 && rbad == 0, "%s, %d slabs along %c overlapped: %ld field points and %ld "
              "receiver series differ from the whole run's", o->fp64 ? "fp64" : "fp32", parts,
              "xyz"[axis], bad, rbad);
    free(buf);
    for (int p = 0; p < parts; p++) {
        scl_fdtd_free(r.t[p].f);
        if (ctx[p])
            scl_context_free(ctx[p]);
        scl_fdtd_model_free(&sm[p]);
        free(index[p]);
        free(r.down[p]);
        free(r.up[p]);
    }
}

static void precision(scl_context *ctx, const scl_fdtd_model *m, int fp64)
{
    scl_fdtd_options o = {.fp64 = fp64, .no_tune = 1, .kernel = SCL_FDTD_SEPARATE};
    scl_fdtd *w = NULL;
    scl_status s;
    CHECK_OK(ctx, s = scl_fdtd_create(ctx, m, &o, &w));
    if (s != SCL_OK)
        return;
    long pts = scl_grid3d_points(&m->grid);
    double *whole[6] = {0};
    scl_receivers wrx = {0};
    char err[512];
    int ok = scl_receivers_create(&wrx, m->nrx, 6, STEPS, err, sizeof err) == SCL_OK;
    CHECK_OK(ctx, s = scl_fdtd_run(w, STEPS));
    ok &= s == SCL_OK && scl_fdtd_read_receivers(w, &wrx) == SCL_OK;
    for (int c = 0; c < 6 && ok; c++)
        ok = (whole[c] = malloc((size_t)pts * sizeof(double))) && scl_fdtd_get(w, c, whole[c]) == SCL_OK;
    double peak = 0;
    for (long i = 0; ok && i < pts; i++)
        peak = fabs(whole[2][i]) > peak ? fabs(whole[2][i]) : peak;
    CHECK(ok && peak > 0, "the whole run has a field (peak |Ez| %g)", peak);
    static const int cuts[][2] = {{0, 3}, {1, 3}, {2, 3}, {0, 2}, {1, 4}, {2, NZ}};
    for (size_t q = 0; ok && q < sizeof cuts / sizeof *cuts; q++)
        split_run(ctx, m, &o, cuts[q][0], cuts[q][1], whole, &wrx);
    static const int ocuts[][2] = {{0, 4}, {1, 3}, {2, NZ}};
    for (size_t q = 0; ok && q < sizeof ocuts / sizeof *ocuts; q++)
        overlap_split(m, &o, ocuts[q][0], ocuts[q][1], whole, &wrx);
    for (int c = 0; c < 6; c++)
        free(whole[c]);
    scl_receivers_free(&wrx);
    scl_fdtd_free(w);
}

int main(void)
{
    scl_context *ctx = test_context();
    scl_fdtd_model m;
    if (build(&m) == 0) {
        precision(ctx, &m, 0);
        if (scl_device(ctx)->fp64)
            precision(ctx, &m, 1);
        else
            SKIP("fp64: device %s has none", scl_device(ctx)->name);
        /* refusals: the fused kernel on a slab, a periodic axis cut */
        scl_fdtd_model sm;
        int *index = NULL;
        char err[512];
        if (scl_fdtd_model_subdomain(&m, 0, 0, 4, &sm, &index, err, sizeof err) == SCL_OK) {
            scl_fdtd_options o = {.no_tune = 1, .kernel = SCL_FDTD_FUSED};
            scl_fdtd *f = NULL;
            CHECK(scl_fdtd_create(ctx, &sm, &o, &f) == SCL_ERR_UNSUPPORTED &&
                      strstr(scl_last_error(ctx), "separate kernels"),
                  "fused on a slab: %s", scl_last_error(ctx));
            scl_fdtd_free(f);
            scl_fdtd_model_free(&sm);
            free(index);
        }
        m.periodic[1] = 1;
        CHECK(scl_fdtd_model_subdomain(&m, 1, 0, 4, &sm, &index, err, sizeof err) == SCL_ERR_UNSUPPORTED &&
                  strstr(err, "periodic"), "periodic cut: %s", err);
        m.periodic[1] = 0;
    }
    scl_fdtd_model_free(&m);
    scl_context_free(ctx);
    return test_summary("fdtd_subdomain");
}
