/* Profiling: events accounted per label, resolved lazily, reported as a table. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Pending events are resolved in batches so their count stays bounded. */
#define PENDING_LIMIT 4096

static scl_prof_entry *entry_for(scl_context *ctx, const char *label, scl_prof_kind kind)
{
    for (size_t i = 0; i < ctx->nprof; i++)
        if (ctx->prof[i].kind == kind && !strcmp(ctx->prof[i].label, label))
            return &ctx->prof[i];
    if (ctx->nprof == ctx->capprof) {
        size_t cap = ctx->capprof ? 2 * ctx->capprof : 16;
        scl_prof_entry *n = realloc(ctx->prof, cap * sizeof *n);
        if (!n)
            return NULL;
        ctx->prof = n;
        ctx->capprof = cap;
    }
    scl_prof_entry *e = &ctx->prof[ctx->nprof++];
    memset(e, 0, sizeof *e);
    snprintf(e->label, sizeof e->label, "%s", label);
    e->kind = kind;
    return e;
}

static scl_status resolve_pending(scl_context *ctx)
{
    scl_status status = SCL_OK;
    for (size_t i = 0; i < ctx->npending; i++) {
        scl_prof_pending *p = &ctx->pending[i];
        double s = 0;
        if (status == SCL_OK)
            status = scl_event_seconds(ctx, p->event, &s);
        scl_prof_entry *e = entry_for(ctx, p->label, p->kind);
        if (e) {
            e->seconds += s;
            e->count++;
        }
        clReleaseEvent(p->event);
    }
    ctx->npending = 0;
    return status;
}

scl_status scl_profile_event(scl_context *ctx, const char *label, scl_prof_kind kind, cl_event ev)
{
    if (!ctx || !label || !ev)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_profile_event", "NULL argument");
    if (ctx->npending == PENDING_LIMIT) {
        scl_status s = resolve_pending(ctx);
        if (s != SCL_OK)
            return s;
    }
    if (ctx->npending == ctx->cappending) {
        size_t cap = ctx->cappending ? 2 * ctx->cappending : 64;
        scl_prof_pending *n = realloc(ctx->pending, cap * sizeof *n);
        if (!n)
            return scl_fail(ctx, SCL_ERR_MEMORY, "scl_profile_event", "out of host memory");
        ctx->pending = n;
        ctx->cappending = cap;
    }
    scl_prof_pending *p = &ctx->pending[ctx->npending++];
    snprintf(p->label, sizeof p->label, "%s", label);
    p->kind = kind;
    p->event = ev;
    clRetainEvent(ev);
    return SCL_OK;
}

void scl_profile_maybe(scl_context *ctx, const char *label, scl_prof_kind kind, cl_event ev)
{
    if (ctx->profiling && ev)
        scl_profile_event(ctx, label, kind, ev); /* accounting failure never fails the work */
}

scl_status scl_profile_total(scl_context *ctx, const char *label, double *seconds, long *count)
{
    if (!ctx || !label)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_profile_total", "NULL argument");
    scl_status s = resolve_pending(ctx);
    double t = 0;
    long c = 0;
    for (size_t i = 0; i < ctx->nprof; i++)
        if (!strcmp(ctx->prof[i].label, label)) {
            t += ctx->prof[i].seconds;
            c += ctx->prof[i].count;
        }
    if (seconds)
        *seconds = t;
    if (count)
        *count = c;
    return s;
}

static const char *kind_name(scl_prof_kind k)
{
    switch (k) {
    case SCL_PROF_KERNEL: return "kernel";
    case SCL_PROF_WRITE: return "write";
    case SCL_PROF_READ: return "read";
    default: return "other";
    }
}

scl_status scl_profile_report(scl_context *ctx, FILE *out)
{
    if (!ctx || !out)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_profile_report", "NULL argument");
    scl_status s = resolve_pending(ctx);
    double total = 0;
    for (size_t i = 0; i < ctx->nprof; i++)
        total += ctx->prof[i].seconds;
    fprintf(out, "---------------------------------------------------------------\n");
    fprintf(out, "      Device Time Info (streamcl, %s):\n", ctx->info.name);
    fprintf(out, "---------------------------------------------------------------\n");
    fprintf(out, "%-32s %-7s %10s %12s %7s\n", "label", "kind", "count", "seconds", "%");
    for (int k = SCL_PROF_KERNEL; k <= SCL_PROF_OTHER; k++)
        for (size_t i = 0; i < ctx->nprof; i++) {
            const scl_prof_entry *e = &ctx->prof[i];
            if ((int)e->kind != k)
                continue;
            fprintf(out, "%-32s %-7s %10ld %12.6f %6.1f%%\n", e->label, kind_name(e->kind),
                    e->count, e->seconds, total > 0 ? 100.0 * e->seconds / total : 0.0);
        }
    fprintf(out, "%-32s %-7s %10s %12.6f\n", "total device time", "", "", total);
    fprintf(out, "---------------------------------------------------------------\n");
    return s;
}

void scl_profile_reset(scl_context *ctx)
{
    if (!ctx)
        return;
    for (size_t i = 0; i < ctx->npending; i++)
        clReleaseEvent(ctx->pending[i].event);
    ctx->npending = 0;
    ctx->nprof = 0;
}

void scl_profile_free(scl_context *ctx)
{
    scl_profile_reset(ctx);
    free(ctx->pending);
    free(ctx->prof);
    ctx->pending = NULL;
    ctx->prof = NULL;
    ctx->cappending = ctx->capprof = 0;
}
