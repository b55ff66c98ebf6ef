/* Kernel objects: one __kernel of a built program, its parameters read from
 * the source (cl_source.c) so that arguments are bound by name and checked
 * against the declared type before OpenCL sees them. */
#include "cl_source.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct scl_kernel {
    scl_context *ctx;
    cl_kernel kernel;
    char name[SCL_SRC_NAME];
    char label[64];
    int nargs;
    scl_src_param *params;
    unsigned char *bound;
};

static const char *kind_text(const scl_src_param *p)
{
    return p->kind == SCL_SRC_LOCAL_PTR    ? "__local pointer"
           : p->kind == SCL_SRC_GLOBAL_PTR ? "pointer"
                                           : "value";
}

/* Parameters of the kernel as the compiler saw them (source + full options). */
static scl_status read_signature(scl_kernel *k, const scl_program *prog)
{
    static const char *fn = "scl_kernel_create";
    scl_context *ctx = prog->ctx;
    /* the compiler's own predefined macros that kernels test */
    char extra[256];
    snprintf(extra, sizeof extra,
             " -D__OPENCL_VERSION__=120 -D__OPENCL_C_VERSION__=120 -DCL_VERSION_1_2=120"
             " -D__ENDIAN_LITTLE__=1%s",
             ctx->info.fp64 ? " -Dcl_khr_fp64=1" : "");
    size_t n = strlen(prog->options) + strlen(extra) + 1;
    char *opts = malloc(n);
    if (!opts)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    snprintf(opts, n, "%s%s", prog->options, extra);
    scl_source_info *si = scl_source_parse(prog->source, opts);
    free(opts);
    if (!si)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    int rc = scl_source_kernel(si, k->name, &k->params, &k->nargs);
    scl_source_free(si);
    if (rc == 0)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                        "program '%s' has no __kernel named '%s' in its active source",
                        prog->label, k->name);
    if (rc < 0)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                        "cannot read the parameter list of kernel '%s' in program '%s'", k->name,
                        prog->label);
    return SCL_OK;
}

scl_status scl_kernel_from_program(scl_program *prog, const char *kernel_name, scl_kernel **out)
{
    static const char *fn = "scl_kernel_create";
    if (!prog || !kernel_name || !out)
        return scl_fail(prog ? prog->ctx : NULL, SCL_ERR_ARGUMENT, fn, "NULL argument");
    *out = NULL;
    scl_context *ctx = prog->ctx;
    if (strlen(kernel_name) >= SCL_SRC_NAME)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "kernel name '%s' is too long", kernel_name);
    scl_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    k->ctx = ctx;
    snprintf(k->name, sizeof k->name, "%s", kernel_name);
    snprintf(k->label, sizeof k->label, "%s", kernel_name);
    cl_int rc;
    k->kernel = clCreateKernel(prog->program, kernel_name, &rc);
    scl_status s = SCL_OK;
    if (rc != CL_SUCCESS)
        s = scl_fail_cl(ctx, fn, "clCreateKernel", rc, "kernel '%s' in program '%s'", kernel_name,
                        prog->label);
    if (s == SCL_OK)
        s = read_signature(k, prog);
    cl_uint nargs = 0;
    if (s == SCL_OK &&
        (rc = clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL)) !=
            CL_SUCCESS)
        s = scl_fail_cl(ctx, fn, "clGetKernelInfo", rc, "kernel '%s'", kernel_name);
    if (s == SCL_OK && (int)nargs != k->nargs)
        s = scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                     "kernel '%s': the compiler reports %u parameters, its source reads as %d",
                     kernel_name, (unsigned)nargs, k->nargs);
    if (s == SCL_OK && !(k->bound = calloc((size_t)k->nargs + 1, 1)))
        s = scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    if (s != SCL_OK) {
        scl_kernel_free(k);
        return s;
    }
    ctx->builds.kernels++;
    *out = k;
    return SCL_OK;
}

scl_status scl_kernel_create(scl_context *ctx, const char *program_name, const char *kernel_name,
                             const char *options, scl_kernel **out)
{
    if (!ctx || !program_name || !kernel_name || !out)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_kernel_create", "NULL argument");
    *out = NULL;
    scl_program *prog = NULL;
    scl_status s = scl_context_program(ctx, program_name, options, &prog);
    if (s != SCL_OK)
        return s;
    return scl_kernel_from_program(prog, kernel_name, out);
}

void scl_kernel_free(scl_kernel *k)
{
    if (!k)
        return;
    if (k->kernel)
        clReleaseKernel(k->kernel);
    free(k->params);
    free(k->bound);
    free(k);
}

void scl_kernels_free(scl_kernel *const *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        scl_kernel_free(k[i]);
}

