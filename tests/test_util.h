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

/* ---- NaN-safe comparisons ------------------------------------------------
 * fmax(m, NaN) is m: a worst difference gathered with fmax silently drops a
 * NaN, and a later "d <= tol" passes. Every comparison of computed numbers in
 * the tests goes through these: a NaN or an infinity in either operand is a
 * failure, and a failure names the field, the index and both values. */

/* max(m, x) that keeps a NaN (fmax drops it). */
static inline double test_max(double m, double x)
{
    return (isnan(m) || isnan(x)) ? NAN : (x > m ? x : m);
}

/* |a - b|, or +INF when either is not finite (so that it fails any bound). */
static inline double test_absdiff(double a, double b)
{
    return (isfinite(a) && isfinite(b)) ? fabs(a - b) : INFINITY;
}

/* 1 when got is within abs_tol + rel_tol * |want| of want, both finite. */
static inline int test_close(double got, double want, double rel_tol, double abs_tol)
{
    return test_absdiff(got, want) <= abs_tol + rel_tol * fabs(want);
}

static inline int test_check_close(const char *file, int line, const char *field, long index,
                                   double got, double want, double rel_tol, double abs_tol)
{
    if (test_close(got, want, rel_tol, abs_tol)) {
        test_passed++;
        return 1;
    }
    test_failed++;
    fprintf(stderr, "FAIL %s:%d: %s[%ld]: got %.17g, want %.17g (|diff| %.3g > %.3g + %.3g*|want|%s)\n",
            file, line, field, index, got, want, test_absdiff(got, want), abs_tol, rel_tol,
            isfinite(got) && isfinite(want) ? "" : "; not finite");
    return 0;
}

/* got[i] against want[i] for n values read through get(array, i) (float or
 * double arrays alike); one check, reporting the worst element (by how far
 * past its bound it lies) and how many were out. */
static inline int test_check_close_n(const char *file, int line, const char *field, long n,
                                     double (*get)(const void *, long), const void *got,
                                     const void *want, double rel_tol, double abs_tol)
{
    long bad = 0, worst = -1;
    double worst_ratio = 0;
    for (long i = 0; i < n; i++) {
        double g = get(got, i), w = get(want, i);
        double bound = abs_tol + rel_tol * fabs(w), d = test_absdiff(g, w);
        if (d <= bound)
            continue;
        bad++;
        double ratio = bound > 0 ? d / bound : INFINITY;
        if (worst < 0 || !(ratio <= worst_ratio)) {
            worst = i;
            worst_ratio = ratio;
        }
    }
    if (bad == 0) {
        test_passed++;
        return 1;
    }
    test_failed++;
    double g = get(got, worst), w = get(want, worst);
    fprintf(stderr, "FAIL %s:%d: %s: %ld of %ld values out of tolerance (abs %.3g + rel %.3g); "
            "worst %s[%ld]: got %.17g, want %.17g%s\n",
            file, line, field, bad, n, abs_tol, rel_tol, field, worst, g, w,
            isfinite(g) && isfinite(w) ? "" : " (not finite)");
    return 0;
}

static inline double test_get_double(const void *a, long i) { return ((const double *)a)[i]; }
static inline double test_get_float(const void *a, long i) { return ((const float *)a)[i]; }

/* The largest |want[i]| of a field (NaN if any value is NaN): the scale of
 * a per-field tolerance. */
static inline double test_peak_n(long n, double (*get)(const void *, long), const void *want)
{
    double m = 0;
    for (long i = 0; i < n; i++)
        m = test_max(m, fabs(get(want, i)));
    return m;
}

/* sqrt(sum (a-ref)^2 / sum ref^2); +INF when any value is not finite (a NaN
 * sum makes "den > 0" false, and a NaN reference then read as "no error"). */
static inline double test_rms_rel_error(const double *a, const double *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i]) || !isfinite(ref[i]))
            return INFINITY;
        num += (a[i] - ref[i]) * (a[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    return den > 0 ? sqrt(num / den) : (num > 0 ? INFINITY : 0.0);
}

/* One value: CHECK_CLOSE("energy", 0, e, e_ref, 1e-10, 0). */
#define CHECK_CLOSE(field, index, got, want, rel_tol, abs_tol)                                \
    test_check_close(__FILE__, __LINE__, field, (long)(index), got, want, rel_tol, abs_tol)
/* Arrays of double / float of n values each. */
#define CHECK_CLOSE_ARRAY(field, n, got, want, rel_tol, abs_tol)                              \
    test_check_close_n(__FILE__, __LINE__, field, (long)(n), test_get_double, got, want,       \
                       rel_tol, abs_tol)
#define CHECK_CLOSE_ARRAYF(field, n, got, want, rel_tol, abs_tol)                             \
    test_check_close_n(__FILE__, __LINE__, field, (long)(n), test_get_float, got, want,        \
                       rel_tol, abs_tol)
/* Per-field tolerance: within rel_of_peak times the field's own largest
 * |want| (a field of other units never sets the scale); a field that is zero
 * everywhere in want must be exactly zero in got. */
#define CHECK_CLOSE_PEAK(field, n, got, want, rel_of_peak)                                   \
    test_check_close_n(__FILE__, __LINE__, field, (long)(n), test_get_double, got, want, 0,   \
                       (rel_of_peak) * test_peak_n((long)(n), test_get_double, want))
#define CHECK_CLOSE_PEAKF(field, n, got, want, rel_of_peak)                                  \
    test_check_close_n(__FILE__, __LINE__, field, (long)(n), test_get_float, got, want, 0,    \
                       (rel_of_peak) * test_peak_n((long)(n), test_get_float, want))

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

/* dir/name holding text (the path, in a buffer the next call reuses);
 * the input files of the reader tests. A file that cannot be written is
 * left for the reader under test to report. */
static inline const char *test_write_text(const char *dir, const char *name, const char *text)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
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
