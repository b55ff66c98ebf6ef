/* The charmm pair engine: creation (coefficients, kernels), per-step packing
 * of positions and charges, chunked force launches, and the host finish
 * (un-permuting forces, reducing energy/virial partials in double). */
#include "pair/charmm_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Far from everything: padding slots point here and never pass a cutoff. */
#define SENTINEL_COORD 1.0e7
#define FIXED_UNIT (1.0 / 4294967296.0) /* 2^-32, see cl/charmm.cl */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

scl_type charmm_acc_type(const scl_charmm *eng)
{
    if (eng->params.precision == SCL_PREC_DOUBLE)
        return SCL_LONG;
    if (eng->params.precision == SCL_PREC_MIXED && scl_device(eng->ctx)->fp64)
        return SCL_DOUBLE;
    return SCL_FLOAT;
}

/* One accumulator value as double (fixed point scaled back). */
static double acc_value(const scl_charmm *eng, const void *buf, size_t k)
{
    switch (charmm_acc_type(eng)) {
    case SCL_LONG: return (double)((const int64_t *)buf)[k] * FIXED_UNIT;
    case SCL_DOUBLE: return ((const double *)buf)[k];
    default: return (double)((const float *)buf)[k];
    }
}

static int tpa_index(int tpa)
{
    return tpa == 1 ? 0 : tpa == 2 ? 1 : tpa == 4 ? 2 : tpa == 8 ? 3 : tpa == 16 ? 4 : 5;
}

scl_status charmm_force_kernel(scl_charmm *eng, int tpa, int tally, cl_kernel *out)
{
    int t = tpa_index(tpa);
    if (!eng->force_kernel[t][tally]) {
        char opts[128];
        snprintf(opts, sizeof opts, "-DPREC=%d -DTPA=%d -DTALLY=%d -DTALLY_DOUBLE=%d",
                 (int)eng->params.precision, tpa, tally, eng->params.mixed_tally_double != 0);
        scl_status s = scl_program_build(eng->ctx, "charmm", opts, &eng->force_program[t][tally]);
        if (s == SCL_OK)
            s = scl_legacy_kernel_create(eng->force_program[t][tally], "charmm_force",
                                  &eng->force_kernel[t][tally]);
        if (s != SCL_OK)
            return s;
    }
    *out = eng->force_kernel[t][tally];
    return SCL_OK;
}

/* Float4 and (on fp64 devices) double4 copies of lj1..lj4 per type pair:
 * float pair math reads the first, double pair math the second. */
static scl_status upload_coefficients(scl_charmm *eng)
{
    int n = eng->coeffs.ntypes;
    size_t count = (size_t)n * (size_t)n;
    int fp64 = scl_device(eng->ctx)->fp64;
    scl_status s = scl_stream_create(eng->ctx, "charmm lj coefficients", SCL_FLOAT4, count, 1, 1,
                                     SCL_STREAM_READ_ONLY, &eng->ljc);
    if (s == SCL_OK && fp64)
        s = scl_stream_create(eng->ctx, "charmm lj coefficients (double)", SCL_DOUBLE4, count, 1,
                              1, SCL_STREAM_READ_ONLY, &eng->ljc_double);
    if (s != SCL_OK)
        return s;
    float *hf = malloc(count * 4 * sizeof *hf);
    double *hd = malloc(count * 4 * sizeof *hd);
    if (!hf || !hd) {
        free(hf), free(hd);
        return scl_fail(eng->ctx, SCL_ERR_MEMORY, "scl_charmm_create", "out of host memory");
    }
    for (size_t k = 0; k < count; k++) {
        const charmm_lj *l = &eng->coeffs.lj[k];
        double v[4] = {l->lj1, l->lj2, l->lj3, l->lj4};
        for (int c = 0; c < 4; c++) {
            hd[4 * k + (size_t)c] = v[c];
            hf[4 * k + (size_t)c] = (float)v[c];
        }
    }
    s = scl_stream_write(eng->ljc, hf, 1, NULL);
    if (s == SCL_OK && fp64)
        s = scl_stream_write(eng->ljc_double, hd, 1, NULL);
    free(hf);
    free(hd);
    return s;
}