void scl_kernel_set_label(scl_kernel *k, const char *label)
{
    if (k && label)
        snprintf(k->label, sizeof k->label, "%s", label);
}
const char *scl_kernel_name(const scl_kernel *k) { return k ? k->name : ""; }
int scl_kernel_arg_count(const scl_kernel *k) { return k ? k->nargs : 0; }
cl_kernel scl_cl_kernel(const scl_kernel *k) { return k ? k->kernel : NULL; }

static int find_arg(const scl_kernel *k, const char *arg)
{
    for (int i = 0; i < k->nargs; i++)
        if (!strcmp(k->params[i].name, arg))
            return i;
    return -1;
}

int scl_kernel_has_arg(const scl_kernel *k, const char *arg)
{
    return k && arg && find_arg(k, arg) >= 0;
}

/* The parameter named arg, of the expected kind, or an error naming both. */
static scl_status lookup(scl_kernel *k, const char *fn, const char *arg, scl_src_kind kind,
                         int *index)
{
    if (!k || !arg)
        return scl_fail(k ? k->ctx : NULL, SCL_ERR_ARGUMENT, fn, "NULL kernel or argument name");
    int i = find_arg(k, arg);
    if (i < 0) {
        char names[512] = "";
        size_t n = 0;
        for (int j = 0; j < k->nargs && n < sizeof names; j++)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", j ? ", " : "",
                                  k->params[j].name);
        return scl_fail(k->ctx, SCL_ERR_ARGUMENT, fn,
                        "kernel '%s' has no argument '%s' (its arguments: %s)", k->name, arg,
                        names);
    }
    const scl_src_param *p = &k->params[i];
    if (p->kind != kind) {
        static const char *want[] = {"value", "pointer", "__local pointer"};
        return scl_fail(k->ctx, SCL_ERR_ARGUMENT, fn,
                        "kernel '%s' argument '%s' is a %s of %s; this setter binds a %s",
                        k->name, arg, kind_text(p), p->type.name, want[kind]);
    }
    *index = i;
    return SCL_OK;
}

static scl_status set_raw(scl_kernel *k, const char *fn, int i, size_t size, const void *value)
{
    cl_int rc = clSetKernelArg(k->kernel, (cl_uint)i, size, value);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(k->ctx, fn, "clSetKernelArg", rc,
                           "kernel '%s' argument '%s' (%s, %zu bytes given)", k->name,
                           k->params[i].name, k->params[i].type.name, size);
    k->bound[i] = 1;
    return SCL_OK;
}

static scl_status type_mismatch(scl_kernel *k, const char *fn, int i, const char *given)
{
    return scl_fail(k->ctx, SCL_ERR_ARGUMENT, fn,
                    "kernel '%s' argument '%s' is declared %s; cannot bind %s", k->name,
                    k->params[i].name, k->params[i].type.name, given);
}

/* An integer value converted to the declared width, if it fits. */
static scl_status set_integer(scl_kernel *k, const char *fn, const char *arg, long long v,
                              const char *given)
{
    int i;
    scl_status s = lookup(k, fn, arg, SCL_SRC_VALUE, &i);
    if (s != SCL_OK)
        return s;
    const scl_src_type *t = &k->params[i].type;
    if ((t->cls != 'i' && t->cls != 'u') || t->lanes != 1 || t->size == 0)
        return type_mismatch(k, fn, i, given);
    int bits = 8 * t->size;
    long long lo = t->cls == 'u' ? 0 : (bits == 64 ? INT64_MIN : -(1LL << (bits - 1)));
    long long hi = bits == 64 ? INT64_MAX : (t->cls == 'u' ? (1LL << bits) - 1 : (1LL << (bits - 1)) - 1);
    if (v < lo || v > hi)
        return scl_fail(k->ctx, SCL_ERR_ARGUMENT, fn,
                        "kernel '%s' argument '%s' (%s): value %lld does not fit", k->name, arg,
                        t->name, v);
    union { int8_t i8; int16_t i16; int32_t i32; int64_t i64; } u;
    switch (t->size) {
    case 1: u.i8 = (int8_t)v; break;
    case 2: u.i16 = (int16_t)v; break;
    case 4: u.i32 = (int32_t)v; break;
    default: u.i64 = (int64_t)v; break;
    }
    return set_raw(k, fn, i, (size_t)t->size, &u);
}

scl_status scl_kernel_set_int(scl_kernel *k, const char *arg, int value)
{
    return set_integer(k, "scl_kernel_set_int", arg, value, "an int");
}
scl_status scl_kernel_set_uint(scl_kernel *k, const char *arg, unsigned value)
{
    return set_integer(k, "scl_kernel_set_uint", arg, value, "an unsigned int");
}
scl_status scl_kernel_set_long(scl_kernel *k, const char *arg, long long value)
{
    return set_integer(k, "scl_kernel_set_long", arg, value, "a long");
}

