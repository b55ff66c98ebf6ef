/* Plans that run (after FFTW): an operation's candidates are timed once on the
 * real data, the fastest is cached per device and shape, and the plan keeps
 * that variant ready to execute. This is the one tuning loop of the library:
 * solvers describe candidates and one step (scl_plan_desc), nothing more. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_COMBINATIONS 512
#define MAX_REPEATS 31

struct scl_plan {
    scl_context *ctx;
    scl_plan_desc desc;
    scl_tune_param params[SCL_PLAN_MAX_PARAMS];
    scl_param_rule rules[SCL_PLAN_MAX_PARAMS]; /* a copy: the solver's may be on its stack */
    char names[SCL_PLAN_MAX_PARAMS][24];
    int values[SCL_PLAN_MAX_PARAMS];
    void *variant;
    double seconds;
    int from_cache, tuned;
};

/* Apply "a=1,b=2" to forced[]; names that are not parameters are an error
 * only when strict (the context-wide force string serves every plan). */
static scl_status parse_force(scl_plan *plan, const char *spec, int *forced, int *is_forced,
                              int strict)
{
    scl_context *ctx = plan->ctx;
    const char *p = spec;
    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[64];
        if (len >= sizeof item)
            return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create", "force item too long: '%s'",
                            p);
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        char *vend = NULL;
        long v = eq ? strtol(eq + 1, &vend, 10) : 0;
        if (!eq || vend == eq + 1 || *vend != '\0')
            return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                            "force item '%s' is not name=integer", item);
        *eq = '\0';
        int found = 0;
        for (int i = 0; i < plan->desc.nparams; i++)
            if (!strcmp(plan->params[i].name, item)) {
                if (is_forced[i] == 2 && forced[i] != (int)v)
                    return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                                    "parameter '%s' forced twice (%d and %ld)", item, forced[i],
                                    v);
                forced[i] = (int)v;
                is_forced[i] = strict ? 2 : 1;
                found = 1;
            }
        if (!found && strict)
            return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                            "forced parameter '%s' is not a parameter of %s", item,
                            plan->desc.name);
        p = end ? end + 1 : NULL;
    }
    return SCL_OK;
}

/* Apply typed forced values (scl_tune_options.forced) as parse_force's
 * strict items. */
static scl_status apply_forced(scl_plan *plan, const scl_arg_int *values, int n, int *forced,
                               int *is_forced)
{
    for (int v = 0; v < n; v++) {
        int found = 0;
        for (int i = 0; i < plan->desc.nparams; i++)
            if (!strcmp(plan->params[i].name, values[v].name)) {
                if (is_forced[i] == 2 && forced[i] != values[v].value)
                    return scl_fail(plan->ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                                    "parameter '%s' forced twice (%d and %d)", values[v].name,
                                    forced[i], values[v].value);
                forced[i] = values[v].value;
                is_forced[i] = 2;
                found = 1;
            }
        if (!found)
            return scl_fail(plan->ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                            "forced parameter '%s' is not a parameter of %s", values[v].name,
                            plan->desc.name);
    }
    return SCL_OK;
}

/* 0 when v meets param i's rule; else what it requires, in why. */
static int rule_broken(const scl_plan *plan, int i, int v, char *why, size_t len)
{
    if (!plan->desc.rules)
        return 0;
    const scl_param_rule *r = &plan->desc.rules[i];
    const char *need = NULL;
    char range[96];
    if ((r->min || r->max) && (v < r->min || (r->max > 0 && v > r->max))) {
        if (r->max > 0)
            snprintf(range, sizeof range, "must be between %d and %d", r->min, r->max);
        else
            snprintf(range, sizeof range, "must be at least %d", r->min);
        need = range;
    } else if (r->pow2 && (v < 1 || (v & (v - 1)) != 0)) {
        need = "must be a power of two";
    } else if (r->divides > 0 && (v < 1 || r->divides % v != 0)) {
        snprintf(range, sizeof range, "must divide %d", r->divides);
        need = range;
    }
    if (!need)
        return 0;
    snprintf(why, len, "%s=%d: %s%s%s", plan->params[i].name, v, need, r->why ? " for " : "",
             r->why ? r->why : "");
    return 1;
}

/* Every candidate must meet its own rule: a list that breaks it is a bug of
 * the solver, reported as such. */
