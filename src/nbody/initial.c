/* Initial conditions: Plummer sphere and cold uniform sphere, reproducible
 * from a seed (splitmix64; no global state). */
#include "streamcl/nbody.h"

#include <math.h>

#define PI 3.14159265358979323846

static double uniform01(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * (1.0 / 9007199254740992.0); /* in (0, 1) */
}

/* A vector of length r in a uniformly random direction. */
static void isotropic(uint64_t *state, double r, double *out)
{
    double ct = 2.0 * uniform01(state) - 1.0, phi = 2.0 * PI * uniform01(state);
    double st = sqrt(1.0 - ct * ct);
    out[0] = r * st * cos(phi);
    out[1] = r * st * sin(phi);
    out[2] = r * ct;
}

/* Move the centre of mass to the origin, at rest. */
static void centre(size_t n, double *pos, double *vel, const double *mass)
{
    double mt = 0, cp[3] = {0, 0, 0}, cv[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        mt += mass[i];
        for (int c = 0; c < 3; c++) {
            cp[c] += mass[i] * pos[3 * i + c];
            cv[c] += mass[i] * vel[3 * i + c];
        }
    }
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            pos[3 * i + c] -= cp[c] / mt;
            vel[3 * i + c] -= cv[c] / mt;
        }
}

void scl_nbody_plummer(size_t n, uint64_t seed, double *pos, double *vel, double *mass)
{
    uint64_t state = seed;
    /* Plummer radius a = 3 pi / 16 gives the standard units' E = -1/4 */
    const double a = 3.0 * PI / 16.0;
    for (size_t i = 0; i < n; i++) {
        mass[i] = 1.0 / (double)n;
        /* invert the cumulative mass M(r) = r^3 (1 + r^2)^(-3/2); skip the
         * outermost 0.1% of the mass, whose radii are unbounded */
        double X;
        do
            X = uniform01(&state);
        while (X > 0.999);
        double r = 1.0 / sqrt(pow(X, -2.0 / 3.0) - 1.0);
        isotropic(&state, a * r, pos + 3 * i);
        /* speed as a fraction q of escape speed, von Neumann rejection on
         * g(q) = q^2 (1 - q^2)^(7/2), whose maximum is below 0.1 */
        double q, y;
        do {
            q = uniform01(&state);
            y = 0.1 * uniform01(&state);
        } while (y > q * q * pow(1.0 - q * q, 3.5));
        double ve = sqrt(2.0) * pow(1.0 + r * r, -0.25);
        isotropic(&state, q * ve / sqrt(a), vel + 3 * i);
    }
    centre(n, pos, vel, mass);
}

void scl_nbody_uniform(size_t n, uint64_t seed, double *pos, double *vel, double *mass)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        mass[i] = 1.0 / (double)n;
        double *p = pos + 3 * i;
        do {
            for (int c = 0; c < 3; c++)
                p[c] = 2.0 * uniform01(&state) - 1.0;
        } while (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > 1.0);
        vel[3 * i] = vel[3 * i + 1] = vel[3 * i + 2] = 0.0;
    }
    centre(n, pos, vel, mass);
}
