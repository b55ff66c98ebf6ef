/* The OpenCL solver against the C reference on a random heterogeneous model
 * of awkward size, with a free surface, CPML, a fluid patch (vs = 0) and all
 * three source kinds, at 2nd and 4th order, through the separate kernels;
 * then without the force source through the fused scheme (interior in one
 * kernel, two buffer sets; neighbours' velocities recomputed, fused=1, or
 * shared in local memory, fused=2, its stress loads early or late): receiver traces and every field after
 * the run (CPML 4, free surface; the separate scheme also with rigid walls
 * and with CPML on every face). The separate scheme's CPML shell (cpml=1:
 * interior kernels everywhere below the surface rows, then the CPML terms
 * added over the slab cells) the same way, with a surface and with CPML on
 * all six faces (its corners: cells in two and three slabs).
 * Each scheme runs with the default plan and with work-groups that do not
 * divide the grid and z walks (kz planes per work-item) of 1 and of sizes
 * that do not divide the boxes. FP64: relative max difference <= 1e-10 (same operations,
 * the order of additions may differ by contraction); FP32: <= 2e-4 of the
 * field's peak (single rounding over ~100 steps). */
#include "seis_test.h"

static void compare(scl_context *ctx, int order, int fp64, const char *plan, long steps,
                    int pml, int free_surface, uint64_t *rng)
{
    const char *fu = strstr(plan, "fused=");
    const int fused = fu ? fu[6] - '0' : 0;
    const int nx = 19 + (int)(10 * test_uniform(rng)), ny = 17 + (int)(6 * test_uniform(rng)), nz = 15 + 3 * fused;
    scl_seis_model m;
    seis_homogeneous(&m, nx, ny, nz, 3, 2500, 1300, 2200);
    for (size_t q = 0; q < (size_t)nx * ny * nz; q++) {
        m.vp[q] *= (float)(1 + 0.4 * test_uniform(rng));
        m.vs[q] *= (float)(0.6 + 0.4 * test_uniform(rng));
        m.rho[q] *= (float)(1 + 0.5 * test_uniform(rng));
    }
    for (int k = 5; k < 8; k++) /* a fluid patch */
        for (int j = 3; j < 7; j++)
            for (int i = 4; i < 9; i++)
                m.vs[i + nx * (j + ny * k)] = 0;
    scl_seis_source src[3] = {
        {.kind = SCL_SEIS_FORCE, .i = nx / 2, .j = ny / 2, .k = 0, .dir = {0.3, -0.2, 1},
         .wavelet = {SCL_WAVE_RICKER, 1e6, 18, 0.02, 1}},
        {.kind = SCL_SEIS_EXPLOSIVE, .i = nx / 3, .j = ny / 3, .k = nz / 2,
         .wavelet = {SCL_WAVE_GAUSSIAN, 1e7, 15, 0.015, 1}},
        {.kind = SCL_SEIS_MOMENT, .i = 2 * nx / 3, .j = ny / 2, .k = nz / 3,
         .m = {0.2, -0.4, 0.3, 1, -0.7, 0.5}, .wavelet = {SCL_WAVE_RICKER, 1e7, 20, 0.01, 1}}};
    scl_seis_receiver rec[4] = {{0, 0, 0}, {nx - 1, ny - 1, nz - 1}, {nx / 2, 2, 1}, {5, ny / 2, 6}};
    scl_seis_config c = {.order = order, .pml = pml, .free_surface = free_surface, .fp64 = fp64,
                         .sources = fused ? src + 1 : src, .nsources = fused ? 2 : 3,
                         .receivers = rec, .nreceivers = 4};
    c.dt = 0.95 * scl_seis_dt_max(&m, order);
    c.steps = steps + (long)(steps / 3 * test_uniform(rng));
    char err[1024];
    scl_seis_ref *r = NULL;
    CHECK(scl_seis_ref_create(&m, &c, 1, &r, err, sizeof err) == SCL_OK, "reference: %s", err);
    scl_seis *s = NULL;
    float *tr = seis_run_forced(ctx, &m, &c, plan, &s);
    CHECK(!s || scl_seis_fused(s) == fused, "scheme %d", fused);
    const int shell = strstr(plan, "cpml=1") != NULL;
    CHECK(!s || scl_seis_cpml_shell(s) == shell, "%s: CPML shell %d", plan, shell);
    if (!r || !tr) {
        free(tr);
        scl_seis_free(s);
        scl_seis_ref_free(r);
        scl_seis_model_release(&m);
        return;
    }
    scl_seis_ref_step(r, c.steps);
    const double tol = fp64 ? 1e-10 : 2e-4;
    const size_t nt = 4 * SCL_SEIS_NCOMP * (size_t)c.steps, cells = (size_t)nx * ny * nz;
    float *rt = malloc(nt * sizeof(float));
    scl_seis_ref_traces(r, rt);
    /* per unit: velocities (m/s) against the peak of velocities, pressure
     * (Pa, ~rho*c larger) against its own, each trace by its own check (vx
     * and vy swapped in the record kernel passed a peak that p set) */
    const size_t ns = (size_t)c.steps;
    double vpeak = 0, ppeak = 0, peak = 0, diff = 0;
    for (size_t q = 0; q < nt; q++) {
        int comp = (int)(q / ns % SCL_SEIS_NCOMP);
        if (comp == SCL_SEIS_P)
            ppeak = test_max(ppeak, fabs(rt[q]));
        else
            vpeak = test_max(vpeak, fabs(rt[q]));
    }
    CHECK(vpeak > 0 && ppeak > 0, "order %d traces: peaks v %g p %g (nothing excited?)", order,
          vpeak, ppeak);
    static const char *comp_name[SCL_SEIS_NCOMP] = {"vx", "vy", "vz", "p"};
    for (int rcv = 0; rcv < 4; rcv++)
        for (int comp = 0; comp < SCL_SEIS_NCOMP; comp++) {
            const size_t at = ((size_t)rcv * SCL_SEIS_NCOMP + (size_t)comp) * ns;
            const double scale = comp == SCL_SEIS_P ? ppeak : vpeak;
            char field[96];
            snprintf(field, sizeof field, "order %d %s %s receiver %d %s", order,
                     fp64 ? "fp64" : "fp32", plan, rcv, comp_name[comp]);
            CHECK_CLOSE_ARRAYF(field, ns, tr + at, rt + at, 0, tol * scale);
            for (size_t q = 0; q < ns; q++)
                diff = test_max(diff, test_absdiff(tr[at + q], rt[at + q]) / scale);
        }
    peak = 1; /* diff above is relative to each field's peak */
    printf("order %d %s %s pml %d surface %d %dx%dx%d %ld steps: traces max diff / peak %.3e\n", order,
           fp64 ? "fp64" : "fp32", plan, pml, free_surface, nx, ny, nz, c.steps, diff / peak);
    double *a = malloc(cells * sizeof(double)), *b = malloc(cells * sizeof(double));
    for (int f = 0; f < 9; f++) {
        CHECK_OK(ctx, scl_seis_read_field(s, f, a));
        scl_seis_ref_field(r, f, b);
        char field[64];
        snprintf(field, sizeof field, "order %d %s field %d", order, fp64 ? "fp64" : "fp32", f);
        CHECK(test_peak_n((long)cells, test_get_double, b) > 0, "%s is zero everywhere", field);
        CHECK_CLOSE_PEAK(field, cells, a, b, tol);
    }
    free(a);
    free(b);
    free(rt);
    free(tr);
    scl_seis_free(s);
    scl_seis_ref_free(r);
    scl_seis_model_release(&m);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    /* every scheme at both orders in fp32 and fp64, 70-93 steps */
    static const char *plans[] = {"fused=0", "fused=1", "fused=2,lx=16,ly=4,kz=3"};
    for (int p = 0; p < 3; p++)
        for (int order = 2; order <= 4; order += 2) {
            compare(ctx, order, 0, plans[p], 70, 4, 1, &rng);
            if (scl_device(ctx)->fp64)
                compare(ctx, order, 1, plans[p], 70, 4, 1, &rng);
            else
                SKIP("no fp64 on %s: fp64 comparison", scl_device(ctx)->name); /* exit 77 */
        }
    /* walks of 1 and of odd depths, each scheme at both orders, fp32, fewer
     * steps (they exercise tile edges and walk ends, which any step shows);
     * one odd work-group shape, 16x4 (2 groups across x, 2-4 across y),
     * since PoCL compiles every kernel again for each shape */
    static const struct {
        const char *plan;
        int order;
    } odd[] = {{"fused=0,lx=16,ly=4,kz=1", 2}, {"fused=0,lx=16,ly=4,kz=7", 4},
               {"fused=1,lx=16,ly=4,kz=1", 4}, {"fused=1,lx=16,ly=4,kz=5", 2},
               {"fused=2,lx=16,ly=4,kz=1", 2}, {"fused=2,lx=16,ly=4,kz=4", 4},
               /* fused local with its stress loads after the barrier */
               {"fused=2,lx=16,ly=4,kz=3,early=0", 2}, {"fused=2,lx=16,ly=4,kz=1,early=0", 4}};
    for (size_t q = 0; q < sizeof odd / sizeof odd[0]; q++)
        compare(ctx, odd[q].order, 0, odd[q].plan, 40, 4, 1, &rng);
    /* the separate scheme's interior kernels over the whole grid (rigid
     * walls: no CPML, no surface, so no boundary box) and with slabs on
     * every face but no surface rows */
    compare(ctx, 2, 0, "fused=0,lx=16,ly=4,kz=3", 40, 0, 0, &rng);
    compare(ctx, 4, 0, "fused=0,lx=16,ly=2,kz=1", 40, 3, 0, &rng);
    /* the CPML shell: fp32 and fp64, both orders, surface (a force source
     * at it) and CPML on all six faces; uneven sizes (19-28 x 17-22 x 15) */
    for (int order = 2; order <= 4; order += 2)
        for (int fp64 = 0; fp64 <= (scl_device(ctx)->fp64 ? 1 : 0); fp64++) {
            compare(ctx, order, fp64, "fused=0,cpml=1", 50, 4, 1, &rng);
            compare(ctx, order, fp64, "fused=0,cpml=1,lx=16,ly=4,kz=3", 40, 3, 0, &rng);
        }
    scl_context_free(ctx);
    return test_summary("seismic_vs_reference");
}
