/* Host packing of positions into the frame of a neighbor list object (the
 * path of devices without fp64, and the oracle of src/pair/list/charmm_pack.cl). */
#include "pair/list/charmm_nlist.h"

#include <math.h>
#include <string.h>

/* Far from everything: padding slots point here and never pass a cutoff. */
#define SENTINEL_COORD 1.0e7

double charmm_pack_limit(const charmm_nlist *nl)
{
    /* wrapped fixed-point coordinates alias beyond half the period: an atom
     * that far from the box of the last set_atoms means the list is stale */
    return nl->pos_double ? INFINITY : 0.5 * nl->period - nl->coeffs->cut_neigh;
}

long charmm_pack_positions(const charmm_nlist *nl, const double *x, const double *q, void *pos,
                           float *lo)
{
    const long count = nl->natoms;
    const int dbl = nl->pos_double;
    double *pd = pos;
    int32_t *pi = pos;
    const double inv_unit = 1.0 / nl->unit, unit = nl->unit, limit = charmm_pack_limit(nl);
    const double *origin = nl->origin;
    const int *order = nl->order;
    long bad = -1; /* an atom with a non-finite or out-of-range coordinate or charge */
#pragma omp parallel for schedule(static) if (count > 20000)
    for (long b = 0; b < count; b++) {
        int o = order[b];
        double v[4] = {x[3 * o] - origin[0], x[3 * o + 1] - origin[1], x[3 * o + 2] - origin[2],
                       q ? q[o] : 0.0};
        if (!(fabs(v[0]) < limit && fabs(v[1]) < limit && fabs(v[2]) < limit) ||
            !isfinite(v[3])) {
#pragma omp critical(charmm_pack_bad)
            bad = o;
            continue;
        }
        if (dbl) {
            memcpy(pd + 4 * b, v, sizeof v);
            continue;
        }
        for (size_t c = 0; c < 3; c++) { /* |v| < period/2: fits int32 after rounding */
            double steps = nearbyint(v[c] * inv_unit);
            pi[4 * b + c] = (int32_t)steps;
            if (lo)
                lo[4 * b + c] = (float)(v[c] - steps * unit);
        }
        float qf = (float)v[3];
        memcpy(&pi[4 * b + 3], &qf, sizeof qf);
        if (lo)
            lo[4 * b + 3] = (float)(v[3] - (double)qf);
    }
    if (bad >= 0)
        return bad;
    /* the sentinel: half a period from the origin, the farthest point from
     * every atom (modular differences) */
    size_t b = (size_t)count;
    if (dbl) {
        for (int c = 0; c < 4; c++)
            pd[4 * b + (size_t)c] = c < 3 ? SENTINEL_COORD : 0.0;
    } else {
        for (int c = 0; c < 4; c++)
            pi[4 * b + (size_t)c] = c < 3 ? INT32_MIN : 0; /* q bits 0: +0.0f */
        if (lo)
            memset(lo + 4 * b, 0, 4 * sizeof *lo);
    }
    return -1;
}
