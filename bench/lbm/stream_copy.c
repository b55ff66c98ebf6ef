/* Host memory bandwidth for the lbm bandwidth fractions: an OpenMP copy of
 * 2 x 512 MiB of floats, counting read + write bytes (the same convention as
 * the lbm byte model of 9 loads + 9 stores per cell). Median of 10. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    const size_t n = (size_t)128 << 20; /* floats per array */
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!a || !b)
        return 1;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)i;
        b[i] = 0.0f;
    }
    double t[10];
    for (int r = 0; r < 10; r++) {
        double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            b[i] = a[i];
        t[r] = omp_get_wtime() - t0;
    }
    qsort(t, 10, sizeof t[0], cmp);
    printf("host copy bandwidth: %.2f GB/s (%d threads, check %g)\n",
           2.0 * (double)n * sizeof(float) / t[5] * 1e-9, omp_get_max_threads(), (double)b[n - 1]);
    free(a);
    free(b);
    return 0;
}
