/* A point force in a homogeneous full space against Stokes' solution (Aki &
 * Richards eq. 4.23): relative L2 waveform misfit of all three velocity
 * components at six receivers 10-17 cells away, 4th order at 8 points per
 * minimum S wavelength (Ricker, fmax = 2.5 f). Tolerance: 2% (the issue's
 * goal); measured ~0.3%. The same run at 2nd order must miss it (> 2%),
 * which shows the test can fail. */
#include "seis_test.h"

static double run_misfit(scl_context *ctx, int order, int axis, uint64_t *rng, double *worst)
{
    const double vp = 2000, vs = 1000, rho = 2000, h = 1, f = vs / (2.5 * 8 * h);
    const int n = 56, s0 = n / 2;
    scl_seis_model m;
    seis_homogeneous(&m, n, n, n, h, vp, vs, rho);
    scl_seis_source src = {.kind = SCL_SEIS_FORCE, .i = s0, .j = s0, .k = s0,
                           .wavelet = seis_ricker(f, 1e6)};
    src.dir[axis] = 1;
    /* fresh receiver positions: 10-16 cells out in random directions */
    scl_seis_receiver rec[6];
    for (int r = 0; r < 6; r++) {
        double d[3], len;
        do {
            for (int a = 0; a < 3; a++)
                d[a] = 2 * test_uniform(rng) - 1;
            len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        } while (len < 0.3 || len > 1);
        const double dist = 10 + 6 * test_uniform(rng);
        rec[r] = (scl_seis_receiver){s0 + (int)lround(d[0] / len * dist),
                                     s0 + (int)lround(d[1] / len * dist),
                                     s0 + (int)lround(d[2] / len * dist)};
    }
    scl_seis_config c = {.order = order, .pml = 10, .sources = &src, .nsources = 1,
                         .receivers = rec, .nreceivers = 6};
    c.dt = 0.8 * scl_seis_dt_max(&m, order);
    c.steps = (long)((2 * sqrt(2.0) / f + 17.0 * h / vs) / c.dt);
    float *tr = seis_run(ctx, &m, &c, NULL);
    double total = 0;
    *worst = 0;
    if (tr) {
        for (int r = 0; r < 6; r++) {
            double num = 0, den = 0;
            for (int a = 0; a < 3; a++) {
                /* each component at its own staggered node; the force at its node */
                double off[3] = {rec[r].i - s0, rec[r].j - s0, rec[r].k - s0};
                off[a] += 0.5;
                off[axis] -= 0.5;
                const float *t = seis_trace(tr, &c, r, a);
                for (long q = 0; q < c.steps; q++) {
                    double v[3];
                    scl_seis_stokes_velocity(vp, vs, rho, &src.wavelet, axis, off[0] * h,
                                             off[1] * h, off[2] * h, (q + 0.5) * c.dt, v);
                    CHECK(isfinite(t[q]), "receiver %d comp %d step %ld: %g", r, a, q, t[q]);
                    num += (t[q] - v[a]) * (t[q] - v[a]);
                    den += v[a] * v[a];
                }
            }
            const double mis = sqrt(num / den);
            printf("order %d force %c receiver (%d,%d,%d): misfit %.4f\n", order, 'x' + axis,
                   rec[r].i - s0, rec[r].j - s0, rec[r].k - s0, mis);
            total += mis / 6;
            if (!(mis <= *worst))
                *worst = mis;
        }
    }
    free(tr);
    scl_seis_model_release(&m);
    return total;
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    const int axis = (int)(test_uniform(&rng) * 3);
    double worst4, worst2;
    run_misfit(ctx, 4, axis, &rng, &worst4);
    CHECK(worst4 <= 0.02, "4th order: worst misfit %.4f > 2%%", worst4);
    run_misfit(ctx, 2, axis, &rng, &worst2);
    CHECK(worst2 > 0.02, "2nd order at 8 points per wavelength should miss 2%% (got %.4f)", worst2);
    printf("worst misfit: 4th order %.4f, 2nd order %.4f\n", worst4, worst2);
    scl_context_free(ctx);
    return test_summary("seismic_stokes");
}
