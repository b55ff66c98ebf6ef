/* The charmm pair engine: creation, atom sets (through the neighbor list
 * object), per-step packing of positions and charges, the force step (through
 * the plan), and the host finish (forces added in the caller's order,
 * energy/virial partials reduced in double). */
#include "pair/charmm_engine.h"
#include "pair/kinds/charmm_cluster.h"
#include "pair/kinds/charmm_cpu.h"
#include "pair/kinds/charmm_kinds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define FIXED_UNIT (1.0 / 4294967296.0) /* 2^-32, see src/pair/kinds/charmm_pair.clh */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t stream_bytes(const scl_stream *s) { return s ? scl_stream_bytes(s) : 0; }

size_t charmm_engine_device_bytes(const scl_charmm *eng)
{
    const scl_stream *all[] = {eng->pos,      eng->pos_lo,     eng->force,  eng->partials,
                               eng->eatom,    eng->vatom,      eng->error,  eng->xq_dev,
                               eng->forces.ljc, eng->forces.ljc_double};
    size_t sum = 0;
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        sum += stream_bytes(all[k]);
    return sum;
}

/* The parameters scl_charmm_create checks itself (the coefficients are
 * charmm_coeffs_init's), in the order their messages take precedence. */
static scl_status check_params(scl_context *ctx, const scl_charmm_params *p, const char *fn)
{
    const scl_device_info *dev = scl_device(ctx);
    scl_status s = SCL_OK;
    if (p->kernel && *p->kernel && !charmm_kinds_find(p->kernel)) {
        char names[64];
        s = scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "kernel '%s' is not %s", p->kernel,
                     charmm_kinds_names(names, sizeof names));
    }
    if (s == SCL_OK && (p->list_lanes < 0 || p->list_lanes > 8 ||
                        (p->list_lanes & (p->list_lanes - 1)) != 0))
        s = scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "list_lanes %d is not 0 (automatic), 1, 2, 4 or 8",
                     p->list_lanes);
    if (s == SCL_OK && (p->lists < 0 || p->lists > 2))
        s = scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "lists %d is not 0 (tuned), 1 (full) or 2 (half)",
                     p->lists);
    if (p->precision == SCL_PREC_DOUBLE && !dev->fp64)
        s = scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn,
                     "double precision needs fp64, which %s does not have", dev->name);
    int tpa = p->threads_per_atom;
    if (s == SCL_OK && tpa != 0 && charmm_tpa_index(tpa) < 0)
        s = scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "threads_per_atom %d is not 0 (tuned) or 1, 2, 4, .. %d",
                     tpa, 1 << (CHARMM_TPA_VARIANTS - 1));
    if (s == SCL_OK && (p->chunks < 0 || p->work_group < 0 || p->neighbor_capacity < 0 ||
                        (p->work_group & (p->work_group - 1)) != 0))
        s = scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                     "chunks %d, work_group %d (a power of two) or neighbor_capacity %d invalid",
                     p->chunks, p->work_group, p->neighbor_capacity);
    if (s == SCL_OK && (p->host_threads < 0 || p->inputs_stable < 0 || p->inputs_stable > 2))
        s = scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                     "host_threads %d (>= 0) or inputs_stable %d (0, 1 or 2) invalid",
                     p->host_threads, p->inputs_stable);
    return s;
}

scl_status scl_charmm_create(scl_context *ctx, const scl_charmm_params *p, scl_charmm **out)
{
    static const char *fn = "scl_charmm_create";
    if (!ctx || !p || !out)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "ctx, params and out must not be NULL");
    *out = NULL;
    char err[512];
    scl_charmm *eng = scl_calloc(ctx, 1, sizeof *eng, fn);
    if (!eng)
        return SCL_ERR_MEMORY;
    eng->ctx = ctx;
    scl_status s = charmm_coeffs_init(p, &eng->coeffs, err, sizeof err);
    if (s != SCL_OK) {
        free(eng);
        return scl_fail(ctx, s, fn, "%s", err);
    }
    eng->params = *p;
    eng->params.epsilon = eng->params.sigma = NULL;
    snprintf(eng->kernel_name, sizeof eng->kernel_name, "%s", p->kernel ? p->kernel : "");
    eng->params.kernel = eng->kernel_name;
    const scl_device_info *dev = scl_device(ctx);
    s = check_params(ctx, p, fn);
    size_t budget = p->max_device_bytes ? p->max_device_bytes : dev->global_mem / 4 * 3;
    if (s == SCL_OK)
        s = charmm_nlist_init(&eng->nlist, ctx, &eng->coeffs, &eng->params, budget);
    if (s == SCL_OK)
        s = charmm_forces_init(&eng->forces, ctx, &eng->params, &eng->coeffs);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "charmm error flag", SCL_INT, 12, 1, 1, 0, &eng->error);
    int zero12[12] = {0};
    if (s == SCL_OK)
        s = scl_stream_write(eng->error, zero12, 1, NULL);
    eng->stat_clean = 1;
    /* positions are packed on the device where it has fp64 (the caller's
     * doubles go up as they are); else, or with params.host_pack, on the host */
    eng->dev_pack = dev->fp64 && !p->host_pack;
    eng->direct_inputs = charmm_direct_upload(dev, p->inputs_stable);
    eng->host_threads = charmm_host_threads(dev, p->host_threads);
    if (s == SCL_OK && eng->dev_pack) {
        char opts[64];
        snprintf(opts, sizeof opts, "-DPOS_DOUBLE=%d", p->precision == SCL_PREC_DOUBLE);
        s = scl_kernel_create(ctx, "charmm_pack", "charmm_pack", opts, &eng->pack);
        if (s == SCL_OK)
            scl_kernel_set_label(eng->pack, "charmm pack");
    }
    if (s != SCL_OK) {
        scl_charmm_free(eng);
        return s;
    }
    *out = eng;
    return SCL_OK;
}