scl_status scl_charmm_create(scl_context *ctx, const scl_charmm_params *p, scl_charmm **out)
{
    static const char *fn = "scl_charmm_create";
    if (!ctx || !p || !out)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "ctx, params and out must not be NULL");
    *out = NULL;
    char err[512];
    scl_charmm *eng = calloc(1, sizeof *eng);
    if (!eng)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    eng->ctx = ctx;
    scl_status s = charmm_coeffs_init(p, &eng->coeffs, err, sizeof err);
    if (s != SCL_OK) {
        free(eng);
        return scl_fail(ctx, s, fn, "%s", err);
    }
    eng->params = *p;
    eng->params.epsilon = eng->params.sigma = NULL;
    const scl_device_info *dev = scl_device(ctx);
    if (p->precision == SCL_PREC_DOUBLE && !dev->fp64)
        s = scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn,
                     "double precision needs fp64, which %s does not have", dev->name);
    int tpa = p->threads_per_atom;
    if (s == SCL_OK && tpa != 0 && tpa != 1 && tpa != 2 && tpa != 4 && tpa != 8 && tpa != 16 &&
        tpa != 32)
        s = scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                     "threads_per_atom %d is not 1, 2, 4, 8, 16 or 32", tpa);
    if (s == SCL_OK && (p->chunks < 0 || p->work_group < 0 || p->neighbor_capacity < 0 ||
                        (p->work_group & (p->work_group - 1)) != 0))
        s = scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                     "chunks %d, work_group %d (a power of two) or neighbor_capacity %d invalid",
                     p->chunks, p->work_group, p->neighbor_capacity);
    eng->acc_size = scl_type_size(charmm_acc_type(eng));
    eng->device_budget = p->max_device_bytes ? p->max_device_bytes : dev->global_mem / 4 * 3;
    if (s == SCL_OK) {
        char opts[64];
        snprintf(opts, sizeof opts, "-DSCL_POS_DOUBLE=%d", p->precision == SCL_PREC_DOUBLE);
        s = scl_program_build(ctx, "neighbor", opts, &eng->nbr_program);
    }
    if (s == SCL_OK)
        s = scl_legacy_kernel_create(eng->nbr_program, "neighbor_build", &eng->nbr_kernel);
    if (s == SCL_OK)
        s = scl_legacy_kernel_create(eng->nbr_program, "neighbor_prune", &eng->prune_kernel);
    /* pruning pays off once the inner list is clearly shorter: a quarter of
     * the skin keeps ~3/4 of the shell out (12 -> 10.5 A: 2/3 of the slots)
     * and holds for tens of MD steps */
    eng->inner_skin = p->inner_skin < 0.0 ? 0.0 : p->inner_skin > 0.0 ? p->inner_skin
                                                                        : 0.25 * p->skin;
    if (eng->inner_skin >= p->skin)
        eng->inner_skin = 0.0; /* no shorter than the full list */
    if (s == SCL_OK)
        s = upload_coefficients(eng);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "charmm error flag", SCL_INT, 8, 1, 1, 0, &eng->error);
    int zero8[8] = {0};
    if (s == SCL_OK)
        s = scl_stream_write(eng->error, zero8, 1, NULL);
    /* positions are packed on the device where it has fp64 (the caller's
     * doubles go up as they are); else, or with STREAMCL_CHARMM_HOST_PACK
     * set (tests, comparisons), on the host */
    eng->dev_pack = dev->fp64 && !getenv("STREAMCL_CHARMM_HOST_PACK");
    if (s == SCL_OK && eng->dev_pack) {
        char opts[64];
        snprintf(opts, sizeof opts, "-DPOS_DOUBLE=%d", p->precision == SCL_PREC_DOUBLE);
        s = scl_program_build(ctx, "charmm_pack", opts, &eng->pack_program);
        if (s == SCL_OK)
            s = scl_legacy_kernel_create(eng->pack_program, "charmm_pack", &eng->pack_kernel);
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
            clReleaseEvent(eng->ev_force[k]);
    for (int k = 0; k < eng->nev_read; k++)
        if (eng->ev_read[k])
            clReleaseEvent(eng->ev_read[k]);
    free(eng->ev_force);
    free(eng->ev_read);
    eng->ev_force = eng->ev_read = NULL;
    eng->nev_force = eng->nev_read = 0;
}

static void release_step_events(scl_charmm *eng)
{
    for (int k = 0; k < 3; k++)
        if (eng->ev_upload[k]) {
            clReleaseEvent(eng->ev_upload[k]);
            eng->ev_upload[k] = NULL;
        }
    release_force_events(eng);
}

void scl_charmm_free(scl_charmm *eng)
{
    if (!eng)
        return;
    if (eng->pending)
        clFinish(scl_queue(eng->ctx)); /* host buffers are targets of reads in flight */
    release_step_events(eng);
    charmm_atoms_free(eng);
    charmm_rebuild_bufs_free(eng);
    for (int c = 0; c < eng->nchunks; c++) {
        scl_stream_free(eng->chunks[c].nbr);
        scl_stream_free(eng->chunks[c].nbr_in);
    }
    free(eng->chunks);
    free(eng->pos_prune);
    scl_stream *all[] = {eng->pos,      eng->pos_lo,   eng->pos_build, eng->type,
                         eng->tag,      eng->ilist_dev, eng->icell,    eng->cell_start,
                         eng->nspecial, eng->special,  eng->numnbr,    eng->ljc,
                         eng->force,    eng->partials, eng->eatom,     eng->vatom,
                         eng->error,    eng->overflow, eng->shared_nbr, eng->ljc_double,
                         eng->special_range, eng->numnbr_in, eng->nspecial_front};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        scl_stream_free(all[k]);
    for (int t = 0; t < CHARMM_TPA_VARIANTS; t++)
        for (int v = 0; v < 2; v++) {
            if (eng->force_kernel[t][v])
                clReleaseKernel(eng->force_kernel[t][v]);
            scl_program_free(eng->force_program[t][v]);
        }
    if (eng->nbr_kernel)
        clReleaseKernel(eng->nbr_kernel);
    if (eng->prune_kernel)
        clReleaseKernel(eng->prune_kernel);
    scl_program_free(eng->nbr_program);
    if (eng->pack_kernel)
        clReleaseKernel(eng->pack_kernel);
    scl_program_free(eng->pack_program);
    scl_stream_free(eng->x_dev);
    scl_stream_free(eng->q_dev);
    scl_stream_free(eng->order_dev);
    scl_stream_free(eng->pos_prune_dev);
    for (int k = 0; k < 5; k++)
        if (eng->stage[k]) {
            scl_stream_unmap(eng->stage[k], eng->stage_ptr[k]);
            scl_stream_free(eng->stage[k]);
        }
    free(eng->partials_host);
    free(eng->eatom_host);
    free(eng->vatom_host);
    charmm_coeffs_free(&eng->coeffs);
    free(eng);
}

