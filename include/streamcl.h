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
 *   scl_kernel    one kernel of a program, arguments bound by name and type
 *   scl_plan      an operation with tuned parameters (FFTW-style: planned
 *                 once, by timing its candidates, cached; executed many times)
 *
 * The header needs no OpenCL headers; streamcl/opencl.h hands out the
 * OpenCL objects underneath for callers that mix in their own OpenCL.
 *
 * Thread safety: one context per thread; distinct contexts are independent.
 */
#ifndef STREAMCL_H
#define STREAMCL_H

#include <stddef.h>
#include <stdint.h>
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
const char *scl_cl_error_name(int code);

/* ------------------------------------------------------------------ devices */

typedef struct {
    int platform_index, device_index; /* the PLATFORM:DEVICE of a spec */
    char platform[128];
    char name[128];
    char vendor[128];
    char version[128];        /* CL_DEVICE_VERSION */
    char driver[64];          /* CL_DRIVER_VERSION */
    uint64_t type;            /* CL_DEVICE_TYPE_* bits */
    int is_gpu;
    unsigned compute_units;
    unsigned clock_mhz;
    size_t max_work_group;
    uint64_t local_mem;       /* bytes */
    uint64_t global_mem;      /* bytes */
    uint64_t max_alloc;       /* bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    int fp64;                 /* cl_khr_fp64 or CL_DEVICE_DOUBLE_FP_CONFIG != 0 */
    int host_unified;         /* device shares host memory: map is zero-copy */
    unsigned vec_float, vec_double; /* preferred vector widths */
} scl_device_info;

/* Every device of every platform. *list is malloc'd; release with free().
 * err/errlen (optional) receive a message on failure. */
scl_status scl_devices_list(scl_device_info **list, size_t *count, char *err, size_t errlen);

/* ------------------------------------------------------------------ context */

typedef struct scl_context scl_context;

typedef struct {
    /* "gpu", "cpu", "P:D" (platform:device indices), or a case-insensitive
     * substring of the device or platform name. NULL: the first GPU, else
     * the first CPU. */
    const char *device;
    int profiling;          /* account every launch/transfer by label */
    /* On-disk cache of program binaries and tuned plans; NULL or "": none
     * (the library keeps no state outside its objects unless told where). */
    const char *cache_dir;
    /* Tuning defaults for every plan made on this context. */
    int no_tune;            /* 1: never time candidates; cached plan, else defaults */
    int tune_repeats;       /* timed runs per candidate after a warm-up (0: 5) */
    const char *force;      /* "name=value,..." fixes plan parameters where they exist */
} scl_context_options;

/* The STREAMCL_* environment variables as options, for programs that want
 * them (the streamcl command and the LAMMPS plugin; the library itself reads
 * no environment): STREAMCL_DEVICE, STREAMCL_PROFILE=1, STREAMCL_NO_CACHE=1
 * (else the cache is $STREAMCL_CACHE_DIR, $XDG_CACHE_HOME/streamcl or
 * ~/.cache/streamcl), STREAMCL_TUNE=0, STREAMCL_FORCE=name=v,...
 * Fields already set in env->context (non-NULL / non-zero) are kept. */
typedef struct {
    scl_context_options context;
    char device[256], cache_dir[1024], force[256]; /* storage the strings point to */
} scl_env_options;
void scl_env_options_read(scl_env_options *env);

/* Create a context. opt may be NULL for defaults. On failure *out is NULL and
 * err (if given) holds the message. */
scl_status scl_context_create(const scl_context_options *opt, scl_context **out,
                              char *err, size_t errlen);
void scl_context_free(scl_context *ctx);
/* scl_context_create with the STREAMCL_* environment (scl_env_options_read)
 * for what opt leaves unset (opt may be NULL): a program's context in one
 * call. */
scl_status scl_context_create_env(const scl_context_options *opt, scl_context **out,
                                  char *err, size_t errlen);

/* Message of the last failed call on this context ("" if none). It names the
 * API function, the OpenCL call and error, and the context (kernel, sizes). */
const char *scl_last_error(const scl_context *ctx);
void scl_clear_error(scl_context *ctx);

const scl_device_info *scl_device(const scl_context *ctx);
/* Directory of the on-disk cache, or NULL when caching is off. */
const char *scl_cache_dir(const scl_context *ctx);

