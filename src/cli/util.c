/* Shared helpers of the streamcl command: progress, timing, parsing, context. */
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_start(cli_progress *p, const char *what, long total)
{
    p->what = what;
    p->total = total;
    p->start = p->last = cli_now();
    p->active = isatty(STDERR_FILENO);
}

void cli_progress_update(cli_progress *p, long done)
{
    if (!p->active)
        return;
    double now = cli_now();
    if (now - p->last < 0.25 && done < p->total)
        return;
    p->last = now;
    double frac = p->total > 0 ? (double)done / (double)p->total : 1.0;
    double eta = frac > 0 ? (now - p->start) * (1.0 - frac) / frac : 0.0;
    fprintf(stderr, "\r%s: %ld/%ld (%5.1f%%)  elapsed %.1f s  eta %.1f s   ", p->what, done,
            p->total, 100.0 * frac, now - p->start, eta);
    fflush(stderr);
}

void cli_progress_end(cli_progress *p)
{
    if (p->active)
        fprintf(stderr, "\r%*s\r", 79, "");
}

scl_context *cli_context(const char *device, int profiling)
{
    char err[2048];
    /* the command's options first, the STREAMCL_* environment for the rest */
    static scl_env_options env;
    memset(&env, 0, sizeof env);
    env.context.device = device;
    env.context.profiling = profiling;
    scl_env_options_read(&env);
    scl_context *ctx = NULL;
    if (scl_context_create(&env.context, &ctx, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl: %s\n", err);
        return NULL;
    }
    return ctx;
}

int cli_parse_long(const char *cmd, const char *opt, const char *text, long min, long max,
                   long *out)
{
    char *end;
    errno = 0;
    long v = text ? strtol(text, &end, 10) : 0;
    if (!text || end == text || *end || errno || v < min || v > max) {
        fprintf(stderr, "streamcl %s: %s needs an integer in [%ld, %ld], got '%s'\n", cmd, opt,
                min, max, text ? text : "(missing)");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = text ? strtod(text, &end) : 0;
    if (!text || end == text || *end || errno || !isfinite(v)) {
        fprintf(stderr, "streamcl %s: %s needs a finite number, got '%s'\n", cmd, opt,
                text ? text : "(missing)");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_output_dir(const char *cmd, const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        if (errno == ENOENT)
            fprintf(stderr, "streamcl %s: output directory %s does not exist\n", cmd, dir);
        else
            fprintf(stderr, "streamcl %s: output directory %s: %s\n", cmd, dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "streamcl %s: output directory %s is not a directory\n", cmd, dir);
        return -1;
    }
    return 0;
}

void cli_outputs_init(cli_outputs *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
}

const char *cli_output(cli_outputs *o, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "streamcl %s: output %s is a directory\n", o->cmd, path);
        return NULL;
    }
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 8;
        char **f = realloc(o->final, (size_t)cap * sizeof *f);
        if (f)
            o->final = f;
        char **p = f ? realloc(o->part, (size_t)cap * sizeof *p) : NULL;
        if (!p) {
            fprintf(stderr, "streamcl %s: out of memory\n", o->cmd);
            return NULL;
        }
        o->part = p;
        o->cap = cap;
    }
    size_t len = strlen(path) + 6;
    char *final = strdup(path), *part = malloc(len);
    FILE *f = NULL;
    if (final && part) {
        snprintf(part, len, "%s.part", path);
        f = fopen(part, "w");
    }
    if (!f || fclose(f) != 0) {
        if (final && part)
            fprintf(stderr, "streamcl %s: cannot write %s: %s\n", o->cmd, path, strerror(errno));
        else
            fprintf(stderr, "streamcl %s: out of memory\n", o->cmd);
        free(final);
        free(part);
        return NULL;
    }
    o->final[o->n] = final;
    o->part[o->n++] = part;
    return part;
}

int cli_outputs_commit(cli_outputs *o)
{
    for (int i = 0; i < o->n; i++) {
        if (rename(o->part[i], o->final[i]) != 0) {
            fprintf(stderr, "streamcl %s: cannot rename %s to %s: %s\n", o->cmd, o->part[i],
                    o->final[i], strerror(errno));
            for (int j = 0; j < i; j++) /* all or nothing */
                remove(o->final[j]);
            return -1;
        }
        free(o->part[i]); /* committed: nothing to remove */
        o->part[i] = NULL;
    }
    return 0;
}

void cli_outputs_free(cli_outputs *o)
{
    for (int i = 0; i < o->n; i++) {
        if (o->part[i])
            remove(o->part[i]);
        free(o->part[i]);
        free(o->final[i]);
    }
    free(o->part);
    free(o->final);
    memset(o, 0, sizeof *o);
}

static int cmp_seconds(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cli_median(double *v, long n)
{
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_seconds);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
