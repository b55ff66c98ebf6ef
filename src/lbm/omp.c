/* The CPU baseline: the benchmark step fused into one OpenMP pass over rows
 * (pull-propagate, rebound or collide, |u| sum), after accelerating row ny-2
 * in place. This is the peer the OpenCL solver is measured against on CPUs. */
#include "layout.h"

#include <math.h>
#include <stddef.h>

float scl_lbm_omp_step(const scl_lbm_params *p, const unsigned char *obstacles, float **fp,
                       float **tmpp)
{
    const int nx = p->nx, ny = p->ny;
    const size_t n = (size_t)nx * (size_t)ny;
    float *restrict f = *fp;
    float *restrict out = *tmpp;
    const float omega = p->omega;

    lbm_accelerate_row(p, obstacles, f, NULL); /* one row: not worth threads */

    double tot_u = 0.0;
    long fluid = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : tot_u, fluid)
#endif
    for (int y = 0; y < ny; y++) {
        const size_t yc = (size_t)y * nx;
        const size_t yn = (size_t)((y + 1) % ny) * nx, ys = (size_t)(y == 0 ? ny - 1 : y - 1) * nx;
        float row_u = 0.0f;
        for (int x = 0; x < nx; x++) {
            const size_t xc = (size_t)x, xe = (size_t)((x + 1) % nx);
            const size_t xw = (size_t)(x == 0 ? nx - 1 : x - 1);
            const size_t i = xc + yc;
            const float t0 = f[0 * n + xc + yc], t1 = f[1 * n + xw + yc];
            const float t2 = f[2 * n + xc + ys], t3 = f[3 * n + xe + yc];
            const float t4 = f[4 * n + xc + yn], t5 = f[5 * n + xw + ys];
            const float t6 = f[6 * n + xe + ys], t7 = f[7 * n + xe + yn];
            const float t8 = f[8 * n + xw + yn];
            if (obstacles[i]) {
                out[0 * n + i] = t0;
                out[1 * n + i] = t3;
                out[2 * n + i] = t4;
                out[3 * n + i] = t1;
                out[4 * n + i] = t2;
                out[5 * n + i] = t7;
                out[6 * n + i] = t8;
                out[7 * n + i] = t5;
                out[8 * n + i] = t6;
                continue;
            }
            const float d = t0 + t1 + t2 + t3 + t4 + t5 + t6 + t7 + t8;
            const float inv = 1.0f / d;
            const float ux = (t1 + t5 + t8 - (t3 + t6 + t7)) * inv;
            const float uy = (t2 + t5 + t6 - (t4 + t7 + t8)) * inv;
            const float usq15 = 1.5f * (ux * ux + uy * uy);
            const float a0 = d * (4.0f / 9.0f), a1 = d * (1.0f / 9.0f), a2 = d * (1.0f / 36.0f);
            /* w rho (1 + 3 c.u + 4.5 (c.u)^2 - 1.5 u^2) */
#define EQ(a, cu) ((a) * (1.0f + 3.0f * (cu) + 4.5f * (cu) * (cu) - usq15))
            out[0 * n + i] = t0 + omega * (a0 * (1.0f - usq15) - t0);
            out[1 * n + i] = t1 + omega * (EQ(a1, ux) - t1);
            out[2 * n + i] = t2 + omega * (EQ(a1, uy) - t2);
            out[3 * n + i] = t3 + omega * (EQ(a1, -ux) - t3);
            out[4 * n + i] = t4 + omega * (EQ(a1, -uy) - t4);
            out[5 * n + i] = t5 + omega * (EQ(a2, ux + uy) - t5);
            out[6 * n + i] = t6 + omega * (EQ(a2, uy - ux) - t6);
            out[7 * n + i] = t7 + omega * (EQ(a2, -ux - uy) - t7);
            out[8 * n + i] = t8 + omega * (EQ(a2, ux - uy) - t8);
#undef EQ
            /* collision conserves density and momentum: |u| before = after */
            row_u += sqrtf(ux * ux + uy * uy);
            fluid++;
        }
        tot_u += row_u;
    }
    *fp = out;
    *tmpp = f;
    return (float)(tot_u / (double)fluid);
}
