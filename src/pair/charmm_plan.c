/* The plan of the charmm force step: which force kind (charmm_forces.h), its
 * launch values and the number of chunks, chosen by the core tuner (timed on
 * the real atoms of the first step, cached per device and problem shape).
 * Values the caller fixed in the parameters are forced. With several kinds
 * that run on the device, each is planned and the fastest kept. */
#include "pair/charmm_engine.h"
#include "pair/kinds/charmm_kinds.h"

#include <stdlib.h>
#include <string.h>

/* Wall-clock seconds the tuner may spend on one force kind (scl_tune_options). */
#define CHARMM_TUNE_SECONDS 5.0

/* A plan's candidate: the kind and the values it was prepared for. */
typedef struct {
    scl_charmm *eng;
    const charmm_force_kind *kind;
    int nkind_params; /* values[0 .. nkind_params) are the kind's, then chunks */
} plan_user;

typedef struct {
    int values[SCL_PLAN_MAX_PARAMS];
} plan_variant;

static scl_status apply(plan_user *u, const int *values, int chunks_too)
{
    scl_charmm *eng = u->eng;
    charmm_forces *fk = &eng->forces;
    int chunks = values[u->nkind_params];
    if (chunks_too && chunks != eng->nlist.nchunks) { /* new chunk layout: new lists */
        scl_status s = charmm_nlist_chunks(&eng->nlist, chunks, 1, "charmm tuner");
        if (s != SCL_OK)
            return s;
    }
    if (fk->kind == u->kind && !memcmp(fk->values, values, sizeof fk->values))
        return SCL_OK;
    scl_status s = u->kind->prepare(fk, values);
    if (s == SCL_OK) {
        /* a kind may prune lists of its own (charmm_cpu.c): the inner lists
         * are pruned anew for the variant now in use */
        if (fk->kind != u->kind || (u->kind->prune && memcmp(fk->values, values, sizeof fk->values)))
            eng->nlist.prune_valid = 0;
        fk->kind = u->kind;
        memcpy(fk->values, values, sizeof fk->values);
    }
    return s;
}

static scl_status plan_prepare(void *user, const int *values, void **variant)
{
    plan_user *u = user;
    plan_variant *v = calloc(1, sizeof *v);
    if (!v)
        return scl_fail(u->eng->ctx, SCL_ERR_MEMORY, "charmm tuner", "out of host memory");
    memcpy(v->values, values, (size_t)(u->nkind_params + 1) * sizeof *values);
    scl_status s = apply(u, v->values, 1);
    if (s != SCL_OK) {
        free(v);
        return s;
    }
    *variant = v;
    return SCL_OK;
}

/* Prune the inner lists where they are stale, at the step's packed
 * positions: before any force launch, the tuner's included. */
static scl_status lists_ready(scl_charmm *eng)
{
    charmm_nlist *nl = &eng->nlist;
    if (!nl->prune || nl->prune_valid)
        return SCL_OK;
    eng->pruned_now = 1;
    const void *pos_host = eng->dev_pack ? NULL : eng->stage[STAGE_POS].ptr;
    const charmm_forces *fk = &eng->forces;
    return fk->kind && fk->kind->prune ? fk->kind->prune(&eng->forces, nl, eng->pos, pos_host)
                                       : charmm_nlist_prune(nl, eng->pos, pos_host);
}

/* One step of the variant: the force launches of eng->io (force-only while
 * tuning; the engine's step otherwise, whose events it records). */
static scl_status plan_run(void *user, void *variant, const int *values)
{
    (void)values;
    plan_user *u = user;
    scl_charmm *eng = u->eng;
    plan_variant *v = variant;
    scl_status s = apply(u, v->values, 0);
    if (s == SCL_OK)
        s = lists_ready(eng);
    if (s != SCL_OK)
        return s;
    return u->kind->enqueue(&eng->forces, &eng->nlist, &eng->io,
                            eng->record_events ? eng->ev_force : NULL);
}

static void plan_release(void *user, void *variant)
{
    (void)user;
    free(variant);
}

static int log2_bucket(long n)
{
    int b = 0;
    while (n > 1) {
        n >>= 1;
        b++;
    }
    return b;
}

/* What the pair kernels can take, by parameter name (every kind names its
 * parameters alike): lanes per atom and work-groups are summed by halving
 * (cl/charmm*.cl), a register cap or pipeline depth has a small range. */
static scl_param_rule pair_rule(const char *name)
{
    if (!strcmp(name, "tpa"))
        return (scl_param_rule){.min = 1, .max = 64, .pow2 = 1,
                                .why = "the lanes of an atom summed by halving"};
    if (!strcmp(name, "wg"))
        return (scl_param_rule){.min = 1, .max = 1024, .pow2 = 1,
                                .why = "the work-group reductions of the pair kernels"};
    if (!strcmp(name, "chunks"))
        return (scl_param_rule){.min = 1, .why = "the neighbor-list chunks"};
    if (!strcmp(name, "pipe"))
        return (scl_param_rule){.min = 0, .max = 2, .why = "the loop pipeline (0, 1 or 2)"};
    if (!strcmp(name, "fsum"))
        return (scl_param_rule){.min = 1, .max = 64, .why = "the pairs per float partial sum"};
    return (scl_param_rule){0};
}

