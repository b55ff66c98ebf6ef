/* Plans and the auto-tuner: forced values, else cached plan, else time every
 * candidate combination on the real data and cache the fastest. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_COMBINATIONS 512

int scl_plan_value(const scl_plan *plan, const char *name, int fallback)
{
    if (!plan || !name)
        return fallback;
    for (int i = 0; i < plan->count; i++)
        if (!strcmp(plan->names[i], name))
            return plan->values[i];
    return fallback;
}

/* Apply "a=1,b=2" to forced[]; unknown names are an error only when strict. */
static scl_status parse_force(scl_context *ctx, const char *spec, const scl_tune_param *params,
                              int nparams, int *forced, int *is_forced, int strict)
{
    const char *p = spec;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[64];
        if (len >= sizeof item)
            return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_tune", "force item too long: '%s'", p);
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        char *vend = NULL;
        long v = eq ? strtol(eq + 1, &vend, 10) : 0;
        if (!eq || vend == eq + 1 || *vend != '\0')
            return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_tune",
                            "force item '%s' is not name=integer", item);
        *eq = '\0';
        int found = 0;
        for (int i = 0; i < nparams; i++)
            if (!strcmp(params[i].name, item)) {
                forced[i] = (int)v;
                is_forced[i] = 1;
                found = 1;
            }
        if (!found && strict)
            return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_tune",
                            "forced parameter '%s' is not a parameter of this kernel", item);
        p = end ? end + 1 : NULL;
    }
    return SCL_OK;
}

static char *plan_key_text(const scl_context *ctx, const char *kernel, const char *shape,
                           const scl_tune_param *params, int nparams)
{
    size_t cap = 1024 + strlen(kernel) + strlen(shape) + (size_t)nparams * 256;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    /* plans are only valid for the kernels they were timed with: the hash of
     * every embedded source (this build of the library) is part of the key */
    size_t n = (size_t)snprintf(s, cap, "plan\n%s\n%s\n%s\nkernels:%016llx\n%s\n%s\n",
                                ctx->info.platform, ctx->info.name, ctx->info.driver,
                                (unsigned long long)scl_embedded_hash(), kernel, shape);
    for (int i = 0; i < nparams && n < cap; i++) {
        n += (size_t)snprintf(s + n, cap - n, "%s:", params[i].name);
        for (int k = 0; k < params[i].count && n < cap; k++)
            n += (size_t)snprintf(s + n, cap - n, "%d ", params[i].values[k]);
        if (n < cap)
            n += (size_t)snprintf(s + n, cap - n, "\n");
    }
    return s;
}

static void plan_init(scl_plan *plan, const scl_tune_param *params, int nparams)
{
    memset(plan, 0, sizeof *plan);
    plan->count = nparams;
    for (int i = 0; i < nparams; i++) {
        snprintf(plan->names[i], sizeof plan->names[i], "%s", params[i].name);
        plan->values[i] = params[i].values[0];
    }
}

static int load_plan(const char *path, const char *key, scl_plan *plan)
{
    size_t len = 0;
    char *text = scl_cache_load(path, key, &len);
    if (!text)
        return 0;
    int ok = 1;
    const char *p = text;
    for (int i = 0; i < plan->count && ok; i++) {
        int v;
        double sec;
        int used = 0;
        if (sscanf(p, "%d %lf\n%n", &v, &sec, &used) != 2 || used == 0)
            ok = 0;
        else {
            plan->values[i] = v;
            plan->seconds = sec;
            p += used;
        }
    }
    free(text);
    return ok;
}

