/* Plan values are checked in one place, the core: a forced value that breaks
 * its parameter's rule (range, power of two, divisor) is refused before
 * anything is built, from the plan string and from the context's force string
 * (STREAMCL_FORCE) alike, with a message naming the key, the value and the
 * requirement; requirements between parameters refuse a forced combination
 * and make the tuner skip candidates; a candidate list breaking its own rule
 * is refused as a solver bug. No kernel runs: prepare counts its calls. */
#include "test_util.h"

typedef struct {
    int prepared, runs;
} job;

static scl_status prepare(void *user, const int *values, void **out)
{
    (void)values;
    job *j = user;
    j->prepared++;
    *out = NULL;
    return SCL_OK;
}

/* The core times a step by the events it queued: queue a tiny fill. */
static scl_stream *scratch;
static scl_status run(void *user, void *var, const int *values)
{
    (void)var;
    (void)values;
    job *j = user;
    j->runs++;
    float zero = 0;
    return scl_stream_fill_range(scratch, 0, 16, &zero, NULL);
}

/* A step of ~50 ms wall (host sleep before a tiny fill): the tuner's budget. */
static scl_status slow_run(void *user, void *var, const int *values)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return run(user, var, values);
}

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* max_seconds bounds the timing: 8 candidates x (warm-up + 5 repeats) of
 * 50 ms would take 2.4 s; a budget of 0.3 s times the first candidate with
 * fewer repeats and stops, keeping a legal plan. */
static void budget(scl_context *ctx)
{
    static const scl_tune_param p[2] = {{"wg", 4, {64, 32, 16, 8}}, {"mode", 2, {0, 1}}};
    job j = {0};
    scl_plan_desc desc = {.name = "budget", .shape = "slow", .params = p, .nparams = 2,
                          .prepare = prepare, .run_variant = slow_run, .user = &j};
    scl_tune_options opt = {.repeats = 5, .max_seconds = 0.3};
    scl_plan *plan = NULL;
    double t0 = wall();
    CHECK_OK(ctx, scl_plan_create(ctx, &desc, &opt, &plan));
    double took = wall() - t0;
    CHECK(plan && scl_plan_tuned(plan), "a plan within the budget");
    CHECK(took < 1.2 && j.runs <= 12, "budget 0.3 s: tuning took %.2f s, %d steps", took, j.runs);
    printf("tuner budget 0.3 s: %.2f s, %d steps, %d variants prepared\n", took, j.runs,
           j.prepared);
    scl_plan_free(plan);
}

static int tile_check(void *user, const int *values, char *why, size_t len)
{
    (void)user;
    if (values[1] % values[0] != 0) {
        snprintf(why, len, "tile=%d must be a multiple of wg=%d", values[1], values[0]);
        return 1;
    }
    return 0;
}

static const scl_tune_param params[3] = {
    {"wg", 2, {64, 32}},
    {"tile", 2, {128, 64}},
    {"mode", 2, {0, 2}},
};
static const scl_param_rule rules[3] = {
    {.min = 1, .max = 1024, .pow2 = 1, .why = "the tree sum"},
    {.divides = 1024, .why = "the padding"},
    {.min = 0, .max = 2, .why = "the mode"},
};

/* The plan NAME of these tests over NPARAMS parameters with the rules above. */
static scl_plan_desc desc_of(const char *name, const scl_tune_param *p, int nparams, job *j)
{
    return (scl_plan_desc){.name = name,
                           .shape = "test",
                           .params = p,
                           .nparams = nparams,
                           .prepare = prepare,
                           .run_variant = run,
                           .user = j,
                           .rules = rules};
}

static scl_status make(scl_context *ctx, job *j, const char *force, scl_plan **plan)
{
    scl_plan_desc desc = desc_of("rules", params, 3, j);
    desc.check = tile_check;
    scl_tune_options opt = {.force = force, .repeats = 1};
    *plan = NULL;
    return scl_plan_create(ctx, &desc, &opt, plan);
}