/* Grow a host staging buffer (never shrinks). */
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

/* Staging buffers of the per-step transfers (positions, low parts, forces,
 * the caller's x and q):
 * host-mapped (pinned on discrete GPUs, where copies from pageable memory are
 * several times slower) and kept mapped; transfers to and from the device
 * streams use the mapped pointer. slot indexes stage[] and stage_bytes[]. */
static scl_status stage_reserve(scl_charmm *eng, int slot, void **ptr, size_t bytes)
{
    if (eng->stage[slot] && eng->stage_bytes[slot] >= bytes) {
        *ptr = eng->stage_ptr[slot];
        return SCL_OK;
    }
    if (eng->stage[slot]) {
        scl_stream_unmap(eng->stage[slot], eng->stage_ptr[slot]);
        scl_stream_free(eng->stage[slot]);
        eng->stage[slot] = NULL;
        eng->stage_ptr[slot] = *ptr = NULL;
        eng->stage_bytes[slot] = 0;
    }
    size_t want = bytes + bytes / 16 + 64; /* ghost counts drift between rebuilds */
    scl_status s = scl_stream_create(eng->ctx, "charmm host staging", SCL_UCHAR, want, 1, 1,
                                     SCL_STREAM_HOST_MAPPED, &eng->stage[slot]);
    if (s == SCL_OK)
        s = scl_stream_map(eng->stage[slot], SCL_MAP_READ | SCL_MAP_WRITE, &eng->stage_ptr[slot]);
    if (s != SCL_OK) {
        scl_stream_free(eng->stage[slot]);
        eng->stage[slot] = NULL;
        return s;
    }
    eng->stage_bytes[slot] = want;
    *ptr = eng->stage_ptr[slot];
    return SCL_OK;
}

scl_status charmm_pack(scl_charmm *eng, const double *x, const double *q, int residuals,
                       const char *fn)
{
    size_t n = (size_t)eng->natoms + 1;
    int dbl = eng->params.precision == SCL_PREC_DOUBLE, mixed = residuals && !dbl;
    scl_status st = stage_reserve(eng, 0, &eng->pos_host, n * (dbl ? 32 : 16));
    if (st == SCL_OK && mixed)
        st = stage_reserve(eng, 1, &eng->lo_host, n * 16);
    if (st != SCL_OK)
        return st;
    double *pd = eng->pos_host;
    int32_t *pi = eng->pos_host;
    float *qlo = eng->lo_host;
    const double inv_unit = 1.0 / eng->unit;
    /* wrapped fixed-point coordinates alias beyond half the period: an atom
     * that far from the box of the last set_atoms means the list is stale */
    const double limit = dbl ? INFINITY : 0.5 * eng->period - eng->coeffs.cut_neigh;
    long bad = -1; /* an atom with a non-finite or out-of-range coordinate or charge */
    const long count = (long)n - 1;
#pragma omp parallel for schedule(static) if (count > 20000)
    for (long b = 0; b < count; b++) {
        int o = eng->order[b];
        double v[4] = {x[3 * o] - eng->origin[0], x[3 * o + 1] - eng->origin[1],
                       x[3 * o + 2] - eng->origin[2], q ? q[o] : 0.0};
        if (!(fabs(v[0]) < limit && fabs(v[1]) < limit && fabs(v[2]) < limit) ||
            !isfinite(v[3])) {
#pragma omp critical(charmm_pack_bad)
            bad = o;
            continue;
        }
        if (dbl) {
            memcpy(pd + 4 * b, v, sizeof v);
            continue;
        }
        for (size_t c = 0; c < 3; c++) { /* |v| < period/2: fits int32 after rounding */
            double steps = nearbyint(v[c] * inv_unit);
            pi[4 * b + c] = (int32_t)steps;
            if (mixed)
                qlo[4 * b + c] = (float)(v[c] - steps * eng->unit);
        }
        float qf = (float)v[3];
        memcpy(&pi[4 * b + 3], &qf, sizeof qf);
        if (mixed)
            qlo[4 * b + 3] = (float)(v[3] - (double)qf);
    }
    if (bad >= 0) {
        long o = bad;
        return scl_fail(eng->ctx, SCL_ERR_INPUT, fn,
                        "atom %ld has a non-finite coordinate or charge, or moved more than %g "
                        "Angstrom from the box of the last scl_charmm_set_atoms (%g, %g, %g; q %g)",
                        o, limit, x[3 * o], x[3 * o + 1], x[3 * o + 2], q ? q[o] : 0.0);
    }
    /* the sentinel: half a period from the origin, the farthest point from
     * every atom (modular differences) */
    size_t b = n - 1;
    if (dbl) {
        for (int c = 0; c < 4; c++)
            pd[4 * b + (size_t)c] = c < 3 ? SENTINEL_COORD : 0.0;
    } else {
        for (int c = 0; c < 4; c++)
            pi[4 * b + (size_t)c] = c < 3 ? INT32_MIN : 0; /* q bits 0: +0.0f */
        if (mixed)
            memset(qlo + 4 * b, 0, 4 * sizeof *qlo);
    }
    return SCL_OK;
}

/* Whether the kernel variant does its pair math in double (see cl/charmm.cl). */
static int pair_math_double(const scl_charmm *eng, int tally)
{
    return eng->params.precision == SCL_PREC_DOUBLE ||
           (eng->params.precision == SCL_PREC_MIXED && tally && eng->params.mixed_tally_double &&
            scl_device(eng->ctx)->fp64);
}