static scl_status check_candidates(scl_plan *plan)
{
    char why[256];
    for (int i = 0; i < plan->desc.nparams; i++)
        for (int k = 0; k < plan->params[i].count; k++)
            if (rule_broken(plan, i, plan->params[i].values[k], why, sizeof why))
                return scl_fail(plan->ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                                "%s: candidate %s", plan->desc.name, why);
    return SCL_OK;
}

/* Forced values (from the plan string or the context's force string, named
 * by source) against the rules; then, when every value is fixed, the
 * requirements between parameters. */
static scl_status check_forced(scl_plan *plan, const int *forced, const int *is_forced)
{
    scl_context *ctx = plan->ctx;
    char why[256];
    int all = 1;
    for (int i = 0; i < plan->desc.nparams; i++) {
        if (!is_forced[i]) {
            all = 0;
            continue;
        }
        if (rule_broken(plan, i, forced[i], why, sizeof why))
            return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                            "%s: forced plan value %s (%s)", plan->desc.name, why,
                            is_forced[i] == 2 ? "plan string" : "context force string");
    }
    if (all && plan->desc.check && plan->desc.check(plan->desc.user, forced, why, sizeof why)) {
        char values[256];
        size_t n = 0;
        for (int i = 0; i < plan->desc.nparams && n < sizeof values; i++)
            n += (size_t)snprintf(values + n, sizeof values - n, "%s%s=%d", i ? "," : "",
                                  plan->params[i].name, forced[i]);
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                        "%s: forced plan %s is refused: %s", plan->desc.name, values, why);
    }
    return SCL_OK;
}

static char *plan_key_text(const scl_plan *plan, const int *forced, const int *is_forced)
{
    const scl_context *ctx = plan->ctx;
    size_t cap = 1024 + strlen(plan->desc.name) + strlen(plan->desc.shape) +
                 (size_t)plan->desc.nparams * 256;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    /* plans are only valid for the kernels they were timed with: the hash of
     * every embedded source (this build of the library) is part of the key */
    size_t n = (size_t)snprintf(s, cap, "plan\n%s\n%s\n%s\nkernels:%016llx\n%s\n%s\n",
                                ctx->info.platform, ctx->info.name, ctx->info.driver,
                                (unsigned long long)scl_embedded_hash(), plan->desc.name,
                                plan->desc.shape);
    for (int i = 0; i < plan->desc.nparams && n < cap; i++) {
        n += (size_t)snprintf(s + n, cap - n, "%s:", plan->params[i].name);
        for (int k = 0; k < plan->params[i].count && n < cap; k++)
            n += (size_t)snprintf(s + n, cap - n, "%d ", plan->params[i].values[k]);
        if (is_forced[i] && n < cap)
            n += (size_t)snprintf(s + n, cap - n, "forced %d", forced[i]);
        if (n < cap)
            n += (size_t)snprintf(s + n, cap - n, "\n");
    }
    return s;
}

static int load_plan(const char *path, const char *key, scl_plan *plan)
{
    size_t len = 0;
    char *text = scl_cache_load(path, key, &len);
    if (!text)
        return 0;
    int ok = 1, values[SCL_PLAN_MAX_PARAMS];
    double sec = 0;
    const char *p = text;
    for (int i = 0; i < plan->desc.nparams && ok; i++) {
        int used = 0;
        if (sscanf(p, "%d %lf\n%n", &values[i], &sec, &used) != 2 || used == 0)
            ok = 0;
        p += used;
    }
    free(text);
    char why[256];
    for (int i = 0; i < plan->desc.nparams && ok; i++) /* a cache from an older rule set */
        ok = !rule_broken(plan, i, values[i], why, sizeof why);
    if (ok && plan->desc.check)
        ok = !plan->desc.check(plan->desc.user, values, why, sizeof why);
    if (ok) {
        memcpy(plan->values, values, sizeof(int) * (size_t)plan->desc.nparams);
        plan->seconds = sec;
    }
    return ok;
}

