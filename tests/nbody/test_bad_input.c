/* Bad input gives a clear error: invalid parameters and non-finite bodies
 * through the API, malformed and truncated body files with FILE:LINE, and a
 * save/load round trip of the file format. */
#include "nbody_test.h"

#include <unistd.h>

static void expect_create_error(scl_context *ctx, const char *what, scl_nbody_options opt,
                                size_t n, const double *pos, const double *vel,
                                const double *mass, scl_status want, const char *needle)
{
    scl_nbody *nb = (scl_nbody *)&opt; /* must be reset to NULL on failure */
    scl_status s = scl_nbody_create(ctx, &opt, n, pos, vel, mass, &nb);
    CHECK(s == want && nb == NULL && strstr(scl_last_error(ctx), needle),
          "%s: got %s '%s', wanted %s mentioning '%s'", what, scl_status_name(s),
          scl_last_error(ctx), scl_status_name(want), needle);
    if (s == SCL_OK)
        scl_nbody_free(nb);
}

/* Write text to a fresh file and load it; return the status, err filled. */
static scl_status load_text(const char *path, const char *text, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return SCL_ERR_IO;
    fputs(text, f);
    fclose(f);
    size_t n = 0;
    double *pos = NULL, *vel = NULL, *mass = NULL;
    scl_status s = scl_nbody_load(path, &n, &pos, &vel, &mass, err, errlen);
    CHECK((s == SCL_OK) == (pos != NULL), "load must allocate exactly on success");
    free(pos);
    free(vel);
    free(mass);
    return s;
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    test_system sys;
    if (test_system_random(&sys, 37, &rng))
        return 2;
    scl_nbody_options ok = {.eps = 0.01, .dt = 1e-3};
    scl_nbody_options o = ok;
    expect_create_error(ctx, "n = 0", o, 0, sys.pos, sys.vel, sys.mass, SCL_ERR_ARGUMENT,
                        "body count");
    o.dt = 0;
    expect_create_error(ctx, "dt = 0", o, sys.n, sys.pos, sys.vel, sys.mass, SCL_ERR_ARGUMENT, "dt");
    o.dt = -1;
    expect_create_error(ctx, "dt < 0", o, sys.n, sys.pos, sys.vel, sys.mass, SCL_ERR_ARGUMENT, "dt");
    o = ok;
    o.eps = -0.1;
    expect_create_error(ctx, "eps < 0", o, sys.n, sys.pos, sys.vel, sys.mass, SCL_ERR_ARGUMENT,
                        "eps");
    o.eps = NAN;
    expect_create_error(ctx, "eps NaN", o, sys.n, sys.pos, sys.vel, sys.mass, SCL_ERR_ARGUMENT,
                        "eps");
    size_t victim = (size_t)(test_uniform(&rng) * (double)sys.n);
    double saved = sys.pos[3 * victim + 1];
    sys.pos[3 * victim + 1] = NAN;
    char body[32];
    snprintf(body, sizeof body, "body %zu", victim);
    expect_create_error(ctx, "NaN position", ok, sys.n, sys.pos, sys.vel, sys.mass, SCL_ERR_INPUT,
                        body);
    sys.pos[3 * victim + 1] = saved;
    sys.vel[3 * victim] = INFINITY;
    expect_create_error(ctx, "infinite velocity", ok, sys.n, sys.pos, sys.vel, sys.mass,
                        SCL_ERR_INPUT, "velocity");
    sys.vel[3 * victim] = 0;
    sys.mass[victim] = -1;
    expect_create_error(ctx, "negative mass", ok, sys.n, sys.pos, sys.vel, sys.mass, SCL_ERR_INPUT,
                        "mass");
    sys.mass[victim] = 1.0 / (double)sys.n;

    /* files */
    char path[64], err[512];
    snprintf(path, sizeof path, "nbody_bad_input_%ld.txt", (long)getpid());
    struct {
        const char *text, *needle;
    } bad[] = {
        {"1 2 3 4 5 6 7\n1 2 3 4 5 6 abc\n", ":2: 'abc' is not a number"},
        {"1 2 3 4 5 6 7\n1 2 3 4 5\n", ":2: expected 7 values"},
        {"1 2 3 4 5 6 7 8\n", ":1: expected 7 values"},
        {"# n = 3\n1 2 3 4 5 6 7\n1 2 3 4 5 6 7\n", "declares n = 3 but holds 2"},
        {"1 2 3 4 5 6 7\n1 2 3 4 5 6", ":2: expected 7 values"},
        {"1 2 3 4 5 6 7\n1 2 nan 4 5 6 7\n", ":2: z is not finite"},
        {"1 2 3 4 5 6 -7\n", ":1: mass -7 is negative"},
        {"1,2,3,4,5,6,1e999\n", ":1: m is not finite"},
        {"1 2 3x 4 5 6 7\n", ":1: '3x' is not a number"},
        {"# nothing\n\n", "no bodies"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        scl_status s = load_text(path, bad[i].text, err, sizeof err);
        CHECK(s == SCL_ERR_INPUT && strstr(err, path) && strstr(err, bad[i].needle),
              "file case %zu: got %s '%s', wanted '%s'", i, scl_status_name(s), err,
              bad[i].needle);
    }
    CHECK(load_text(path, "# comment\nx y z vx vy vz m\n1 2 3 4 5 6 7 # trailing\n\n0,0,0,0,0,0,0\n",
                    err, sizeof err) == SCL_OK,
          "valid file rejected: %s", err);
    remove(path);
    size_t n = 0;
    double *pos = NULL, *vel = NULL, *mass = NULL;
    CHECK(scl_nbody_load("/nonexistent/bodies.txt", &n, &pos, &vel, &mass, err, sizeof err) ==
                  SCL_ERR_IO &&
              strstr(err, "/nonexistent/bodies.txt"),
          "missing file: '%s'", err);

    /* save and load back exactly */
    CHECK(scl_nbody_save(path, sys.n, sys.pos, sys.vel, sys.mass, err, sizeof err) == SCL_OK,
          "save: %s", err);
    CHECK(scl_nbody_load(path, &n, &pos, &vel, &mass, err, sizeof err) == SCL_OK, "reload: %s", err);
    int same = n == sys.n && pos;
    for (size_t i = 0; same && i < 3 * n; i++)
        same = pos[i] == sys.pos[i] && vel[i] == sys.vel[i] && mass[i / 3] == sys.mass[i / 3];
    CHECK(same, "round trip changed the bodies (n %zu vs %zu)", n, sys.n);
    free(pos);
    free(vel);
    free(mass);
    remove(path);
    test_system_free(&sys);
    scl_context_free(ctx);
    return test_summary("nbody_bad_input");
}