/* Host <-> device copies queued on the context (scl_stream_write/read and
 * their _range forms) since it was made, by every object made on it: counts
 * and bytes, for reports of the transfers per step. Map/unmap and
 * device-side copies and fills are not counted. */
typedef struct {
    long uploads, downloads;
    uint64_t upload_bytes, download_bytes;
} scl_transfer_stats;
void scl_transfer_stats_get(const scl_context *ctx, scl_transfer_stats *out);

/* Programs and kernel objects made on the context since it was made: a
 * caller that builds everything at set-up can check that its time steps
 * compile nothing (a program build takes from milliseconds, a cached binary,
 * to seconds, a GPU compile). Programs counts every successful build (from
 * source or the binary cache), compiled those that had no cached binary;
 * the context's own per-(file, options) programs behind kernel objects count
 * once, when first made. */
typedef struct {
    long programs, compiled;
    long kernels; /* kernel objects made (scl_kernel_create, scl_kernel_from_program) */
} scl_build_stats;
void scl_build_stats_get(const scl_context *ctx, scl_build_stats *out);

/* Block until all queued work is done. */
scl_status scl_finish(scl_context *ctx);
/* Submit the queued work to the device without waiting (work queued and
 * left to run while the host does something else needs it on some drivers). */
scl_status scl_flush(scl_context *ctx);

/* ------------------------------------------------------------------ precision */

/* The one precision switch of every solver module (its options' field
 * `precision`); each module's header says what it means there. */
typedef enum {
    SCL_PREC_SINGLE, /* float math and sums */
    SCL_PREC_MIXED,  /* float math, double (or compensated) sums */
    SCL_PREC_DOUBLE  /* double math (the device needs fp64) */
} scl_precision;

/* ------------------------------------------------------------------ element types */

typedef enum {
    SCL_CHAR, SCL_UCHAR, SCL_SHORT, SCL_USHORT, SCL_HALF, SCL_INT, SCL_UINT,
    SCL_FLOAT, SCL_FLOAT2, SCL_FLOAT4, SCL_INT2, SCL_INT4, SCL_LONG,
    SCL_DOUBLE, SCL_DOUBLE2, SCL_DOUBLE4
} scl_type;

size_t scl_type_size(scl_type t);
const char *scl_type_name(scl_type t);

/* ------------------------------------------------------------------ events */

/* An opaque handle of queued device work (a launch or a transfer). Release
 * every event a call hands out with scl_event_release. */
typedef struct _cl_event *scl_event;

scl_status scl_event_wait(scl_context *ctx, scl_event ev);
void scl_event_release(scl_event ev);
/* Elapsed device seconds between start and end of the event (waits for it). */
scl_status scl_event_seconds(scl_context *ctx, scl_event ev, double *seconds);

/* ------------------------------------------------------------------ programs */

typedef struct scl_program scl_program;

/* Build an embedded kernel file, by its base name in cl/ (e.g. "reduce" for
 * cl/reduce.cl). options are appended to the device's defaults
 * (-cl-std=CL1.2, -DSCL_FP64=0|1, -DSCL_GPU=0|1, -DSCL_VEC_FLOAT=preferred
 * float vector width, -DSCL_MAX_WG=max work-group size). Uses the binary
 * cache. The caller owns the program (scl_program_free). */
scl_status scl_program_build(scl_context *ctx, const char *name, const char *options,
                             scl_program **out);
/* Same from caller-supplied source; label names it in messages and the cache. */
scl_status scl_program_build_source(scl_context *ctx, const char *label, const char *source,
                                    const char *options, scl_program **out);
void scl_program_free(scl_program *prog);
/* 1 if the program was loaded from a cached binary. */
int scl_program_from_cache(const scl_program *prog);
/* Source text of an embedded file, or NULL. */
const char *scl_embedded_source(const char *name);

/* ------------------------------------------------------------------ kernels */

/* A kernel object: one __kernel function of a built program, with its
 * parameters known by name and type (read from the kernel's source, with the
 * file's typedefs resolved), so arguments are bound by name and checked:
 *
 *   scl_kernel *k;
 *   scl_kernel_create(ctx, "lbm", "lbm_step", "-DWG=64", &k);
 *   scl_kernel_set_stream(k, "src", cells);
 *   scl_kernel_set_real(k, "omega", 1.7);     // float or double, as declared
 *   scl_kernel_set_int(k, "nx", nx);
 *   scl_kernel_launch(k, 1, global, local, NULL);
 *
 * A wrong name, a type that does not match the declaration (an int setter on
 * a float parameter, a float4 stream on a double* parameter), or a launch with
 * an argument left unbound is SCL_ERR_ARGUMENT with a message naming the
 * kernel and the argument. Programs built for kernel objects are kept by the
 * context (one build per file and options) and freed with it. */
