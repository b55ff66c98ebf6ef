/* Device enumeration, facts, and selection by spec ("gpu", "cpu", "P:D", name). */
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

static void get_string(cl_device_id d, cl_device_info what, char *buf, size_t len)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, len, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[len - 1] = '\0';
}

scl_status scl_query_device(cl_platform_id p, cl_device_id d, int pi, int di,
                            scl_device_info *info, char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    info->platform_index = pi;
    info->device_index = di;
    if (clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof info->platform, info->platform, NULL) !=
        CL_SUCCESS)
        info->platform[0] = '\0';
    info->platform[sizeof info->platform - 1] = '\0';
    get_string(d, CL_DEVICE_NAME, info->name, sizeof info->name);
    get_string(d, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    get_string(d, CL_DEVICE_VERSION, info->version, sizeof info->version);
    get_string(d, CL_DRIVER_VERSION, info->driver, sizeof info->driver);

    cl_bool unified = CL_FALSE;
    cl_device_fp_config fp64 = 0;
    struct { cl_device_info what; void *dst; size_t size; } q[] = {
        {CL_DEVICE_TYPE, &info->type, sizeof info->type},
        {CL_DEVICE_MAX_COMPUTE_UNITS, &info->compute_units, sizeof info->compute_units},
        {CL_DEVICE_MAX_CLOCK_FREQUENCY, &info->clock_mhz, sizeof info->clock_mhz},
        {CL_DEVICE_MAX_WORK_GROUP_SIZE, &info->max_work_group, sizeof info->max_work_group},
        {CL_DEVICE_LOCAL_MEM_SIZE, &info->local_mem, sizeof info->local_mem},
        {CL_DEVICE_GLOBAL_MEM_SIZE, &info->global_mem, sizeof info->global_mem},
        {CL_DEVICE_MAX_MEM_ALLOC_SIZE, &info->max_alloc, sizeof info->max_alloc},
        {CL_DEVICE_HOST_UNIFIED_MEMORY, &unified, sizeof unified},
        {CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, &info->vec_float, sizeof info->vec_float},
        {CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, &info->vec_double, sizeof info->vec_double},
    };
    for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
        cl_int rc = clGetDeviceInfo(d, q[k].what, q[k].size, q[k].dst, NULL);
        if (rc != CL_SUCCESS && q[k].what != CL_DEVICE_HOST_UNIFIED_MEMORY) {
            scl_format_error(err, errlen,
                             "device query: clGetDeviceInfo(0x%x) failed with %s on %s",
                             (unsigned)q[k].what, scl_cl_error_name(rc), info->name);
            return SCL_ERR_OPENCL;
        }
    }
    /* CL_DEVICE_DOUBLE_FP_CONFIG is 1.2 core; non-zero means fp64 is there. */
    if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) != CL_SUCCESS)
        fp64 = 0;
    info->fp64 = fp64 != 0;
    info->host_unified = unified == CL_TRUE || (info->type & CL_DEVICE_TYPE_CPU) != 0;
    info->is_gpu = (info->type & CL_DEVICE_TYPE_GPU) != 0;
    return SCL_OK;
}

/* Walk every platform/device; calls visit until it returns non-zero. */
typedef int (*visit_fn)(void *user, cl_platform_id p, cl_device_id d, int pi, int di);

static scl_status for_each_device(visit_fn visit, void *user, char *err, size_t errlen)
{
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint np = 0;
    cl_int rc = clGetPlatformIDs(MAX_PLATFORMS, platforms, &np);
    if (rc == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (rc == CL_SUCCESS && np == 0)) {
        scl_format_error(err, errlen,
                         "no OpenCL platform found: install an ICD (e.g. apt-get install "
                         "pocl-opencl-icd) or check /etc/OpenCL/vendors");
        return SCL_ERR_NO_DEVICE;
    }
    if (rc != CL_SUCCESS) {
        scl_format_error(err, errlen, "clGetPlatformIDs failed with %s", scl_cl_error_name(rc));
        return SCL_ERR_OPENCL;
    }
    if (np > MAX_PLATFORMS)
        np = MAX_PLATFORMS;
    for (cl_uint pi = 0; pi < np; pi++) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) !=
            CL_SUCCESS)
            continue; /* a platform with no devices is not an error */
        if (nd > MAX_DEVICES)
            nd = MAX_DEVICES;
        for (cl_uint di = 0; di < nd; di++)
            if (visit(user, platforms[pi], devs[di], (int)pi, (int)di))
                return SCL_OK;
    }
    return SCL_OK;
}

/* "; platform 'X' offered no device (...)" for the platforms that have none,
 * else "": PoCL, for one, offers no device at all when it cannot create its
 * kernel cache, which otherwise reads as a wrong device spec. */
static void empty_platforms_note(char *buf, size_t len)
{
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint np = 0;
    size_t used = 0;
    buf[0] = '\0';
    if (clGetPlatformIDs(MAX_PLATFORMS, platforms, &np) != CL_SUCCESS)
        return;
    for (cl_uint pi = 0; pi < np && pi < MAX_PLATFORMS; pi++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) == CL_SUCCESS &&
            nd > 0)
            continue;
        char name[128] = "?";
        clGetPlatformInfo(platforms[pi], CL_PLATFORM_NAME, sizeof name, name, NULL);
        name[sizeof name - 1] = '\0';
        int n = snprintf(buf + used, len - used, "%s'%s'", used ? ", " : "; platform ", name);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
    }
    if (used)
        snprintf(buf + used, len - used,
                 " offered no device (PoCL does so when its kernel cache directory, "
                 "$POCL_CACHE_DIR or $XDG_CACHE_HOME/pocl, cannot be created or written)");
}

