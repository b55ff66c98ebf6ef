/* Kernel signatures read from OpenCL C source (see cl_source.c). */
#ifndef SCL_CORE_CL_SOURCE_H
#define SCL_CORE_CL_SOURCE_H

#define SCL_SRC_NAME 64

/* A resolved parameter type. cls: 'i' signed, 'u' unsigned, 'f' floating,
 * 'b' bool, 'v' void, '?' unknown (a struct or a name the reader cannot
 * resolve). size: bytes of one lane (0 for size_t/bool: implementation-sized). */
typedef struct {
    char name[SCL_SRC_NAME]; /* the resolved name, e.g. "double4" */
    char cls;
    int size;
    int lanes;
} scl_src_type;

typedef enum { SCL_SRC_VALUE, SCL_SRC_GLOBAL_PTR, SCL_SRC_LOCAL_PTR } scl_src_kind;

typedef struct {
    char name[SCL_SRC_NAME];
    scl_src_kind kind;
    scl_src_type type; /* the value's type, or the pointee's */
} scl_src_param;

typedef struct scl_source_info scl_source_info;

/* Preprocess source as built with options (the -D definitions count);
 * NULL when out of memory. */
scl_source_info *scl_source_parse(const char *source, const char *options);
void scl_source_free(scl_source_info *si);

/* Parameters of __kernel kernel_name: 1 found (*params malloc'd), 0 no such
 * kernel, -1 a parameter list the reader cannot read. */
int scl_source_kernel(scl_source_info *si, const char *kernel_name, scl_src_param **params,
                      int *count);

/* Resolve a written type through typedefs and macros; 1 if it is a builtin. */
int scl_source_resolve_type(scl_source_info *si, const char *written, scl_src_type *out);

#endif
