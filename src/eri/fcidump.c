/* FCIDUMP output (Knowles & Handy 1989 format, as read by PySCF and FCI
 * codes) and the AO -> MO transformation it usually needs. */
#include "eri_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

scl_status scl_eri_ao_to_mo(size_t n, const double *C, const double *h_ao,
                            const double *unique_ao, double *h_mo, double *unique_mo)
{
    size_t n2 = n * n, n4 = n2 * n2;
    double *a = malloc(n4 * sizeof *a), *b = malloc(n4 * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return SCL_ERR_MEMORY;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < n; k++)
                for (size_t l = 0; l < n; l++)
                    a[((i * n + j) * n + k) * n + l] = unique_ao[scl_eri_index(i, j, k, l)];
    /* four quarter transformations, each contracting the leading index and
     * rotating it to the back: x[i][rest] -> y[rest][p] */
    for (int pass = 0; pass < 4; pass++) {
        long nn = (long)n;
#pragma omp parallel for
        for (long rest = 0; rest < (long)(n4 / n); rest++)
            for (long p = 0; p < nn; p++) {
                double s = 0;
                for (size_t i = 0; i < n; i++)
                    s += C[i * n + (size_t)p] * a[i * (n4 / n) + (size_t)rest];
                b[(size_t)rest * n + (size_t)p] = s;
            }
        double *t = a;
        a = b;
        b = t;
    }
    for (size_t p = 0; p < n; p++)
        for (size_t q = 0; q <= p; q++)
            for (size_t r = 0; r < n; r++)
                for (size_t s = 0; s <= r; s++)
                    if (scl_eri_pair_index(p, q) >= scl_eri_pair_index(r, s))
                        unique_mo[scl_eri_index(p, q, r, s)] = a[((p * n + q) * n + r) * n + s];
    for (size_t p = 0; p < n; p++)
        for (size_t q = 0; q < n; q++) {
            double s = 0;
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++)
                    s += C[i * n + p] * h_ao[i * n + j] * C[j * n + q];
            h_mo[p * n + q] = s;
        }
    free(a);
    free(b);
    return SCL_OK;
}

scl_status scl_eri_fcidump_write(const char *path, size_t n, int nelec, const double *h,
                                 const double *unique, double ecore, double cutoff, char *err,
                                 size_t errlen)
{
    scl_outfile o;
    scl_status st = scl_outfile_open(&o, path, 0, err, errlen);
    if (st != SCL_OK)
        return st;
    FILE *f = o.f;
    fprintf(f, " &FCI NORB=%zu,NELEC=%d,MS2=0,\n  ORBSYM=", n, nelec);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "1,");
    fprintf(f, "\n  ISYM=1,\n &END\n");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            for (size_t k = 0; k <= i; k++)
                for (size_t l = 0; l <= (k == i ? j : k); l++) {
                    double v = unique[scl_eri_index(i, j, k, l)];
                    if (fabs(v) >= cutoff)
                        fprintf(f, "%23.16e %4zu %4zu %4zu %4zu\n", v, i + 1, j + 1, k + 1, l + 1);
                }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            if (fabs(h[i * n + j]) >= cutoff)
                fprintf(f, "%23.16e %4zu %4zu %4d %4d\n", h[i * n + j], i + 1, j + 1, 0, 0);
    fprintf(f, "%23.16e %4d %4d %4d %4d\n", ecore, 0, 0, 0, 0);
    return scl_outfile_commit(&o, err, errlen);
}