/* Events of a step's force launches and read-backs (a recomputed step drops
 * these but keeps its uploads). */
static void release_force_events(scl_charmm *eng)
{
    for (int k = 0; k < eng->nev_force; k++)
        if (eng->ev_force[k])
            scl_event_release(eng->ev_force[k]);
    for (int k = 0; k < eng->nev_read; k++)
        if (eng->ev_read[k])
            scl_event_release(eng->ev_read[k]);
    free(eng->ev_force);
    free(eng->ev_read);
    eng->ev_force = eng->ev_read = NULL;
    eng->nev_force = eng->nev_read = 0;
}

static void release_step_events(scl_charmm *eng)
{
    for (int k = 0; k < 3; k++)
        if (eng->ev_upload[k]) {
            scl_event_release(eng->ev_upload[k]);
            eng->ev_upload[k] = NULL;
        }
    release_force_events(eng);
}

void scl_charmm_free(scl_charmm *eng)
{
    if (!eng)
        return;
    if (eng->pending)
        scl_finish(eng->ctx); /* host buffers are targets of reads in flight */
    release_step_events(eng);
    scl_plan_free(eng->plan);
    free(eng->plan_users);
    charmm_nlist_free(&eng->nlist);
    charmm_kinds_release(&eng->forces);
    charmm_forces_free(&eng->forces);
    scl_stream *all[] = {eng->pos,   eng->pos_lo, eng->force, eng->partials, eng->eatom,
                         eng->vatom, eng->error,  eng->xq_dev};
    scl_streams_free(all, sizeof all / sizeof all[0]);
    scl_kernel_free(eng->pack);
    for (int k = 0; k < STAGE_COUNT; k++)
        charmm_stage_free(&eng->stage[k]);
    free(eng->partials_host);
    free(eng->eatom_host);
    free(eng->vatom_host);
    charmm_coeffs_free(&eng->coeffs);
    charmm_ghosts_free(&eng->ghosts);
    free(eng);
}

/* Grow a host buffer (never shrinks). */
static int host_reserve(void **buf, size_t *have, size_t bytes)
{
    if (*buf && *have >= bytes)
        return 0;
    void *n = realloc(*buf, bytes ? bytes : 1);
    if (!n)
        return -1;
    *buf = n;
    *have = bytes;
    return 0;
}

/* Staging buffer slot (STAGE_*) of at least bytes, host-mapped and kept
 * mapped; transfers to and from the device streams use the mapped pointer. */
static scl_status stage_reserve(scl_charmm *eng, int slot, size_t bytes, void **ptr)
{
    return charmm_stage_reserve(eng->ctx, &eng->stage[slot], bytes, ptr);
}

/* The engine's per-step device streams for natoms/nlocal atoms. */
static scl_status reserve_streams(scl_charmm *eng, int natoms, int nlocal)
{
    scl_context *ctx = eng->ctx;
    const charmm_forces *fk = &eng->forces;
    scl_type pos_t = eng->params.precision == SCL_PREC_DOUBLE ? SCL_DOUBLE4 : SCL_INT4;
    size_t na = (size_t)natoms + 1, nli = (size_t)(nlocal > 0 ? nlocal : 1);
    scl_status s = charmm_stream_reserve(ctx, &eng->pos, "charmm positions", pos_t, na, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &eng->pos_lo, "charmm position residuals", SCL_FLOAT4,
                                  eng->params.precision == SCL_PREC_MIXED ? na : 1, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &eng->force, "charmm forces", fk->out_type,
                                  4 * (nli + (size_t)eng->hook_rows), 0);
    /* bound by every launch: one element until a tallying step sizes them */
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &eng->partials, "charmm energy partials",
                                  fk->partial_type, 1, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &eng->eatom, "charmm per-atom energy", fk->out_type, 1, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &eng->vatom, "charmm per-atom virial", fk->out_type, 1, 0);
    if (s == SCL_OK && eng->dev_pack) /* inputs of the pack kernel (src/pair/list/charmm_pack.cl) */
        s = charmm_stream_reserve(ctx, &eng->xq_dev, "charmm caller positions and charges",
                                  SCL_DOUBLE, 4 * na, 0);
    return s;
}

scl_status scl_charmm_set_atoms(scl_charmm *eng, int nlocal, int nghost, const double *x,
                                const int *type, const int64_t *tag, const int *nspecial,
                                const int64_t *special, int maxspecial)
{
    const scl_charmm_atoms a = {.nlocal = nlocal,
                                .nghost = nghost,
                                .x = x,
                                .type = type,
                                .type_base = 0,
                                .tag_bytes = 8,
                                .tag = tag,
                                .nspecial = nspecial,
                                .special = special,
                                .maxspecial = maxspecial};
    return scl_charmm_set_atoms_from(eng, &a);
}

