/* Shared helpers of the streamcl command: progress, timing, parsing, context. */
#include "commands.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
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
    scl_context_options opt = {.device = device, .profiling = profiling};
    scl_context *ctx = NULL;
    if (scl_context_create_env(&opt, &ctx, err, sizeof err) != SCL_OK) {
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

/* The registry of the running command, for the signal handler: SIGINT,
 * SIGTERM and SIGHUP remove every temporary not yet committed, then end the
 * process as the signal would have. */
static cli_outputs *volatile active_outputs;

static void remove_temporaries_and_die(int sig)
{
    cli_outputs *o = active_outputs;
    for (int i = 0; o && i < o->n; i++) {
        const scl_outfile *of = o->f[i].of;
        if (of && of->active && !of->direct)
            unlink(of->tmp); /* async-signal-safe */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void block_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, old);
}

void cli_outputs_init(cli_outputs *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    active_outputs = o;
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int k = 0; k < 3; k++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_temporaries_and_die;
        sigemptyset(&sa.sa_mask);
        /* a signal the caller ignores (nohup) stays ignored */
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[k], &sa, NULL);
    }
}

/* Identity of a path for "same file" checks: device and inode when it
 * exists, and its canonical path (of the directory plus the name when it
 * does not exist yet). */
static void identify(const char *path, cli_file *e)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        e->exists = 1;
        e->dev = st.st_dev;
        e->ino = st.st_ino;
        e->canon = realpath(path, NULL);
        return;
    }
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    char *rdir = dir ? realpath(dir, NULL) : NULL;
    const char *base = slash ? slash + 1 : path;
    if (rdir) {
        size_t n = strlen(rdir) + strlen(base) + 2;
        e->canon = malloc(n);
        if (e->canon)
            snprintf(e->canon, n, "%s/%s", strcmp(rdir, "/") ? rdir : "", base);
    }
    free(dir);
    free(rdir);
}

static int same_file(const cli_file *a, const cli_file *b)
{
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return a->canon && b->canon && !strcmp(a->canon, b->canon);
}

/* Appends e (signals blocked: the handler walks the array); -1 on no memory. */
static int add_file(cli_outputs *o, const cli_file *e)
{
    sigset_t old;
    block_signals(&old);
    int rc = 0;
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 8;
        cli_file *f = realloc(o->f, (size_t)cap * sizeof *f);
        if (f) {
            o->f = f;
            o->cap = cap;
        } else
            rc = -1;
    }
    if (rc == 0)
        o->f[o->n++] = *e;
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

void cli_input(cli_outputs *o, const char *path)
{
    cli_file e = {0};
    if (!path)
        return;
    identify(path, &e);
    e.name = strdup(path);
    e.input = 1;
    if (!e.name || (!e.exists && !e.canon) || add_file(o, &e) != 0) {
        free(e.name); /* an input that cannot be named is its reader's to report */
        free(e.canon);
    }
}

const char *cli_output(cli_outputs *o, const char *path)
{
    char err[4400], target[PATH_MAX];
    int direct;
    if (scl_output_resolve(path, target, sizeof target, &direct, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl %s: cannot write %s\n", o->cmd, err);
        return NULL;
    }
    cli_file e = {0};
    if (!direct) { /* a device or FIFO may be named twice: nothing is replaced */
        identify(target, &e);
        for (int i = 0; i < o->n; i++)
            if (!(o->f[i].of && o->f[i].of->direct) && same_file(&e, &o->f[i])) {
                fprintf(stderr, "streamcl %s: output %s is the same file as the %s %s; refused\n",
                        o->cmd, path, o->f[i].input ? "input" : "output", o->f[i].name);
                free(e.canon);
                return NULL;
            }
    }
    e.name = strdup(path);
    e.of = malloc(sizeof *e.of);
    if (!e.name || !e.of) {
        fprintf(stderr, "streamcl %s: out of memory\n", o->cmd);
    } else if (scl_outfile_begin(e.of, path, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl %s: cannot write %s\n", o->cmd, err);
    } else if (add_file(o, &e) != 0) {
        fprintf(stderr, "streamcl %s: out of memory\n", o->cmd);
        scl_outfile_abort(e.of);
    } else
        return e.of->tmp;
    free(e.name);
    free(e.canon);
    free(e.of);
    return NULL;
}

int cli_outputs_commit(cli_outputs *o)
{
    sigset_t old;
    block_signals(&old); /* all or nothing, also against an interrupt */
    char err[4400];
    int rc = 0;
    for (int i = 0; i < o->n && rc == 0; i++) {
        scl_outfile *of = o->f[i].of;
        if (!of || !of->active)
            continue;
        if (scl_outfile_commit(of, err, sizeof err) != SCL_OK) {
            fprintf(stderr, "streamcl %s: %s\n", o->cmd, err);
            for (int j = 0; j < i; j++) /* committed before: removed again */
                if (o->f[j].of && !o->f[j].of->direct && !o->f[j].input)
                    unlink(o->f[j].of->path);
            rc = -1;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

void cli_outputs_free(cli_outputs *o)
{
    sigset_t old;
    block_signals(&old);
    for (int i = 0; i < o->n; i++) {
        scl_outfile_abort(o->f[i].of); /* what was not committed */
        free(o->f[i].of);
        free(o->f[i].name);
        free(o->f[i].canon);
    }
    free(o->f);
    if (active_outputs == o)
        active_outputs = NULL;
    memset(o, 0, sizeof *o);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

int cli_check_due(long *chunks)
{
    long c = ++*chunks;
    return (c & (c - 1)) == 0;
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
