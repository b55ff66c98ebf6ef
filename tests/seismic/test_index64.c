/* Grids above 2^31 points (issue 24): the update kernels address a launch
 * from a 64-bit base at its first plane and keep 32-bit indices within it,
 * the host caps a launch's planes (seis_launch_planes) and splits boxes.
 *
 * 1. Index arithmetic of large layouts, without allocating them: for a
 *    4096^3 and a 1024^3 + CPML layout, every launch the split makes keeps
 *    the extreme indices its work-items form (stencils 2 planes beyond,
 *    surface images 4 behind, work-items past the box) inside 32 bits,
 *    and base + index is the cell's 64-bit index.
 * 2. On the device, a small heterogeneous model with CPML, a free surface
 *    and sources, each scheme with launches forced (plan planes=) to 1, 2,
 *    3 and 5 planes
 *    (so many launches, most from a nonzero base): traces and all nine
 *    fields bitwise equal to the run in whole launches, fp32 and fp64; the
 *    separate scheme also with the CPML shell (cpml=1). */
#include "seis_test.h"
#include "seismic/internal.h"

#include <limits.h>

/* The kernels' in-launch index of cell (i, j, k) from plane zb, as 64-bit
 * (the test checks that it fits 32). */
static long long in_launch(const seis_layout *g, long long i, long long j, long long k, int zb)
{
    return g->origin + i + j * g->sy + (k - zb) * g->sz;
}

static void layout_case(int nx, int ny, int nz)
{
    seis_layout g;
    char err[256];
    const scl_status st = seis_layout_init(&g, nx, ny, nz, 1.0, err, sizeof err);
    CHECK(st == SCL_OK, "%d x %d x %d layout: %s", nx, ny, nz, err);
    if (st != SCL_OK)
        return;
    const int most = seis_launch_planes(&g);
    CHECK(most >= 1, "%d x %d x %d: no plane fits a launch", nx, ny, nz);
    if (most < 1)
        return;
    const int kz = 16, chunk = most >= kz ? most / kz * kz : most;
    int launches = 0, covered = 0, bad = 0;
    for (int z0 = 0; z0 < nz; z0 += chunk, launches++) {
        const int z1 = nz - z0 > chunk ? z0 + chunk : nz;
        covered += z1 - z0;
        /* the corners of what the launch's work-items touch: x from the
         * aligned start less 2 to a work-group past the row, y likewise,
         * z 4 planes behind (surface images) to 2 beyond (stencils) */
        const long long xi[2] = {-SEIS_ALIGN - 2, g.px + 1024};
        const long long yj[2] = {-2, g.py + 1024};
        const long long zk[2] = {z0 - 4, z1 + 2};
        for (int c = 0; c < 8; c++) {
            const long long v = in_launch(&g, xi[c & 1], yj[(c >> 1) & 1], zk[c >> 2], z0);
            bad += v > INT_MAX || v < INT_MIN;
        }
        /* base + in-launch index is the cell's index, at the launch's last cell */
        const long long base = (long long)z0 * g.sz;
        const int li = (int)in_launch(&g, nx - 1, ny - 1, z1 - 1, z0);
        bad += base + li != seis_index(&g, nx - 1, ny - 1, z1 - 1);
    }
    CHECK(bad == 0, "%d x %d x %d: %d extreme in-launch indices outside 32 bits", nx, ny, nz, bad);
    CHECK(covered == nz, "%d x %d x %d: launches cover %d of %d planes", nx, ny, nz, covered, nz);
    printf("%d x %d x %d: %ld padded points (2^31 = %ld), %d planes per launch, %d launches\n", nx,
           ny, nz, g.n, 2147483648L, most, launches);
}

/* The model, sources and receivers of the device comparison. */
typedef struct {
    scl_seis_model m;
    scl_seis_source src[3];
    scl_seis_receiver rec[4];
    scl_seis_config c;
} setup;

static void make_setup(setup *t, int fused, int fp64, uint64_t *rng)
{
    const int nx = 21, ny = 18, nz = 17;
    seis_homogeneous(&t->m, nx, ny, nz, 3, 2500, 1300, 2200);
    for (size_t q = 0; q < (size_t)nx * ny * nz; q++) {
        t->m.vp[q] *= (float)(1 + 0.4 * test_uniform(rng));
        t->m.vs[q] *= (float)(0.6 + 0.4 * test_uniform(rng));
        t->m.rho[q] *= (float)(1 + 0.5 * test_uniform(rng));
    }
    const scl_seis_source src[3] = {
        {.kind = SCL_SEIS_EXPLOSIVE, .i = nx / 3, .j = ny / 3, .k = nz / 2,
         .wavelet = {SCL_WAVE_GAUSSIAN, 1e7, 15, 0.015, 1}},
        {.kind = SCL_SEIS_MOMENT, .i = 2 * nx / 3, .j = ny / 2, .k = nz / 3,
         .m = {0.2, -0.4, 0.3, 1, -0.7, 0.5}, .wavelet = {SCL_WAVE_RICKER, 1e7, 20, 0.01, 1}},
        /* a force source only where the scheme takes one (not fused) */
        {.kind = SCL_SEIS_FORCE, .i = nx / 2, .j = ny / 2, .k = 0, .dir = {0.3, -0.2, 1},
         .wavelet = {SCL_WAVE_RICKER, 1e6, 18, 0.02, 1}}};
    const scl_seis_receiver rec[4] = {{0, 0, 0}, {nx - 1, ny - 1, nz - 1}, {nx / 2, 2, 1}, {5, ny / 2, 6}};
    memcpy(t->src, src, sizeof src);
    memcpy(t->rec, rec, sizeof rec);
    t->c = (scl_seis_config){.order = 4, .pml = 4, .free_surface = 1, .fp64 = fp64,
                             .sources = t->src, .nsources = fused ? 2 : 3,
                             .receivers = t->rec, .nreceivers = 4, .steps = 30};
    t->c.dt = 0.95 * scl_seis_dt_max(&t->m, 4);
}

