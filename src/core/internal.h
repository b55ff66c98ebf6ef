/* Internal definitions shared by the core's translation units. */
#ifndef SCL_CORE_INTERNAL_H
#define SCL_CORE_INTERNAL_H

#include "streamcl.h"
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

struct scl_context {
    cl_platform_id platform;
    cl_device_id device;
    cl_context cl;
    cl_command_queue queue;
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
};

struct scl_program {
    scl_context *ctx;
    cl_program program;
    char label[64];
    int from_cache;
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

/* Record an error message in ctx ("func: ..."); returns status for chaining. */
scl_status scl_fail(scl_context *ctx, scl_status status, const char *func, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Record a failed OpenCL call: "func: clCall failed with CL_X (context)". */
scl_status scl_fail_cl(scl_context *ctx, const char *func, const char *clcall, cl_int code,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Format into a caller buffer (for calls made before a context exists). */
void scl_format_error(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
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

/* Read an environment flag: 1 for "1/yes/on/true", 0 for "0/no/off/false", else dflt. */
int scl_env_flag(const char *name, int dflt);

#endif
