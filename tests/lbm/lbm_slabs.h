/* What the row-split tests share: a slab's distributions put into their
 * rows of the whole lattice's, and the count of distributions that differ
 * bit for bit. */
#ifndef STREAMCL_TESTS_LBM_SLABS_H
#define STREAMCL_TESTS_LBM_SLABS_H

#include "streamcl/lbm.h"
#include "test_util.h"

#include <string.h>

/* slab's distributions (read through f_slab) into f_split, an nx*ny lattice
 * of n cells; returns the slab's fluid cells. */
static inline long lbm_gather_slab(scl_context *ctx, scl_lbm *slab, int nx, size_t n,
                                   float *f_slab, float *f_split)
{
    int first, rows;
    long fluid;
    scl_lbm_rows(slab, &first, &rows, &fluid);
    CHECK_OK(ctx, scl_lbm_read_speeds(slab, f_slab));
    size_t plane = (size_t)nx * (size_t)rows;
    for (int k = 0; k < SCL_LBM_Q; k++)
        memcpy(f_split + (size_t)k * n + (size_t)first * nx, f_slab + (size_t)k * plane,
               plane * sizeof(float));
    return fluid;
}

/* How many of the count floats differ bit for bit. */
static inline size_t lbm_count_differ(const float *a, const float *b, size_t count)
{
    size_t differ = 0;
    for (size_t i = 0; i < count; i++)
        differ += memcmp(&a[i], &b[i], sizeof(float)) != 0;
    return differ;
}

/* A 21x13 lattice with random obstacles (about 12%), walls broken up on
 * the rows the streaming wraps round, the accelerated row's first cell
 * fluid; the obstacles (calloc'd, or NULL). */
static inline unsigned char *lbm_test_lattice(uint64_t *rng, scl_lbm_params *p)
{
    *p = (scl_lbm_params){.nx = 21, .ny = 13, .max_iters = 0, .reynolds_dim = 13,
                          .density = 0.1f, .accel = 0.005f, .omega = 1.85f};
    size_t n = (size_t)p->nx * (size_t)p->ny;
    unsigned char *obst = calloc(n, 1);
    if (!obst)
        return NULL;
    for (size_t i = 0; i < n; i++)
        obst[i] = test_uniform(rng) < 0.12;
    for (int x = 0; x < p->nx; x += 3) /* walls broken up on the wrap rows */
        obst[x] = obst[(size_t)(p->ny - 1) * p->nx + x] = 1;
    obst[(size_t)(p->ny - 2) * p->nx] = 0;
    return obst;
}

#endif
