/* Device streams made from host arrays in one call: the set-up of the grid
 * solvers (their material tables, profiles, source and receiver indices). */
#ifndef SCL_CORE_UPLOAD_H
#define SCL_CORE_UPLOAD_H

#include "streamcl.h"

/* A stream of n elements of type t written from v. An empty array still
 * makes a stream of one element (a kernel argument must be a buffer), left
 * unwritten. */
scl_status scl_stream_upload(scl_context *ctx, const char *label, scl_type t, const void *v,
                             size_t n, scl_stream **out);

/* n doubles as the solver's real type: double (fp64) or float, rounded. */
scl_status scl_stream_upload_reals(scl_context *ctx, const char *label, int fp64,
                                   const double *v, size_t n, scl_stream **out);

#endif