/* Set a kernel argument of the pair-math type (float or double). */
static scl_status arg_real(scl_charmm *eng, cl_kernel k, cl_uint idx, int dbl, double v)
{
    if (dbl)
        return scl_arg(eng->ctx, k, idx, sizeof v, &v);
    float f = (float)v;
    return scl_arg(eng->ctx, k, idx, sizeof f, &f);
}

static scl_status arg_real4(scl_charmm *eng, cl_kernel k, cl_uint idx, int dbl,
                            const double v[4])
{
    if (dbl)
        return scl_arg(eng->ctx, k, idx, 4 * sizeof v[0], v);
    cl_float4 f = {{(float)v[0], (float)v[1], (float)v[2], (float)v[3]}};
    return scl_arg(eng->ctx, k, idx, sizeof f, &f);
}

scl_status charmm_enqueue_forces(scl_charmm *eng, int tally, int per_atom, cl_event *events)
{
    scl_context *ctx = eng->ctx;
    cl_kernel k;
    scl_status s = charmm_force_kernel(eng, eng->tpa, tally, &k);
    if (s != SCL_OK)
        return s;
    size_t wg = (size_t)eng->wg;
    size_t kwg = 0;
    if (clGetKernelWorkGroupInfo(k, scl_cl_device(ctx), CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg,
                                 &kwg, NULL) == CL_SUCCESS &&
        wg > kwg)
        return SCL_ERR_UNSUPPORTED;
    if (wg * 8 * eng->acc_size > scl_device(ctx)->local_mem || wg < (size_t)eng->tpa)
        return SCL_ERR_UNSUPPORTED;
    int groups = 0;
    for (int c = 0; c < eng->nchunks; c++) {
        eng->chunks[c].group_base = groups;
        groups += (int)(((size_t)eng->chunks[c].count * (size_t)eng->tpa + wg - 1) / wg);
    }
    eng->total_groups = groups;
    scl_type at = charmm_acc_type(eng);
    size_t nl = (size_t)(eng->nlocal > 0 ? eng->nlocal : 1);
    if (tally)
        s = charmm_stream_reserve(eng, &eng->partials, "charmm energy partials", at,
                                  8 * (size_t)(groups > 0 ? groups : 1), 0);
    if (s == SCL_OK && per_atom)
        s = charmm_stream_reserve(eng, &eng->eatom, "charmm per-atom energy", at, nl, 0);
    if (s == SCL_OK && per_atom)
        s = charmm_stream_reserve(eng, &eng->vatom, "charmm per-atom virial", at, 6 * nl, 0);
    if (s != SCL_OK)
        return s;
    if (eng->prune && !eng->prune_valid)
        s = charmm_enqueue_prune(eng);
    if (s != SCL_OK)
        return s;
    const charmm_coeffs *c = &eng->coeffs;
    cl_mem pos = scl_stream_mem(eng->pos), lo = scl_stream_mem(eng->pos_lo),
           type = scl_stream_mem(eng->type), il = scl_stream_mem(eng->ilist_dev),
           num = scl_stream_mem(eng->prune ? eng->numnbr_in : eng->numnbr),
           nsf = scl_stream_mem(eng->prune ? eng->nspecial_front : eng->numnbr),
           ljc = scl_stream_mem(pair_math_double(eng, tally) ? eng->ljc_double : eng->ljc),
           force = scl_stream_mem(eng->force), err = scl_stream_mem(eng->error);
    /* unused outputs get any valid buffer */
    cl_mem part = tally ? scl_stream_mem(eng->partials) : force;
    cl_mem ea = per_atom ? scl_stream_mem(eng->eatom) : force;
    cl_mem va = per_atom ? scl_stream_mem(eng->vatom) : force;
    int ntypes = c->ntypes;
    double min_r2 = CHARMM_MIN_R * CHARMM_MIN_R;
    int dbl = pair_math_double(eng, tally);
    int sorted = eng->prune; /* inner lists hold their special pairs first */
#define ARG(i, v) \
    if (s == SCL_OK) \
    s = scl_arg(ctx, k, i, sizeof(v), &(v))
    ARG(0, pos);
    ARG(1, lo);
    ARG(2, type);
    ARG(3, il);
    ARG(5, num);
    ARG(6, nsf);
    ARG(7, sorted);
    ARG(8, ljc);
    ARG(9, ntypes);
    double reals[] = {c->cut_forcesq,    c->cut_coulsq, c->cut_ljsq, c->cut_lj_innersq,
                      c->inv_denom_lj,  c->qqrd2e,     c->g_ewald};
    for (cl_uint a = 0; a < 7 && s == SCL_OK; a++)
        s = arg_real(eng, k, 10 + a, dbl, reals[a]);
    if (s == SCL_OK)
        s = arg_real4(eng, k, 17, dbl, c->special_lj);
    if (s == SCL_OK)
        s = arg_real4(eng, k, 18, dbl, c->special_coul);
    if (s == SCL_OK)
        s = arg_real(eng, k, 19, dbl, min_r2);
    if (s == SCL_OK)
        s = arg_real(eng, k, 20, dbl, eng->unit);
    /* exact cutoff tests on fixed-point distances (see cl/charmm.cl); the
     * unit is a power of two, so the quotients are exact */
    cl_ulong cut_units[2] = {0, 0};
    if (eng->params.precision != SCL_PREC_DOUBLE) {
        double u2 = eng->unit * eng->unit;
        cut_units[0] = (cl_ulong)ceil(c->cut_forcesq / u2);
        cut_units[1] = (cl_ulong)ceil(c->cut_coulsq / u2);
    }
    ARG(21, cut_units[0]);
    ARG(22, cut_units[1]);
    ARG(26, per_atom);
    ARG(27, force);
    ARG(28, part);
    ARG(29, ea);
    ARG(30, va);
    ARG(31, err);
    if (s == SCL_OK)
        s = scl_arg(ctx, k, 32, wg * 8 * eng->acc_size, NULL);
    for (int ci = 0; ci < eng->nchunks && s == SCL_OK; ci++) {
        charmm_chunk *ch = &eng->chunks[ci];
        if (events)
            events[ci] = NULL;
        if (ch->count == 0)
            continue;
        scl_stream *nbr = eng->streaming ? eng->shared_nbr : eng->prune ? ch->nbr_in : ch->nbr;
        if (eng->streaming) /* the list of this chunk does not stay resident */
            s = charmm_enqueue_build(eng, ch, nbr, NULL);
        cl_mem nb = scl_stream_mem(nbr);
        ARG(4, nb);
        ARG(23, ch->first);
        ARG(24, ch->count);
        ARG(25, ch->group_base);
        size_t global = (size_t)ch->count * (size_t)eng->tpa;
        if (s == SCL_OK)
            s = scl_launch(ctx, k, tally ? "charmm force+energy" : "charmm force", 1, &global,
                           &wg, events ? &events[ci] : NULL);
    }
#undef ARG
    return s;
}

