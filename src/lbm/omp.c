/* The CPU baseline: the benchmark step fused into one OpenMP pass over rows
 * (pull-propagate, rebound or collide, |u| sum), after accelerating row ny-2
 * in place. This is the peer the OpenCL solver is measured against on CPUs,
 * so it is written to vectorise: the periodic wrap is handled by a column
 * index table instead of a modulo per cell, and obstacles select between the
 * rebound and the collided values instead of branching. */
#include "layout.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* One row: cells x in [0, nx), reading rows yc/yn/ys of f through the west
 * and east column tables. Returns the sum of |u| over its fluid cells. */
static float omp_row(const float *restrict f, float *restrict out,
                     const unsigned char *restrict obst, const int *restrict west,
                     const int *restrict east, size_t n, size_t yc, size_t yn, size_t ys, int nx,
                     float omega)
{
    float row_u = 0.0f;
#ifdef _OPENMP
#pragma omp simd reduction(+ : row_u)
#endif
    for (int x = 0; x < nx; x++) {
        const size_t xw = (size_t)west[x], xe = (size_t)east[x], i = (size_t)x + yc;
        const float t0 = f[0 * n + i], t1 = f[1 * n + xw + yc];
        const float t2 = f[2 * n + x + ys], t3 = f[3 * n + xe + yc];
        const float t4 = f[4 * n + x + yn], t5 = f[5 * n + xw + ys];
        const float t6 = f[6 * n + xe + ys], t7 = f[7 * n + xe + yn];
        const float t8 = f[8 * n + xw + yn];
        const int blocked = obst[i];
        const float d = t0 + t1 + t2 + t3 + t4 + t5 + t6 + t7 + t8;
        const float inv = 1.0f / d;
        const float ux = (t1 + t5 + t8 - (t3 + t6 + t7)) * inv;
        const float uy = (t2 + t5 + t6 - (t4 + t7 + t8)) * inv;
        const float usq15 = 1.5f * (ux * ux + uy * uy);
        const float a0 = d * (4.0f / 9.0f), a1 = d * (1.0f / 9.0f), a2 = d * (1.0f / 36.0f);
        /* w rho (1 + 3 c.u + 4.5 (c.u)^2 - 1.5 u^2) */
#define EQ(a, cu) ((a) * (1.0f + 3.0f * (cu) + 4.5f * (cu) * (cu) - usq15))
        out[0 * n + i] = blocked ? t0 : t0 + omega * (a0 * (1.0f - usq15) - t0);
        out[1 * n + i] = blocked ? t3 : t1 + omega * (EQ(a1, ux) - t1);
        out[2 * n + i] = blocked ? t4 : t2 + omega * (EQ(a1, uy) - t2);
        out[3 * n + i] = blocked ? t1 : t3 + omega * (EQ(a1, -ux) - t3);
        out[4 * n + i] = blocked ? t2 : t4 + omega * (EQ(a1, -uy) - t4);
        out[5 * n + i] = blocked ? t7 : t5 + omega * (EQ(a2, ux + uy) - t5);
        out[6 * n + i] = blocked ? t8 : t6 + omega * (EQ(a2, uy - ux) - t6);
        out[7 * n + i] = blocked ? t5 : t7 + omega * (EQ(a2, -ux - uy) - t7);
        out[8 * n + i] = blocked ? t6 : t8 + omega * (EQ(a2, ux - uy) - t8);
#undef EQ
        /* collision conserves density and momentum: |u| before = after */
        row_u += blocked ? 0.0f : sqrtf(ux * ux + uy * uy);
    }
    return row_u;
}

float scl_lbm_omp_step(const scl_lbm_params *p, const unsigned char *obstacles, float **fp,
                       float **tmpp)
{
    const int nx = p->nx, ny = p->ny;
    const size_t n = (size_t)nx * (size_t)ny;
    float *restrict f = *fp;
    float *restrict out = *tmpp;
    int *west = malloc(2 * (size_t)nx * sizeof *west);
    if (!west)
        return NAN; /* the caller sees a NaN av_vel rather than a wrong one */
    int *east = west + nx;
    for (int x = 0; x < nx; x++) {
        west[x] = x == 0 ? nx - 1 : x - 1;
        east[x] = x + 1 == nx ? 0 : x + 1;
    }

    lbm_accelerate_row(p, obstacles, f, NULL); /* one row: not worth threads */

    double tot_u = 0.0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(+ : tot_u)
#endif
    for (int y = 0; y < ny; y++) {
        const size_t yc = (size_t)y * nx;
        const size_t yn = (size_t)(y + 1 == ny ? 0 : y + 1) * nx;
        const size_t ys = (size_t)(y == 0 ? ny - 1 : y - 1) * nx;
        tot_u += omp_row(f, out, obstacles, west, east, n, yc, yn, ys, nx, p->omega);
    }
    free(west);
    *fp = out;
    *tmpp = f;
    return (float)(tot_u / (double)scl_lbm_fluid_cells(p, obstacles));
}