typedef struct scl_kernel scl_kernel;
typedef struct scl_stream scl_stream; /* below */

/* Kernel kernel_name of embedded file program_name ("lbm" for cl/lbm.cl)
 * built with options (NULL for none; the device defaults of
 * scl_program_build are always added). */
scl_status scl_kernel_create(scl_context *ctx, const char *program_name,
                             const char *kernel_name, const char *options, scl_kernel **out);
/* Kernel of an already built program (the program must outlive the kernel). */
scl_status scl_kernel_from_program(scl_program *prog, const char *kernel_name,
                                   scl_kernel **out);
void scl_kernel_free(scl_kernel *k);
/* scl_kernel_free of each of k[0..n-1] (NULL entries too). */
void scl_kernels_free(scl_kernel *const *k, size_t n);

/* Name under which launches are profiled and reported (default: the kernel name). */
void scl_kernel_set_label(scl_kernel *k, const char *label);
const char *scl_kernel_name(const scl_kernel *k);
int scl_kernel_arg_count(const scl_kernel *k);
/* 1 if the kernel has a parameter of that name. */
int scl_kernel_has_arg(const scl_kernel *k, const char *arg);

/* Argument setters. Integers: int/uint/short/char parameters take set_int
 * and set_uint when the value fits; long/ulong take set_long. Reals:
 * set_real converts to the declared float or double; set_float/set_double
 * insist on that exact type. set_value copies one element of type t for any
 * declared type of the same scl_type (vectors such as float4 or int2). */
scl_status scl_kernel_set_int(scl_kernel *k, const char *arg, int value);
scl_status scl_kernel_set_uint(scl_kernel *k, const char *arg, unsigned value);
scl_status scl_kernel_set_long(scl_kernel *k, const char *arg, long long value);
scl_status scl_kernel_set_real(scl_kernel *k, const char *arg, double value);
scl_status scl_kernel_set_float(scl_kernel *k, const char *arg, float value);
scl_status scl_kernel_set_double(scl_kernel *k, const char *arg, double value);
scl_status scl_kernel_set_value(scl_kernel *k, const char *arg, scl_type t, const void *value);
/* A __global or __constant pointer parameter; the stream's element type must
 * match the pointee (through typedefs; void* and struct pointees take any). */
scl_status scl_kernel_set_stream(scl_kernel *k, const char *arg, scl_stream *s);
/* A __local pointer parameter: bytes of local memory per work-group. */
scl_status scl_kernel_set_local(scl_kernel *k, const char *arg, size_t bytes);

/* Many arguments bound from tables, for kernels of many arguments (one
 * table a kind, instead of a chain of setters):
 *   const scl_arg_stream streams[] = {{"pos", pos}, {"force", force}};
 *   const scl_arg_int ints[] = {{"n", n}, {"first", first}};
 *   s = scl_kernel_bind(k, streams, 2, ints, 2);
 * Streams first, then ints, each as its setter above; stops at the first
 * error (which names the argument). Either table may be NULL with count 0. */
typedef struct {
    const char *name;
    scl_stream *stream;
} scl_arg_stream;
typedef struct {
    const char *name;
    int value;
} scl_arg_int;
typedef struct {
    const char *name;
    double value;
} scl_arg_real;
scl_status scl_kernel_bind(scl_kernel *k, const scl_arg_stream *streams, size_t nstreams,
                           const scl_arg_int *ints, size_t nints);
/* Reals (float or double, as declared: scl_kernel_set_real) from a table. */
scl_status scl_kernel_bind_reals(scl_kernel *k, const scl_arg_real *reals, size_t n);

/* Work-group facts of this kernel on this device. */
size_t scl_kernel_max_work_group(const scl_kernel *k);      /* CL_KERNEL_WORK_GROUP_SIZE */
size_t scl_kernel_preferred_multiple(const scl_kernel *k);  /* warp / SIMD width */
/* SCL_OK if local (dims entries) can be launched: within the kernel's and
 * device's limits, and the local memory bound so far fits; else
 * SCL_ERR_UNSUPPORTED with the reason in the context's message. */
scl_status scl_kernel_check_local(scl_kernel *k, unsigned dims, const size_t *local);