static scl_status set_floating(scl_kernel *k, const char *fn, const char *arg, double v,
                               int want_size, const char *given)
{
    int i;
    scl_status s = lookup(k, fn, arg, SCL_SRC_VALUE, &i);
    if (s != SCL_OK)
        return s;
    const scl_src_type *t = &k->params[i].type;
    if (t->cls != 'f' || t->lanes != 1 || (t->size != 4 && t->size != 8) ||
        (want_size && t->size != want_size))
        return type_mismatch(k, fn, i, given);
    if (t->size == 8)
        return set_raw(k, fn, i, sizeof v, &v);
    float f = (float)v;
    return set_raw(k, fn, i, sizeof f, &f);
}

scl_status scl_kernel_set_real(scl_kernel *k, const char *arg, double value)
{
    return set_floating(k, "scl_kernel_set_real", arg, value, 0, "a real");
}
scl_status scl_kernel_set_float(scl_kernel *k, const char *arg, float value)
{
    return set_floating(k, "scl_kernel_set_float", arg, value, 4, "a float");
}
scl_status scl_kernel_set_double(scl_kernel *k, const char *arg, double value)
{
    return set_floating(k, "scl_kernel_set_double", arg, value, 8, "a double");
}

/* Class, lane size and lanes of a stream element type. */
static void scl_type_shape(scl_type t, char *cls, int *size, int *lanes)
{
    static const struct { char cls; int size, lanes; } shape[] = {
        [SCL_CHAR] = {'i', 1, 1},  [SCL_UCHAR] = {'u', 1, 1},  [SCL_SHORT] = {'i', 2, 1},
        [SCL_USHORT] = {'u', 2, 1}, [SCL_HALF] = {'f', 2, 1},  [SCL_INT] = {'i', 4, 1},
        [SCL_UINT] = {'u', 4, 1},  [SCL_FLOAT] = {'f', 4, 1},  [SCL_FLOAT2] = {'f', 4, 2},
        [SCL_FLOAT4] = {'f', 4, 4}, [SCL_INT2] = {'i', 4, 2},  [SCL_INT4] = {'i', 4, 4},
        [SCL_LONG] = {'i', 8, 1},  [SCL_DOUBLE] = {'f', 8, 1}, [SCL_DOUBLE2] = {'f', 8, 2},
        [SCL_DOUBLE4] = {'f', 8, 4},
    };
    *cls = '?';
    *size = 0;
    *lanes = 0;
    if ((unsigned)t < sizeof shape / sizeof shape[0]) {
        *cls = shape[t].cls;
        *size = shape[t].size;
        *lanes = shape[t].lanes;
    }
}

/* Same layout: floating vs integer class (signedness aside), lane size, lanes. */
static int same_layout(const scl_src_type *d, scl_type t)
{
    char cls;
    int size, lanes;
    scl_type_shape(t, &cls, &size, &lanes);
    int d_int = d->cls == 'i' || d->cls == 'u', t_int = cls == 'i' || cls == 'u';
    return d_int == t_int && (d->cls == 'f') == (cls == 'f') && d->size == size &&
           d->lanes == lanes;
}

scl_status scl_kernel_set_value(scl_kernel *k, const char *arg, scl_type t, const void *value)
{
    static const char *fn = "scl_kernel_set_value";
    int i;
    scl_status s = lookup(k, fn, arg, SCL_SRC_VALUE, &i);
    if (s != SCL_OK)
        return s;
    if (!value)
        return scl_fail(k->ctx, SCL_ERR_ARGUMENT, fn, "kernel '%s' argument '%s': NULL value",
                        k->name, arg);
    if (k->params[i].type.cls == '?') /* a struct: the runtime checks the size */
        return set_raw(k, fn, i, scl_type_size(t), value);
    if (!same_layout(&k->params[i].type, t))
        return type_mismatch(k, fn, i, scl_type_name(t));
    return set_raw(k, fn, i, scl_type_size(t), value);
}

scl_status scl_kernel_set_stream(scl_kernel *k, const char *arg, scl_stream *st)
{
    static const char *fn = "scl_kernel_set_stream";
    int i;
    scl_status s = lookup(k, fn, arg, SCL_SRC_GLOBAL_PTR, &i);
    if (s != SCL_OK)
        return s;
    if (!st)
        return scl_fail(k->ctx, SCL_ERR_ARGUMENT, fn, "kernel '%s' argument '%s': NULL stream",
                        k->name, arg);
    const scl_src_type *t = &k->params[i].type;
    if (t->cls != '?' && t->cls != 'v' && t->size != 0 && !same_layout(t, st->type)) {
        char given[128];
        snprintf(given, sizeof given, "stream '%s' of %s", st->label, scl_type_name(st->type));
        return type_mismatch(k, fn, i, given);
    }
    return set_raw(k, fn, i, sizeof st->mem, &st->mem);
}

