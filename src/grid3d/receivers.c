/* Storage of point-receiver time series. */
#include "streamcl/grid3d.h"
#include "core/fail.h"

#include <stdlib.h>
#include <string.h>

void scl_receivers_free(scl_receivers *r)
{
    if (!r)
        return;
    free(r->name);
    free(r->ijk);
    free(r->pos);
    free(r->data);
    memset(r, 0, sizeof *r);
}

scl_status scl_receivers_create(scl_receivers *r, int n, int ncomp, long nt, char *err,
                                size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (n < 0 || ncomp < 1 || nt < 0) {
        scl_format_error(err, errlen, "receivers: bad shape %d x %d x %ld", n, ncomp, nt);
        return SCL_ERR_ARGUMENT;
    }
    r->n = n;
    r->ncomp = ncomp;
    r->nt = nt;
    size_t m = n > 0 ? (size_t)n : 1;
    r->name = calloc(m, sizeof *r->name);
    r->ijk = calloc(m, sizeof *r->ijk);
    r->pos = calloc(m, sizeof *r->pos);
    r->data = calloc(m * (size_t)ncomp * (size_t)(nt > 0 ? nt : 1), sizeof(double));
    if (!r->name || !r->ijk || !r->pos || !r->data) {
        scl_receivers_free(r);
        scl_format_error(err, errlen, "receivers: out of host memory for %d x %d x %ld samples",
                         n, ncomp, nt);
        return SCL_ERR_MEMORY;
    }
    return SCL_OK;
}
