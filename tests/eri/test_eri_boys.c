/* Boys F0 in double (the host table) vs two long-double references over
 * [0, 100] (boys_ref.h); the two are first checked against each other. */
#include "test_util.h"
#include "boys_ref.h"
#include "streamcl/eri.h"

static void check_point(double t, double *worst, double *worst_t)
{
    double f = scl_eri_boys0(t);
    long double r = boys_ref(t);
    double rel = (double)fabsl((f - r) / r);
    if (!(rel <= *worst)) {
        *worst = rel;
        *worst_t = t;
    }
}

int main(void)
{
    uint64_t seed = test_seed();
    /* the references agree with each other where both hold */
    double agree = 0;
    for (int i = 1; i <= 200; i++) {
        long double t = 0.01L * i;
        agree = test_max(agree, (double)fabsl(boys_ref_erf(t) / boys_ref_series(t) - 1));
    }
    CHECK(agree < 1e-17, "erfl and series references differ by %.3e", agree);

    double worst = 0, worst_t = 0;
    const int N = 20000;
    for (int i = 0; i < N; i++) /* uniform over [0, 100] */
        check_point(100 * test_uniform(&seed), &worst, &worst_t);
    for (int i = 0; i < N; i++) /* log-uniform over [1e-12, 100] */
        check_point(pow(10, -12 + 14 * test_uniform(&seed)), &worst, &worst_t);
    /* awkward points: zero, table nodes, midpoints, the switch to the asymptote */
    const double edges[] = {0, 1e-300, 1e-16, 1.0 / 32, 1.0 / 16, 35.96875, 35.999999999,
                            36, 36.0000001, 50, 100};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_point(edges[i], &worst, &worst_t);
    for (int i = 0; i < 577; i++)
        check_point(i / 16.0 + 1.0 / 32, &worst, &worst_t);
    printf("Boys F0: %d points, worst relative error %.3e at t = %.17g\n", 2 * N + 588, worst,
           worst_t);
    CHECK(worst <= 1e-14, "worst relative error %.3e at t = %.17g", worst, worst_t);
    CHECK(scl_eri_boys0(0) == 1.0, "F0(0) = %.17g", scl_eri_boys0(0));
    CHECK(isnan(scl_eri_boys0(NAN)), "F0(NaN) must be NaN");
    return test_summary("eri_boys");
}