scl_status scl_kernel_set_local(scl_kernel *k, const char *arg, size_t bytes)
{
    static const char *fn = "scl_kernel_set_local";
    int i;
    scl_status s = lookup(k, fn, arg, SCL_SRC_LOCAL_PTR, &i);
    if (s != SCL_OK)
        return s;
    if (bytes == 0)
        return scl_fail(k->ctx, SCL_ERR_ARGUMENT, fn,
                        "kernel '%s' argument '%s': 0 bytes of local memory", k->name, arg);
    return set_raw(k, fn, i, bytes, NULL);
}

scl_status scl_kernel_bind(scl_kernel *k, const scl_arg_stream *streams, size_t nstreams,
                           const scl_arg_int *ints, size_t nints)
{
    scl_status s = SCL_OK;
    for (size_t a = 0; a < nstreams && s == SCL_OK; a++)
        s = scl_kernel_set_stream(k, streams[a].name, streams[a].stream);
    for (size_t a = 0; a < nints && s == SCL_OK; a++)
        s = scl_kernel_set_int(k, ints[a].name, ints[a].value);
    return s;
}

scl_status scl_kernel_bind_reals(scl_kernel *k, const scl_arg_real *reals, size_t n)
{
    scl_status s = SCL_OK;
    for (size_t a = 0; a < n && s == SCL_OK; a++)
        s = scl_kernel_set_real(k, reals[a].name, reals[a].value);
    return s;
}

size_t scl_kernel_max_work_group(const scl_kernel *k)
{
    size_t v = 0;
    if (k && clGetKernelWorkGroupInfo(k->kernel, k->ctx->device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof v, &v, NULL) != CL_SUCCESS)
        v = 0;
    return v;
}

size_t scl_kernel_preferred_multiple(const scl_kernel *k)
{
    size_t v = 1;
    if (k && clGetKernelWorkGroupInfo(k->kernel, k->ctx->device,
                                      CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof v, &v,
                                      NULL) != CL_SUCCESS)
        v = 1;
    return v;
}

scl_status scl_kernel_check_local(scl_kernel *k, unsigned dims, const size_t *local)
{
    static const char *fn = "scl_kernel_check_local";
    if (!k || !local || dims < 1 || dims > 3)
        return scl_fail(k ? k->ctx : NULL, SCL_ERR_ARGUMENT, fn, "invalid kernel, dims or local");
    scl_context *ctx = k->ctx;
    size_t items[3] = {0, 0, 0}, reqd[3] = {0, 0, 0};
    cl_ulong local_mem = 0;
    clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL);
    clGetKernelWorkGroupInfo(k->kernel, ctx->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                             sizeof reqd, reqd, NULL);
    clGetKernelWorkGroupInfo(k->kernel, ctx->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_mem,
                             &local_mem, NULL);
    size_t total = 1;
    for (unsigned d = 0; d < dims; d++) {
        if (local[d] == 0 || (items[d] && local[d] > items[d]))
            return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn,
                            "kernel '%s': local size %zu in dimension %u exceeds the device's "
                            "%zu",
                            k->name, local[d], d, items[d]);
        if (reqd[0] && local[d] != reqd[d])
            return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn,
                            "kernel '%s' was compiled for work-groups of %zux%zux%zu", k->name,
                            reqd[0], reqd[1], reqd[2]);
        total *= local[d];
    }
    size_t max = scl_kernel_max_work_group(k);
    if (max && total > max)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn,
                        "kernel '%s': work-group of %zu items exceeds its limit of %zu on %s",
                        k->name, total, max, ctx->info.name);
    if (local_mem > ctx->info.local_mem)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn,
                        "kernel '%s': %llu bytes of local memory exceed the device's %llu",
                        k->name, (unsigned long long)local_mem,
                        (unsigned long long)ctx->info.local_mem);
    return SCL_OK;
}

scl_status scl_kernel_launch(scl_kernel *k, unsigned dims, const size_t *global,
                             const size_t *local, scl_event *event)
{
    if (!k)
        return SCL_ERR_ARGUMENT;
    for (int i = 0; i < k->nargs; i++)
        if (!k->bound[i])
            return scl_fail(k->ctx, SCL_ERR_ARGUMENT, "scl_kernel_launch",
                            "kernel '%s': argument '%s' (%s %s) is not bound", k->name,
                            k->params[i].name, kind_text(&k->params[i]), k->params[i].type.name);
    return scl_enqueue_kernel(k->ctx, k->kernel, k->name, k->label, dims, global, local, event);
}
