/* Minimal test harness: CHECK records failures without stopping, the summary
 * line is "N passed, N failed" and the exit status is non-zero on failure. */
#ifndef STREAMCL_TEST_UTIL_H
#define STREAMCL_TEST_UTIL_H

#include "streamcl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ftw.h>
#include <sys/stat.h>

static int test_passed, test_failed, test_skipped;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (cond) {                                                                        \
            test_passed++;                                                                 \
        } else {                                                                           \
            test_failed++;                                                                 \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

/* Require success of a streamcl call; prints the context's message if not. */
#define CHECK_OK(ctx, call)                                                                \
    do {                                                                                   \
        scl_status st_ = (call);                                                           \
        CHECK(st_ == SCL_OK, "%s -> %s: %s", #call, scl_status_name(st_),                  \
              scl_last_error(ctx));                                                        \
    } while (0)

/* A part of the test that cannot run here (e.g. double precision on a device
 * without fp64): says why, and makes the test exit TEST_SKIP_CODE (ctest's
 * SKIP_RETURN_CODE) unless something failed, so that a run that skipped says so. */
#define TEST_SKIP_CODE 77
#define SKIP(...)                                                                          \
    do {                                                                                   \
        test_skipped++;                                                                    \
        printf("SKIP: ");                                                                  \
        printf(__VA_ARGS__);                                                               \
        putchar('\n');                                                                     \
    } while (0)

static inline int test_summary(const char *name)
{
    if (test_skipped)
        printf("%s: %d passed, %d failed, %d skipped\n", name, test_passed, test_failed,
               test_skipped);
    else
        printf("%s: %d passed, %d failed\n", name, test_passed, test_failed);
    return test_failed ? 1 : test_skipped ? TEST_SKIP_CODE : 0;
}

/* xorshift64*: a reproducible generator whose seed the test prints. */
static inline double test_uniform(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (double)((x * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

/* Seed from $STREAMCL_TEST_SEED or the clock, so each run sees fresh data. */
static inline uint64_t test_seed(void)
{
    const char *s = getenv("STREAMCL_TEST_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 10) : (uint64_t)time(NULL) * 2654435761ULL;
    if (seed == 0)
        seed = 88172645463325252ULL;
    printf("seed %llu (set STREAMCL_TEST_SEED to repeat)\n", (unsigned long long)seed);
    return seed;
}

static int test_remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Empty $XDG_CACHE_HOME/streamcl once per test process, so every run starts
 * cold (ctest gives each test its own XDG_CACHE_HOME). */
static inline void test_reset_cache(void)
{
    static int done;
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (done || !xdg || !*xdg)
        return;
    done = 1;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/streamcl", xdg);
    nftw(dir, test_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A context with the options of the STREAMCL_* environment (the device from
 * ctest's STREAMCL_DEVICE, the cache in XDG_CACHE_HOME), read explicitly as
 * the command does. */
static inline scl_context *test_context_with(scl_env_options *env)
{
    test_reset_cache();
    scl_env_options_read(env);
    char err[1024];
    scl_context *ctx = NULL;
    scl_status s = scl_context_create(&env->context, &ctx, err, sizeof err);
    if (s != SCL_OK) {
        fprintf(stderr, "cannot create context: %s\n", err);
        exit(2);
    }
    return ctx;
}

static inline scl_context *test_context(void)
{
    static scl_env_options env; /* the strings it holds outlive the call */
    memset(&env, 0, sizeof env);
    return test_context_with(&env);
}

#endif