/* Invalidate the inner lists once some atom has moved inner_skin/2 since the
 * last prune: a pair then may have closed in by inner_skin, from outside the
 * inner list to inside the cutoff. Ghosts move with their atoms. */
static void prune_check(scl_charmm *eng)
{
    if (!eng->prune || !eng->prune_valid)
        return;
    const long n = eng->natoms;
    double max2 = 0;
    if (eng->params.precision == SCL_PREC_DOUBLE) {
        const double *now = eng->pos_host, *then = eng->pos_prune;
#pragma omp parallel for schedule(static) reduction(max : max2) if (n > 20000)
        for (long b = 0; b < n; b++) {
            double d2 = 0;
            for (int c = 0; c < 3; c++)
                d2 += (now[4 * b + c] - then[4 * b + c]) * (now[4 * b + c] - then[4 * b + c]);
            max2 = d2 > max2 ? d2 : max2;
        }
    } else { /* fixed point: the integer differences are exact (modular) */
        const uint32_t *now = eng->pos_host, *then = eng->pos_prune;
#pragma omp parallel for schedule(static) reduction(max : max2) if (n > 20000)
        for (long b = 0; b < n; b++) {
            double d2 = 0;
            for (int c = 0; c < 3; c++) {
                double d = (double)(int32_t)(now[4 * b + c] - then[4 * b + c]);
                d2 += d * d;
            }
            max2 = d2 > max2 ? d2 : max2;
        }
        max2 *= eng->unit * eng->unit;
    }
    /* 1e-3 A to spare: the prune kernel compares float distances */
    double allowed = 0.5 * (eng->inner_skin - 1e-3);
    if (max2 >= allowed * allowed)
        eng->prune_valid = 0;
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
 * displacement with the allowed one (as prune_check does on the host) and
 * flags the step when the lists were stale; scl_charmm_finish then prunes
 * and recomputes that step before it returns anything (prune_redos). So the
 * inner lists are never used for positions more than inner_skin/2 from those
 * of their prune, as before; the margin only keeps the redo rare. */
static void prune_decide(scl_charmm *eng)
{
    if (!eng->prune || !eng->prune_valid)
        return;
    double allowed = 0.5 * (eng->inner_skin - 1e-3);
    if (!eng->disp_known || eng->disp_prune + 2.0 * eng->step_max >= allowed)
        eng->prune_valid = 0;
}

/* Enqueue the upload of the caller's x and q and the pack kernel. */
static scl_status enqueue_device_pack(scl_charmm *eng, const double *x, const double *q,
                                      int residuals)
{
    scl_context *ctx = eng->ctx;
    size_t n = (size_t)eng->natoms;
    int dbl = eng->params.precision == SCL_PREC_DOUBLE;
    scl_status s = stage_reserve(eng, 3, &eng->x_host, 3 * n * sizeof(double) + 8);
    if (s == SCL_OK)
        s = stage_reserve(eng, 4, &eng->q_host, n * sizeof(double) + 8);
    if (s != SCL_OK)
        return s;
    /* plain sequential copies: the caller may change x and q once compute returns */
    if (n > 0) {
        memcpy(eng->x_host, x, 3 * n * sizeof(double));
        memcpy(eng->q_host, q, n * sizeof(double));
        s = scl_stream_write_range(eng->x_dev, 0, 3 * n, eng->x_host, 0, &eng->ev_upload[0]);
        if (s == SCL_OK)
            s = scl_stream_write_range(eng->q_dev, 0, n, eng->q_host, 0, &eng->ev_upload[1]);
    }
    if (s != SCL_OK)
        return s;
    cl_kernel k = eng->pack_kernel;
    cl_mem xm = scl_stream_mem(eng->x_dev), qm = scl_stream_mem(eng->q_dev),
           om = scl_stream_mem(eng->order_dev), pm = scl_stream_mem(eng->pos),
           lm = scl_stream_mem(eng->pos_lo), em = scl_stream_mem(eng->error),
           ppm = scl_stream_mem(eng->pos_prune_dev ? eng->pos_prune_dev : eng->pos);
    int natoms = eng->natoms;
    double inv_unit = 1.0 / eng->unit;
    double limit = dbl ? INFINITY : 0.5 * eng->period - eng->coeffs.cut_neigh;
    double allowed = 0.5 * (eng->inner_skin - 1e-3);
    double allowed2 = allowed * allowed, unit2 = dbl ? 1.0 : eng->unit * eng->unit;
    int check = eng->prune && eng->prune_valid && eng->pos_prune_dev != NULL;
    int have_prev = eng->have_prev;
    eng->check_now = check;
    const struct {
        size_t size;
        const void *value;
    } args[] = {{sizeof xm, &xm},
                {sizeof qm, &qm},
                {sizeof om, &om},
                {sizeof natoms, &natoms},
                {sizeof(double), &eng->origin[0]},
                {sizeof(double), &eng->origin[1]},
                {sizeof(double), &eng->origin[2]},
                {sizeof(double), &eng->unit},
                {sizeof inv_unit, &inv_unit},
                {sizeof limit, &limit},
                {sizeof pm, &pm},
                {sizeof lm, &lm},
                {sizeof residuals, &residuals},
                {sizeof ppm, &ppm},
                {sizeof check, &check},
                {sizeof have_prev, &have_prev},
                {sizeof allowed2, &allowed2},
                {sizeof unit2, &unit2},
                {sizeof em, &em}};
    for (cl_uint a = 0; a < sizeof args / sizeof args[0] && s == SCL_OK; a++)
        s = scl_arg(ctx, k, a, args[a].size, args[a].value);
    size_t local = 64, global = (n + 1 + local - 1) / local * local;
    if (s == SCL_OK)
        s = scl_launch(ctx, k, "charmm pack", 1, &global, &local, &eng->ev_upload[2]);
    if (s == SCL_OK)
        eng->have_prev = 1;
    return s;
}

/* Clear the error stream without blocking (the kernels write it only to
 * report). */
static scl_status clear_errors(scl_charmm *eng)
{
    cl_int zero = 0;
    cl_int rc = clEnqueueFillBuffer(scl_queue(eng->ctx), scl_stream_mem(eng->error), &zero,
                                    sizeof zero, 0, 8 * sizeof zero, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return scl_fail_cl(eng->ctx, "scl_charmm_compute", "clEnqueueFillBuffer", rc,
                           "clearing the error flags");
    return SCL_OK;
}

/* Enqueue the force kernels (and a prune where due) and the read-backs of
 * the step. */
static scl_status enqueue_step(scl_charmm *eng, const char *fn)
{
    scl_context *ctx = eng->ctx;
    eng->ev_force = calloc((size_t)eng->nchunks, sizeof *eng->ev_force);
    eng->ev_read = calloc((size_t)eng->nchunks + 4, sizeof *eng->ev_read);
    if (!eng->ev_force || !eng->ev_read)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    eng->nev_force = eng->nchunks;
    scl_status s = charmm_enqueue_forces(eng, eng->tally, eng->per_atom, eng->ev_force);
    if (s == SCL_ERR_UNSUPPORTED)
        s = scl_fail(ctx, s, fn, "work-group size %d with %d threads per atom is not legal on %s",
                     eng->wg, eng->tpa, scl_device(ctx)->name);
    size_t nl = (size_t)eng->nlocal, as = eng->acc_size;
    if (s == SCL_OK)
        s = stage_reserve(eng, 2, &eng->force_host, (4 * nl + 4) * as);
    if (s == SCL_OK &&
        ((eng->tally && host_reserve(&eng->partials_host, &eng->host_bytes[3],
                                     (8 * (size_t)eng->total_groups + 8) * as) != 0) ||
         (eng->per_atom &&
          (host_reserve(&eng->eatom_host, &eng->host_bytes[4], (nl + 1) * as) != 0 ||
           host_reserve(&eng->vatom_host, &eng->host_bytes[5], (6 * nl + 1) * as) != 0))))
        s = scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    /* read-backs per chunk, queued behind their kernels: they overlap later
     * chunks' compute on devices that copy and compute at once */
    for (int c = 0; c < eng->nchunks && s == SCL_OK; c++) {
        const charmm_chunk *ch = &eng->chunks[c];
        if (ch->count > 0)
            s = scl_stream_read_range(eng->force, 4 * (size_t)ch->first, 4 * (size_t)ch->count,
                                      (char *)eng->force_host + 4 * (size_t)ch->first * as, 0,
                                      &eng->ev_read[eng->nev_read++]);
    }
    if (s == SCL_OK && eng->tally && eng->total_groups > 0)
        s = scl_stream_read_range(eng->partials, 0, 8 * (size_t)eng->total_groups,
                                  eng->partials_host, 0, &eng->ev_read[eng->nev_read++]);
    if (s == SCL_OK && eng->per_atom && nl > 0)
        s = scl_stream_read_range(eng->eatom, 0, nl, eng->eatom_host, 0,
                                  &eng->ev_read[eng->nev_read++]);
    if (s == SCL_OK && eng->per_atom && nl > 0)
        s = scl_stream_read_range(eng->vatom, 0, 6 * nl, eng->vatom_host, 0,
                                  &eng->ev_read[eng->nev_read++]);
    if (s == SCL_OK)
        s = scl_stream_read(eng->error, eng->error_host, 0, &eng->ev_read[eng->nev_read++]);
    return s;
}

scl_status scl_charmm_compute(scl_charmm *eng, const double *x, const double *q, int eflag,
                              int vflag, int eatom, int vatom)
{
    static const char *fn = "scl_charmm_compute";
    if (!eng)
        return SCL_ERR_ARGUMENT;
    scl_context *ctx = eng->ctx;
    if (eng->pending)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "the previous step was not finished");
    if (!eng->have_atoms)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "no atoms: call scl_charmm_set_atoms first");
    if (eng->natoms > 0 && (!x || !q))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "positions or charges are NULL");
    int tally = eflag || vflag || eatom || vatom;
    /* residuals only where the kernel reads them: double pair math of mixed */
    int residuals = eng->params.precision == SCL_PREC_MIXED && pair_math_double(eng, tally);
    scl_status s = SCL_OK;
    release_step_events(eng);
    eng->pruned_now = eng->check_now = 0;
    long prunes0 = eng->prunes;
    if (!eng->dev_pack) {
        s = charmm_pack(eng, x, q, residuals, fn);
        if (s != SCL_OK)
            return s;
        prune_check(eng);
    }
    s = clear_errors(eng);
    if (eng->dev_pack) {
        prune_decide(eng);
        eng->disp_known = 0; /* until this step is finished */
        if (s == SCL_OK)
            s = enqueue_device_pack(eng, x, q, residuals);
    } else {
        size_t n = (size_t)eng->natoms + 1;
        if (s == SCL_OK)
            s = scl_stream_write_range(eng->pos, 0, n, eng->pos_host, 0, &eng->ev_upload[0]);
        if (s == SCL_OK && residuals)
            s = scl_stream_write_range(eng->pos_lo, 0, n, eng->lo_host, 0, &eng->ev_upload[1]);
    }
    if (s == SCL_OK && !eng->plan_ready)
        s = charmm_plan(eng);
    if (s != SCL_OK) {
        clFinish(scl_queue(ctx));
        return s;
    }
    eng->tally = tally;
    eng->per_atom = eatom || vatom;
    s = enqueue_step(eng, fn);
    eng->pruned_now = eng->prunes != prunes0; /* by the step or by the tuner */
    if (s != SCL_OK) {
        clFinish(scl_queue(ctx));
        return s;
    }
    if (eng->nlocal > 0)
        clFlush(scl_queue(ctx));
    eng->pending = 1;
    return SCL_OK;
}