static void store_plan(const char *path, const char *key, const scl_plan *plan)
{
    char text[SCL_PLAN_MAX_PARAMS * 48 + 1];
    size_t n = 0;
    for (int i = 0; i < plan->desc.nparams; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%d %.9g\n", plan->values[i],
                              plan->seconds);
    scl_cache_store(path, key, text, n);
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Device seconds of one step: the sum over the events of the work it queued. */
static scl_status time_step(scl_plan *plan, void *variant, const int *values, double *seconds)
{
    scl_context *ctx = plan->ctx;
    scl_timing *t = &ctx->timing;
    t->active = 1;
    t->count = 0;
    t->failed = 0;
    scl_status s = plan->desc.run_variant(plan->desc.user, variant, values);
    t->active = 0;
    double sum = 0;
    for (size_t i = 0; i < t->count; i++) {
        double sec = 0;
        if (s == SCL_OK)
            s = scl_event_seconds(ctx, t->events[i], &sec);
        sum += sec;
        clReleaseEvent(t->events[i]);
    }
    size_t queued = t->count;
    t->count = 0;
    if (s == SCL_OK && (t->failed || queued == 0))
        s = scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                     "%s: a step queued no device work through the core (nothing to time)",
                     plan->desc.name);
    *seconds = sum;
    return s;
}

/* A warm-up, then the median of repeats; with a deadline (wall clock, 0:
 * none) only as many repeats as the warm-up's duration says fit before it
 * (at least one). */
static scl_status time_candidate(scl_plan *plan, void *variant, const int *values, int repeats,
                                 double deadline, double *median)
{
    double t[MAX_REPEATS + 1];
    double w0 = wall_now();
    scl_status s = time_step(plan, variant, values, &t[0]);
    if (s == SCL_OK && deadline > 0) {
        scl_finish(plan->ctx);
        double step = wall_now() - w0, left = deadline - wall_now();
        int fit = step > 0 ? (int)(left / step) : repeats;
        if (fit < repeats)
            repeats = fit < 1 ? 1 : fit;
    }
    for (int r = 0; r < repeats && s == SCL_OK; r++)
        s = time_step(plan, variant, values, &t[r]);
    if (s != SCL_OK)
        return s;
    qsort(t, (size_t)repeats, sizeof t[0], cmp_double);
    *median = t[repeats / 2];
    return SCL_OK;
}

static scl_status prepare(scl_plan *plan, const int *values, void **variant)
{
    *variant = NULL;
    return plan->desc.prepare ? plan->desc.prepare(plan->desc.user, values, variant) : SCL_OK;
}

static void release(scl_plan *plan, void *variant)
{
    if (variant && plan->desc.release)
        plan->desc.release(plan->desc.user, variant);
}

/* Candidate combination c (the first parameter varies fastest) into values. */
static void combination(const scl_plan *plan, long c, const int *forced, const int *is_forced,
                        int *values)
{
    for (int i = 0; i < plan->desc.nparams; i++) {
        if (is_forced[i]) {
            values[i] = forced[i];
        } else {
            values[i] = plan->params[i].values[c % plan->params[i].count];
            c /= plan->params[i].count;
        }
    }
}

/* Without tuning or a cache: the default values (each parameter's first
 * candidate), or, when the kernel cannot take them on this problem, the
 * first legal combination in candidate order (untimed), so that no_tune works
 * on any shape without a cached plan. All illegal: the default's error. */
static scl_status first_legal(scl_plan *plan, const int *forced, const int *is_forced)
{
    scl_status s = prepare(plan, plan->values, &plan->variant);
    if (s != SCL_ERR_UNSUPPORTED)
        return s;
    int np = plan->desc.nparams;
    long combos = 1;
    for (int i = 0; i < np && combos <= MAX_COMBINATIONS; i++)
        if (!is_forced[i])
            combos *= plan->params[i].count;
    for (long c = 1; c < combos && c <= MAX_COMBINATIONS; c++) {
        int values[SCL_PLAN_MAX_PARAMS];
        combination(plan, c, forced, is_forced, values);
        char why[256];
        if (plan->desc.check && plan->desc.check(plan->desc.user, values, why, sizeof why))
            continue;
        void *variant = NULL;
        if (prepare(plan, values, &variant) == SCL_OK) {
            memcpy(plan->values, values, (size_t)np * sizeof *values);
            plan->variant = variant;
            return SCL_OK;
        }
    }
    return prepare(plan, plan->values, &plan->variant); /* its message again */
}

