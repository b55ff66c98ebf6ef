/* Reductions vs double host sums on random data of awkward sizes.
 * Tolerance for sums: |device - exact| <= 2^-24 |exact| + 2^-40 sum|x| (float
 * rounding of the exact sum; the second term only matters under cancellation).
 * min and max must be exact. A NaN in the data must give a NaN sum. */
#include "test_util.h"

#include <float.h>
#include <string.h>

static void check_size(scl_context *ctx, uint64_t *seed, size_t n, int use_double)
{
    scl_type t = use_double ? SCL_DOUBLE : SCL_FLOAT;
    scl_stream *s = NULL;
    CHECK_OK(ctx, scl_stream_create(ctx, "data", t, n, 1, 1, 0, &s));
    if (!s)
        return;
    size_t es = scl_type_size(t);
    unsigned char *buf = malloc(n * es);
    double exact = 0, l1 = 0, mn = INFINITY, mx = -INFINITY;
    /* offset so sums neither vanish nor grow trivially; sometimes all negative */
    double shift = test_uniform(seed) < 0.3 ? -1.0 : -0.3;
    for (size_t i = 0; i < n; i++) {
        double v = test_uniform(seed) + shift;
        if (use_double)
            ((double *)buf)[i] = v;
        else
            v = ((float *)buf)[i] = (float)v;
        exact += v;
        l1 += fabs(v);
        mn = fmin(mn, v);
        mx = fmax(mx, v);
    }
    CHECK_OK(ctx, scl_stream_write(s, buf, 1, NULL));
    double sum = NAN, rmin = NAN, rmax = NAN;
    CHECK_OK(ctx, scl_reduce(ctx, s, SCL_SUM, &sum));
    CHECK_OK(ctx, scl_reduce(ctx, s, SCL_MIN, &rmin));
    CHECK_OK(ctx, scl_reduce(ctx, s, SCL_MAX, &rmax));
    double tol = ldexp(fabs(exact), -24) + ldexp(l1, -40);
    CHECK(fabs(sum - exact) <= tol, "%s sum n=%zu: %.17g vs %.17g (tol %.3g)",
          scl_type_name(t), n, sum, exact, tol);
    CHECK(rmin == mn && rmax == mx, "%s min/max n=%zu: %.17g %.17g vs %.17g %.17g",
          scl_type_name(t), n, rmin, rmax, mn, mx);

    /* partial reduction over a prefix */
    size_t half = n / 2 + 1;
    double pexact = 0;
    for (size_t i = 0; i < half; i++)
        pexact += use_double ? ((double *)buf)[i] : ((float *)buf)[i];
    CHECK_OK(ctx, scl_reduce_n(ctx, s, half, SCL_SUM, &sum));
    CHECK(fabs(sum - pexact) <= ldexp(fabs(pexact), -24) + ldexp(l1, -40),
          "prefix sum n=%zu", half);

    /* a NaN anywhere makes the sum NaN */
    size_t where = (size_t)(test_uniform(seed) * (double)n);
    if (use_double)
        ((double *)buf)[where] = NAN;
    else
        ((float *)buf)[where] = NAN;
    CHECK_OK(ctx, scl_stream_write(s, buf, 1, NULL));
    CHECK_OK(ctx, scl_reduce(ctx, s, SCL_SUM, &sum));
    CHECK(isnan(sum), "NaN at %zu of %zu vanished from the sum: %g", where, n, sum);
    free(buf);
    scl_stream_free(s);
}

int main(void)
{
    uint64_t seed = test_seed();
    scl_context *ctx = test_context();
    const size_t sizes[] = {1, 2, 3, 4, 5, 7, 63, 64, 65, 255, 256, 257, 1023, 1025, 4097,
                            65537, 100003, 1048577, 4194301};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        check_size(ctx, &seed, sizes[i], 0);
        if (scl_device(ctx)->fp64)
            check_size(ctx, &seed, sizes[i], 1);
    }
    if (!scl_device(ctx)->fp64)
        SKIP("double reductions: the device has no fp64");
    /* a few random sizes each run */
    for (int r = 0; r < 4; r++)
        check_size(ctx, &seed, 1 + (size_t)(test_uniform(&seed) * 300000.0), 0);

    /* bad arguments */
    scl_stream *ints = NULL;
    double v;
    CHECK_OK(ctx, scl_stream_create(ctx, "ints", SCL_INT, 10, 1, 1, 0, &ints));
    CHECK(scl_reduce(ctx, ints, SCL_SUM, &v) == SCL_ERR_ARGUMENT, "int stream reduced");
    CHECK(strstr(scl_last_error(ctx), "int") != NULL, "message: %s", scl_last_error(ctx));
    CHECK(scl_reduce_n(ctx, ints, 11, SCL_SUM, &v) == SCL_ERR_ARGUMENT, "count > size accepted");
    scl_stream_free(ints);
    scl_context_free(ctx);
    return test_summary("core_reduce");
}
