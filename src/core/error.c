/* Status and OpenCL error names, and the per-context error message. */
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *scl_status_name(scl_status status)
{
    switch (status) {
    case SCL_OK: return "SCL_OK";
    case SCL_ERR_ARGUMENT: return "SCL_ERR_ARGUMENT";
    case SCL_ERR_NO_DEVICE: return "SCL_ERR_NO_DEVICE";
    case SCL_ERR_OPENCL: return "SCL_ERR_OPENCL";
    case SCL_ERR_BUILD: return "SCL_ERR_BUILD";
    case SCL_ERR_MEMORY: return "SCL_ERR_MEMORY";
    case SCL_ERR_IO: return "SCL_ERR_IO";
    case SCL_ERR_TOO_LARGE: return "SCL_ERR_TOO_LARGE";
    case SCL_ERR_INPUT: return "SCL_ERR_INPUT";
    case SCL_ERR_UNSUPPORTED: return "SCL_ERR_UNSUPPORTED";
    }
    return "SCL_ERR_UNKNOWN";
}

const char *scl_cl_error_name(cl_int code)
{
#define SCL_CL_CASE(x) case x: return #x
    switch (code) {
    SCL_CL_CASE(CL_SUCCESS);
    SCL_CL_CASE(CL_DEVICE_NOT_FOUND);
    SCL_CL_CASE(CL_DEVICE_NOT_AVAILABLE);
    SCL_CL_CASE(CL_COMPILER_NOT_AVAILABLE);
    SCL_CL_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    SCL_CL_CASE(CL_OUT_OF_RESOURCES);
    SCL_CL_CASE(CL_OUT_OF_HOST_MEMORY);
    SCL_CL_CASE(CL_PROFILING_INFO_NOT_AVAILABLE);
    SCL_CL_CASE(CL_MEM_COPY_OVERLAP);
    SCL_CL_CASE(CL_IMAGE_FORMAT_MISMATCH);
    SCL_CL_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    SCL_CL_CASE(CL_BUILD_PROGRAM_FAILURE);
    SCL_CL_CASE(CL_MAP_FAILURE);
    SCL_CL_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET);
    SCL_CL_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    SCL_CL_CASE(CL_COMPILE_PROGRAM_FAILURE);
    SCL_CL_CASE(CL_LINKER_NOT_AVAILABLE);
    SCL_CL_CASE(CL_LINK_PROGRAM_FAILURE);
    SCL_CL_CASE(CL_DEVICE_PARTITION_FAILED);
    SCL_CL_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    SCL_CL_CASE(CL_INVALID_VALUE);
    SCL_CL_CASE(CL_INVALID_DEVICE_TYPE);
    SCL_CL_CASE(CL_INVALID_PLATFORM);
    SCL_CL_CASE(CL_INVALID_DEVICE);
    SCL_CL_CASE(CL_INVALID_CONTEXT);
    SCL_CL_CASE(CL_INVALID_QUEUE_PROPERTIES);
    SCL_CL_CASE(CL_INVALID_COMMAND_QUEUE);
    SCL_CL_CASE(CL_INVALID_HOST_PTR);
    SCL_CL_CASE(CL_INVALID_MEM_OBJECT);
    SCL_CL_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    SCL_CL_CASE(CL_INVALID_IMAGE_SIZE);
    SCL_CL_CASE(CL_INVALID_SAMPLER);
    SCL_CL_CASE(CL_INVALID_BINARY);
    SCL_CL_CASE(CL_INVALID_BUILD_OPTIONS);
    SCL_CL_CASE(CL_INVALID_PROGRAM);
    SCL_CL_CASE(CL_INVALID_PROGRAM_EXECUTABLE);
    SCL_CL_CASE(CL_INVALID_KERNEL_NAME);
    SCL_CL_CASE(CL_INVALID_KERNEL_DEFINITION);
    SCL_CL_CASE(CL_INVALID_KERNEL);
    SCL_CL_CASE(CL_INVALID_ARG_INDEX);
    SCL_CL_CASE(CL_INVALID_ARG_VALUE);
    SCL_CL_CASE(CL_INVALID_ARG_SIZE);
    SCL_CL_CASE(CL_INVALID_KERNEL_ARGS);
    SCL_CL_CASE(CL_INVALID_WORK_DIMENSION);
    SCL_CL_CASE(CL_INVALID_WORK_GROUP_SIZE);
    SCL_CL_CASE(CL_INVALID_WORK_ITEM_SIZE);
    SCL_CL_CASE(CL_INVALID_GLOBAL_OFFSET);
    SCL_CL_CASE(CL_INVALID_EVENT_WAIT_LIST);
    SCL_CL_CASE(CL_INVALID_EVENT);
    SCL_CL_CASE(CL_INVALID_OPERATION);
    SCL_CL_CASE(CL_INVALID_GL_OBJECT);
    SCL_CL_CASE(CL_INVALID_BUFFER_SIZE);
    SCL_CL_CASE(CL_INVALID_MIP_LEVEL);
    SCL_CL_CASE(CL_INVALID_GLOBAL_WORK_SIZE);
    SCL_CL_CASE(CL_INVALID_PROPERTY);
    SCL_CL_CASE(CL_INVALID_IMAGE_DESCRIPTOR);
    SCL_CL_CASE(CL_INVALID_COMPILER_OPTIONS);
    SCL_CL_CASE(CL_INVALID_LINKER_OPTIONS);
    SCL_CL_CASE(CL_INVALID_DEVICE_PARTITION_COUNT);
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    }
#undef SCL_CL_CASE
    return "CL_UNKNOWN_ERROR";
}