/* A forced value the rules refuse: SCL_ERR_ARGUMENT, nothing prepared, and
 * the message holds every one of the words. */
static void refused(scl_context *ctx, const char *force, const char *w1, const char *w2)
{
    job j = {0};
    scl_plan *plan = NULL;
    scl_status s = make(ctx, &j, force, &plan);
    const char *msg = scl_last_error(ctx);
    CHECK(s == SCL_ERR_ARGUMENT, "force '%s': status %s (%s)", force, scl_status_name(s), msg);
    CHECK(j.prepared == 0, "force '%s': %d variants prepared before the refusal", force,
          j.prepared);
    CHECK(strstr(msg, w1) && strstr(msg, w2), "force '%s': message '%s' lacks '%s'/'%s'", force,
          msg, w1, w2);
    scl_plan_free(plan);
    scl_clear_error(ctx);
}

int main(void)
{
    scl_context *ctx = test_context();
    CHECK_OK(ctx, scl_stream_create(ctx, "scratch", SCL_FLOAT, 16, 1, 1, 0, &scratch));

    refused(ctx, "wg=96", "wg=96", "power of two");
    refused(ctx, "wg=3", "wg=3", "power of two");
    refused(ctx, "wg=0", "wg=0", "between 1 and 1024");
    refused(ctx, "wg=2048", "wg=2048", "between 1 and 1024");
    refused(ctx, "tile=96", "tile=96", "must divide 1024");
    refused(ctx, "mode=9", "mode=9", "between 0 and 2");
    refused(ctx, "mode=-1", "mode=-1", "the mode");
    /* all forced: the combination is checked too, and named */
    refused(ctx, "wg=64,tile=32,mode=0", "tile=32 must be a multiple of wg=64", "refused");
    /* a forced wg that leaves no legal tile among the candidates */
    refused(ctx, "wg=256,mode=0", "no candidate goes with the forced values", "wg=256");

    /* legal forced values plan; the tuner skips combinations the check refuses */
    job j = {0};
    scl_plan *plan = NULL;
    CHECK_OK(ctx, make(ctx, &j, "wg=64,tile=64,mode=2", &plan));
    CHECK(scl_plan_value(plan, "mode", -1) == 2, "mode %d", scl_plan_value(plan, "mode", -1));
    scl_plan_free(plan);
    j = (job){0};
    CHECK_OK(ctx, make(ctx, &j, "wg=64", &plan));
    CHECK(scl_plan_value(plan, "tile", 0) % 64 == 0, "tile %d with wg=64",
          scl_plan_value(plan, "tile", 0));
    scl_plan_free(plan);

    budget(ctx);

    /* the context's force string (STREAMCL_FORCE) passes the same rules */
    scl_context_options copt = {.device = getenv("STREAMCL_DEVICE"), .force = "wg=96"};
    char err[512];
    scl_context *forced = NULL;
    if (scl_context_create(&copt, &forced, err, sizeof err) != SCL_OK) {
        CHECK(0, "context: %s", err);
    } else {
        scl_stream *keep = scratch;
        CHECK_OK(forced, scl_stream_create(forced, "scratch", SCL_FLOAT, 16, 1, 1, 0, &scratch));
        refused(forced, NULL, "wg=96", "context force string");
        scl_stream_free(scratch);
        scratch = keep;
        scl_context_free(forced);
    }

    /* a solver whose own candidate breaks its rule is told so */
    static const scl_tune_param bad[1] = {{"wg", 2, {64, 48}}};
    scl_plan_desc desc = desc_of("bad", bad, 1, &j);
    scl_status s = scl_plan_create(ctx, &desc, NULL, &plan);
    CHECK(s == SCL_ERR_ARGUMENT && strstr(scl_last_error(ctx), "candidate wg=48"),
          "bad candidate: %s: %s", scl_status_name(s), scl_last_error(ctx));
    if (s == SCL_OK)
        scl_plan_free(plan);

    scl_stream_free(scratch);
    scl_context_free(ctx);
    return test_summary("core_plan_rules");
}
