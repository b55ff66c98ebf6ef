/* The serial C oracle: the D2Q9 benchmark written literally, one pass per
 * phase, in float, exactly in the order the benchmark defines. Tests compare
 * every device variant against this; it is deliberately not optimised. */
#include "layout.h"

#include <math.h>
#include <stddef.h>

#define C_SQ (1.0f / 3.0f)

static const float weight[SCL_LBM_Q] = {4.0f / 9.0f,  1.0f / 9.0f,  1.0f / 9.0f,
                                        1.0f / 9.0f,  1.0f / 9.0f,  1.0f / 36.0f,
                                        1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f};

void scl_lbm_ref_init(const scl_lbm_params *p, float *f)
{
    size_t n = (size_t)p->nx * (size_t)p->ny;
    for (int k = 0; k < SCL_LBM_Q; k++) {
        float v = k == 0 ? p->density * 4.0f / 9.0f
                : k <= 4 ? p->density / 9.0f
                         : p->density / 36.0f;
        for (size_t i = 0; i < n; i++)
            f[(size_t)k * n + i] = v;
    }
}

static void propagate(const scl_lbm_params *p, const float *f, float *tmp)
{
    int nx = p->nx, ny = p->ny;
    size_t n = (size_t)nx * (size_t)ny;
    for (int y = 0; y < ny; y++) {
        int yn = (y + 1) % ny, ys = y == 0 ? ny - 1 : y - 1;
        for (int x = 0; x < nx; x++) {
            int xe = (x + 1) % nx, xw = x == 0 ? nx - 1 : x - 1;
            size_t i = (size_t)x + (size_t)y * nx;
#define AT(k, xx, yy) f[(size_t)(k) * n + (size_t)(xx) + (size_t)(yy) * nx]
            tmp[0 * n + i] = AT(0, x, y);
            tmp[1 * n + i] = AT(1, xw, y);
            tmp[2 * n + i] = AT(2, x, ys);
            tmp[3 * n + i] = AT(3, xe, y);
            tmp[4 * n + i] = AT(4, x, yn);
            tmp[5 * n + i] = AT(5, xw, ys);
            tmp[6 * n + i] = AT(6, xe, ys);
            tmp[7 * n + i] = AT(7, xe, yn);
            tmp[8 * n + i] = AT(8, xw, yn);
#undef AT
        }
    }
}

static void rebound(const scl_lbm_params *p, const unsigned char *obst, float *f,
                    const float *tmp)
{
    static const int opposite[SCL_LBM_Q] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
    size_t n = (size_t)p->nx * (size_t)p->ny;
    for (size_t i = 0; i < n; i++)
        if (obst[i])
            for (int k = 1; k < SCL_LBM_Q; k++)
                f[(size_t)k * n + i] = tmp[(size_t)opposite[k] * n + i];
}

static void collision(const scl_lbm_params *p, const unsigned char *obst, float *f,
                      const float *tmp)
{
    size_t n = (size_t)p->nx * (size_t)p->ny;
    for (size_t i = 0; i < n; i++) {
        if (obst[i])
            continue;
        float t[SCL_LBM_Q];
        float density = 0.0f;
        for (int k = 0; k < SCL_LBM_Q; k++) {
            t[k] = tmp[(size_t)k * n + i];
            density += t[k];
        }
        float ux = (t[1] + t[5] + t[8] - (t[3] + t[6] + t[7])) / density;
        float uy = (t[2] + t[5] + t[6] - (t[4] + t[7] + t[8])) / density;
        float usq = ux * ux + uy * uy;
        float u[SCL_LBM_Q] = {0.0f, ux, uy, -ux, -uy, ux + uy, -ux + uy, -ux - uy, ux - uy};
        for (int k = 0; k < SCL_LBM_Q; k++) {
            float eq = weight[k] * density *
                       (1.0f + u[k] / C_SQ + (u[k] * u[k]) / (2.0f * C_SQ * C_SQ) -
                        usq / (2.0f * C_SQ));
            f[(size_t)k * n + i] = t[k] + p->omega * (eq - t[k]);
        }
    }
}

static float av_velocity(const scl_lbm_params *p, const unsigned char *obst, const float *f)
{
    size_t n = (size_t)p->nx * (size_t)p->ny;
    long cells = 0;
    float tot_u = 0.0f;
    for (size_t i = 0; i < n; i++) {
        if (obst[i])
            continue;
        float d = 0.0f;
        for (int k = 0; k < SCL_LBM_Q; k++)
            d += f[(size_t)k * n + i];
        float ux = (f[1 * n + i] + f[5 * n + i] + f[8 * n + i] -
                    (f[3 * n + i] + f[6 * n + i] + f[7 * n + i])) / d;
        float uy = (f[2 * n + i] + f[5 * n + i] + f[6 * n + i] -
                    (f[4 * n + i] + f[7 * n + i] + f[8 * n + i])) / d;
        tot_u += sqrtf(ux * ux + uy * uy);
        cells++;
    }
    return tot_u / (float)cells;
}

float scl_lbm_ref_step(const scl_lbm_params *p, const unsigned char *obstacles, float *f,
                       float *tmp)
{
    lbm_accelerate_row(p, obstacles, f, NULL);
    propagate(p, f, tmp);
    rebound(p, obstacles, f, tmp);
    collision(p, obstacles, f, tmp);
    return av_velocity(p, obstacles, f);
}

void scl_lbm_fields(const scl_lbm_params *p, const unsigned char *obstacles, const float *f,
                    float *ux, float *uy, float *speed, float *pressure)
{
    size_t n = (size_t)p->nx * (size_t)p->ny;
    for (size_t i = 0; i < n; i++) {
        float u_x = 0.0f, u_y = 0.0f, pr = p->density * C_SQ;
        if (!obstacles[i]) {
            float d = 0.0f;
            for (int k = 0; k < SCL_LBM_Q; k++)
                d += f[(size_t)k * n + i];
            u_x = (f[1 * n + i] + f[5 * n + i] + f[8 * n + i] -
                   (f[3 * n + i] + f[6 * n + i] + f[7 * n + i])) / d;
            u_y = (f[2 * n + i] + f[5 * n + i] + f[6 * n + i] -
                   (f[4 * n + i] + f[7 * n + i] + f[8 * n + i])) / d;
            pr = d * C_SQ;
        }
        if (ux)
            ux[i] = u_x;
        if (uy)
            uy[i] = u_y;
        if (speed)
            speed[i] = sqrtf(u_x * u_x + u_y * u_y);
        if (pressure)
            pressure[i] = pr;
    }
}

long scl_lbm_fluid_cells(const scl_lbm_params *p, const unsigned char *obstacles)
{
    size_t n = (size_t)p->nx * (size_t)p->ny;
    long cells = 0;
    for (size_t i = 0; i < n; i++)
        cells += !obstacles[i];
    return cells;
}

double scl_lbm_reynolds(const scl_lbm_params *p, double av_vel)
{
    double nu = (2.0 / (double)p->omega - 1.0) / 6.0;
    return av_vel * (double)p->reynolds_dim / nu;
}
