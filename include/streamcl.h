/*
 * streamcl — the offload interface shared by every solver.
 *
 * Model (after zstd/libuv and FFTW): opaque objects with explicit create/free,
 * every call returns an scl_status, the message of the last failure is kept in
 * the context (scl_last_error), nothing is printed and nothing exits.
 *
 *   scl_context   one OpenCL device + in-order queue + caches + profile table
 *   scl_program   a program built from kernels embedded at build time (cl/NAME.cl),
 *                 cached on disk as a device binary
 *   scl_stream    a typed device buffer of 1-3 dimensions
 *   scl_plan      tuned launch parameters for (kernel, problem shape, device)
 *
 * Thread safety: one context per thread; distinct contexts are independent.
 */
#ifndef STREAMCL_H
#define STREAMCL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STREAMCL_VERSION "0.1.0"

/* ------------------------------------------------------------------ status */

typedef enum {
    SCL_OK = 0,
    SCL_ERR_ARGUMENT,    /* a caller-supplied value is invalid */
    SCL_ERR_NO_DEVICE,   /* no OpenCL platform/device matches */
    SCL_ERR_OPENCL,      /* an OpenCL call failed; message names it */
    SCL_ERR_BUILD,       /* kernel compilation failed; message has the build log */
    SCL_ERR_MEMORY,      /* host or device allocation failed */
    SCL_ERR_IO,          /* file could not be read or written */
    SCL_ERR_TOO_LARGE,   /* problem does not fit the device even when chunked */
    SCL_ERR_INPUT,       /* invalid physical input (NaN, overlapping atoms, ...) */
    SCL_ERR_UNSUPPORTED  /* the device cannot run this (e.g. no fp64) */
} scl_status;

/* Static name of a status, e.g. "SCL_ERR_BUILD". */
const char *scl_status_name(scl_status status);
/* Static name of an OpenCL error code, e.g. "CL_OUT_OF_RESOURCES". */
const char *scl_cl_error_name(cl_int code);

/* ------------------------------------------------------------------ devices */

typedef struct {
    int platform_index, device_index; /* the PLATFORM:DEVICE of a spec */
    char platform[128];
    char name[128];
    char vendor[128];
    char version[128];        /* CL_DEVICE_VERSION */
    char driver[64];          /* CL_DRIVER_VERSION */
    cl_device_type type;
    int is_gpu;
    cl_uint compute_units;
    cl_uint clock_mhz;
    size_t max_work_group;
    cl_ulong local_mem;       /* bytes */
    cl_ulong global_mem;      /* bytes */
    cl_ulong max_alloc;       /* bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    int fp64;                 /* cl_khr_fp64 or CL_DEVICE_DOUBLE_FP_CONFIG != 0 */
    int host_unified;         /* device shares host memory: map is zero-copy */
    cl_uint vec_float, vec_double; /* preferred vector widths */
} scl_device_info;

/* Every device of every platform. *list is malloc'd; release with free().
 * err/errlen (optional) receive a message on failure. */
scl_status scl_devices_list(scl_device_info **list, size_t *count, char *err, size_t errlen);

/* ------------------------------------------------------------------ context */

typedef struct scl_context scl_context;

typedef struct {
    /* "gpu", "cpu", "P:D" (platform:device indices), or a case-insensitive
     * substring of the device or platform name. NULL: $STREAMCL_DEVICE, else
     * the first GPU, else the first CPU. */
    const char *device;
    int profiling;          /* time every launch/transfer (also $STREAMCL_PROFILE=1) */
    int no_cache;           /* skip the on-disk binary and plan cache ($STREAMCL_NO_CACHE=1) */
    const char *cache_dir;  /* NULL: $XDG_CACHE_HOME/streamcl or ~/.cache/streamcl */
} scl_context_options;

/* Create a context. opt may be NULL for defaults. On failure *out is NULL and
 * err (if given) holds the message. */
scl_status scl_context_create(const scl_context_options *opt, scl_context **out,
                              char *err, size_t errlen);
void scl_context_free(scl_context *ctx);

/* Message of the last failed call on this context ("" if none). It names the
 * API function, the OpenCL call and error, and the context (kernel, sizes). */
const char *scl_last_error(const scl_context *ctx);
void scl_clear_error(scl_context *ctx);

