/* Long-double references for the Boys function F0 (shared by the host and
 * device Boys tests):
 *  - 0.5 sqrt(pi/t) erfl(sqrt t): glibc's x86-64 erfl is within a few ulp of
 *    long double (about 1e-19 relative), so this reference is five orders
 *    below the 1e-14 being tested wherever erf(sqrt t) is not tiny;
 *  - the power series sum_k (-t)^k / (k! (2k+1)) for t <= 2 (alternating, but
 *    its terms stay below e^t, so long double keeps ~1e-18 there). */
#ifndef STREAMCL_TEST_BOYS_REF_H
#define STREAMCL_TEST_BOYS_REF_H

#include <math.h>

static long double boys_ref_erf(long double t)
{
    if (t == 0)
        return 1;
    long double x = sqrtl(t);
    return 0.5L * sqrtl(3.14159265358979323846264338327950288L) / x * erfl(x);
}

static long double boys_ref_series(long double t)
{
    long double term = 1, sum = 1;
    for (int k = 1; k < 200; k++) {
        term *= -t / k;
        long double add = term / (2 * k + 1);
        sum += add;
        if (fabsl(add) < 1e-25L)
            break;
    }
    return sum;
}

/* the reference that holds at t */
static long double boys_ref(long double t)
{
    return t > 0.1L ? boys_ref_erf(t) : boys_ref_series(t);
}

#endif