scl_status scl_charmm_set_atoms_from(scl_charmm *eng, const scl_charmm_atoms *a)
{
    static const char *fn = "scl_charmm_set_atoms";
    if (!eng)
        return SCL_ERR_ARGUMENT;
    scl_context *ctx = eng->ctx;
    if (!a)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "atoms is NULL");
    if (eng->pending)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "a step is in flight: call finish first");
    eng->xq_natoms = 0; /* xq_dev may be reallocated; the next compute fills it */
    charmm_ghosts_forget(&eng->ghosts); /* until enabled for the new set */
    int nlocal = a->nlocal, nghost = a->nghost;
    if (nlocal < 0 || nghost < 0 || (long)nlocal + nghost >= CHARMM_INDEX_MASK ||
        (a->nspecial && a->maxspecial < 0))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                        "invalid counts nlocal %d, nghost %d, maxspecial %d", nlocal, nghost,
                        a->maxspecial);
    double t0 = wall_now();
    scl_status s = reserve_streams(eng, nlocal + nghost, nlocal);
    eng->nlist.extra_bytes = charmm_engine_device_bytes(eng);
    /* the plan's chunk count once there is one */
    int nchunks = eng->plan ? eng->nlist.nchunks
                            : eng->params.chunks > 0 ? eng->params.chunks : 1;
    if (s == SCL_OK)
        s = charmm_nlist_set_atoms(&eng->nlist, a, nchunks, fn);
    eng->have_prev = 0; /* pos holds another atom set */
    eng->disp_known = 0;
    if (s == SCL_OK)
        eng->stats.t_neighbor += wall_now() - t0;
    return s;
}

scl_status scl_charmm_set_box(scl_charmm *eng, const double half_box[3])
{
    if (!eng)
        return SCL_ERR_ARGUMENT;
    for (int d = 0; d < 3; d++)
        if (!half_box || !isfinite(half_box[d]) || half_box[d] < 0.0)
            return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, "scl_charmm_set_box",
                            "half box lengths must be finite and >= 0 (0: not periodic)");
    memcpy(eng->nlist.half_box, half_box, sizeof eng->nlist.half_box);
    return SCL_OK;
}

/* The lagged pruning decision of device packing. The pack kernel of step k
 * measures D_k, the largest displacement since the last prune, and S_k, the
 * largest one-step displacement; they come back with the error flags, so
 * step k+1 decides from D_k before its own positions are packed: it prunes
 * when D_k + 2 S reaches the allowed inner_skin/2, S = max(S_k, S/2 of the
 * step before): it keeps the lists only when no atom can cross the limit
 * without moving twice as far in one step as the fastest did lately (MD
 * steps change slowly; one outlier's S fades within a few steps). The decision
 * stays exact: the pack kernel of step k+1 still compares every atom's
 * displacement with the allowed one (as charmm_nlist_prune_check does on the
 * host) and flags the step when the lists were stale; scl_charmm_finish then
 * prunes and recomputes that step before it returns anything (prune_redos).
 * So the inner lists are never used for positions more than inner_skin/2
 * from those of their prune; the margin only keeps the redo rare. */
static void prune_decide(scl_charmm *eng)
{
    charmm_nlist *nl = &eng->nlist;
    if (!nl->prune || !nl->prune_valid)
        return;
    double allowed = 0.5 * (nl->inner_skin - 1e-3);
    if (!eng->disp_known || eng->disp_prune + 2.0 * eng->step_max >= allowed)
        nl->prune_valid = 0;
}

/* Host packing of the step's positions into the pinned staging buffers. */
static scl_status host_pack(scl_charmm *eng, const double *x, const double *q, int residuals,
                            const char *fn)
{
    const charmm_nlist *nl = &eng->nlist;
    size_t n = (size_t)nl->natoms + 1;
    int dbl = nl->pos_double;
    void *pos, *lo = NULL;
    scl_status s = stage_reserve(eng, STAGE_POS, n * (dbl ? 32 : 16), &pos);
    if (s == SCL_OK && residuals && !dbl)
        s = stage_reserve(eng, STAGE_LO, n * 16, &lo);
    if (s != SCL_OK)
        return s;
    long o = charmm_pack_positions(nl, x, q, pos, lo);
    if (o >= 0)
        return scl_fail(eng->ctx, SCL_ERR_INPUT, fn,
                        "atom %ld has a non-finite coordinate or charge, or moved more than %g "
                        "Angstrom from the box of the last scl_charmm_set_atoms (%g, %g, %g; q %g)",
                        o, charmm_pack_limit(nl), x[3 * o], x[3 * o + 1], x[3 * o + 2], q[o]);
    s = scl_stream_write_range(eng->pos, 0, n, pos, 0, &eng->ev_upload[0]);
    if (s == SCL_OK && lo)
        s = scl_stream_write_range(eng->pos_lo, 0, n, lo, 0, &eng->ev_upload[1]);
    return s;
}