const scl_device_info *scl_device(const scl_context *ctx);
cl_context scl_cl_context(const scl_context *ctx);
cl_device_id scl_cl_device(const scl_context *ctx);
cl_command_queue scl_queue(const scl_context *ctx);
/* Directory of the on-disk cache, or NULL when caching is off. */
const char *scl_cache_dir(const scl_context *ctx);

/* Block until all queued work is done. */
scl_status scl_finish(scl_context *ctx);

/* ------------------------------------------------------------------ programs */

typedef struct scl_program scl_program;

/* Build an embedded kernel file, by its base name in cl/ (e.g. "reduce" for
 * cl/reduce.cl). options are appended to the device's defaults
 * (-cl-std=CL1.2, -DSCL_FP64=0|1, -DSCL_GPU=0|1, -DSCL_VEC_FLOAT=preferred
 * float vector width, -DSCL_MAX_WG=max work-group size). Uses the binary cache. */
scl_status scl_program_build(scl_context *ctx, const char *name, const char *options,
                             scl_program **out);
/* Same from caller-supplied source; label names it in messages and the cache. */
scl_status scl_program_build_source(scl_context *ctx, const char *label, const char *source,
                                    const char *options, scl_program **out);
void scl_program_free(scl_program *prog);
/* 1 if the program was loaded from a cached binary. */
int scl_program_from_cache(const scl_program *prog);
/* Create a kernel (release with clReleaseKernel). */
scl_status scl_kernel_create(scl_program *prog, const char *kernel_name, cl_kernel *out);
/* Source text of an embedded file, or NULL. */
const char *scl_embedded_source(const char *name);

/* Set kernel argument idx; the error message names kernel and index. */
scl_status scl_arg(scl_context *ctx, cl_kernel k, cl_uint idx, size_t size, const void *value);

/* Enqueue a kernel. label names it in profiles and messages (NULL: kernel
 * name). local may be NULL. global is rounded up to a multiple of local.
 * event (optional) receives the launch event (caller releases). */
scl_status scl_launch(scl_context *ctx, cl_kernel k, const char *label, cl_uint dims,
                      const size_t *global, const size_t *local, cl_event *event);

/* ------------------------------------------------------------------ streams */

typedef enum {
    SCL_CHAR, SCL_UCHAR, SCL_SHORT, SCL_USHORT, SCL_HALF, SCL_INT, SCL_UINT,
    SCL_FLOAT, SCL_FLOAT2, SCL_FLOAT4, SCL_INT2, SCL_INT4, SCL_LONG,
    SCL_DOUBLE, SCL_DOUBLE2, SCL_DOUBLE4
} scl_type;

size_t scl_type_size(scl_type t);
const char *scl_type_name(scl_type t);

enum {
    SCL_STREAM_READ_WRITE = 0,
    SCL_STREAM_READ_ONLY = 1,   /* kernels only read it */
    SCL_STREAM_WRITE_ONLY = 2,  /* kernels only write it */
    SCL_STREAM_HOST_MAPPED = 4  /* allocate host-visible (zero-copy map on CPUs) */
};

typedef struct scl_stream scl_stream;

/* Stream of nx*ny*nz elements of type t (ny, nz >= 1). label names it in
 * messages and profiles. */
scl_status scl_stream_create(scl_context *ctx, const char *label, scl_type t, size_t nx,
                             size_t ny, size_t nz, unsigned flags, scl_stream **out);
void scl_stream_free(scl_stream *s);

cl_mem scl_stream_mem(const scl_stream *s);
size_t scl_stream_count(const scl_stream *s);   /* elements */
size_t scl_stream_bytes(const scl_stream *s);
scl_type scl_stream_type(const scl_stream *s);
void scl_stream_dims(const scl_stream *s, size_t dims[3]);

/* Copy host <-> device. Non-blocking calls return an event (optional; caller
 * releases) and the host buffer must stay valid until it completes. */
scl_status scl_stream_write(scl_stream *s, const void *host, int blocking, cl_event *event);
scl_status scl_stream_read(scl_stream *s, void *host, int blocking, cl_event *event);
/* Element ranges [first, first+count). */
scl_status scl_stream_write_range(scl_stream *s, size_t first, size_t count, const void *host,
                                  int blocking, cl_event *event);
