/* Positional kernel arguments and raw cl_kernel launches: the pair module's
 * interface until it moves onto kernel objects. Nothing new uses it. */
#ifndef SCL_CORE_LEGACY_H
#define SCL_CORE_LEGACY_H

#include "streamcl/opencl.h"

scl_status scl_legacy_kernel_create(scl_program *prog, const char *kernel_name, cl_kernel *out);
scl_status scl_arg(scl_context *ctx, cl_kernel k, cl_uint idx, size_t size, const void *value);
scl_status scl_launch(scl_context *ctx, cl_kernel k, const char *label, cl_uint dims,
                      const size_t *global, const size_t *local, cl_event *event);

#endif