/* Queue the upload of the caller's x and q and the pack kernel. */
static scl_status device_pack(scl_charmm *eng, const double *x, const double *q, int residuals)
{
    charmm_nlist *nl = &eng->nlist;
    size_t n = (size_t)nl->natoms;
    const double *xs = x, *qs = q;
    scl_status s = SCL_OK;
    /* between two atom sets, where enabled: the owned rows only, the ghost
     * rows gathered on the device (charmm_ghosts.c) */
    const int gathered = charmm_ghosts_active(eng);
    if (gathered)
        s = charmm_ghosts_upload(eng, x, q);
    if (!gathered && !eng->direct_inputs) { /* the caller may change x and q once compute returns */
        void *xq;
        s = stage_reserve(eng, STAGE_XQ, 4 * n * sizeof(double) + 8, &xq);
        if (s != SCL_OK)
            return s;
        xs = xq, qs = (const double *)xq + 3 * n;
        const charmm_copy c[2] = {{xq, x, 3 * n * sizeof(double)},
                                  {(double *)xq + 3 * n, q, n * sizeof(double)}};
        charmm_copy_parallel(c, 2, eng->host_threads);
    }
    eng->packed_x = xs, eng->packed_q = qs;
    /* x then q in one stream: one write from the staging */
    if (!gathered && n > 0 && !eng->direct_inputs)
        s = scl_stream_write_range(eng->xq_dev, 0, 4 * n, xs, 0, &eng->ev_upload[0]);
    if (!gathered && n > 0 && eng->direct_inputs) {
        s = scl_stream_write_range(eng->xq_dev, 0, 3 * n, xs, 0, &eng->ev_upload[0]);
        if (s == SCL_OK)
            s = scl_stream_write_range(eng->xq_dev, 3 * n, n, qs, 0, &eng->ev_upload[1]);
    }
    if (!gathered && s == SCL_OK)
        s = charmm_ghosts_uploaded_all(eng, q);
    if (gathered)
        eng->packed_x = x, eng->packed_q = q; /* (messages only: the staging holds the owned rows) */
    if (s != SCL_OK)
        return s;
    double allowed = 0.5 * (nl->inner_skin - 1e-3);
    int check = nl->prune && nl->prune_valid && nl->pos_prune_dev != NULL;
    eng->check_now = check;
    eng->stat_base = 4 - eng->stat_base; /* the flags the last step's kernel zeroed */
    eng->stat_clean = 0;
    scl_kernel *k = eng->pack;
    const scl_arg_stream streams[] = {
        {"x", eng->xq_dev},    {"q", eng->xq_dev},    {"order", nl->order_dev},
        {"pos", eng->pos},     {"lo", eng->pos_lo},   {"stat_all", eng->error},
        {"pos_prune", nl->pos_prune_dev ? nl->pos_prune_dev : eng->pos}};
    const scl_arg_int ints[] = {{"n", nl->natoms},
                                   {"has_q", 1},
                                   {"q_first", 3 * nl->natoms},
                                   {"residuals", residuals},
                                   {"check", check},
                                   {"have_prev", eng->have_prev},
                                   {"stat_base", eng->stat_base},
                                   {"clear", 1}};
    const struct {
        const char *name;
        double v;
    } reals[] = {{"ox", nl->origin[0]},
                 {"oy", nl->origin[1]},
                 {"oz", nl->origin[2]},
                 {"unit", nl->unit},
                 {"inv_unit", 1.0 / nl->unit},
                 {"limit", charmm_pack_limit(nl)},
                 {"allowed2", allowed * allowed},
                 {"unit2", nl->pos_double ? 1.0 : nl->unit * nl->unit}};
    s = scl_kernel_bind(k, streams, sizeof streams / sizeof streams[0], ints,
                    sizeof ints / sizeof ints[0]);
    for (size_t a = 0; a < sizeof reals / sizeof reals[0] && s == SCL_OK; a++)
        s = scl_kernel_set_double(k, reals[a].name, reals[a].v);
    size_t local = 64, global = (n + 1 + local - 1) / local * local;
    if (s == SCL_OK)
        s = scl_kernel_launch(k, 1, &global, &local, &eng->ev_upload[2]);
    if (s == SCL_OK)
        eng->have_prev = 1;
    /* it zeroed the other pack flags (and the force flags) for the next step */
    eng->stat_clean = s == SCL_OK;
    return s;
}

/* Clear the error stream without blocking (the kernels write it only to
 * report). */
static scl_status clear_errors(scl_charmm *eng)
{
    int zero = 0;
    eng->stat_clean = 1;
    return scl_stream_fill_range(eng->error, 0, 12, &zero, NULL);
}

/* The step's flags as error_host (force kernels', then its pack kernel's). */
static void take_errors(scl_charmm *eng)
{
    memcpy(eng->error_host, eng->error_raw, 4 * sizeof eng->error_host[0]);
    memcpy(eng->error_host + 4, eng->error_raw + 4 + eng->stat_base,
           4 * sizeof eng->error_host[0]);
}

/* The step's streams as the force kinds see them (the tuner's steps too). */
static void bind_io(scl_charmm *eng)
{
    charmm_step_io *io = &eng->io;
    io->pos = eng->pos, io->pos_lo = eng->pos_lo, io->force = eng->force;
    io->partials = eng->partials, io->eatom = eng->eatom, io->vatom = eng->vatom;
    io->error = eng->error;
}

/* Extra force rows the hook may write this step: what the force stream
 * holds beyond the owned atoms (hook_rows as of the last set_atoms). */
static int hook_room(const scl_charmm *eng)
{
    if (!eng->step_hooked || !eng->hook || !eng->force)
        return 0;
    size_t rows = scl_stream_count(eng->force) / 4, nloc = (size_t)eng->nlist.nlocal;
    return rows > nloc ? (int)(rows - nloc) : 0;
}

/* The hook's work on the step's forces, then their one read-back. */
static scl_status hooked_read(scl_charmm *eng, const char *fn)
{
    size_t nloc = (size_t)eng->nlist.nlocal;
    int room = hook_room(eng);
    /* a hook removed since compute: the plain read-back; a hook that fails
     * has said why through scl_fail (its status: the argument class) */
    int used = eng->hook ? eng->hook(eng->hook_user, eng->force, eng->forces.out_type, (int)nloc, room)
                         : 0;
    if (used < 0 || used > room)
        return used < 0 ? SCL_ERR_ARGUMENT
                        : scl_fail(eng->ctx, SCL_ERR_ARGUMENT, fn,
                                   "the force hook wrote %d extra rows of %d", used, room);
    eng->extra_used = used;
    if (nloc + (size_t)used == 0)
        return SCL_OK;
    return scl_stream_read_range(eng->force, 0, 4 * (nloc + (size_t)used),
                                 eng->stage[STAGE_FORCE].ptr, 0, &eng->ev_read[eng->nev_read++]);
}

