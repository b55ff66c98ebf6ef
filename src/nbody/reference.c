/* Plain C n-body in double: the test oracle and the CPU baseline. The OpenMP
 * version is the same loop with rows split over threads (`parallel`); the
 * inner loop runs over structure-of-arrays copies with an `omp simd` hint.
 * (GCC keeps sqrt scalar here: -std=c11 implies math-errno.) */
#include "streamcl/nbody.h"

#include <math.h>
#include <stdlib.h>

/* Acceleration of one body at (xi, yi, zi) from all bodies in structure-of-
 * arrays form; a zero distance (j = i, or coincident bodies with eps = 0)
 * contributes nothing. */
static void accel_row(size_t n, const double *x, const double *y, const double *z,
                      const double *m, double eps2, double xi, double yi, double zi,
                      double out[3])
{
    double ax = 0, ay = 0, az = 0;
#pragma omp simd reduction(+ : ax, ay, az)
    for (size_t j = 0; j < n; j++) {
        const double dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
        const double r2 = dx * dx + dy * dy + dz * dz + eps2;
        const double inv = r2 > 0 ? 1.0 / sqrt(r2) : 0.0;
        const double s = m[j] * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    out[0] = ax;
    out[1] = ay;
    out[2] = az;
}

scl_status scl_nbody_ref_accel(size_t n, const double *pos, const double *mass, double G,
                               double eps, int parallel, double *acc)
{
    double *soa = malloc(3 * n * sizeof *soa);
    if (!soa)
        return SCL_ERR_MEMORY;
    double *x = soa, *y = soa + n, *z = soa + 2 * n;
    for (size_t i = 0; i < n; i++) {
        x[i] = pos[3 * i];
        y[i] = pos[3 * i + 1];
        z[i] = pos[3 * i + 2];
    }
    const double eps2 = eps * eps;
    const long count = (long)n;
#pragma omp parallel for schedule(static) if (parallel)
    for (long i = 0; i < count; i++) {
        double a[3];
        accel_row(n, x, y, z, mass, eps2, x[i], y[i], z[i], a);
        acc[3 * i] = G * a[0];
        acc[3 * i + 1] = G * a[1];
        acc[3 * i + 2] = G * a[2];
    }
    free(soa);
    return SCL_OK;
}

scl_status scl_nbody_ref_step(size_t n, double *pos, double *vel, double *acc,
                              const double *mass, double G, double eps, double dt, int parallel)
{
    for (size_t k = 0; k < 3 * n; k++) {
        vel[k] += 0.5 * dt * acc[k];
        pos[k] += dt * vel[k];
    }
    scl_status s = scl_nbody_ref_accel(n, pos, mass, G, eps, parallel, acc);
    for (size_t k = 0; s == SCL_OK && k < 3 * n; k++)
        vel[k] += 0.5 * dt * acc[k];
    return s;
}

void scl_nbody_ref_energy(size_t n, const double *pos, const double *vel, const double *mass,
                          double G, double eps, int parallel, double *kinetic, double *potential)
{
    const double eps2 = eps * eps;
    const long count = (long)n;
    double kin = 0, pot = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : kin, pot) if (parallel)
    for (long i = 0; i < count; i++) {
        const double *u = vel + 3 * i;
        kin += 0.5 * mass[i] * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (size_t j = (size_t)i + 1; j < n; j++) {
            const double dx = pos[3 * j] - pos[3 * i], dy = pos[3 * j + 1] - pos[3 * i + 1],
                         dz = pos[3 * j + 2] - pos[3 * i + 2];
            const double r2 = dx * dx + dy * dy + dz * dz + eps2;
            if (r2 > 0)
                pot -= G * mass[i] * mass[j] / sqrt(r2);
        }
    }
    *kinetic = kin;
    *potential = pot;
}
