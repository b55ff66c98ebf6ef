/* The device Boys F0 (kernel eri_boys, FP64) of every variant the engine can
 * compile (0 table, 1 erf, 2 registers only; widths 1, 2 and 4) vs the
 * long-double references (boys_ref.h) at 2*10^4 random points over [0, 100]
 * plus the variants' edges (table nodes, the polynomial split at t = 2, the
 * asymptote at t = 36). Bound: 1e-14 relative (issue 16); the register
 * variant is fitted to ~1e-15. */
#include "test_util.h"
#include "boys_ref.h"
#include "streamcl/eri.h"

#include <float.h>
#include <stdio.h>

enum { NRAND = 20000 };

int main(void)
{
    uint64_t seed = test_seed();
    scl_context *ctx = test_context();
    if (!scl_device(ctx)->fp64) {
        printf("device without fp64: skipped\n");
        scl_context_free(ctx);
        return TEST_SKIP_CODE;
    }
    const double edges[] = {0, 1e-300, 1e-16, 1e-8, 1.0 / 32, 1.0 / 16, 1, 2 - 4 * DBL_EPSILON,
                            2, 2 + 4 * DBL_EPSILON, 2.5, 35.96875, 36 - 32 * DBL_EPSILON, 36,
                            36 + 64 * DBL_EPSILON, 50, 100};
    const int nedge = (int)(sizeof edges / sizeof edges[0]), n = 2 * NRAND + nedge;
    double *t = malloc(2 * (size_t)n * sizeof *t), *f = t + n;
    for (int i = 0; i < NRAND; i++) {
        t[i] = 100 * test_uniform(&seed);                              /* uniform */
        t[NRAND + i] = pow(10, -12 + 14 * test_uniform(&seed));        /* log-uniform */
    }
    for (int i = 0; i < nedge; i++)
        t[2 * NRAND + i] = edges[i];
    scl_stream *points = NULL, *values = NULL, *table = NULL;
    const size_t ntab = SCL_ERI_BOYS_POINTS * (SCL_ERI_BOYS_ORDER + 1);
    CHECK_OK(ctx, scl_stream_create(ctx, "t", SCL_DOUBLE, (size_t)n, 1, 1, 0, &points));
    CHECK_OK(ctx, scl_stream_create(ctx, "f", SCL_DOUBLE, (size_t)n, 1, 1, 0, &values));
    CHECK_OK(ctx, scl_stream_create(ctx, "tab", SCL_DOUBLE, ntab, 1, 1, 0, &table));
    if (points && values && table) {
        CHECK_OK(ctx, scl_stream_write(points, t, 1, NULL));
        CHECK_OK(ctx, scl_stream_write(table, scl_eri_boys_table(), 1, NULL));
    }
    /* variant 0 1 2 at width 1, then 0 and 2 at widths 2 and 4 */
    for (int run = 0; run < 7 && points && values && table; run++) {
        const int variant = run < 3 ? run : 2 * (run & 1), width = run < 3 ? 1 : run < 5 ? 2 : 4;
        char opts[64];
        snprintf(opts, sizeof opts, "-DBOYS=%d -DVW=%d -DERI_FP32=0", variant, width);
        scl_kernel *k = NULL;
        CHECK_OK(ctx, scl_kernel_create(ctx, "eri", "eri_boys", opts, &k));
        if (!k)
            continue;
        size_t global = (size_t)(n + width - 1) / (size_t)width, local = 64; /* width points per item */
        CHECK_OK(ctx, scl_kernel_set_stream(k, "points", points));
        CHECK_OK(ctx, scl_kernel_set_stream(k, "boys_table", table));
        CHECK_OK(ctx, scl_kernel_set_int(k, "n", n));
        CHECK_OK(ctx, scl_kernel_set_stream(k, "values", values));
        CHECK_OK(ctx, scl_kernel_launch(k, 1, &global, &local, NULL));
        CHECK_OK(ctx, scl_stream_read(values, f, 1, NULL));
        scl_kernel_free(k);
        double worst = 0, worst_t = 0;
        for (int i = 0; i < n; i++) {
            long double r = boys_ref(t[i]);
            double rel = (double)fabsl((f[i] - r) / r);
            if (!(rel <= worst)) { /* a NaN is the worst */
                worst = rel;
                worst_t = t[i];
            }
        }
        printf("device Boys F0, variant %d width %d: %d points, worst relative error %.3e at "
               "t = %.17g\n", variant, width, n, worst, worst_t);
        CHECK(worst <= 1e-14, "variant %d width %d: worst relative error %.3e at t = %.17g",
              variant, width, worst, worst_t);
    }
    scl_stream_free(points);
    scl_stream_free(values);
    scl_stream_free(table);
    free(t);
    scl_context_free(ctx);
    return test_summary("eri_boys_device");
}
