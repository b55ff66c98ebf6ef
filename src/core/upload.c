#include "core/upload.h"
#include "core/fail.h"

#include <stdlib.h>

scl_status scl_stream_upload(scl_context *ctx, const char *label, scl_type t, const void *v,
                             size_t n, scl_stream **out)
{
    scl_status s = scl_stream_create(ctx, label, t, n ? n : 1, 1, 1, 0, out);
    if (s != SCL_OK || n == 0)
        return s;
    return scl_stream_write(*out, v, 1, NULL);
}

scl_status scl_stream_upload_reals(scl_context *ctx, const char *label, int fp64,
                                   const double *v, size_t n, scl_stream **out)
{
    if (fp64 || n == 0)
        return scl_stream_upload(ctx, label, fp64 ? SCL_DOUBLE : SCL_FLOAT, v, n, out);
    float *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return scl_fail(ctx, SCL_ERR_MEMORY, "scl_stream_upload_reals", "%s: out of host memory",
                        label);
    /* a model's material arrays reach 10^8 cells: rounding them is worth threads */
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n > ((size_t)1 << 22))
#endif
    for (size_t i = 0; i < n; i++)
        tmp[i] = (float)v[i];
    scl_status s = scl_stream_upload(ctx, label, SCL_FLOAT, tmp, n, out);
    free(tmp);
    return s;
}