/* Enqueue the force kernels (and a prune where due) and the read-backs of
 * the step. */
static scl_status enqueue_step(scl_charmm *eng, const char *fn)
{
    scl_context *ctx = eng->ctx;
    charmm_nlist *nl = &eng->nlist;
    const charmm_forces *fk = &eng->forces;
    charmm_step_io *io = &eng->io;
    eng->nev_force = nl->nchunks + CHARMM_FORCE_EXTRA_EVENTS;
    eng->ev_force = calloc((size_t)eng->nev_force, sizeof *eng->ev_force);
    eng->ev_read = calloc((size_t)nl->nchunks + 4, sizeof *eng->ev_read);
    if (!eng->ev_force || !eng->ev_read)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    size_t nloc = (size_t)nl->nlocal, os = scl_type_size(fk->out_type);
    size_t ps = scl_type_size(fk->partial_type) * (size_t)fk->partial_width;
    int groups = fk->kind->groups(fk, nl);
    eng->total_groups = groups;
    scl_status s = SCL_OK;
    if (io->tally)
        s = charmm_stream_reserve(ctx, &eng->partials, "charmm energy partials",
                                  fk->partial_type,
                                  8 * (size_t)fk->partial_width * (size_t)(groups > 0 ? groups : 1),
                                  0);
    if (s == SCL_OK && io->per_atom)
        s = charmm_stream_reserve(ctx, &eng->eatom, "charmm per-atom energy", fk->out_type,
                                  nloc, 0);
    if (s == SCL_OK && io->per_atom)
        s = charmm_stream_reserve(ctx, &eng->vatom, "charmm per-atom virial", fk->out_type,
                                  6 * nloc, 0);
    bind_io(eng);
    eng->record_events = 1;
    if (s == SCL_OK)
        s = charmm_plan_forces(eng);
    eng->record_events = 0;
    void *force_host = NULL;
    if (s == SCL_OK)
        s = stage_reserve(eng, STAGE_FORCE, (4 * (nloc + hook_room(eng)) + 4) * os, &force_host);
    if (s == SCL_OK &&
        ((io->tally && host_reserve(&eng->partials_host, &eng->host_bytes[0],
                                    (8 * (size_t)groups + 8) * ps) != 0) ||
         (io->per_atom &&
          (host_reserve(&eng->eatom_host, &eng->host_bytes[1], (nloc + 1) * os) != 0 ||
           host_reserve(&eng->vatom_host, &eng->host_bytes[2], (6 * nloc + 1) * os) != 0))))
        s = scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    /* forces are in the caller's order: one read-back behind the last chunk
     * (with a hook, finish queues it behind the hook's work) */
    if (s == SCL_OK && nloc > 0 && !eng->step_hooked)
        s = scl_stream_read_range(eng->force, 0, 4 * nloc, force_host, 0,
                                  &eng->ev_read[eng->nev_read++]);
    if (s == SCL_OK && io->tally && groups > 0)
        s = scl_stream_read_range(eng->partials, 0, 8 * (size_t)fk->partial_width * (size_t)groups,
                                  eng->partials_host, 0, &eng->ev_read[eng->nev_read++]);
    if (s == SCL_OK && io->per_atom && nloc > 0)
        s = scl_stream_read_range(eng->eatom, 0, nloc, eng->eatom_host, 0,
                                  &eng->ev_read[eng->nev_read++]);
    if (s == SCL_OK && io->per_atom && nloc > 0)
        s = scl_stream_read_range(eng->vatom, 0, 6 * nloc, eng->vatom_host, 0,
                                  &eng->ev_read[eng->nev_read++]);
    if (s == SCL_OK)
        s = scl_stream_read(eng->error, eng->error_raw, 0, &eng->ev_read[eng->nev_read++]);
    return s;
}

scl_status scl_charmm_compute(scl_charmm *eng, const double *x, const double *q, int eflag,
                              int vflag, int eatom, int vatom)
{
    static const char *fn = "scl_charmm_compute";
    if (!eng)
        return SCL_ERR_ARGUMENT;
    scl_context *ctx = eng->ctx;
    charmm_nlist *nl = &eng->nlist;
    if (eng->pending)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "the previous step was not finished");
    if (!nl->have_atoms)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "no atoms: call scl_charmm_set_atoms first");
    if (nl->natoms > 0 && (!x || !q))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "positions or charges are NULL");
    int tally = eflag || vflag || eatom || vatom;
    /* residuals only where the kernel reads them: double pair math of mixed */
    int residuals = eng->params.precision == SCL_PREC_MIXED &&
                    charmm_forces_pair_double(&eng->forces, tally);
    release_step_events(eng);
    eng->pruned_now = eng->check_now = 0;
    eng->hook = eng->hook_next, eng->hook_user = eng->hook_user_next;
    eng->step_hooked = eng->hook != NULL;
    eng->extra_used = 0;
    scl_status s = SCL_OK;
    if (!eng->dev_pack) {
        s = host_pack(eng, x, q, residuals, fn);
        if (s == SCL_OK)
            charmm_nlist_prune_check(nl, eng->stage[STAGE_POS].ptr);
    }
    /* the pack kernel zeroes the flags of the step after it: a fill only
     * where none runs, or the last one did not */
    if (s == SCL_OK && (!eng->dev_pack || !eng->stat_clean))
        s = clear_errors(eng);
    eng->xq_natoms = 0; /* valid again once this step is queued */
    if (s == SCL_OK && eng->dev_pack) {
        prune_decide(eng);
        eng->disp_known = 0; /* until this step is finished */
        s = device_pack(eng, x, q, residuals);
    }
    eng->io.tally = 0, eng->io.per_atom = 0; /* what the tuner times */
    bind_io(eng);
    int rebuilt;
    if (s == SCL_OK && !eng->plan) /* the tuner times complete lists */
        s = charmm_nlist_settle(nl, &rebuilt, fn);
    if (s == SCL_OK && !eng->plan)
        s = charmm_plan(eng);
    eng->io.tally = tally;
    eng->io.per_atom = eatom || vatom;
    if (s == SCL_OK)
        s = enqueue_step(eng, fn);
    /* the device starts now, while the caller does its own work (bonds, kspace) */
    if (s == SCL_OK && nl->nlocal > 0)
        s = scl_flush(ctx);
    if (s != SCL_OK) {
        scl_finish(ctx);
        return s;
    }
    eng->pending = 1;
    eng->xq_natoms = eng->dev_pack && eng->xq_dev ? nl->natoms : 0;
    return SCL_OK;
}

