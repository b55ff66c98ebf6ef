/* The plan cache is keyed by the device: a plan tuned on one device is not
 * served to another that shares the cache directory, and each device finds
 * its own plan again. Two devices from PoCL's two CPU drivers (ctest sets
 * POCL_DEVICES="pthread basic"); elsewhere, without two devices of those
 * names, the test skips (exit 77) and says so. */
#include "test_util.h"

/* A step: a fill of the scratch stream (user), timed by its events. */
static scl_status run(void *user, void *var, const int *values)
{
    (void)var, (void)values;
    const float zero = 0;
    return scl_stream_fill_range(user, 0, 1024, &zero, NULL);
}

static const scl_tune_param params[1] = {{"wg", 2, {64, 32}}};

/* Plan on ctx; *from_cache and *tuned tell where the values came from. */
static void plan_on(scl_context *ctx, const char *who, int *from_cache, int *tuned)
{
    scl_stream *scratch = NULL;
    *from_cache = *tuned = -1;
    CHECK_OK(ctx, scl_stream_create(ctx, "scratch", SCL_FLOAT, 1024, 1, 1, 0, &scratch));
    if (!scratch)
        return;
    scl_plan_desc desc = {.name = "two_devices", .shape = "1024", .params = params,
                          .nparams = 1, .run_variant = run, .user = scratch};
    scl_tune_options opt = {.repeats = 1};
    scl_plan *plan = NULL;
    scl_status s = scl_plan_create(ctx, &desc, &opt, &plan);
    CHECK(s == SCL_OK, "%s: %s", who, scl_last_error(ctx));
    if (plan) {
        *from_cache = scl_plan_from_cache(plan);
        *tuned = scl_plan_tuned(plan);
    }
    scl_plan_free(plan);
    scl_stream_free(scratch);
}

static scl_context *open_device(const char *spec, const char *cache)
{
    scl_context_options o = {.device = spec, .cache_dir = cache};
    char err[512];
    scl_context *ctx = NULL;
    if (scl_context_create(&o, &ctx, err, sizeof err) != SCL_OK)
        return NULL;
    return ctx;
}

int main(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    char cache[1024];
    snprintf(cache, sizeof cache, "%s/streamcl-two-devices", xdg && *xdg ? xdg : "/tmp");
    test_reset_cache();
    nftw(cache, test_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    scl_context *a = open_device("pthread", cache), *b = open_device("basic", cache);
    if (!a || !b || !strcmp(scl_device(a)->name, scl_device(b)->name)) {
        SKIP("two distinct devices 'pthread' and 'basic' are needed (PoCL with "
             "POCL_DEVICES=\"pthread basic\"); found %s and %s",
             a ? scl_device(a)->name : "none", b ? scl_device(b)->name : "none");
        scl_context_free(a);
        scl_context_free(b);
        return test_summary("core_plan_devices");
    }
    printf("devices: %s | %s, one cache %s\n", scl_device(a)->name, scl_device(b)->name, cache);
    int cached, tuned;
    plan_on(a, "first device, cold", &cached, &tuned);
    CHECK(cached == 0 && tuned == 1, "first device cold: from_cache %d tuned %d", cached, tuned);
    plan_on(b, "second device", &cached, &tuned);
    CHECK(cached == 0 && tuned == 1,
          "second device got the first device's plan from the cache (from_cache %d, tuned %d): "
          "the cache key lacks the device",
          cached, tuned);
    plan_on(a, "first device, again", &cached, &tuned);
    CHECK(cached == 1 && tuned == 0, "first device again: from_cache %d tuned %d", cached, tuned);
    plan_on(b, "second device, again", &cached, &tuned);
    CHECK(cached == 1 && tuned == 0, "second device again: from_cache %d tuned %d", cached, tuned);
    scl_context_free(a);
    scl_context_free(b);
    return test_summary("core_plan_devices");
}
