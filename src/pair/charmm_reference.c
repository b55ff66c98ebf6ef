/* The double-precision reference of lj/charmm/coul/long: a straightforward
 * full-list loop over an O(N) cell grid, double everywhere. It is the oracle
 * of the tests and the CPU baseline of pair-bench. */
#include "pair/pair_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double evdwl, ecoul, v[6];
} pair_sums;

/* Forces (and tallies) on local atom i from every atom within the cutoff. */
static int reference_atom(const charmm_coeffs *c, const cell_grid *g, int i, const double *x,
                          const double *q, const int *type, const int64_t *tag,
                          const int *nspecial, const int64_t *special, int maxspecial,
                          double *fi, pair_sums *sums, double *eatom, double *vatom,
                          long *overlap_j)
{
    int ci[3];
    cell_grid_coords(g, x + 3 * i, ci);
    const int *ns = nspecial ? nspecial + 3 * i : NULL;
    const int64_t *sp = nspecial ? special + (size_t)i * (size_t)maxspecial : NULL;
    double min_r2 = CHARMM_MIN_R * CHARMM_MIN_R;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int cx = ci[0] + dx, cy = ci[1] + dy, cz = ci[2] + dz;
                if (cx < 0 || cy < 0 || cz < 0 || cx >= g->n[0] || cy >= g->n[1] ||
                    cz >= g->n[2])
                    continue;
                int cell = (cz * g->n[1] + cy) * g->n[0] + cx;
                for (int s = g->cell_start[cell]; s < g->cell_start[cell + 1]; s++) {
                    int j = g->order[s];
                    if (j == i)
                        continue;
                    double d[3] = {x[3 * i] - x[3 * j], x[3 * i + 1] - x[3 * j + 1],
                                   x[3 * i + 2] - x[3 * j + 2]};
                    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                    if (r2 >= c->cut_forcesq)
                        continue;
                    if (r2 < min_r2) {
                        *overlap_j = j;
                        return -1;
                    }
                    int kind = charmm_special_kind(ns, sp, tag ? tag[j] : j);
                    double evdwl, ecoul;
                    double fpair = charmm_pair_double(c, r2, q[i], q[j], type[i], type[j], kind,
                                                      &evdwl, &ecoul);
                    for (int k = 0; k < 3; k++)
                        fi[k] += d[k] * fpair;
                    /* full list: every pair is seen from both atoms, so half each */
                    double v[6] = {d[0] * d[0] * fpair, d[1] * d[1] * fpair, d[2] * d[2] * fpair,
                                   d[0] * d[1] * fpair, d[0] * d[2] * fpair, d[1] * d[2] * fpair};
                    sums->evdwl += 0.5 * evdwl;
                    sums->ecoul += 0.5 * ecoul;
                    for (int k = 0; k < 6; k++)
                        sums->v[k] += 0.5 * v[k];
                    if (eatom)
                        eatom[i] += 0.5 * (evdwl + ecoul);
                    if (vatom)
                        for (int k = 0; k < 6; k++)
                            vatom[6 * i + k] += 0.5 * v[k];
                }
            }
    return 0;
}

scl_status scl_charmm_reference(const scl_charmm_params *p, int nlocal, int nghost,
                                const double *x, const double *q, const int *type,
                                const int64_t *tag, const int *nspecial, const int64_t *special,
                                int maxspecial, double *f, scl_charmm_result *result,
                                double *eatom, double *vatom, char *err, size_t errlen)
{
    if (nlocal < 0 || nghost < 0 || (nlocal > 0 && (!f || !q)))
        return scl_format_error(err, errlen, "scl_charmm_reference: invalid counts or NULL "
                                             "arrays"),
               SCL_ERR_ARGUMENT;
    charmm_coeffs c;
    scl_status s = charmm_coeffs_init(p, &c, err, errlen);
    int natoms = nlocal + nghost;
    if (s == SCL_OK)
        s = charmm_check_atoms(natoms, x, type, c.ntypes, err, errlen);
    if (s == SCL_OK)
        s = charmm_check_specials(nlocal, nspecial, special, maxspecial, err, errlen);
    cell_grid g;
    memset(&g, 0, sizeof g);
    if (s == SCL_OK && cell_grid_build(&g, natoms, x, sqrt(c.cut_forcesq)) != 0)
        s = SCL_ERR_MEMORY, scl_format_error(err, errlen, "out of host memory");
    if (s != SCL_OK) {
        charmm_coeffs_free(&c);
        return s;
    }
    double evdwl = 0, ecoul = 0, v0 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0, v5 = 0;
    long bad_i = -1, bad_j = -1;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : evdwl, ecoul, v0, v1, v2, v3, v4, v5)
    for (int i = 0; i < nlocal; i++) {
        pair_sums sums = {0};
        double fi[3] = {0, 0, 0};
        long j = -1;
        if (reference_atom(&c, &g, i, x, q, type, tag, nspecial, special, maxspecial, fi, &sums,
                           eatom, vatom, &j) != 0) {
#pragma omp critical(charmm_reference_error)
            {
                bad_i = i;
                bad_j = j;
            }
        }
        for (int k = 0; k < 3; k++)
            f[3 * i + k] += fi[k];
        evdwl += sums.evdwl;
        ecoul += sums.ecoul;
        v0 += sums.v[0];
        v1 += sums.v[1];
        v2 += sums.v[2];
        v3 += sums.v[3];
        v4 += sums.v[4];
        v5 += sums.v[5];
    }
    cell_grid_free(&g);
    charmm_coeffs_free(&c);
    if (bad_i >= 0)
        return scl_format_error(err, errlen,
                                "atoms %ld and %ld overlap (closer than %g Angstrom)", bad_i,
                                bad_j, CHARMM_MIN_R),
               SCL_ERR_INPUT;
    if (result) {
        result->evdwl = evdwl;
        result->ecoul = ecoul;
        double v[6] = {v0, v1, v2, v3, v4, v5};
        memcpy(result->virial, v, sizeof v);
    }
    return SCL_OK;
}