static double event_sum(scl_charmm *eng, cl_event *ev, int n)
{
    double total = 0;
    for (int k = 0; k < n; k++) {
        double t = 0;
        if (ev[k] && scl_event_seconds(eng->ctx, ev[k], &t) == SCL_OK)
            total += t;
    }
    return total;
}

/* f[caller's atom] += the device force of local slot ii. One loop per
 * accumulator type (the per-element type switch made this 0.5 ms per step
 * at 32k atoms on the GPU machine); local_orig is a permutation, so every
 * thread writes its own atoms. */
static void add_forces(const scl_charmm *eng, double *f)
{
    const int nl = eng->nlocal;
    const int *orig = eng->local_orig;
    switch (charmm_acc_type(eng)) {
    case SCL_DOUBLE: {
        const double *src = eng->force_host;
#pragma omp parallel for schedule(static) if (nl > 8192)
        for (int ii = 0; ii < nl; ii++) {
            double *dst = f + 3 * (size_t)orig[ii];
            const double *v = src + 4 * (size_t)ii;
            dst[0] += v[0], dst[1] += v[1], dst[2] += v[2];
        }
        break;
    }
    case SCL_LONG: {
        const int64_t *src = eng->force_host;
#pragma omp parallel for schedule(static) if (nl > 8192)
        for (int ii = 0; ii < nl; ii++) {
            double *dst = f + 3 * (size_t)orig[ii];
            const int64_t *v = src + 4 * (size_t)ii;
            dst[0] += (double)v[0] * FIXED_UNIT, dst[1] += (double)v[1] * FIXED_UNIT;
            dst[2] += (double)v[2] * FIXED_UNIT;
        }
        break;
    }
    default: {
        const float *src = eng->force_host;
#pragma omp parallel for schedule(static) if (nl > 8192)
        for (int ii = 0; ii < nl; ii++) {
            double *dst = f + 3 * (size_t)orig[ii];
            const float *v = src + 4 * (size_t)ii;
            dst[0] += (double)v[0], dst[1] += (double)v[1], dst[2] += (double)v[2];
        }
        break;
    }
    }
}

