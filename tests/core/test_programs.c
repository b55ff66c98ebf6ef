/* Program builds: build-log errors, the embedded sources, and the binary
 * cache (hit on the second build; corrupt or truncated entries rebuilt). */
#include "test_util.h"

#include <dirent.h>
#include <unistd.h>
#include <string.h>

static const char *good_src =
    "__kernel void scale(__global float *x, const float a) { x[get_global_id(0)] *= a; }\n";

/* Apply f to every cached program binary; returns how many there were. */
static int for_each_cached(const scl_context *ctx, void (*f)(const char *path, int variant),
                           int variant)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/programs", scl_cache_dir(ctx));
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strstr(e->d_name, ".bin"))
            continue;
        char path[1600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (f)
            f(path, variant);
        n++;
    }
    closedir(d);
    return n;
}

static void corrupt(const char *path, int variant)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    if (variant == 0) { /* flip a byte in the payload */
        fseek(f, size / 2, SEEK_SET);
        int c = fgetc(f);
        fseek(f, size / 2, SEEK_SET);
        fputc(c ^ 0x5a, f);
        fclose(f);
    } else if (variant == 1) { /* truncate */
        fclose(f);
        truncate(path, size / 3);
    } else { /* replace with garbage of the same size */
        fseek(f, 0, SEEK_SET);
        for (long i = 0; i < size; i++)
            fputc((int)(i * 7 & 0xff), f);
        fclose(f);
    }
}

static int run_scale(scl_context *ctx, scl_program *p)
{
    scl_kernel *k = NULL;
    scl_stream *s = NULL;
    float x[100];
    for (int i = 0; i < 100; i++)
        x[i] = (float)i;
    int ok = scl_kernel_from_program(p, "scale", &k) == SCL_OK &&
             scl_stream_create(ctx, "x", SCL_FLOAT, 100, 1, 1, 0, &s) == SCL_OK &&
             scl_stream_write(s, x, 1, NULL) == SCL_OK;
    size_t g = 100;
    ok = ok && scl_kernel_set_stream(k, "x", s) == SCL_OK &&
         scl_kernel_set_real(k, "a", 3.0) == SCL_OK &&
         scl_kernel_launch(k, 1, &g, NULL, NULL) == SCL_OK &&
         scl_stream_read(s, x, 1, NULL) == SCL_OK;
    for (int i = 0; ok && i < 100; i++)
        ok = x[i] == 3.0f * (float)i;
    scl_kernel_free(k);
    scl_stream_free(s);
    return ok;
}