static void vformat(char *buf, size_t len, const char *fmt, va_list ap)
{
    if (!buf || len == 0)
        return;
    vsnprintf(buf, len, fmt, ap);
}

void scl_format_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vformat(err, errlen, fmt, ap);
    va_end(ap);
}

scl_status scl_fail(scl_context *ctx, scl_status status, const char *func, const char *fmt, ...)
{
    if (!ctx)
        return status;
    int n = snprintf(ctx->error, sizeof ctx->error, "%s: ", func);
    if (n < 0 || (size_t)n >= sizeof ctx->error)
        return status;
    va_list ap;
    va_start(ap, fmt);
    vformat(ctx->error + n, sizeof ctx->error - (size_t)n, fmt, ap);
    va_end(ap);
    return status;
}

scl_status scl_fail_cl(scl_context *ctx, const char *func, const char *clcall, cl_int code,
                       const char *fmt, ...)
{
    scl_status status = SCL_ERR_OPENCL;
    if (code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_HOST_MEMORY ||
        code == CL_INVALID_BUFFER_SIZE)
        status = SCL_ERR_MEMORY;
    if (!ctx)
        return status;
    int n = snprintf(ctx->error, sizeof ctx->error, "%s: %s failed with %s (%d)", func, clcall,
                     scl_cl_error_name(code), (int)code);
    if (n < 0 || (size_t)n >= sizeof ctx->error - 4 || !fmt || !*fmt)
        return status;
    ctx->error[n++] = ' ';
    ctx->error[n++] = '(';
    va_list ap;
    va_start(ap, fmt);
    vformat(ctx->error + n, sizeof ctx->error - (size_t)n - 1, fmt, ap);
    va_end(ap);
    strncat(ctx->error, ")", sizeof ctx->error - strlen(ctx->error) - 1);
    return status;
}

const char *scl_last_error(const scl_context *ctx)
{
    return ctx ? ctx->error : "no context";
}

void scl_clear_error(scl_context *ctx)
{
    if (ctx)
        ctx->error[0] = '\0';
}

void *scl_calloc(scl_context *ctx, size_t n, size_t size, const char *func)
{
    void *p = calloc(n, size);
    if (!p)
        scl_fail(ctx, SCL_ERR_MEMORY, func, "out of host memory");
    return p;
}