static double event_sum(scl_charmm *eng, scl_event *ev, int n)
{
    double total = 0;
    for (int k = 0; k < n; k++) {
        double t = 0;
        if (ev[k] && scl_event_seconds(eng->ctx, ev[k], &t) == SCL_OK)
            total += t;
    }
    return total;
}

/* One accumulator value as double. */
static double out_value(const charmm_forces *fk, const void *buf, size_t k)
{
    return fk->out_type == SCL_DOUBLE ? ((const double *)buf)[k]
                                      : (double)((const float *)buf)[k];
}

/* f += the device forces, which are in the caller's order already. */
static void add_forces(const scl_charmm *eng, double *f)
{
    const long n = eng->nlist.nlocal;
    const void *src = eng->stage[STAGE_FORCE].ptr;
    /* one thread per 8192 atoms, at most host_threads (0: OpenMP's default) */
    int threads = (int)(n / 8192) > 0 ? (int)(n / 8192) : 1;
    if (eng->host_threads > 0 && threads > eng->host_threads)
        threads = eng->host_threads;
#ifdef _OPENMP
    if (eng->host_threads <= 0 && threads > omp_get_max_threads())
        threads = omp_get_max_threads();
#endif
    if (eng->forces.out_type == SCL_DOUBLE) {
        const double *v = src;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
        for (long i = 0; i < n; i++)
            for (int d = 0; d < 3; d++)
                f[3 * i + d] += v[4 * i + d];
    } else {
        const float *v = src;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
        for (long i = 0; i < n; i++)
            for (int d = 0; d < 3; d++)
                f[3 * i + d] += (double)v[4 * i + d];
    }
}

/* Energy and virial sums of the step's work-group partials (halved: full
 * lists see every pair twice). Double precision sums (integer, fraction)
 * pairs as integers: the same bits for any launch plan. */
static void reduce_partials(const scl_charmm *eng, scl_charmm_result *result)
{
    const charmm_forces *fk = &eng->forces;
    double sums[8] = {0};
    if (fk->partial_type == SCL_LONG) {
        const int64_t *p = eng->partials_host;
        int64_t whole[8] = {0}, frac[8] = {0};
        for (int g = 0; g < eng->total_groups; g++)
            for (int k = 0; k < 8; k++) {
                size_t at = 2 * (8 * (size_t)g + (size_t)k);
                whole[k] += p[at];
                frac[k] += p[at + 1];
                whole[k] += frac[k] >> 32; /* keep the fraction below 2^32 */
                frac[k] &= 0xffffffffLL;
            }
        for (int k = 0; k < 8; k++)
            sums[k] = (double)whole[k] + (double)frac[k] * FIXED_UNIT;
    } else {
        for (int g = 0; g < eng->total_groups; g++)
            for (int k = 0; k < 8; k++)
                sums[k] += out_value(fk, eng->partials_host, 8 * (size_t)g + (size_t)k);
    }
    result->evdwl = 0.5 * sums[0];
    result->ecoul = 0.5 * sums[1];
    for (int k = 0; k < 6; k++)
        result->virial[k] = 0.5 * sums[2 + k];
}

/* Recompute the step: the lagged pruning decision kept lists that some atom
 * had outgrown (see prune_decide), or the list build overflowed (lists
 * regrown by charmm_nlist_settle). Prune anew; the pack kernel's flags are
 * kept. */
static scl_status redo_step(scl_charmm *eng, const char *fn)
{
    int keep[8];
    memcpy(keep, eng->error_host, sizeof keep);
    release_force_events(eng);
    eng->nlist.prune_valid = 0;
    eng->prune_redos++;
    scl_status s = clear_errors(eng);
    if (s == SCL_OK)
        s = enqueue_step(eng, fn);
    if (s == SCL_OK && eng->step_hooked)
        s = hooked_read(eng, fn);
    scl_status w = scl_finish(eng->ctx);
    if (s != SCL_OK)
        return s;
    if (w != SCL_OK)
        return w;
    take_errors(eng);
    eng->pruned_now = 1;
    memcpy(keep, eng->error_host, 4 * sizeof keep[0]);
    memcpy(eng->error_host, keep, sizeof keep);
    return SCL_OK;
}