/* Enqueue over global (dims 1-3, rounded up to multiples of local; local may
 * be NULL). Every argument must be bound. event (optional) receives the
 * launch event; release it with scl_event_release. */
scl_status scl_kernel_launch(scl_kernel *k, unsigned dims, const size_t *global,
                             const size_t *local, scl_event *event);

/* ------------------------------------------------------------------ streams */


enum {
    SCL_STREAM_READ_WRITE = 0,
    SCL_STREAM_READ_ONLY = 1,   /* kernels only read it */
    SCL_STREAM_WRITE_ONLY = 2,  /* kernels only write it */
    SCL_STREAM_HOST_MAPPED = 4  /* allocate host-visible (zero-copy map on CPUs) */
};


/* Stream of nx*ny*nz elements of type t (ny, nz >= 1). label names it in
 * messages and profiles. */
scl_status scl_stream_create(scl_context *ctx, const char *label, scl_type t, size_t nx,
                             size_t ny, size_t nz, unsigned flags, scl_stream **out);
void scl_stream_free(scl_stream *s);
/* scl_stream_free of each of s[0..n-1] (NULL entries too): a module's
 * teardown of its streams from one array. */
void scl_streams_free(scl_stream *const *s, size_t n);

size_t scl_stream_count(const scl_stream *s);   /* elements */
size_t scl_stream_bytes(const scl_stream *s);
scl_type scl_stream_type(const scl_stream *s);
void scl_stream_dims(const scl_stream *s, size_t dims[3]);

/* Copy host <-> device. Non-blocking calls return an event (optional; caller
 * releases) and the host buffer must stay valid until it completes. */
scl_status scl_stream_write(scl_stream *s, const void *host, int blocking, scl_event *event);
scl_status scl_stream_read(scl_stream *s, void *host, int blocking, scl_event *event);
/* Element ranges [first, first+count). */
scl_status scl_stream_write_range(scl_stream *s, size_t first, size_t count, const void *host,
                                  int blocking, scl_event *event);
scl_status scl_stream_read_range(scl_stream *s, size_t first, size_t count, void *host,
                                 int blocking, scl_event *event);
/* Copies on the copy queue: a second in-order queue of the context's
 * device (made on first use; the main queue where none can be), so that
 * host copies overlap the main queue's kernels. Non-blocking; each starts
 * after the event `after` (NULL: none; e.g. the main queue's kernel that
 * wrote the range) and after the copy queue's earlier copies. The main
 * queue does not wait for them: scl_queue_after(ctx, ev) makes its later
 * work wait for ev. */
scl_status scl_copy_read(scl_stream *s, size_t first, size_t count, void *host, scl_event after,
                         scl_event *event);
scl_status scl_copy_write(scl_stream *s, size_t first, size_t count, const void *host,
                          scl_event after, scl_event *event);
scl_status scl_queue_after(scl_context *ctx, scl_event ev);
/* Fill every element with the pattern of one element (blocking). */
scl_status scl_stream_fill(scl_stream *s, const void *element);
/* Queue a fill of elements [first, first+count) (in order with launches). */
scl_status scl_stream_fill_range(scl_stream *s, size_t first, size_t count, const void *element,
                                 scl_event *event);
/* Queue a device copy of count elements from src[src_first] to
 * dst[dst_first]; both streams must have the same element size. */
scl_status scl_stream_copy(scl_stream *dst, size_t dst_first, const scl_stream *src,
                           size_t src_first, size_t count, scl_event *event);

enum { SCL_MAP_READ = 1, SCL_MAP_WRITE = 2 };
/* Map the whole stream (blocking); zero-copy where the device shares host
 * memory and the stream is SCL_STREAM_HOST_MAPPED. Unmap before kernels use it. */
scl_status scl_stream_map(scl_stream *s, unsigned map_flags, void **host);
scl_status scl_stream_unmap(scl_stream *s, void *host);

/* ------------------------------------------------------------------ profiling */

typedef enum { SCL_PROF_KERNEL, SCL_PROF_WRITE, SCL_PROF_READ, SCL_PROF_OTHER } scl_prof_kind;

/* Account an event under label (the library does this itself for launches and
 * stream transfers when profiling is on). The event is retained. */
scl_status scl_profile_event(scl_context *ctx, const char *label, scl_prof_kind kind,
                             scl_event ev);
