/* Helpers shared by the n-body tests: random systems, error norms. */
#ifndef STREAMCL_NBODY_TEST_H
#define STREAMCL_NBODY_TEST_H

#include "test_util.h"
#include "streamcl/nbody.h"

#include <string.h>

typedef struct {
    size_t n;
    double *pos, *vel, *mass;
} test_system;

/* n bodies uniform in a cube of side 2, masses in [0.5, 1.5]/n, small
 * random velocities. */
static inline int test_system_random(test_system *s, size_t n, uint64_t *rng)
{
    s->n = n;
    s->pos = malloc(3 * n * sizeof(double));
    s->vel = malloc(3 * n * sizeof(double));
    s->mass = malloc(n * sizeof(double));
    if (!s->pos || !s->vel || !s->mass)
        return -1;
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < 3; c++) {
            s->pos[3 * i + c] = 2.0 * test_uniform(rng) - 1.0;
            s->vel[3 * i + c] = 0.1 * (test_uniform(rng) - 0.5);
        }
        s->mass[i] = (0.5 + test_uniform(rng)) / (double)n;
    }
    return 0;
}

static inline void test_system_free(test_system *s)
{
    free(s->pos);
    free(s->vel);
    free(s->mass);
    memset(s, 0, sizeof *s);
}

/* The same system as the device holds it in single precision. */
static inline void test_round_to_float(double *v, size_t count)
{
    for (size_t i = 0; i < count; i++)
        v[i] = (double)(float)v[i];
}

/* An awkward size in [lo, lo + span): odd, not a multiple of anything. */
static inline size_t test_awkward_size(uint64_t *rng, size_t lo, size_t span)
{
    return (lo + (size_t)(test_uniform(rng) * (double)span)) | 1;
}

#endif