scl_status scl_charmm_finish(scl_charmm *eng, double *f, scl_charmm_result *result,
                             double *eatom_out, double *vatom_out)
{
    static const char *fn = "scl_charmm_finish";
    if (!eng)
        return SCL_ERR_ARGUMENT;
    scl_context *ctx = eng->ctx;
    if (!eng->pending)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "no step in flight: call compute first");
    eng->pending = 0;
    cl_int rc = clFinish(scl_queue(ctx));
    if (rc != CL_SUCCESS)
        return scl_fail_cl(ctx, fn, "clFinish", rc, "waiting for the force kernels");
    if (eng->error_host[4] > 0) { /* from the pack kernel: the coordinates as uploaded */
        long o = 2147483647L - eng->error_host[4];
        const double *xs = eng->x_host, *qs = eng->q_host;
        double limit = eng->params.precision == SCL_PREC_DOUBLE
                           ? INFINITY
                           : 0.5 * eng->period - eng->coeffs.cut_neigh;
        eng->disp_known = 0;
        eng->have_prev = 0; /* the bad atom's slot was not written */
        return scl_fail(ctx, SCL_ERR_INPUT, fn,
                        "atom %ld has a non-finite coordinate or charge, or moved more than %g "
                        "Angstrom from the box of the last scl_charmm_set_atoms (%g, %g, %g; q %g)",
                        o, limit, xs[3 * o], xs[3 * o + 1], xs[3 * o + 2], qs[o]);
    }
    if (eng->dev_pack && eng->error_host[7]) {
        /* the lagged decision kept lists that some atom had outgrown: prune
         * and recompute this step (see prune_decide) */
        int err_keep[8];
        memcpy(err_keep, eng->error_host, sizeof err_keep);
        release_force_events(eng);
        eng->prune_valid = 0;
        eng->prune_redos++;
        scl_status s = clear_errors(eng);
        if (s == SCL_OK)
            s = enqueue_step(eng, fn);
        rc = clFinish(scl_queue(ctx));
        if (s != SCL_OK)
            return s;
        if (rc != CL_SUCCESS)
            return scl_fail_cl(ctx, fn, "clFinish", rc, "waiting for the recomputed step");
        eng->pruned_now = 1;
        err_keep[0] = eng->error_host[0], err_keep[1] = eng->error_host[1];
        err_keep[2] = eng->error_host[2], err_keep[3] = eng->error_host[3];
        memcpy(eng->error_host, err_keep, sizeof err_keep);
    }
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
        int ii = eng->error_host[1], j = eng->error_host[2];
        int oi = ii >= 0 && ii < eng->nlocal ? eng->local_orig[ii] : -1;
        int oj = j >= 0 && j < eng->natoms ? eng->order[j] : -1;
        if (eng->error_host[0] == 1)
            return scl_fail(ctx, SCL_ERR_INPUT, fn,
                            "atoms %d and %d overlap (closer than %g Angstrom)", oi, oj,
                            CHARMM_MIN_R);
        return scl_fail(ctx, SCL_ERR_INPUT, fn,
                        "the force between atoms %d and %d exceeds the fixed-point range of "
                        "double precision (2^30)",
                        oi, oj);
    }
    if (eng->nlocal > 0 && !f)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "force array is NULL");
    double t0 = wall_now();
    add_forces(eng, f);
    if (result) {
        memset(result, 0, sizeof *result);
        if (eng->tally) {
            double sums[8] = {0};
            int64_t fixed[8] = {0};
            int is_fixed = charmm_acc_type(eng) == SCL_LONG;
            for (int g = 0; g < eng->total_groups; g++)
                for (int k = 0; k < 8; k++) {
                    size_t idx = 8 * (size_t)g + (size_t)k;
                    if (is_fixed) /* integer sums: the same bits in any grouping */
                        fixed[k] += ((const int64_t *)eng->partials_host)[idx];
                    else
                        sums[k] += acc_value(eng, eng->partials_host, idx);
                }
            for (int k = 0; k < 8; k++)
                sums[k] = 0.5 * (is_fixed ? (double)fixed[k] * FIXED_UNIT : sums[k]);
            result->evdwl = sums[0];
            result->ecoul = sums[1];
            memcpy(result->virial, sums + 2, 6 * sizeof sums[0]);
        }
    }
    if (eng->per_atom)
        for (int ii = 0; ii < eng->nlocal; ii++) {
            int o = eng->local_orig[ii];
            if (eatom_out)
                eatom_out[o] += 0.5 * acc_value(eng, eng->eatom_host, (size_t)ii);
            if (vatom_out)
                for (int k = 0; k < 6; k++)
                    vatom_out[6 * o + k] +=
                        0.5 * acc_value(eng, eng->vatom_host, 6 * (size_t)ii + (size_t)k);
        }
    eng->stats.t_host_reduce += wall_now() - t0;
    return SCL_OK;
}