/* Total device seconds and count for a label (after waiting for its events). */
scl_status scl_profile_total(scl_context *ctx, const char *label, double *seconds, long *count);
/* Print the per-kernel / per-transfer table (like LAMMPS's Device Time Info). */
scl_status scl_profile_report(scl_context *ctx, FILE *out);
void scl_profile_reset(scl_context *ctx);
int scl_profiling(const scl_context *ctx);

/* ------------------------------------------------------------------ plans / tuner */

#define SCL_PLAN_MAX_PARAMS 8
#define SCL_PLAN_MAX_VALUES 16

/* One tunable parameter of an operation and its candidate values; values[0]
 * is the default when nothing is timed. */
typedef struct {
    const char *name;      /* e.g. "wg", "tpa", "vec" */
    int count;
    int values[SCL_PLAN_MAX_VALUES];
} scl_tune_param;

/* What one plan parameter's value must be. Zero fields ask nothing. */
typedef struct {
    int min, max;     /* value >= min when either is nonzero; value <= max when max > 0 */
    int pow2;         /* 1: a power of two (e.g. a tree reduction halving a work-group) */
    int divides;      /* > 0: the value divides it (e.g. the padding of the arrays) */
    const char *why;  /* what needs it, ends the message, e.g. "the J/K reduction" */
} scl_param_rule;

/* What a solver tells the core about one tunable operation: its candidates
 * and how to run one step of a candidate; the core does the rest (forced
 * values, cache, warm-up, repetitions, median, skipping illegal candidates).
 * The step is timed by the device time of the launches, copies and fills it
 * queues through the core, so it must not wait for them itself. */
typedef struct {
    const char *name;   /* operation, e.g. "lbm.step"; keys the cache, names messages */
    const char *shape;  /* problem shape, e.g. "4096x4096 fp32"; keys the cache */
    const scl_tune_param *params;
    int nparams;
    /* Make the variant for values[] (kernels built with -D options, arguments
     * bound). SCL_ERR_UNSUPPORTED marks an illegal candidate, which the tuner
     * skips. NULL: no variant (run_variant gets NULL). */
    scl_status (*prepare)(void *user, const int *values, void **variant);
    /* Queue one step of a variant. */
    scl_status (*run_variant)(void *user, void *variant, const int *values);
    /* Free a variant made by prepare (may be NULL). */
    void (*release)(void *user, void *variant);
    void *user;         /* passed back to the functions; must outlive the plan */
    /* Optional: 0 for a legal candidate the tuner need not build and time
     * (known to lose); forced and cached values never ask. */
    int (*worth_timing)(void *user, const int *values);
    /* Optional: what each parameter's values must be (nparams rules, in the
     * order of params; NULL: anything the kernels are given). The core checks
     * every candidate and every forced value (the plan string and the
     * context's force string alike) against them before anything is built,
     * and refuses a bad value with a message naming the key, the value and
     * the requirement: a kernel fed a value it cannot take computes garbage. */
    const scl_param_rule *rules;
    /* Optional: requirements between parameters (e.g. the tile a multiple of
     * the work-group). Returns 0 for a legal combination, else writes what is
     * required into why (len bytes). Forced combinations are refused with it;
     * candidates that fail it are skipped. */
    int (*check)(void *user, const int *values, char *why, size_t len);
} scl_plan_desc;

/* Overrides of the context's tuning defaults for one plan (NULL: defaults). */
typedef struct {
    int no_tune;
    int repeats;
    const char *force;  /* every name must be a parameter of the plan */
    /* The same as typed values (a solver's own parameters: no text on the
     * way); with force, a name may not take two values. */
    const scl_arg_int *forced;
    int nforced;
    /* Wall-clock budget of the timing, seconds (0: none). The first
     * candidate is always timed; once the budget is spent no further one is,
     * a slow candidate gets fewer repeats, and the fastest so far is kept
     * (and cached): a problem whose single step takes seconds (a pair cutoff
     * of 40 A) must not spend minutes in the tuner. */
    double max_seconds;
} scl_tune_options;

typedef struct scl_plan scl_plan;

/* Plan an operation on this context's device: forced values first, else the
 * cached plan, else time every combination of candidates and cache the
 * fastest. The plan keeps the chosen variant, ready to execute. */
scl_status scl_plan_create(scl_context *ctx, const scl_plan_desc *desc,
                           const scl_tune_options *opt, scl_plan **out);