static void store_plan(const char *path, const char *key, const scl_plan *plan)
{
    char text[SCL_PLAN_MAX_PARAMS * 48 + 1];
    size_t n = 0;
    for (int i = 0; i < plan->count; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%d %.9g\n", plan->values[i],
                              plan->seconds);
    scl_cache_store(path, key, text, n);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Time one candidate: a warm-up, then the median of repeats. */
static scl_status time_candidate(scl_tune_fn run, void *user, const int *values, int repeats,
                                 double *median)
{
    double t[32];
    scl_status s = run(user, values, &t[0]);
    if (s != SCL_OK)
        return s;
    for (int r = 0; r < repeats; r++) {
        s = run(user, values, &t[r]);
        if (s != SCL_OK)
            return s;
    }
    qsort(t, (size_t)repeats, sizeof t[0], cmp_double);
    *median = t[repeats / 2];
    return SCL_OK;
}

scl_status scl_plan_tune(scl_context *ctx, const char *kernel, const char *shape,
                         const scl_tune_param *params, int nparams, scl_tune_fn run, void *user,
                         const scl_tune_options *opt, scl_plan *out)
{
    static const char *fn = "scl_plan_tune";
    if (!ctx || !kernel || !shape || !params || !out || nparams < 1 ||
        nparams > SCL_PLAN_MAX_PARAMS)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "invalid arguments (nparams %d)", nparams);
    for (int i = 0; i < nparams; i++)
        if (!params[i].name || params[i].count < 1 || params[i].count > SCL_PLAN_MAX_VALUES)
            return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "parameter %d of %s has no candidates", i,
                            kernel);
    plan_init(out, params, nparams);

    int forced[SCL_PLAN_MAX_PARAMS] = {0}, is_forced[SCL_PLAN_MAX_PARAMS] = {0};
    scl_status s = parse_force(ctx, getenv("STREAMCL_FORCE"), params, nparams, forced, is_forced, 0);
    if (s == SCL_OK && opt && opt->force)
        s = parse_force(ctx, opt->force, params, nparams, forced, is_forced, 1);
    if (s != SCL_OK)
        return s;
    int nfree = 0;
    for (int i = 0; i < nparams; i++) {
        if (is_forced[i])
            out->values[i] = forced[i];
        else
            nfree++;
    }
    if (nfree == 0)
        return SCL_OK;

    int tune = (opt ? opt->tune : 1) && scl_env_flag("STREAMCL_TUNE", 1);
    int repeats = (opt && opt->repeats > 0) ? opt->repeats : 3;
    if (repeats > 31)
        repeats = 31;

    /* the forced values are part of the key: a plan tuned around them differs */
    char *key = plan_key_text(ctx, kernel, shape, params, nparams);
    if (!key)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    for (int i = 0; i < nparams; i++)
        if (is_forced[i]) {
            char extra[64];
            snprintf(extra, sizeof extra, "forced %s=%d\n", params[i].name, forced[i]);
            char *k2 = realloc(key, strlen(key) + strlen(extra) + 1);
            if (!k2) {
                free(key);
                return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
            }
            key = strcat(k2, extra);
        }
    char path[1300];
    int cacheable =
        scl_cache_path(ctx, "plans", scl_hash64(SCL_HASH_SEED, key, strlen(key)), "plan", path,
                       sizeof path) == 0;
    if (cacheable && load_plan(path, key, out)) {
        out->from_cache = 1;
        free(key);
        return SCL_OK;
    }
    if (!tune || !run) {
        free(key);
        return SCL_OK; /* defaults (values[0]) plus forced values */
    }

    long combos = 1;
    for (int i = 0; i < nparams; i++)
        if (!is_forced[i])
            combos *= params[i].count;
    if (combos > MAX_COMBINATIONS) {
        free(key);
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "%s: %ld candidate combinations (max %d)",
                        kernel, combos, MAX_COMBINATIONS);
    }
    double best = -1;
    int best_values[SCL_PLAN_MAX_PARAMS];
    for (long c = 0; c < combos; c++) {
        int values[SCL_PLAN_MAX_PARAMS];
        long rest = c;
        for (int i = 0; i < nparams; i++) {
            if (is_forced[i]) {
                values[i] = forced[i];
            } else {
                values[i] = params[i].values[rest % params[i].count];
                rest /= params[i].count;
            }
        }
        double t = 0;
        s = time_candidate(run, user, values, repeats, &t);
        if (s == SCL_ERR_UNSUPPORTED) {
            scl_clear_error(ctx);
            continue;
        }
        if (s != SCL_OK) {
            free(key);
            return s;
        }
        if (best < 0 || t < best) {
            best = t;
            memcpy(best_values, values, sizeof values);
        }
    }
    if (best < 0) {
        free(key);
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn,
                        "no candidate launch configuration of %s is legal on %s", kernel,
                        ctx->info.name);
    }
    memcpy(out->values, best_values, sizeof(int) * (size_t)nparams);
    out->seconds = best;
    out->tuned = 1;
    if (cacheable)
        store_plan(path, key, out);
    free(key);
    return SCL_OK;
}
