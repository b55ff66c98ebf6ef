/* CPML reflection: an explosive source and a receiver 4 cells from the inner
 * face of a 10-cell CPML, against the same source and receiver in a grid
 * large enough that nothing comes back within the window. The largest
 * difference over the window, relative to the largest direct value, is the
 * reflection: <= -40 dB (measured -61 dB). With 2 CPML cells it must
 * be worse than -40 dB (the test can fail). The same through the separate
 * scheme's CPML shell (plan cpml=1), whose run must agree with the default
 * plan's, and be refused where the shell cannot run (no CPML). */
#include "seis_test.h"

static double reflection_db(scl_context *ctx, int pml, int order, const char *plan)
{
    const double vp = 3000, vs = vp / 1.8, rho = 2500, h = 2, f = vs / (2.5 * 5.2 * h);
    const int d = 6, gap = 4;               /* source-receiver, receiver-CPML cells */
    const double delay = 1.0 / f;
    const double window = 2 * delay + (d + 2 * gap) * h / vp; /* reflection fully in */
    /* the big grid's own walls: the reflection off its nearest CPML face
     * (path d + 2 gap + 2 extra cells) starts after the window closes */
    const int half_small = d + gap + pml, extra = (int)ceil((window * vp / h - d - 2 * gap) / 2) + 2;
    double ref_peak = 0, diff = 0;
    float *tr[2] = {NULL, NULL};
    scl_seis_config c[2];
    for (int big = 0; big < 2; big++) {
        const int half = big ? half_small + extra : half_small, n = 2 * half;
        scl_seis_model m;
        seis_homogeneous(&m, n, n, n, h, vp, vs, rho);
        static scl_seis_source src[2];
        static scl_seis_receiver rec[2];
        src[big] = (scl_seis_source){.kind = SCL_SEIS_EXPLOSIVE, .i = half, .j = half, .k = half,
                                     .wavelet = {SCL_WAVE_RICKER, 1e9, f, delay, 1}};
        rec[big] = (scl_seis_receiver){half + d, half + 1, half};
        c[big] = (scl_seis_config){.order = order, .pml = big ? 10 : pml, .sources = &src[big],
                                   .nsources = 1, .receivers = &rec[big], .nreceivers = 1};
        c[big].dt = 0.9 * scl_seis_dt_max(&m, order);
        c[big].steps = (long)(window / c[big].dt);
        tr[big] = seis_run_forced(ctx, &m, &c[big], plan, NULL);
        scl_seis_model_release(&m);
    }
    if (tr[0] && tr[1])
        for (long q = 0; q < c[0].steps; q++)
            for (int a = 0; a < SCL_SEIS_NCOMP; a++) {
                const double ref = seis_trace(tr[1], &c[1], 0, a)[q];
                const double got = seis_trace(tr[0], &c[0], 0, a)[q];
                if (a != SCL_SEIS_P && fabs(ref) > ref_peak)
                    ref_peak = fabs(ref);
                if (a != SCL_SEIS_P && !(fabs(got - ref) <= diff))
                    diff = fabs(got - ref);
            }
    const double db = 20 * log10(diff / ref_peak);
    printf("CPML %d cells, order %d, plan %s, %ld steps: reflection %.1f dB (peak %.3e, "
           "difference %.3e)\n", pml, order, plan ? plan : "default", c[0].steps, db, ref_peak, diff);
    free(tr[0]);
    free(tr[1]);
    return db;
}

int main(void)
{
    scl_context *ctx = test_context();
    const double db = reflection_db(ctx, 10, 4, NULL);
    CHECK(db <= -40, "10-cell CPML reflects %.1f dB > -40 dB", db);
    const double thin = reflection_db(ctx, 2, 4, NULL);
    CHECK(thin > -40, "a 2-cell CPML should reflect more than -40 dB (%.1f dB)", thin);
    /* the CPML shell at order 2 and 4: the same absorption (the same
     * arithmetic, summed in another order) */
    for (int order = 2; order <= 4; order += 2) {
        const double ref = order == 4 ? db : reflection_db(ctx, 10, 2, NULL);
        const double sh = reflection_db(ctx, 10, order, "fused=0,cpml=1");
        CHECK(sh <= -40 && fabs(sh - ref) < 0.5, "order %d: the CPML shell reflects %.1f dB, "
              "the default plan %.1f dB", order, sh, ref);
    }
    /* the shell needs a CPML: refused by name with pml 0 */
    scl_seis_model m;
    seis_homogeneous(&m, 16, 16, 16, 2, 3000, 1700, 2500);
    scl_seis_receiver rec = {8, 8, 8};
    scl_seis_config c = {.order = 2, .pml = 0, .receivers = &rec, .nreceivers = 1, .steps = 2};
    c.dt = 0.9 * scl_seis_dt_max(&m, 2);
    const scl_seis_options opt = {0, "cpml=1"};
    scl_seis *s = NULL;
    const scl_status st = scl_seis_create(ctx, &m, &c, &opt, &s);
    CHECK(st != SCL_OK && strstr(scl_last_error(ctx), "cpml=1 (the CPML shell): this run has no CPML"),
          "cpml=1 without CPML: status %d, '%s'", (int)st, scl_last_error(ctx));
    scl_seis_free(s);
    scl_seis_model_release(&m);
    scl_context_free(ctx);
    return test_summary("seismic_cpml");
}