scl_status scl_charmm_finish(scl_charmm *eng, double *f, scl_charmm_result *result,
                             double *eatom_out, double *vatom_out)
{
    static const char *fn = "scl_charmm_finish";
    if (!eng)
        return SCL_ERR_ARGUMENT;
    scl_context *ctx = eng->ctx;
    charmm_nlist *nl = &eng->nlist;
    if (!eng->pending)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "no step in flight: call compute first");
    eng->pending = 0;
    eng->extra_used = 0;
    scl_status s = eng->step_hooked ? hooked_read(eng, fn) : SCL_OK;
    scl_status w = scl_finish(ctx);
    if (s == SCL_OK)
        s = w;
    if (s != SCL_OK)
        return s;
    take_errors(eng);
    if (eng->error_host[4] > 0) { /* from the pack kernel: the coordinates as uploaded */
        long o = 2147483647L - eng->error_host[4];
        const double *xs = eng->packed_x, *qs = eng->packed_q;
        eng->disp_known = 0;
        eng->have_prev = 0; /* the bad atom's slot was not written */
        return scl_fail(ctx, SCL_ERR_INPUT, fn,
                        "atom %ld has a non-finite coordinate or charge, or moved more than %g "
                        "Angstrom from the box of the last scl_charmm_set_atoms (%g, %g, %g; q %g)",
                        o, charmm_pack_limit(nl), xs[3 * o], xs[3 * o + 1], xs[3 * o + 2], qs[o]);
    }
    int rebuilt = 0;
    if ((s = charmm_nlist_tags_settle(nl, fn)) != SCL_OK)
        return s;
    if ((s = charmm_nlist_settle(nl, &rebuilt, fn)) != SCL_OK)
        return s;
    if ((rebuilt || (eng->dev_pack && eng->error_host[7])) && (s = redo_step(eng, fn)) != SCL_OK)
        return s;
    if (eng->dev_pack) { /* what the next step's pruning decision starts from */
        float d2p, d2s;
        memcpy(&d2p, &eng->error_host[5], sizeof d2p);
        memcpy(&d2s, &eng->error_host[6], sizeof d2s);
        /* the last step's, or half the one before (an outlier fades fast) */
        double step = sqrt((double)d2s);
        eng->step_max = step > 0.5 * eng->step_max ? step : 0.5 * eng->step_max;
        eng->disp_prune = eng->pruned_now ? 0.0 : sqrt((double)d2p);
        eng->disp_known = eng->pruned_now || eng->check_now;
    }
    eng->stats.steps++;
    eng->stats.t_upload += event_sum(eng, eng->ev_upload, 3);
    eng->stats.t_force += event_sum(eng, eng->ev_force, eng->nev_force);
    eng->stats.t_download += event_sum(eng, eng->ev_read, eng->nev_read);
    if (eng->error_host[0]) {
        int oi = charmm_nlist_caller_of_slot(nl, eng->error_host[1]);
        int oj = charmm_nlist_caller_of(nl, eng->error_host[2]);
        /* name the atoms as the caller does: by their IDs (LAMMPS tags) when given */
        char who[160];
        long long ti = oi + 1, tj = oj + 1;
        if (nl->has_tag && oi >= 0 && oj >= 0 &&
            scl_stream_read_range(nl->tag_raw, (size_t)oi, 1, &ti, 1, NULL) == SCL_OK &&
            scl_stream_read_range(nl->tag_raw, (size_t)oj, 1, &tj, 1, NULL) == SCL_OK)
            snprintf(who, sizeof who, "atoms with IDs %lld and %lld (local indices %d, %d)", ti,
                     tj, oi, oj);
        else
            snprintf(who, sizeof who, "atoms %d and %d (0-based indices)", oi, oj);
        if (eng->error_host[0] == 1)
            return scl_fail(ctx, SCL_ERR_INPUT, fn, "%s overlap (closer than %g Angstrom)", who,
                            CHARMM_MIN_R);
        return scl_fail(ctx, SCL_ERR_INPUT, fn, "the force between %s is not finite or beyond 1e15",
                        who);
    }
    if (nl->nlocal > 0 && !f)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "force array is NULL");
    double t0 = wall_now();
    add_forces(eng, f);
    if (result) {
        memset(result, 0, sizeof *result);
        if (eng->io.tally)
            reduce_partials(eng, result);
    }
    if (eng->io.per_atom)
        for (int i = 0; i < nl->nlocal; i++) {
            if (eatom_out)
                eatom_out[i] += 0.5 * out_value(&eng->forces, eng->eatom_host, (size_t)i);
            if (vatom_out)
                for (int k = 0; k < 6; k++)
                    vatom_out[6 * i + k] +=
                        0.5 * out_value(&eng->forces, eng->vatom_host, 6 * (size_t)i + (size_t)k);
        }
    eng->stats.t_host_reduce += wall_now() - t0;
    return SCL_OK;
}

scl_status scl_charmm_set_force_hook(scl_charmm *eng, scl_charmm_force_hook hook, void *user,
                                     int extra_rows)
{
    if (!eng)
        return SCL_ERR_ARGUMENT;
    if (extra_rows < 0)
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, "scl_charmm_set_force_hook", "extra_rows < 0");
    eng->hook_next = hook;
    eng->hook_user_next = user;
    eng->hook_rows = hook ? extra_rows : 0;
    /* removing it also detaches it from the step in flight (its owner goes
     * away): finish then reads the forces back alone */
    if (!hook)
        eng->hook = NULL, eng->hook_user = NULL;
    return SCL_OK;
}

scl_type scl_charmm_force_type(const scl_charmm *eng)
{
    return eng ? eng->forces.out_type : SCL_DOUBLE;
}

