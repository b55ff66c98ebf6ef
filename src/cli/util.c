/* Shared helpers of the streamcl command: progress, timing, parsing, context. */
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
    scl_context_options opt = {.device = device, .profiling = profiling};
    scl_context *ctx = NULL;
    if (scl_context_create(&opt, &ctx, err, sizeof err) != SCL_OK) {
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