/* Plan kind k; *out stays NULL when the kind does not run here. */
static scl_status plan_kind(scl_charmm *eng, const charmm_force_kind *kind, plan_user *u,
                            scl_plan **out)
{
    const scl_charmm_params *p = &eng->params;
    charmm_nlist *nl = &eng->nlist;
    scl_tune_param params[SCL_PLAN_MAX_PARAMS];
    int n = kind->candidates(&eng->forces, params);
    *out = NULL;
    if (n <= 0)
        return SCL_OK;
    long pairs = 0;
    scl_status s = charmm_nlist_count(nl, &pairs);
    if (s != SCL_OK)
        return s;
    int m = nl->min_chunks > 0 ? nl->min_chunks : 1;
    /* a kind with lists of its own launches once over them: chunks change nothing there */
    params[n] = kind->own_lists ? (scl_tune_param){"chunks", 1, {m}}
                                             : (scl_tune_param){"chunks", 3, {m, 2 * m, 4 * m}};
    u->eng = eng;
    u->kind = kind;
    u->nkind_params = n;
    /* the caller's fixed values, typed as the plan takes them */
    scl_arg_int forced[SCL_PLAN_MAX_PARAMS];
    int nforced = 0;
    for (int a = 0; a < n; a++) {
        int want = !strcmp(params[a].name, "tpa") ? p->threads_per_atom
                   : !strcmp(params[a].name, "wg") ? p->work_group
                   : !strcmp(params[a].name, "list") ? p->lists
                                                   : 0;
        if (want)
            forced[nforced++] = (scl_arg_int){params[a].name, want};
    }
    if (p->chunks)
        forced[nforced++] = (scl_arg_int){"chunks", p->chunks > m ? p->chunks : m};
    char name[64], shape[96];
    long avg = nl->nlocal > 0 ? pairs / nl->nlocal : 0;
    snprintf(name, sizeof name, "charmm_force.%s", kind->name);
    snprintf(shape, sizeof shape, "atoms~2^%d,neighbors~2^%d,prec=%d,streaming=%d",
             log2_bucket(nl->natoms), log2_bucket(avg), (int)p->precision, nl->streaming);
    scl_param_rule rules[SCL_PLAN_MAX_PARAMS];
    for (int a = 0; a <= n; a++)
        rules[a] = pair_rule(params[a].name);
    scl_plan_desc desc = {.name = name,
                          .shape = shape,
                          .params = params,
                          .nparams = n + 1,
                          .prepare = plan_prepare,
                          .run_variant = plan_run,
                          .release = plan_release,
                          .user = u,
                          .rules = rules};
    /* median of 7: candidates 10% apart swapped places run to run with 3
     * (0.144 vs 0.156 ms plans on the H200 at 32k atoms) */
    /* a budget per kind: at the usual cutoffs a kind times in well under a
     * second even on PoCL, but a step of pair_style ... 30 40 40 on the
     * peptide takes ~0.1 s there, and every candidate 8 times took over
     * 100 s before a 5-step run; the fastest found within it is kept */
    scl_tune_options opt = {.no_tune = !p->tune, .repeats = 7, .forced = forced,
                            .nforced = nforced, .max_seconds = CHARMM_TUNE_SECONDS};
    return scl_plan_create(eng->ctx, &desc, &opt, out);
}

scl_status charmm_plan(scl_charmm *eng)
{
    plan_user *u = calloc((size_t)charmm_force_nkinds, sizeof *u);
    if (!u)
        return scl_fail(eng->ctx, SCL_ERR_MEMORY, "scl_charmm_compute", "out of host memory");
    scl_plan *best = NULL;
    int best_k = -1;
    scl_status s = SCL_OK;
    for (int k = 0; k < charmm_force_nkinds && s == SCL_OK; k++) {
        scl_plan *plan = NULL;
        const char *want = eng->params.kernel;
        if (want && *want && strcmp(want, charmm_force_kinds[k]->name))
            continue;
        s = plan_kind(eng, charmm_force_kinds[k], &u[k], &plan);
        if (s == SCL_ERR_UNSUPPORTED && !(want && *want)) {
            /* no legal variant of this kind (say, forced values it cannot
             * take): the others may run */
            scl_clear_error(eng->ctx);
            s = SCL_OK;
        }
        if (s != SCL_OK || !plan)
            continue;
        double t = scl_plan_seconds(plan), tb = best ? scl_plan_seconds(best) : 0.0;
        if (!best || (t > 0.0 && tb > 0.0 && t < tb)) {
            scl_plan_free(best);
            best = plan, best_k = k;
        } else {
            scl_plan_free(plan);
        }
    }
    if (s == SCL_OK && !best) {
        char names[64];
        s = scl_fail(eng->ctx, SCL_ERR_UNSUPPORTED, "scl_charmm_compute",
                     "no force kernel%s%s runs on %s (kinds: %s)",
                     eng->params.kernel && *eng->params.kernel ? " of kind " : "",
                     eng->params.kernel ? eng->params.kernel : "", scl_device(eng->ctx)->name,
                     charmm_kinds_names(names, sizeof names));
    }
    if (s == SCL_OK) { /* the chosen values, whatever was prepared last */
        plan_user *bu = &u[best_k];
        int values[SCL_PLAN_MAX_PARAMS] = {0};
        scl_tune_param params[SCL_PLAN_MAX_PARAMS];
        int n = bu->kind->candidates(&eng->forces, params);
        for (int a = 0; a < n; a++)
            values[a] = scl_plan_value(best, params[a].name, params[a].values[0]);
        values[n] = scl_plan_value(best, "chunks", eng->nlist.nchunks);
        eng->forces.kind = NULL;
        s = apply(bu, values, 1);
    }
    if (s != SCL_OK) {
        scl_plan_free(best);
        free(u);
        return s;
    }
    eng->plan = best;
    eng->plan_users = u;
    /* a kind with lists of its own: later rebuilds skip the atom lists */
    eng->nlist.lists_off = u[best_k].kind->own_lists;
    return SCL_OK;
}

scl_status charmm_plan_forces(scl_charmm *eng) { return scl_plan_execute(eng->plan); }
