/* Boys function F0 in double: table + Taylor below t = 36, asymptotic above. */
#include "eri_internal.h"

#include <math.h>
#include <pthread.h>

static double table[SCL_ERI_BOYS_POINTS * (SCL_ERI_BOYS_ORDER + 1)];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* F_k(t), k = 0..kmax, in long double: the series
 *   F_m(t) = exp(-t) sum_i (2t)^i / ((2m+1)(2m+3)...(2m+2i+1))
 * (all terms positive, so no cancellation) for the top order, then the
 * downward recursion F_k = (2t F_{k+1} + exp(-t)) / (2k+1), which is stable. */
static void boys_orders(long double t, int kmax, long double *F)
{
    long double term = 1.0L / (2 * kmax + 1), sum = term;
    for (int i = 1; i < 2000; i++) {
        term *= 2 * t / (2 * kmax + 2 * i + 1);
        sum += term;
        if (term < sum * 1e-22L)
            break;
    }
    long double e = expl(-t);
    F[kmax] = e * sum;
    for (int k = kmax - 1; k >= 0; k--)
        F[k] = (2 * t * F[k + 1] + e) / (2 * k + 1);
}

static void build_table(void)
{
    long double F[SCL_ERI_BOYS_ORDER + 1];
    for (int i = 0; i < SCL_ERI_BOYS_POINTS; i++) {
        boys_orders(i * (long double)SCL_ERI_BOYS_STEP, SCL_ERI_BOYS_ORDER, F);
        long double fact = 1;
        for (int k = 0; k <= SCL_ERI_BOYS_ORDER; k++) {
            if (k)
                fact *= k;
            /* F0(t0 + d) = sum_k F_k(t0) (-d)^k / k!  since dF_k/dt = -F_{k+1} */
            table[i * (SCL_ERI_BOYS_ORDER + 1) + k] = (double)((k & 1 ? -F[k] : F[k]) / fact);
        }
    }
}

const double *scl_eri_boys_table(void)
{
    pthread_once(&table_once, build_table);
    return table;
}

double scl_eri_boys0(double t)
{
    if (t >= SCL_ERI_BOYS_TMAX)
        return 0.88622692545275801365 / sqrt(t); /* sqrt(pi)/2 / sqrt(t) */
    const double *tab = scl_eri_boys_table();
    if (!(t >= 0))
        return NAN;
    int i = (int)(t * (1.0 / SCL_ERI_BOYS_STEP) + 0.5);
    double d = t - i * SCL_ERI_BOYS_STEP;
    const double *c = tab + i * (SCL_ERI_BOYS_ORDER + 1);
    double f = c[SCL_ERI_BOYS_ORDER];
    for (int k = SCL_ERI_BOYS_ORDER - 1; k >= 0; k--)
        f = f * d + c[k];
    return f;
}
