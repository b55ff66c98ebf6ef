/* Dense helpers for the SCF: symmetric eigensolver and small solves. */
#include "eri_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cyclic Jacobi: robust and simple; n is at most a few hundred here. */
scl_status scl_eri_eigh(size_t n, double *A, double *w, double *V)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            V[i * n + j] = i == j;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, diag = 0;
        for (size_t i = 0; i < n; i++) {
            diag += A[i * n + i] * A[i * n + i];
            for (size_t j = 0; j < i; j++)
                off += A[i * n + j] * A[i * n + j];
        }
        if (off <= 1e-30 * diag || off == 0)
            break;
        for (size_t p = 0; p < n; p++)
            for (size_t q = p + 1; q < n; q++) {
                double apq = A[p * n + q];
                if (fabs(apq) < 1e-300)
                    continue;
                double theta = (A[q * n + q] - A[p * n + p]) / (2 * apq);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (size_t k = 0; k < n; k++) {
                    double akp = A[k * n + p], akq = A[k * n + q];
                    A[k * n + p] = c * akp - s * akq;
                    A[k * n + q] = s * akp + c * akq;
                }
                for (size_t k = 0; k < n; k++) {
                    double apk = A[p * n + k], aqk = A[q * n + k];
                    A[p * n + k] = c * apk - s * aqk;
                    A[q * n + k] = s * apk + c * aqk;
                }
                for (size_t k = 0; k < n; k++) {
                    double vkp = V[k * n + p], vkq = V[k * n + q];
                    V[k * n + p] = c * vkp - s * vkq;
                    V[k * n + q] = s * vkp + c * vkq;
                }
            }
    }
    for (size_t i = 0; i < n; i++)
        w[i] = A[i * n + i];
    /* ascending order, columns of V along */
    for (size_t i = 0; i < n; i++) {
        size_t m = i;
        for (size_t j = i + 1; j < n; j++)
            if (w[j] < w[m])
                m = j;
        if (m != i) {
            double t = w[i];
            w[i] = w[m];
            w[m] = t;
            for (size_t k = 0; k < n; k++) {
                t = V[k * n + i];
                V[k * n + i] = V[k * n + m];
                V[k * n + m] = t;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(w[i]))
            return SCL_ERR_INPUT;
    return SCL_OK;
}