int scl_charmm_hook_rows(const scl_charmm *eng, scl_charmm_force_hook hook, const void *user)
{
    if (!eng || !eng->pending || !eng->step_hooked || eng->hook != hook || eng->hook_user != user)
        return -1;
    return hook_room(eng);
}

const void *scl_charmm_extra_forces(const scl_charmm *eng, int *rows, scl_type *type)
{
    const int n = eng && eng->extra_used > 0 ? eng->extra_used : 0;
    if (rows)
        *rows = n;
    if (type && eng)
        *type = eng->forces.out_type;
    if (!n)
        return NULL;
    const size_t os = scl_type_size(eng->forces.out_type);
    return (const char *)eng->stage[STAGE_FORCE].ptr + 4 * (size_t)eng->nlist.nlocal * os;
}

const scl_stream *scl_charmm_positions(const scl_charmm *eng, int *natoms)
{
    const int ok = eng && eng->pending && eng->dev_pack && eng->xq_dev;
    if (natoms)
        *natoms = ok ? eng->nlist.natoms : 0;
    return ok ? eng->xq_dev : NULL;
}

const scl_stream *scl_charmm_last_positions(const scl_charmm *eng, int *natoms)
{
    const int ok = eng && eng->xq_natoms > 0 && eng->dev_pack && eng->xq_dev;
    if (natoms)
        *natoms = ok ? eng->xq_natoms : 0;
    return ok ? eng->xq_dev : NULL;
}

/* Rows of the device positions (x of the last compute), for a caller that
 * reads them back (e.g. a test of the ghost gather). */
scl_status scl_charmm_read_positions(scl_charmm *eng, int first, int count, double *out)
{
    static const char *fn = "scl_charmm_read_positions";
    if (!eng)
        return SCL_ERR_ARGUMENT;
    int natoms = 0;
    const int have = scl_charmm_last_positions(eng, &natoms) != NULL;
    if (!have || first < 0 || count < 0 || (long)first + count > natoms || (count > 0 && !out))
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, fn,
                        "rows %d..%d are not in the device positions (%d rows)", first,
                        first + count, natoms);
    if (count == 0)
        return SCL_OK;
    if (eng->pending) {
        scl_status w = scl_finish(eng->ctx);
        if (w != SCL_OK)
            return w;
    }
    return scl_stream_read_range(eng->xq_dev, 3 * (size_t)first, 3 * (size_t)count, out, 1,
                                 NULL);
}

scl_status scl_charmm_stats_get(scl_charmm *eng, scl_charmm_stats *stats)
{
    if (!eng || !stats)
        return eng ? scl_fail(eng->ctx, SCL_ERR_ARGUMENT, "scl_charmm_stats_get",
                              "stats is NULL")
                   : SCL_ERR_ARGUMENT;
    charmm_nlist *nl = &eng->nlist;
    *stats = eng->stats;
    stats->neighbors = 0;
    stats->list_capacity = nl->capacity;
    stats->threads_per_atom = eng->forces.tpa;
    stats->chunks = nl->nchunks;
    stats->work_group = eng->forces.wg;
    stats->prunes = nl->prunes;
    stats->rebuilds = nl->rebuilds;
    stats->inner_neighbors = 0;
    stats->t_set_atoms_host = nl->t_host;
    stats->t_set_atoms_cpu = nl->t_cpu;
    snprintf(stats->kernel, sizeof stats->kernel, "%s",
             eng->forces.kind ? eng->forces.kind->name : "");
    charmm_cpu_describe(&eng->forces, &stats->lists, &stats->launches, &stats->colours,
                        &stats->blocks);
    /* read only when asked and no step is in flight (it would wait for it) */
    scl_status s = SCL_OK;
    if (!eng->pending && nl->have_atoms)
        s = charmm_nlist_count(&eng->nlist, &stats->neighbors);
    if (s == SCL_OK && !eng->pending && !nl->lists_off)
        s = charmm_nlist_inner_slots(&eng->nlist, &stats->inner_neighbors);
    int iclusters;
    if (!eng->pending)
        charmm_cluster_describe(&eng->forces, &stats->cluster_pairs, &iclusters);
    return s;
}

scl_status scl_charmm_cluster_stats_get(scl_charmm *eng, scl_charmm_cluster_stats *stats)
{
    static const char *fn = "scl_charmm_cluster_stats_get";
    if (!eng || !stats)
        return eng ? scl_fail(eng->ctx, SCL_ERR_ARGUMENT, fn, "stats is NULL") : SCL_ERR_ARGUMENT;
    memset(stats, 0, sizeof *stats);
    if (eng->pending)
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, fn, "a step is in flight");
    if (eng->forces.kind != &charmm_cluster_kind)
        return SCL_OK;
    return charmm_cluster_count(&eng->forces, &eng->nlist, eng->pos, stats);
}

scl_status scl_charmm_check_neighbors(scl_charmm *eng, long *mismatches)
{
    static const char *fn = "scl_charmm_check_neighbors";
    if (!eng || !mismatches)
        return eng ? scl_fail(eng->ctx, SCL_ERR_ARGUMENT, fn, "mismatches is NULL")
                   : SCL_ERR_ARGUMENT;
    if (!eng->nlist.have_atoms || eng->pending)
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, fn, "no atoms set, or a step is in flight");
    if (eng->nlist.lists_off)
        return scl_fail(eng->ctx, SCL_ERR_UNSUPPORTED, fn,
                        "the cluster kernel in use builds no atom lists to check");
    int rebuilt;
    scl_status s = charmm_nlist_settle(&eng->nlist, &rebuilt, fn);
    return s == SCL_OK ? charmm_nlist_check(&eng->nlist, mismatches, fn) : s;
}
