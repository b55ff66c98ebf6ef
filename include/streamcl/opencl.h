/*
 * streamcl/opencl.h — the OpenCL objects under streamcl's, for callers that
 * mix their own OpenCL work into a streamcl context (same device, same
 * in-order queue). Solvers inside the library do not use it: they launch
 * through scl_kernel and scl_plan (streamcl.h).
 */
#ifndef STREAMCL_OPENCL_H
#define STREAMCL_OPENCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "../streamcl.h"

#ifdef __cplusplus
extern "C" {
#endif

cl_context scl_cl_context(const scl_context *ctx);
cl_device_id scl_cl_device(const scl_context *ctx);
cl_command_queue scl_queue(const scl_context *ctx);
cl_mem scl_stream_mem(const scl_stream *s);
cl_program scl_cl_program(const scl_program *prog);
cl_kernel scl_cl_kernel(const scl_kernel *k);

#ifdef __cplusplus
}
#endif
#endif