scl_status scl_charmm_stats_get(scl_charmm *eng, scl_charmm_stats *stats)
{
    if (!eng || !stats)
        return eng ? scl_fail(eng->ctx, SCL_ERR_ARGUMENT, "scl_charmm_stats_get",
                              "stats is NULL")
                   : SCL_ERR_ARGUMENT;
    *stats = eng->stats;
    stats->neighbors = eng->neighbors;
    stats->list_capacity = eng->capacity;
    stats->threads_per_atom = eng->tpa;
    stats->chunks = eng->nchunks;
    stats->work_group = eng->wg;
    stats->prunes = eng->prunes;
    stats->inner_neighbors = 0;
    if (eng->prune && eng->prune_valid && !eng->pending && eng->nlocal > 0) {
        /* read only when asked and no step is in flight (it would wait for it) */
        int *counts = malloc((size_t)eng->nlocal * sizeof *counts);
        if (!counts)
            return scl_fail(eng->ctx, SCL_ERR_MEMORY, "scl_charmm_stats_get", "out of host memory");
        scl_status s =
            scl_stream_read_range(eng->numnbr_in, 0, (size_t)eng->nlocal, counts, 1, NULL);
        for (int i = 0; i < eng->nlocal && s == SCL_OK; i++)
            stats->inner_neighbors += (counts[i] + CHARMM_PAD - 1) / CHARMM_PAD * CHARMM_PAD;
        free(counts);
        if (s != SCL_OK)
            return s;
    }
    return SCL_OK;
}
