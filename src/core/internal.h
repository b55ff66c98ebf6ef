/* Internal definitions shared by the core's translation units. */
#ifndef SCL_CORE_INTERNAL_H
#define SCL_CORE_INTERNAL_H

#include "fail.h"
#include "streamcl/opencl.h"
#include <stdarg.h>
#include <stdint.h>

#define SCL_ERRMSG_MAX 8192

typedef struct {
    char label[64];
    scl_prof_kind kind;
    double seconds;
    long count;
} scl_prof_entry;

typedef struct {
    char label[64];
    scl_prof_kind kind;
    cl_event event;
} scl_prof_pending;

struct scl_reducer; /* reduce.c */

/* Events captured while a plan times one step (plan.c). */
typedef struct {
    int active, failed;
    cl_event *events;
    size_t count, cap;
} scl_timing;

/* Programs built for kernel objects, one per (file, options), kept until the
 * context is freed. */
typedef struct {
    char *name, *options;
    struct scl_program *program;
} scl_program_entry;

struct scl_context {
    cl_platform_id platform;
    cl_device_id device;
    cl_context cl;
    cl_command_queue queue;
    cl_command_queue copy_queue; /* copyqueue.c: made on first use (NULL: none yet) */
    scl_device_info info;
    int profiling;
    char cache_dir[1024]; /* "" when caching is off */
    char error[SCL_ERRMSG_MAX];
    /* profile table: totals per label, and events not yet resolved */
    scl_prof_entry *prof;
    size_t nprof, capprof;
    scl_prof_pending *pending;
    size_t npending, cappending;
    struct scl_reducer *reducer;
    scl_timing timing;
    scl_program_entry *programs;
    size_t nprograms;
    /* tuning defaults for plans (scl_context_options) */
    int no_tune, tune_repeats;
    char force[256];
    scl_transfer_stats transfers; /* stream.c counts, scl_transfer_stats_get reads */
    scl_build_stats builds;       /* program.c and kernel.c count */
};

struct scl_program {
    scl_context *ctx;
    cl_program program;
    char label[64];
    int from_cache;
    char *options; /* the full build options (device defaults + caller's) */
    char *source;  /* what was compiled: kernel objects read their signatures from it */
};

struct scl_stream {
    scl_context *ctx;
    cl_mem mem;
    char label[64];
    scl_type type;
    size_t dims[3];
    size_t count;
    unsigned flags;
};

/* Record a failed OpenCL call: "func: clCall failed with CL_X (context)". */
scl_status scl_fail_cl(scl_context *ctx, const char *func, const char *clcall, cl_int code,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* device.c */
scl_status scl_query_device(cl_platform_id p, cl_device_id d, int pi, int di,
                            scl_device_info *info, char *err, size_t errlen);
scl_status scl_select_device(const char *spec, cl_platform_id *platform, cl_device_id *device,
                             scl_device_info *info, char *err, size_t errlen);

/* cache.c: 64-bit FNV-1a hash, cache paths and checked blob files */
uint64_t scl_hash64(uint64_t h, const void *data, size_t n);
#define SCL_HASH_SEED 1469598103934665603ULL
int scl_cache_path(const scl_context *ctx, const char *sub, uint64_t key, const char *ext,
                   char *path, size_t pathlen);
/* Blob file: header (magic, key text, payload length, payload hash) + payload.
 * Returns a malloc'd payload (NUL-terminated beyond len) only if every check
 * passes; NULL otherwise. */
void *scl_cache_load(const char *path, const char *key_text, size_t *len);
int scl_cache_store(const char *path, const char *key_text, const void *data, size_t len);

/* program.c: hash of every embedded kernel source (keys tuned plans) */
uint64_t scl_embedded_hash(void);

/* profile.c */
void scl_profile_free(scl_context *ctx);
/* Account ev if profiling is on; releases nothing the caller owns. */
void scl_profile_maybe(scl_context *ctx, const char *label, scl_prof_kind kind, cl_event ev);

/* reduce.c */
void scl_reducer_free(struct scl_reducer *r);

/* launch.c: every queued command's event goes through scl_track_event
 * (profile accounting, plan timing); scl_want_event says whether to ask for one. */
int scl_want_event(const scl_context *ctx);
void scl_track_event(scl_context *ctx, const char *label, scl_prof_kind kind, cl_event ev);
/* stream.c: a read or write of s enqueued on either queue (ev its event):
 * counted in the transfers, profiled, then *event = ev or released */
void scl_copy_done(scl_context *ctx, const scl_stream *s, int write, size_t bytes, cl_event ev,
                   cl_event *event);
scl_status scl_enqueue_kernel(scl_context *ctx, cl_kernel k, const char *name, const char *label,
                              unsigned dims, const size_t *global, const size_t *local,
                              scl_event *event);

/* program.c: the context's program for (embedded file, options), built once. */
scl_status scl_context_program(scl_context *ctx, const char *name, const char *options,
                               scl_program **out);
void scl_context_programs_free(scl_context *ctx);

#endif