/* Time every combination of the free parameters; keep the fastest variant. */
static scl_status tune(scl_plan *plan, const int *forced, const int *is_forced, int repeats,
                       double max_seconds)
{
    const double deadline = max_seconds > 0 ? wall_now() + max_seconds : 0;
    scl_context *ctx = plan->ctx;
    int np = plan->desc.nparams;
    long combos = 1;
    for (int i = 0; i < np; i++)
        if (!is_forced[i])
            combos *= plan->params[i].count;
    if (combos > MAX_COMBINATIONS)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                        "%s: %ld candidate combinations (max %d)", plan->desc.name, combos,
                        MAX_COMBINATIONS);
    double best = -1;
    char refused[256] = "";
    long nrefused = 0;
    for (long c = 0; c < combos; c++) {
        if (deadline > 0 && best >= 0 && wall_now() > deadline)
            break; /* the budget is spent: keep the fastest so far */
        int values[SCL_PLAN_MAX_PARAMS];
        combination(plan, c, forced, is_forced, values);
        if (plan->desc.check &&
            plan->desc.check(plan->desc.user, values, refused, sizeof refused)) {
            nrefused++;
            continue;
        }
        if (plan->desc.worth_timing && !plan->desc.worth_timing(plan->desc.user, values))
            continue;
        void *variant = NULL;
        double t = 0;
        scl_status s = prepare(plan, values, &variant);
        if (s == SCL_OK)
            s = time_candidate(plan, variant, values, repeats, deadline, &t);
        if (s == SCL_ERR_UNSUPPORTED) { /* an illegal candidate */
            release(plan, variant);
            scl_clear_error(ctx);
            continue;
        }
        if (s != SCL_OK) {
            release(plan, variant);
            return s;
        }
        if (best < 0 || t < best) {
            best = t;
            release(plan, plan->variant);
            plan->variant = variant;
            memcpy(plan->values, values, sizeof(int) * (size_t)np);
        } else {
            release(plan, variant);
        }
    }
    if (best < 0 && nrefused == combos) /* the forced values leave no legal combination */
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                        "%s: no candidate goes with the forced values (%s)", plan->desc.name,
                        refused);
    if (best < 0)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_plan_create",
                        "no candidate of %s is legal on %s", plan->desc.name, ctx->info.name);
    plan->seconds = best;
    plan->tuned = 1;
    return SCL_OK;
}

static scl_status check_desc(scl_context *ctx, const scl_plan_desc *d)
{
    if (!d || !d->name || !d->shape || !d->run_variant || !d->params || d->nparams < 1 ||
        d->nparams > SCL_PLAN_MAX_PARAMS)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                        "a plan needs a name, a shape, a run function and 1-%d parameters",
                        SCL_PLAN_MAX_PARAMS);
    for (int i = 0; i < d->nparams; i++)
        if (!d->params[i].name || strlen(d->params[i].name) >= 24 || d->params[i].count < 1 ||
            d->params[i].count > SCL_PLAN_MAX_VALUES)
            return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create",
                            "parameter %d of %s: a name of < 24 characters and 1-%d candidates", i,
                            d->name, SCL_PLAN_MAX_VALUES);
    return SCL_OK;
}

/* A plan holding its own copy of desc (names, candidates, rules), values at
 * each parameter's first candidate. */
static scl_plan *plan_new(scl_context *ctx, const scl_plan_desc *desc)
{
    scl_plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        return NULL;
    plan->ctx = ctx;
    plan->desc = *desc;
    int np = desc->nparams;
    for (int i = 0; i < np; i++) {
        plan->params[i] = desc->params[i];
        snprintf(plan->names[i], sizeof plan->names[i], "%s", desc->params[i].name);
        plan->params[i].name = plan->names[i];
        plan->values[i] = desc->params[i].values[0];
    }
    plan->desc.params = plan->params;
    if (desc->rules) {
        memcpy(plan->rules, desc->rules, sizeof(scl_param_rule) * (size_t)np);
        plan->desc.rules = plan->rules;
    }
    return plan;
}

/* The forced values: the context's STREAMCL_FORCE, then the caller's text,
 * then the caller's typed values; checked against the candidates. */
static scl_status gather_forced(scl_plan *plan, const scl_tune_options *opt, int *forced,
                                int *is_forced)
{
    scl_status s = parse_force(plan, plan->ctx->force, forced, is_forced, 0);
    if (s == SCL_OK && opt && opt->force)
        s = parse_force(plan, opt->force, forced, is_forced, 1);
    if (s == SCL_OK && opt && opt->nforced > 0)
        s = apply_forced(plan, opt->forced, opt->nforced, forced, is_forced);
    if (s == SCL_OK)
        s = check_candidates(plan);
    if (s == SCL_OK)
        s = check_forced(plan, forced, is_forced);
    return s;
}