/* Queue one step of the chosen variant. */
scl_status scl_plan_execute(scl_plan *plan);
void scl_plan_free(scl_plan *plan);

/* Value of a named parameter of a plan, or fallback. */
int scl_plan_value(const scl_plan *plan, const char *name, int fallback);
void *scl_plan_variant(const scl_plan *plan);
/* Median device seconds of a step of the chosen variant (0 if not measured). */
double scl_plan_seconds(const scl_plan *plan);
int scl_plan_from_cache(const scl_plan *plan);  /* 1: read from the plan cache */
int scl_plan_tuned(const scl_plan *plan);       /* 1: chosen by timing now */
/* "wg=64 vec=4" into buf; returns buf. */
const char *scl_plan_describe(const scl_plan *plan, char *buf, size_t len);

/* ------------------------------------------------------------------ reductions */

typedef enum { SCL_SUM, SCL_MIN, SCL_MAX } scl_reduce_op;

/* Reduce a SCL_FLOAT or SCL_DOUBLE stream (all elements). Work-group tree
 * reduction on the device, per-group partials combined on the host in double.
 * Sums accumulate in double on fp64 devices, compensated float otherwise. */
scl_status scl_reduce(scl_context *ctx, scl_stream *s, scl_reduce_op op, double *result);
/* Same over the first count elements. */
scl_status scl_reduce_n(scl_context *ctx, scl_stream *s, size_t count, scl_reduce_op op,
                        double *result);

/* ------------------------------------------------------------------ output files */

/* Complete files or none, and never damage to what a path names.
 * scl_outfile_open resolves PATH (a symlink is written through to the file it
 * names; a dangling one, another user's link in a sticky world-writable
 * directory, a directory, a block device or a socket is refused)
 * and then either
 *  - creates a temporary ".NAME.XXXXXXXXXX" beside the target with
 *    O_CREAT|O_EXCL|O_NOFOLLOW (an unpredictable name; a planted symlink is
 *    never followed) that scl_outfile_commit renames onto the target and
 *    scl_outfile_abort removes, or
 *  - for a character device or FIFO (/dev/null, /dev/stdout, a pipe), and
 *    for /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N whatever they
 *    lead to, opens the target itself for appending ("direct"): never
 *    renamed over, never removed.
 * Write to o->f, or let a library that wants a file name write to o->tmp
 * after scl_outfile_begin (check o->direct if it needs a regular file).
 * Check paths before long computations with scl_output_path_check. */
typedef struct {
    FILE *f;          /* NULL after begin (name-only use) */
    char path[4096];  /* the target, symlinks resolved */
    char tmp[4200];   /* the temporary, or the target itself when direct */
    int active, direct;
} scl_outfile;

scl_status scl_outfile_open(scl_outfile *o, const char *path, int binary, char *err,
                            size_t errlen);
scl_status scl_outfile_begin(scl_outfile *o, const char *path, char *err, size_t errlen);
scl_status scl_outfile_commit(scl_outfile *o, char *err, size_t errlen);
void scl_outfile_abort(scl_outfile *o);
/* A whole file in one call: open, write(f, user) (nonzero: it failed, errno
 * says why: the file is removed), commit. */
scl_status scl_outfile_write(const char *path, int binary, int (*write)(FILE *f, const void *user),
                             const void *user, char *err, size_t errlen);
/* The path can be written: what scl_outfile_open would check, creating
 * nothing. SCL_ERR_IO with the reason otherwise. */
scl_status scl_output_path_check(const char *path, char *err, size_t errlen);
/* Where output for path goes: target gets path with a symlink resolved;
 * *direct is 1 for a character device or FIFO (written straight), 0 for a
 * regular file or a new name. SCL_ERR_IO with the reason for a path that
 * cannot be written. */
scl_status scl_output_resolve(const char *path, char *target, size_t targetlen, int *direct,
                              char *err, size_t errlen);

/* ------------------------------------------------------------------ pictures */

/* An 8-bit RGB image (w*h*3 bytes, row 0 at the top) as a PNG file, through
 * scl_outfile (complete or none). SCL_ERR_UNSUPPORTED when built without
 * libpng. */
scl_status scl_png_write_rgb(const char *path, const unsigned char *rgb, int w, int h,
                             char *err, size_t errlen);
/* t in [0, 1] (clamped; NaN as 0) as a perceptual colour (viridis-like),
 * 3 bytes into rgb. */
void scl_png_viridis(double t, unsigned char rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