/* Run with at most `planes` z planes per launch (the plan's planes=; 0:
 * whole); the traces and the nine fields (malloc'd). */
static int run(scl_context *ctx, const setup *t, const char *plan, int planes, float **tr,
               double **fields)
{
    char force[128];
    snprintf(force, sizeof force, "%s,planes=%d", plan, planes);
    const scl_seis_options opt = {.tune = 0, .force = force};
    scl_seis *s = NULL;
    const scl_status st = scl_seis_create(ctx, &t->m, &t->c, &opt, &s);
    CHECK(st == SCL_OK, "%s, launch_planes %d: %s", plan, planes, scl_last_error(ctx));
    if (st != SCL_OK)
        return -1;
    const size_t nt = 4 * SCL_SEIS_NCOMP * (size_t)t->c.steps;
    const size_t cells = (size_t)t->m.nx * t->m.ny * t->m.nz;
    *tr = calloc(nt, sizeof **tr);
    *fields = calloc(9 * cells, sizeof **fields);
    int ok = *tr && *fields && scl_seis_step(s, t->c.steps) == SCL_OK &&
             scl_seis_traces(s, *tr) == SCL_OK;
    for (int f = 0; f < 9 && ok; f++)
        ok = scl_seis_read_field(s, f, *fields + (size_t)f * cells) == SCL_OK;
    CHECK(ok, "%s, launch_planes %d: run: %s", plan, planes, scl_last_error(ctx));
    scl_seis_free(s);
    return ok ? 0 : -1;
}

static void device_case(scl_context *ctx, const char *plan, int fp64, uint64_t *rng)
{
    const char *fu = strstr(plan, "fused=");
    setup t;
    make_setup(&t, fu && fu[6] != '0', fp64, rng);
    const size_t nt = 4 * SCL_SEIS_NCOMP * (size_t)t.c.steps;
    const size_t cells = (size_t)t.m.nx * t.m.ny * t.m.nz;
    float *tr0 = NULL;
    double *f0 = NULL;
    if (run(ctx, &t, plan, 0, &tr0, &f0) == 0) {
        double peak = 0;
        for (size_t q = 0; q < nt; q++)
            peak = test_max(peak, fabs(tr0[q]));
        CHECK(peak > 0, "%s: the traces are zero (nothing excited?)", plan);
        static const int planes[4] = {1, 2, 3, 5};
        for (int p = 0; p < 4; p++) {
            float *tr = NULL;
            double *f = NULL;
            if (run(ctx, &t, plan, planes[p], &tr, &f) == 0) {
                CHECK(!memcmp(tr, tr0, nt * sizeof *tr), "%s %s, launches of %d planes: traces differ "
                      "from whole launches", plan, fp64 ? "fp64" : "fp32", planes[p]);
                for (int c = 0; c < 9; c++)
                    CHECK(!memcmp(f + (size_t)c * cells, f0 + (size_t)c * cells, cells * sizeof *f),
                          "%s %s, launches of %d planes: field %d differs from whole launches", plan,
                          fp64 ? "fp64" : "fp32", planes[p], c);
            }
            free(tr);
            free(f);
        }
        printf("%s %s: launches of 1, 2, 3, 5 planes bitwise equal to whole launches\n", plan,
               fp64 ? "fp64" : "fp32");
    }
    free(tr0);
    free(f0);
    scl_seis_model_release(&t.m);
}

int main(void)
{
    /* a 4096^3 model (6.9e10 points: 37 launches of 112 planes) and 1024^3 with
     * CPML 10 (above the old 2^31 / 2 refusal) */
    layout_case(4096, 4096, 4096);
    layout_case(1044, 1044, 1044);
    layout_case(16, 16, 16);
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    /* the last: the CPML shell (its interior launches split, the shell one launch) */
    static const char *plans[] = {"fused=0,lx=16,ly=4,kz=1", "fused=0,lx=16,ly=4,kz=4",
                                  "fused=1,lx=16,ly=4,kz=3", "fused=2,lx=16,ly=4,kz=2",
                                  "fused=0,cpml=1,lx=16,ly=4,kz=2"};
    for (int p = 0; p < 5; p++)
        device_case(ctx, plans[p], 0, &rng);
    if (scl_device(ctx)->fp64)
        for (int p = 0; p < 5; p += 2)
            device_case(ctx, plans[p], 1, &rng);
    else
        SKIP("no fp64 on %s: the fp64 cases", scl_device(ctx)->name);
    scl_context_free(ctx);
    return test_summary("seismic_index64");
}
