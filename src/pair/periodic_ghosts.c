/* Periodic images for standalone use: wrap atoms into the box and append,
 * LAMMPS-style, a ghost copy of every atom whose image lies within the
 * cutoff of the box (up to 26 images per atom; the box must be wider than
 * the cutoff in every direction). */
#include "pair/pair_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

scl_status scl_periodic_ghosts(const double lo[3], const double hi[3], double cutoff,
                               int nlocal, const double *x, const int *type, const double *q,
                               const int64_t *tag, int *nghost, double **x_all, int **type_all,
                               double **q_all, int64_t **tag_all, char *err, size_t errlen)
{
    if (!lo || !hi || !x || !type || !q || !nghost || !x_all || !type_all || !q_all ||
        !tag_all || nlocal < 0)
        return scl_format_error(err, errlen, "scl_periodic_ghosts: NULL argument"),
               SCL_ERR_ARGUMENT;
    double len[3];
    for (int d = 0; d < 3; d++) {
        len[d] = hi[d] - lo[d];
        if (!isfinite(len[d]) || !(len[d] > cutoff) || !(cutoff > 0.0))
            return scl_format_error(err, errlen,
                                    "scl_periodic_ghosts: box length %g in dimension %d must be "
                                    "finite and larger than the cutoff %g",
                                    len[d], d, cutoff),
                   SCL_ERR_ARGUMENT;
    }
    /* pass 0 counts, pass 1 fills */
    size_t cap = 0, n = 0;
    double *xa = NULL, *qa = NULL;
    int *ta = NULL;
    int64_t *ga = NULL;
    for (int pass = 0; pass < 2; pass++) {
        n = (size_t)nlocal;
        for (int i = 0; i < nlocal; i++) {
            double w[3];
            for (int d = 0; d < 3; d++) {
                if (!isfinite(x[3 * i + d])) {
                    free(xa), free(qa), free(ta), free(ga);
                    return scl_format_error(err, errlen,
                                            "scl_periodic_ghosts: atom %d has a non-finite "
                                            "coordinate",
                                            i),
                           SCL_ERR_INPUT;
                }
                w[d] = x[3 * i + d] - floor((x[3 * i + d] - lo[d]) / len[d]) * len[d];
                if (w[d] >= hi[d]) /* rounding at the upper face */
                    w[d] = lo[d];
            }
            if (pass == 1) {
                memcpy(xa + 3 * i, w, sizeof w);
                ta[i] = type[i];
                qa[i] = q[i];
                ga[i] = tag ? tag[i] : i + 1;
            }
            for (int s = 0; s < 27; s++) {
                int sh[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
                if (!sh[0] && !sh[1] && !sh[2])
                    continue;
                double img[3];
                int inside = 1;
                for (int d = 0; d < 3 && inside; d++) {
                    img[d] = w[d] + sh[d] * len[d];
                    inside = img[d] >= lo[d] - cutoff && img[d] < hi[d] + cutoff;
                }
                if (!inside)
                    continue;
                if (pass == 1) {
                    memcpy(xa + 3 * n, img, sizeof img);
                    ta[n] = type[i];
                    qa[n] = q[i];
                    ga[n] = tag ? tag[i] : i + 1;
                }
                n++;
            }
        }
        if (pass == 0) {
            cap = n + 1;
            xa = malloc(3 * cap * sizeof *xa);
            qa = malloc(cap * sizeof *qa);
            ta = malloc(cap * sizeof *ta);
            ga = malloc(cap * sizeof *ga);
            if (!xa || !qa || !ta || !ga) {
                free(xa), free(qa), free(ta), free(ga);
                return scl_format_error(err, errlen, "scl_periodic_ghosts: out of host memory"),
                       SCL_ERR_MEMORY;
            }
        }
    }
    *nghost = (int)(n - (size_t)nlocal);
    *x_all = xa;
    *type_all = ta;
    *q_all = qa;
    *tag_all = ga;
    return SCL_OK;
}
