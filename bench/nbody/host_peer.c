/* The C/OpenMP reference (src/nbody/reference.c) built by bench.sh with
 * native flags (-O3 -march=native -fno-math-errno -fno-trapping-math), which
 * let GCC vectorise its sqrt: the strongest plain-C host baseline. Prints
 * "N seconds" (median of 3 force evaluations after a warm-up) per argument. */
#include "streamcl/nbody.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    for (int a = 1; a < argc; a++) {
        size_t n = (size_t)1 << atoi(argv[a]);
        double *pos = malloc(3 * n * sizeof *pos), *vel = malloc(3 * n * sizeof *vel),
               *mass = malloc(n * sizeof *mass), *acc = malloc(3 * n * sizeof *acc);
        if (!pos || !vel || !mass || !acc)
            return 1;
        scl_nbody_plummer(n, 1, pos, vel, mass);
        double t[4];
        for (int r = 0; r < 4; r++) {
            double t0 = now();
            if (scl_nbody_ref_accel(n, pos, mass, 1.0, 0.01, 1, acc) != SCL_OK)
                return 1;
            t[r] = now() - t0;
        }
        /* median of t[1..3] */
        double lo = t[1] < t[2] ? t[1] : t[2], hi = t[1] < t[2] ? t[2] : t[1];
        double med = t[3] < lo ? lo : t[3] > hi ? hi : t[3];
        printf("%zu %.6f\n", n, med);
        free(pos);
        free(vel);
        free(mass);
        free(acc);
    }
    return 0;
}
