/* CPML reflection: an explosive source and a receiver 4 cells from the inner
 * face of a 10-cell CPML, against the same source and receiver in a grid
 * large enough that nothing comes back within the window. The largest
 * difference over the window, relative to the largest direct value, is the
 * reflection: <= -40 dB (measured -61 dB). With 2 CPML cells it must
 * be worse than -40 dB (the test can fail). */
#include "seis_test.h"

static double reflection_db(scl_context *ctx, int pml, int order)
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
        tr[big] = seis_run(ctx, &m, &c[big], NULL);
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
    printf("CPML %d cells, order %d, %ld steps: reflection %.1f dB (peak %.3e, difference %.3e)\n",
           pml, order, c[0].steps, db, ref_peak, diff);
    free(tr[0]);
    free(tr[1]);
    return db;
}

int main(void)
{
    scl_context *ctx = test_context();
    const double db = reflection_db(ctx, 10, 4);
    CHECK(db <= -40, "10-cell CPML reflects %.1f dB > -40 dB", db);
    const double thin = reflection_db(ctx, 2, 4);
    CHECK(thin > -40, "a 2-cell CPML should reflect more than -40 dB (%.1f dB)", thin);
    scl_context_free(ctx);
    return test_summary("seismic_cpml");
}