int main(void)
{
    scl_context *ctx = test_context();
    CHECK(scl_cache_dir(ctx) != NULL, "tests expect a cache directory");

    /* a syntax error returns SCL_ERR_BUILD with the compiler's log */
    scl_program *p = NULL;
    scl_status s = scl_program_build_source(
        ctx, "broken", "__kernel void broken(__global float *x) { x[0] = ; }\n", NULL, &p);
    CHECK(s == SCL_ERR_BUILD, "broken source gave %s", scl_status_name(s));
    CHECK(p == NULL, "failed build left a program");
    const char *msg = scl_last_error(ctx);
    CHECK(strstr(msg, "build log") && strstr(msg, "broken") && strstr(msg, "error"),
          "message lacks the build log: %s", msg);

    /* unknown embedded file and unknown kernel */
    CHECK(scl_program_build(ctx, "no_such_file", NULL, &p) == SCL_ERR_ARGUMENT, "unknown file");
    CHECK(scl_embedded_source("reduce") != NULL, "reduce.cl not embedded");

    /* first build: compiled; second (new context): from the cache */
    CHECK_OK(ctx, scl_program_build_source(ctx, "scale", good_src, "-DUNUSED=1", &p));
    CHECK(p && !scl_program_from_cache(p), "first build claimed cache");
    CHECK(p && run_scale(ctx, p), "kernel from source gives wrong results");
    scl_kernel *k = NULL;
    CHECK(p && scl_kernel_from_program(p, "no_such_kernel", &k) == SCL_ERR_OPENCL && !k,
          "unknown kernel");
    scl_program_free(p);
    scl_context_free(ctx);

    ctx = test_context();
    CHECK(for_each_cached(ctx, NULL, 0) >= 1, "no cache file written");
    CHECK_OK(ctx, scl_program_build_source(ctx, "scale", good_src, "-DUNUSED=1", &p));
    CHECK(p && scl_program_from_cache(p), "second build missed the cache");
    CHECK(p && run_scale(ctx, p), "kernel from cache gives wrong results");
    scl_program_free(p);

    /* other options are another key: no false hit */
    CHECK_OK(ctx, scl_program_build_source(ctx, "scale", good_src, "-DUNUSED=2", &p));
    CHECK(p && !scl_program_from_cache(p), "different options hit the cache");
    scl_program_free(p);

    /* corrupt entries are rebuilt, never trusted; the rebuilt one is good */
    for (int variant = 0; variant < 3; variant++) {
        for_each_cached(ctx, corrupt, variant);
        CHECK_OK(ctx, scl_program_build_source(ctx, "scale", good_src, "-DUNUSED=1", &p));
        CHECK(p && !scl_program_from_cache(p), "corrupt cache (variant %d) was trusted", variant);
        CHECK(p && run_scale(ctx, p), "rebuilt kernel wrong (variant %d)", variant);
        scl_program_free(p);
        CHECK_OK(ctx, scl_program_build_source(ctx, "scale", good_src, "-DUNUSED=1", &p));
        CHECK(p && scl_program_from_cache(p), "rewritten cache entry not used (variant %d)",
              variant);
        scl_program_free(p);
    }
    scl_context_free(ctx);

    /* the build counters (what callers check to know a step compiles nothing) */
    ctx = test_context();
    scl_build_stats b0, b1;
    scl_build_stats_get(ctx, &b0);
    CHECK(b0.programs == 0 && b0.compiled == 0 && b0.kernels == 0,
          "a new context counts builds: %ld %ld %ld", b0.programs, b0.compiled, b0.kernels);
    CHECK_OK(ctx, scl_program_build_source(ctx, "scale", good_src, "-DUNUSED=3", &p));
    scl_build_stats_get(ctx, &b1);
    CHECK(b1.programs == 1 && b1.compiled == 1 && b1.kernels == 0,
          "one compile counts as %ld programs, %ld compiled, %ld kernels", b1.programs,
          b1.compiled, b1.kernels);
    CHECK(p && run_scale(ctx, p), "kernel gives wrong results");
    scl_program_free(p);
    CHECK_OK(ctx, scl_program_build_source(ctx, "scale", good_src, "-DUNUSED=3", &p));
    scl_program_free(p);
    scl_build_stats_get(ctx, &b1);
    CHECK(b1.programs == 2 && b1.compiled == 1 && b1.kernels == 1,
          "a cached build then counts as %ld programs, %ld compiled, %ld kernels", b1.programs,
          b1.compiled, b1.kernels);
    /* kernel objects of one embedded file and options share one program */
    scl_kernel *k1 = NULL, *k2 = NULL;
    CHECK_OK(ctx, scl_kernel_create(ctx, "reduce", "max_float", NULL, &k1));
    CHECK_OK(ctx, scl_kernel_create(ctx, "reduce", "max_float", NULL, &k2));
    scl_build_stats_get(ctx, &b0);
    CHECK(b0.programs == 3 && b0.kernels == 3,
          "two kernel objects of one program count %ld programs, %ld kernels", b0.programs,
          b0.kernels);
    scl_kernels_free((scl_kernel *const[]){k1, k2}, 2);
    scl_build_stats_get(NULL, &b0);
    CHECK(b0.programs == 0 && b0.kernels == 0, "a NULL context counts builds");
    scl_context_free(ctx);
    return test_summary("core_programs");
}