/* The free parameters' values: from the plan cache, else timed (tuning on),
 * else defaults or the first legal combination; then the variant prepared. */
static scl_status choose_values(scl_plan *plan, const scl_tune_options *opt, const int *forced,
                                const int *is_forced, int nfree)
{
    scl_context *ctx = plan->ctx;
    int no_tune = ctx->no_tune || (opt && opt->no_tune);
    int repeats = (opt && opt->repeats > 0) ? opt->repeats : ctx->tune_repeats;
    if (repeats > MAX_REPEATS)
        repeats = MAX_REPEATS;

    scl_status s = SCL_OK;
    char *key = NULL;
    char path[1300];
    int cacheable = 0;
    if (nfree > 0) {
        key = plan_key_text(plan, forced, is_forced);
        if (!key)
            s = scl_fail(ctx, SCL_ERR_MEMORY, "scl_plan_create", "out of host memory");
        else
            cacheable = scl_cache_path(ctx, "plans", scl_hash64(SCL_HASH_SEED, key, strlen(key)),
                                       "plan", path, sizeof path) == 0;
    }
    if (s == SCL_OK && cacheable && load_plan(path, key, plan))
        plan->from_cache = 1;
    if (s == SCL_OK && nfree > 0 && !plan->from_cache && !no_tune) {
        s = tune(plan, forced, is_forced, repeats, opt ? opt->max_seconds : 0);
        if (s == SCL_OK && cacheable)
            store_plan(path, key, plan);
    }
    if (s == SCL_OK && !plan->tuned && nfree > 0 && !plan->from_cache)
        s = first_legal(plan, forced, is_forced); /* not tuned: defaults, else the first legal */
    else if (s == SCL_OK && !plan->tuned) /* forced or cached values */
        s = prepare(plan, plan->values, &plan->variant);
    free(key);
    return s;
}

scl_status scl_plan_create(scl_context *ctx, const scl_plan_desc *desc,
                           const scl_tune_options *opt, scl_plan **out)
{
    if (!ctx || !out)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_plan_create", "NULL context or out");
    *out = NULL;
    scl_status s = check_desc(ctx, desc);
    if (s != SCL_OK)
        return s;
    scl_plan *plan = plan_new(ctx, desc);
    if (!plan)
        return scl_fail(ctx, SCL_ERR_MEMORY, "scl_plan_create", "out of host memory");

    int forced[SCL_PLAN_MAX_PARAMS] = {0}, is_forced[SCL_PLAN_MAX_PARAMS] = {0};
    s = gather_forced(plan, opt, forced, is_forced);
    int nfree = 0;
    for (int i = 0; i < desc->nparams; i++) {
        if (is_forced[i])
            plan->values[i] = forced[i];
        else
            nfree++;
    }
    if (s == SCL_OK)
        s = choose_values(plan, opt, forced, is_forced, nfree);
    if (s != SCL_OK) {
        scl_plan_free(plan);
        return s;
    }
    *out = plan;
    return SCL_OK;
}

scl_status scl_plan_execute(scl_plan *plan)
{
    if (!plan)
        return SCL_ERR_ARGUMENT;
    return plan->desc.run_variant(plan->desc.user, plan->variant, plan->values);
}

void scl_plan_free(scl_plan *plan)
{
    if (!plan)
        return;
    release(plan, plan->variant);
    free(plan);
}

int scl_plan_value(const scl_plan *plan, const char *name, int fallback)
{
    if (!plan || !name)
        return fallback;
    for (int i = 0; i < plan->desc.nparams; i++)
        if (!strcmp(plan->names[i], name))
            return plan->values[i];
    return fallback;
}

void *scl_plan_variant(const scl_plan *plan) { return plan ? plan->variant : NULL; }
double scl_plan_seconds(const scl_plan *plan) { return plan ? plan->seconds : 0; }
int scl_plan_from_cache(const scl_plan *plan) { return plan ? plan->from_cache : 0; }
int scl_plan_tuned(const scl_plan *plan) { return plan ? plan->tuned : 0; }

const char *scl_plan_describe(const scl_plan *plan, char *buf, size_t len)
{
    if (!buf || len == 0)
        return buf;
    buf[0] = '\0';
    size_t n = 0;
    for (int i = 0; plan && i < plan->desc.nparams && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%d", i ? " " : "", plan->names[i],
                              plan->values[i]);
    return buf;
}