typedef struct {
    scl_device_info *list;
    size_t count, cap;
    scl_status status;
    char *err;
    size_t errlen;
} list_state;

static int visit_list(void *user, cl_platform_id p, cl_device_id d, int pi, int di)
{
    list_state *st = user;
    if (st->count == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 8;
        scl_device_info *n = realloc(st->list, cap * sizeof *n);
        if (!n) {
            st->status = SCL_ERR_MEMORY;
            return 1;
        }
        st->list = n;
        st->cap = cap;
    }
    scl_status s = scl_query_device(p, d, pi, di, &st->list[st->count], st->err, st->errlen);
    if (s != SCL_OK) {
        st->status = s;
        return 1;
    }
    st->count++;
    return 0;
}

scl_status scl_devices_list(scl_device_info **list, size_t *count, char *err, size_t errlen)
{
    if (!list || !count) {
        scl_format_error(err, errlen, "scl_devices_list: list and count must not be NULL");
        return SCL_ERR_ARGUMENT;
    }
    *list = NULL;
    *count = 0;
    list_state st = {.status = SCL_OK, .err = err, .errlen = errlen};
    scl_status s = for_each_device(visit_list, &st, err, errlen);
    if (s == SCL_OK)
        s = st.status;
    if (s != SCL_OK) {
        free(st.list);
        return s;
    }
    if (st.count == 0) {
        char note[600];
        empty_platforms_note(note, sizeof note);
        scl_format_error(err, errlen, "no OpenCL device found%s", note);
        return SCL_ERR_NO_DEVICE;
    }
    *list = st.list;
    *count = st.count;
    return SCL_OK;
}

/* ---- selection */

typedef enum { MATCH_TYPE, MATCH_INDEX, MATCH_NAME } match_kind;

typedef struct {
    match_kind kind;
    cl_device_type type;
    int pi, di;
    const char *name;
    int found;
    cl_platform_id platform;
    cl_device_id device;
    int found_pi, found_di;
} select_state;

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] &&
               tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return 1;
    }
    return n == 0;
}

static int visit_select(void *user, cl_platform_id p, cl_device_id d, int pi, int di)
{
    select_state *st = user;
    int ok = 0;
    if (st->kind == MATCH_INDEX) {
        ok = pi == st->pi && di == st->di;
    } else if (st->kind == MATCH_TYPE) {
        cl_device_type t = 0;
        ok = clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL) == CL_SUCCESS &&
             (t & st->type);
    } else {
        char dn[256] = "", pn[256] = "";
        clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof dn, dn, NULL);
        clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof pn, pn, NULL);
        dn[255] = pn[255] = '\0';
        ok = contains_ci(dn, st->name) || contains_ci(pn, st->name);
    }
    if (ok) {
        st->found = 1;
        st->platform = p;
        st->device = d;
        st->found_pi = pi;
        st->found_di = di;
    }
    return ok;
}

static int parse_index_spec(const char *spec, int *pi, int *di)
{
    char *end;
    long a = strtol(spec, &end, 10);
    if (end == spec || *end != ':')
        return 0;
    const char *second = end + 1;
    long b = strtol(second, &end, 10);
    if (end == second || *end != '\0' || a < 0 || b < 0 || a > 1000 || b > 1000)
        return 0;
    *pi = (int)a;
    *di = (int)b;
    return 1;
}

scl_status scl_select_device(const char *spec, cl_platform_id *platform, cl_device_id *device,
                             scl_device_info *info, char *err, size_t errlen)
{
    select_state st = {0};
    scl_status s;
    if (!spec || !*spec) {
        st.kind = MATCH_TYPE;
        st.type = CL_DEVICE_TYPE_GPU;
        s = for_each_device(visit_select, &st, err, errlen);
        if (s == SCL_OK && !st.found) {
            st.type = CL_DEVICE_TYPE_CPU;
            s = for_each_device(visit_select, &st, err, errlen);
        }
        if (s == SCL_OK && !st.found) {
            st.type = CL_DEVICE_TYPE_ALL;
            s = for_each_device(visit_select, &st, err, errlen);
        }
        spec = "default";
    } else if (!strcasecmp(spec, "gpu") || !strcasecmp(spec, "cpu") ||
               !strcasecmp(spec, "accelerator")) {
        st.kind = MATCH_TYPE;
        st.type = !strcasecmp(spec, "gpu")   ? CL_DEVICE_TYPE_GPU
                  : !strcasecmp(spec, "cpu") ? CL_DEVICE_TYPE_CPU
                                             : CL_DEVICE_TYPE_ACCELERATOR;
        s = for_each_device(visit_select, &st, err, errlen);
    } else if (parse_index_spec(spec, &st.pi, &st.di)) {
        st.kind = MATCH_INDEX;
        s = for_each_device(visit_select, &st, err, errlen);
    } else {
        st.kind = MATCH_NAME;
        st.name = spec;
        s = for_each_device(visit_select, &st, err, errlen);
    }
    if (s != SCL_OK)
        return s;
    if (!st.found) {
        char note[600];
        empty_platforms_note(note, sizeof note);
        scl_format_error(err, errlen,
                         "no OpenCL device matches '%s' (use gpu, cpu, PLATFORM:DEVICE indices "
                         "or a name substring; 'streamcl devices' lists them)%s",
                         spec, note);
        return SCL_ERR_NO_DEVICE;
    }
    *platform = st.platform;
    *device = st.device;
    return scl_query_device(st.platform, st.device, st.found_pi, st.found_di, info, err, errlen);
}
