/* Recording a failure in the context, for every part of the library (the
 * solvers included): no OpenCL types needed. */
#ifndef SCL_CORE_FAIL_H
#define SCL_CORE_FAIL_H

#include "streamcl.h"

/* Record an error message in ctx ("func: ..."); returns status for chaining. */
scl_status scl_fail(scl_context *ctx, scl_status status, const char *func, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* calloc(n, size), or NULL with "func: out of host memory" recorded in ctx
 * (then return SCL_ERR_MEMORY): a module's allocation of its objects. */
void *scl_calloc(scl_context *ctx, size_t n, size_t size, const char *func);
/* Format into a caller buffer (for calls made before a context exists). */
void scl_format_error(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