scl_status scl_stream_read_range(scl_stream *s, size_t first, size_t count, void *host,
                                 int blocking, cl_event *event);
/* Fill every element with the pattern of one element. */
scl_status scl_stream_fill(scl_stream *s, const void *element);

enum { SCL_MAP_READ = 1, SCL_MAP_WRITE = 2 };
/* Map the whole stream (blocking); zero-copy where the device shares host
 * memory and the stream is SCL_STREAM_HOST_MAPPED. Unmap before kernels use it. */
scl_status scl_stream_map(scl_stream *s, unsigned map_flags, void **host);
scl_status scl_stream_unmap(scl_stream *s, void *host);

/* ------------------------------------------------------------------ profiling */

typedef enum { SCL_PROF_KERNEL, SCL_PROF_WRITE, SCL_PROF_READ, SCL_PROF_OTHER } scl_prof_kind;

/* Account an event under label (the library does this itself for launches and
 * stream transfers when profiling is on). The event is retained. */
scl_status scl_profile_event(scl_context *ctx, const char *label, scl_prof_kind kind, cl_event ev);
/* Total device seconds and count for a label (after waiting for its events). */
scl_status scl_profile_total(scl_context *ctx, const char *label, double *seconds, long *count);
/* Print the per-kernel / per-transfer table (like LAMMPS's Device Time Info). */
scl_status scl_profile_report(scl_context *ctx, FILE *out);
void scl_profile_reset(scl_context *ctx);
int scl_profiling(const scl_context *ctx);

/* Elapsed device seconds between START and END of a completed event. */
scl_status scl_event_seconds(scl_context *ctx, cl_event ev, double *seconds);

/* ------------------------------------------------------------------ plans / tuner */

#define SCL_PLAN_MAX_PARAMS 8
#define SCL_PLAN_MAX_VALUES 16

/* One tunable parameter of a kernel and its candidate values. */
typedef struct {
    const char *name;      /* e.g. "wg", "tpa", "vec" */
    int count;
    int values[SCL_PLAN_MAX_VALUES];
} scl_tune_param;

typedef struct {
    int count;
    char names[SCL_PLAN_MAX_PARAMS][24];
    int values[SCL_PLAN_MAX_PARAMS];
    double seconds;        /* median time of the chosen candidate, 0 if untimed */
    int from_cache;        /* 1: read from the on-disk plan cache */
    int tuned;             /* 1: chosen by timing candidates now */
} scl_plan;

/* Runs the kernel once with one candidate, blocking, and returns the measured
 * device seconds. Return SCL_ERR_UNSUPPORTED for an illegal candidate (e.g.
 * work-group too large): the tuner skips it. Other errors abort tuning. */
typedef scl_status (*scl_tune_fn)(void *user, const int *values, double *seconds);

typedef struct {
    int tune;          /* 0: do not time; use cache, else defaults ($STREAMCL_TUNE=0) */
    int repeats;       /* timed runs per candidate after one warm-up (default 3) */
    const char *force; /* "name=value,..." fixes parameters (also $STREAMCL_FORCE) */
} scl_tune_options;

/* Choose parameters for (kernel, shape) on this context's device: forced values
 * first, else the cached plan, else time every combination (median of
 * repeats) and cache the fastest. Default values are values[0] of each param. */
scl_status scl_plan_tune(scl_context *ctx, const char *kernel, const char *shape,
                         const scl_tune_param *params, int nparams, scl_tune_fn run,
                         void *user, const scl_tune_options *opt, scl_plan *out);
/* Value of a named parameter of a plan, or fallback. */
int scl_plan_value(const scl_plan *plan, const char *name, int fallback);

/* ------------------------------------------------------------------ reductions */

typedef enum { SCL_SUM, SCL_MIN, SCL_MAX } scl_reduce_op;

/* Reduce a SCL_FLOAT or SCL_DOUBLE stream (all elements). Work-group tree
 * reduction on the device, per-group partials combined on the host in double.
 * Sums accumulate in double on fp64 devices, compensated float otherwise. */
scl_status scl_reduce(scl_context *ctx, scl_stream *s, scl_reduce_op op, double *result);
/* Same over the first count elements. */
scl_status scl_reduce_n(scl_context *ctx, scl_stream *s, size_t count, scl_reduce_op op,
                        double *result);

#ifdef __cplusplus
}
#endif
#endif
