/* Atom sets of the charmm engine: host binning (cell sort), upload of what
 * the device list build needs, chunk layout within the device memory, the
 * list build with overflow regrowth, and the brute-force list check. */
#include "pair/charmm_engine.h"
#include "pair/charmm_system.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void charmm_atoms_free(scl_charmm *eng)
{
    /* order, local_orig and ilist live in the kept rebuild buffers */
    eng->order = eng->local_orig = eng->ilist = NULL;
    eng->x_build = NULL;
    eng->have_atoms = 0;
}

void charmm_rebuild_bufs_free(scl_charmm *eng)
{
    for (int k = 0; k < CHARMM_REBUILD_BUFS; k++) {
        free(eng->rebuild_buf[k]);
        eng->rebuild_buf[k] = NULL;
        eng->rebuild_bytes[k] = 0;
    }
}

/* Kept host buffer k of at least bytes (contents not preserved); NULL when
 * out of memory. */
static void *rebuild_buf(scl_charmm *eng, int k, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (eng->rebuild_bytes[k] < bytes) {
        free(eng->rebuild_buf[k]);
        size_t want = bytes + bytes / 8; /* ghost counts drift between rebuilds */
        eng->rebuild_buf[k] = malloc(want);
        eng->rebuild_bytes[k] = eng->rebuild_buf[k] ? want : 0;
    }
    return eng->rebuild_buf[k];
}

enum {
    RB_TYPE,
    RB_TAG,
    RB_ICELL,
    RB_NSPECIAL,
    RB_SPECIAL,
    RB_RANGE,
    RB_X,
    RB_ORDER,
    RB_CELL_OF,
    RB_CELL_START,
    RB_FILL,
    RB_ILIST,
    RB_LOCAL_ORIG
};

scl_status charmm_stream_reserve(scl_charmm *eng, scl_stream **s, const char *label,
                                 scl_type type, size_t count, unsigned flags)
{
    if (count == 0)
        count = 1;
    if (*s && scl_stream_count(*s) >= count && scl_stream_type(*s) == type)
        return SCL_OK;
    scl_stream_free(*s);
    *s = NULL;
    /* headroom so that the slowly changing ghost count does not reallocate every rebuild */
    size_t want = count + count / 16 + 16;
    return scl_stream_create(eng->ctx, label, type, want, 1, 1, flags, s);
}

static size_t stream_bytes(const scl_stream *s) { return s ? scl_stream_bytes(s) : 0; }

/* Device bytes held outside the neighbor lists. */
static size_t fixed_device_bytes(const scl_charmm *eng)
{
    const scl_stream *all[] = {eng->pos,   eng->pos_lo,   eng->pos_build, eng->type,
                               eng->tag,   eng->ilist_dev, eng->icell,    eng->cell_start,
                               eng->nspecial, eng->special, eng->numnbr,  eng->ljc, eng->ljc_double, eng->special_range, eng->numnbr_in, eng->nspecial_front,
                               eng->force, eng->partials, eng->eatom,     eng->vatom,
                               eng->error, eng->overflow, eng->x_dev, eng->q_dev, eng->order_dev,
                               eng->pos_prune_dev};
    size_t sum = 0;
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        sum += stream_bytes(all[k]);
    return sum;
}

/* Drop the chunk layout but keep its list buffers in *keep (nkeep of them)
 * for reuse: a rebuild must not reallocate ~100 MB of lists every time. */
static void release_chunks(scl_charmm *eng, scl_stream ***keep, int *nkeep)
{
    *keep = calloc(2 * (size_t)(eng->nchunks > 0 ? eng->nchunks : 1), sizeof **keep);
    *nkeep = 0;
    for (int c = 0; c < eng->nchunks; c++) {
        scl_stream *lists[2] = {eng->chunks[c].nbr, eng->chunks[c].nbr_in};
        for (int l = 0; l < 2; l++) {
            if (*keep && lists[l])
                (*keep)[(*nkeep)++] = lists[l];
            else
                scl_stream_free(lists[l]);
        }
    }
    free(eng->chunks);
    eng->chunks = NULL;
    eng->nchunks = 0;
}

/* A list buffer of at least slots ints: a kept one that is large enough, or
 * a new one with headroom (the list capacity and ghost counts drift). */
static scl_status chunk_buffer(scl_charmm *eng, scl_stream **keep, int nkeep, size_t slots,
                               const char *label, scl_stream **out)
{
    for (int k = 0; k < nkeep; k++)
        if (keep[k] && scl_stream_count(keep[k]) >= slots) {
            *out = keep[k];
            keep[k] = NULL;
            return SCL_OK;
        }
    return scl_stream_create(eng->ctx, label, SCL_INT, slots + slots / 16 + 64, 1, 1, 0, out);
}

static void free_kept(scl_stream **keep, int nkeep)
{
    for (int k = 0; k < nkeep; k++)
        scl_stream_free(keep[k]);
    free(keep);
}

scl_status charmm_enqueue_build(scl_charmm *eng, const charmm_chunk *ch, scl_stream *nbr,
                                cl_event *ev)
{
    scl_context *ctx = eng->ctx;
    cl_kernel k = eng->nbr_kernel;
    cl_mem pos = scl_stream_mem(eng->pos_build), tag = scl_stream_mem(eng->tag),
           il = scl_stream_mem(eng->ilist_dev), ic = scl_stream_mem(eng->icell),
           cs = scl_stream_mem(eng->cell_start), ns = scl_stream_mem(eng->nspecial),
           sp = scl_stream_mem(eng->special), nb = scl_stream_mem(nbr),
           rg = scl_stream_mem(eng->special_range),
           num = scl_stream_mem(eng->numnbr), ov = scl_stream_mem(eng->overflow);
    double cutsq = eng->coeffs.cut_neigh * eng->coeffs.cut_neigh;
    float cutsq_f = (float)cutsq, unit_f = (float)eng->unit;
    int pos_double = eng->params.precision == SCL_PREC_DOUBLE;
    int sentinel = eng->natoms, reach = CHARMM_CELL_REACH;
    /* the cell grid relative to the packing origin, for the row clipping */
    cl_double4 lo_d = {{eng->grid_lo[0] - eng->origin[0], eng->grid_lo[1] - eng->origin[1],
                        eng->grid_lo[2] - eng->origin[2], 0.0}};
    cl_double4 w_d = {{eng->grid_width[0], eng->grid_width[1], eng->grid_width[2], 0.0}};
    cl_float4 lo_f = {{(float)lo_d.s[0], (float)lo_d.s[1], (float)lo_d.s[2], 0.0f}};
    cl_float4 w_f = {{(float)w_d.s[0], (float)w_d.s[1], (float)w_d.s[2], 0.0f}};
    const struct {
        size_t size;
        const void *value;
    } args[] = {{sizeof pos, &pos},
                {sizeof tag, &tag},
                {sizeof il, &il},
                {sizeof ic, &ic},
                {sizeof cs, &cs},
                {sizeof(int), &eng->grid[0]},
                {sizeof(int), &eng->grid[1]},
                {sizeof(int), &eng->grid[2]},
                {sizeof(int), &reach},
                {pos_double ? sizeof cutsq : sizeof cutsq_f, pos_double ? (const void *)&cutsq
                                                                        : (const void *)&cutsq_f},
                {pos_double ? sizeof eng->unit : sizeof unit_f,
                 pos_double ? (const void *)&eng->unit : (const void *)&unit_f},
                {pos_double ? sizeof lo_d : sizeof lo_f,
                 pos_double ? (const void *)&lo_d : (const void *)&lo_f},
                {pos_double ? sizeof w_d : sizeof w_f,
                 pos_double ? (const void *)&w_d : (const void *)&w_f},
                {sizeof rg, &rg},
                {sizeof ns, &ns},
                {sizeof sp, &sp},
                {sizeof(int), &eng->maxspecial},
                {sizeof(int), &ch->first},
                {sizeof(int), &ch->count},
                {sizeof(int), &eng->capacity},
                {sizeof(int), &sentinel},
                {sizeof nb, &nb},
                {sizeof num, &num},
                {sizeof ov, &ov}};
    for (cl_uint a = 0; a < sizeof args / sizeof args[0]; a++) {
        scl_status s = scl_arg(ctx, k, a, args[a].size, args[a].value);
        if (s != SCL_OK)
            return s;
    }
    size_t local = 64, global = (size_t)ch->count;
    if (local > scl_device(ctx)->max_work_group)
        local = scl_device(ctx)->max_work_group;
    return scl_launch(ctx, k, "charmm neighbor build", 1, &global, &local, ev);
}

scl_status charmm_enqueue_prune(scl_charmm *eng)
{
    scl_context *ctx = eng->ctx;
    cl_kernel k = eng->prune_kernel;
    int dbl = eng->params.precision == SCL_PREC_DOUBLE, sentinel = eng->natoms;
    double cut = sqrt(eng->coeffs.cut_forcesq) + eng->inner_skin;
    double cutsq = cut * cut;
    float cutsq_f = (float)cutsq, unit_f = (float)eng->unit;
    cl_mem pos = scl_stream_mem(eng->pos), il = scl_stream_mem(eng->ilist_dev),
           num = scl_stream_mem(eng->numnbr), num_in = scl_stream_mem(eng->numnbr_in),
           nsf = scl_stream_mem(eng->nspecial_front);
    scl_status s = SCL_OK;
    for (int c = 0; c < eng->nchunks && s == SCL_OK; c++) {
        const charmm_chunk *ch = &eng->chunks[c];
        if (ch->count == 0)
            continue;
        cl_mem nb = scl_stream_mem(ch->nbr), nb_in = scl_stream_mem(ch->nbr_in);
        const struct {
            size_t size;
            const void *value;
        } args[] = {{sizeof pos, &pos},
                    {sizeof il, &il},
                    {sizeof nb, &nb},
                    {sizeof num, &num},
                    {dbl ? sizeof cutsq : sizeof cutsq_f, dbl ? (const void *)&cutsq
                                                              : (const void *)&cutsq_f},
                    {dbl ? sizeof eng->unit : sizeof unit_f,
                     dbl ? (const void *)&eng->unit : (const void *)&unit_f},
                    {sizeof(int), &ch->first},
                    {sizeof(int), &ch->count},
                    {sizeof(int), &sentinel},
                    {sizeof nb_in, &nb_in},
                    {sizeof num_in, &num_in},
                    {sizeof nsf, &nsf}};
        for (cl_uint a = 0; a < sizeof args / sizeof args[0] && s == SCL_OK; a++)
            s = scl_arg(ctx, k, a, args[a].size, args[a].value);
        /* CHARMM_PRUNE_LANES work-items per atom, two counts each in local memory */
        size_t local = 64;
        while (local > scl_device(ctx)->max_work_group && local > CHARMM_PRUNE_LANES)
            local /= 2;
        size_t global = ((size_t)ch->count * CHARMM_PRUNE_LANES + local - 1) / local * local;
        if (s == SCL_OK)
            s = scl_arg(ctx, k, (cl_uint)(sizeof args / sizeof args[0]),
                        2 * local * sizeof(cl_int), NULL);
        if (s == SCL_OK)
            s = scl_launch(ctx, k, "charmm list prune", 1, &global, &local, NULL);
    }
    /* the positions the inner lists hold for (pos_host is what was uploaded;
     * with device packing, pos itself) */
    size_t bytes = ((size_t)eng->natoms + 1) * (dbl ? 32 : 16);
    if (eng->dev_pack) {
        if (s == SCL_OK) {
            cl_int rc = clEnqueueCopyBuffer(scl_queue(ctx), scl_stream_mem(eng->pos),
                                            scl_stream_mem(eng->pos_prune_dev), 0, 0, bytes, 0,
                                            NULL, NULL);
            if (rc != CL_SUCCESS)
                s = scl_fail_cl(ctx, "scl_charmm_compute", "clEnqueueCopyBuffer", rc,
                                "keeping the pruning positions");
        }
        if (s == SCL_OK) {
            eng->prune_valid = 1;
            eng->prunes++;
        }
        return s;
    }
    if (s == SCL_OK && eng->pos_prune_bytes < bytes) {
        free(eng->pos_prune);
        eng->pos_prune = malloc(bytes + bytes / 8);
        eng->pos_prune_bytes = eng->pos_prune ? bytes + bytes / 8 : 0;
        if (!eng->pos_prune)
            s = scl_fail(ctx, SCL_ERR_MEMORY, "scl_charmm_compute", "out of host memory");
    }
    if (s == SCL_OK) {
        memcpy(eng->pos_prune, eng->pos_host, bytes);
        eng->prune_valid = 1;
        eng->prunes++;
    }
    return s;
}

/* Largest list buffer one chunk may have: one allocation, and (streaming)
 * whatever the budget leaves. */
static size_t max_chunk_atoms(const scl_charmm *eng, size_t per_atom)
{
    size_t max_alloc = scl_device(eng->ctx)->max_alloc;
    if (max_alloc > eng->device_budget)
        max_alloc = eng->device_budget;
    return max_alloc / per_atom;
}

scl_status charmm_setup_chunks(scl_charmm *eng, int nchunks, const char *fn)
{
    scl_context *ctx = eng->ctx;
    scl_status s = SCL_OK;
    int nlocal = eng->nlocal;
    for (;;) {
        scl_stream **keep = NULL;
        int nkeep = 0;
        release_chunks(eng, &keep, &nkeep);
        size_t per_atom = (size_t)eng->capacity * sizeof(cl_int);
        size_t fixed = fixed_device_bytes(eng);
        size_t chunk_max = max_chunk_atoms(eng, per_atom);
        if (fixed >= eng->device_budget || chunk_max < 64) {
            free_kept(keep, nkeep);
            return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn,
                            "%d local + %d ghost atoms with %d list slots each do not fit %zu "
                            "bytes of device memory even in chunks of 64 atoms (%zu bytes "
                            "are needed outside the lists)",
                            eng->nlocal, eng->nghost, eng->capacity, eng->device_budget, fixed);
        }
        size_t list_bytes = (size_t)nlocal * per_atom;
        eng->min_chunks = (int)((size_t)nlocal / chunk_max + ((size_t)nlocal % chunk_max != 0));
        if (eng->min_chunks < 1)
            eng->min_chunks = 1;
        int n = nchunks > eng->min_chunks ? nchunks : eng->min_chunks;
        if (n > nlocal)
            n = nlocal > 0 ? nlocal : 1;
        eng->streaming = fixed + list_bytes > eng->device_budget;
        /* pruning needs the inner lists beside the full ones */
        eng->prune = eng->inner_skin > 0.0 && fixed + 2 * list_bytes <= eng->device_budget;
        eng->prune_valid = 0;
        if (eng->streaming) { /* one shared buffer: chunks small enough for what is left */
            size_t left_atoms = (eng->device_budget - fixed) / per_atom;
            if (left_atoms < (size_t)chunk_max)
                chunk_max = left_atoms;
            if (chunk_max < 64) {
                free_kept(keep, nkeep);
                return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn,
                                "neighbor lists of %d atoms x %d slots do not fit %zu bytes of "
                                "device memory even one chunk of 64 atoms at a time",
                                nlocal, eng->capacity, eng->device_budget);
            }
            int need = (int)((size_t)nlocal / chunk_max + ((size_t)nlocal % chunk_max != 0));
            if (n < need)
                n = need;
        }
        if (eng->streaming) { /* memory is tight: nothing kept */
            free_kept(keep, nkeep);
            keep = NULL;
            nkeep = 0;
        } else {
            scl_stream_free(eng->shared_nbr);
            eng->shared_nbr = NULL;
        }
        eng->chunks = calloc((size_t)n, sizeof *eng->chunks);
        if (!eng->chunks) {
            free_kept(keep, nkeep);
            return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
        }
        eng->nchunks = n;
        int per = (nlocal + n - 1) / n;
        size_t per_slots = (size_t)(per > 0 ? per : 1) * (size_t)eng->capacity;
        for (int k = 0; k < nkeep; k++) /* too small for any chunk: free before allocating */
            if (keep[k] && scl_stream_count(keep[k]) < per_slots) {
                scl_stream_free(keep[k]);
                keep[k] = NULL;
            }
        for (int c = 0; c < n; c++) {
            charmm_chunk *ch = &eng->chunks[c];
            ch->first = c * per < nlocal ? c * per : nlocal;
            int end = (c + 1) * per < nlocal ? (c + 1) * per : nlocal;
            ch->count = end - ch->first;
            if (eng->streaming)
                continue;
            s = chunk_buffer(eng, keep, nkeep, per_slots, "charmm neighbor list", &ch->nbr);
            if (s == SCL_OK && eng->prune)
                s = chunk_buffer(eng, keep, nkeep, per_slots, "charmm inner neighbor list",
                                 &ch->nbr_in);
            if (s != SCL_OK) {
                free_kept(keep, nkeep);
                return s;
            }
        }
        free_kept(keep, nkeep);
        if (eng->streaming && (!eng->shared_nbr || scl_stream_count(eng->shared_nbr) < per_slots)) {
            scl_stream_free(eng->shared_nbr);
            eng->shared_nbr = NULL;
            s = scl_stream_create(ctx, "charmm neighbor list (shared)", SCL_INT, per_slots, 1, 1,
                                  0, &eng->shared_nbr);
            if (s != SCL_OK)
                return s;
        }
        int zero = 0;
        s = scl_stream_write_range(eng->overflow, 0, 1, &zero, 1, NULL);
        for (int c = 0; c < n && s == SCL_OK; c++)
            if (eng->chunks[c].count > 0)
                s = charmm_enqueue_build(eng, &eng->chunks[c],
                                         eng->streaming ? eng->shared_nbr : eng->chunks[c].nbr,
                                         NULL);
        int overflow = 0;
        if (s == SCL_OK)
            s = scl_stream_read_range(eng->overflow, 0, 1, &overflow, 1, NULL);
        if (s != SCL_OK)
            return s;
        if (overflow <= eng->capacity)
            break;
        /* regrow with headroom and rebuild: never truncate */
        long grown = ((long)overflow + overflow / 8 + CHARMM_PAD + CHARMM_PAD - 1) / CHARMM_PAD *
                     CHARMM_PAD;
        if (grown > CHARMM_INDEX_MASK)
            return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn, "an atom has %d neighbors", overflow);
        eng->capacity = (int)grown;
        eng->stats.rebuilds++;
    }
    int *counts = malloc((size_t)(nlocal > 0 ? nlocal : 1) * sizeof *counts);
    if (!counts)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    s = nlocal > 0 ? scl_stream_read_range(eng->numnbr, 0, (size_t)nlocal, counts, 1, NULL)
                   : SCL_OK;
    long total = 0;
    for (int i = 0; i < nlocal && s == SCL_OK; i++)
        total += counts[i];
    free(counts);
    eng->neighbors = total;
    return s;
}

/* Initial list capacity: the density estimate of neighbors within the list
 * cutoff, with headroom; overflow regrows it if the system is inhomogeneous. */
static int estimate_capacity(const scl_charmm *eng, const cell_grid *g)
{
    if (eng->params.neighbor_capacity > 0)
        return (eng->params.neighbor_capacity + CHARMM_PAD - 1) / CHARMM_PAD * CHARMM_PAD;
    double volume = 1.0;
    for (int d = 0; d < 3; d++)
        volume *= g->n[d] * g->width[d];
    double rc = eng->coeffs.cut_neigh;
    double expected = eng->natoms / volume * (4.0 / 3.0) * 3.14159265358979 * rc * rc * rc;
    double want = 1.3 * expected + 16;
    if (want > eng->natoms + CHARMM_PAD)
        want = eng->natoms + CHARMM_PAD;
    return ((int)want + CHARMM_PAD - 1) / CHARMM_PAD * CHARMM_PAD;
}

/* Copy the caller's atoms into binned order and upload what the build needs. */
static scl_status upload_atoms(scl_charmm *eng, const cell_grid *g, const double *x,
                               const int *type, const int64_t *tag, const int *nspecial,
                               const int64_t *special, const char *fn)
{
    int n = eng->natoms, nl = eng->nlocal, ms = eng->maxspecial > 0 ? eng->maxspecial : 1;
    int *type_s = rebuild_buf(eng, RB_TYPE, (size_t)(n + 1) * sizeof *type_s);
    int64_t *tag_s = rebuild_buf(eng, RB_TAG, (size_t)(n + 1) * sizeof *tag_s);
    int *icell = rebuild_buf(eng, RB_ICELL, (size_t)(nl + 1) * sizeof *icell);
    int *ns_s = rebuild_buf(eng, RB_NSPECIAL, (size_t)(nl + 1) * 3 * sizeof *ns_s);
    int64_t *sp_s = rebuild_buf(eng, RB_SPECIAL, (size_t)(nl + 1) * (size_t)ms * sizeof *sp_s);
    int64_t *range = rebuild_buf(eng, RB_RANGE, 2 * (size_t)(nl + 1) * sizeof *range);
    if (!type_s || !tag_s || !icell || !ns_s || !sp_s || !range)
        return scl_fail(eng->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    /* one pass in binned order: per-atom arrays, and for the local atoms
     * (in binned order, so ii grows with b) the local slots, their cells,
     * specials and special tag ranges */
    const int *order = eng->order, *cell_of = g->cell_of;
    int *ilist = eng->ilist, *local_orig = eng->local_orig;
    enum { AHEAD = 16 }; /* the gathers miss the cache: prefetch a few atoms ahead */
    for (int b = 0, ii = 0; b < n; b++) {
        if (b + AHEAD < n) {
            int p = order[b + AHEAD];
            __builtin_prefetch(type + p);
            if (tag)
                __builtin_prefetch(tag + p);
            if (p < nl && nspecial) {
                __builtin_prefetch(nspecial + 3 * p);
                if (special)
                    __builtin_prefetch(special + (size_t)p * (size_t)ms);
            }
        }
        int o = order[b];
        type_s[b] = type[o];
        tag_s[b] = tag ? tag[o] : o;
        if (o >= nl)
            continue;
        ilist[ii] = b;
        local_orig[ii] = o;
        icell[ii] = cell_of[o];
        int64_t lo = 1, hi = 0; /* empty range */
        int cnt = nspecial ? nspecial[3 * o + 2] : 0;
        const int64_t *sp = cnt ? special + (size_t)o * (size_t)ms : NULL;
        for (int k = 0; k < cnt; k++) {
            if (k == 0 || sp[k] < lo)
                lo = sp[k];
            if (k == 0 || sp[k] > hi)
                hi = sp[k];
        }
        range[2 * ii] = lo, range[2 * ii + 1] = hi;
        if (nspecial) {
            memcpy(ns_s + 3 * ii, nspecial + 3 * o, 3 * sizeof *ns_s);
            if (cnt)
                memcpy(sp_s + (size_t)ii * (size_t)ms, sp, (size_t)cnt * sizeof *sp_s);
        } else {
            memset(ns_s + 3 * ii, 0, 3 * sizeof *ns_s);
        }
        ii++;
    }
    type_s[n] = 0; /* the sentinel */
    tag_s[n] = -1;
    scl_status s = SCL_OK;
    scl_type pos_t = eng->params.precision == SCL_PREC_DOUBLE ? SCL_DOUBLE4 : SCL_INT4;
    size_t na = (size_t)n + 1, nli = (size_t)(nl > 0 ? nl : 1);
#define RESERVE(field, label, t, count)                                                          \
    if (s == SCL_OK)                                                                             \
    s = charmm_stream_reserve(eng, &eng->field, label, t, count, 0)
    RESERVE(pos, "charmm positions", pos_t, na);
    RESERVE(pos_lo, "charmm position residuals", SCL_FLOAT4,
            eng->params.precision == SCL_PREC_MIXED ? na : 1);
    RESERVE(pos_build, "charmm list positions", pos_t, na);
    RESERVE(type, "charmm types", SCL_INT, na);
    RESERVE(tag, "charmm tags", SCL_LONG, na);
    RESERVE(ilist_dev, "charmm local atoms", SCL_INT, nli);
    RESERVE(icell, "charmm atom cells", SCL_INT, nli);
    RESERVE(cell_start, "charmm cell starts", SCL_INT, (size_t)g->ncells + 1);
    RESERVE(nspecial, "charmm special counts", SCL_INT, 3 * nli);
    RESERVE(special, "charmm special tags", SCL_LONG, nli * (size_t)ms);
    RESERVE(special_range, "charmm special tag ranges", SCL_LONG, 2 * nli);
    RESERVE(numnbr, "charmm neighbor counts", SCL_INT, nli);
    RESERVE(numnbr_in, "charmm inner neighbor counts", SCL_INT, eng->inner_skin > 0.0 ? nli : 1);
    RESERVE(nspecial_front, "charmm inner special counts", SCL_INT,
            eng->inner_skin > 0.0 ? nli : 1);
    RESERVE(force, "charmm forces", charmm_acc_type(eng), 4 * nli);
    if (eng->dev_pack) { /* inputs of the pack kernel (cl/charmm_pack.cl) */
        RESERVE(x_dev, "charmm caller positions", SCL_DOUBLE, 3 * na);
        RESERVE(q_dev, "charmm caller charges", SCL_DOUBLE, na);
        RESERVE(order_dev, "charmm binned order", SCL_INT, na);
        RESERVE(pos_prune_dev, "charmm pruning positions", pos_t, eng->inner_skin > 0.0 ? na : 1);
    }
#undef RESERVE
    eng->have_prev = 0; /* pos holds another atom set */
    eng->disp_known = 0;
    if (s == SCL_OK && eng->dev_pack && n > 0)
        s = scl_stream_write_range(eng->order_dev, 0, (size_t)n, eng->order, 0, NULL);
    if (s == SCL_OK)
        s = charmm_pack(eng, x, NULL, 0, fn);
    if (s == SCL_OK)
        s = scl_stream_write_range(eng->pos_build, 0, na, eng->pos_host, 0, NULL);
    if (s == SCL_OK)
        s = scl_stream_write_range(eng->type, 0, na, type_s, 0, NULL);
    if (s == SCL_OK)
        s = scl_stream_write_range(eng->tag, 0, na, tag_s, 0, NULL);
    if (s == SCL_OK && nl > 0)
        s = scl_stream_write_range(eng->ilist_dev, 0, (size_t)nl, eng->ilist, 0, NULL);
    if (s == SCL_OK && nl > 0)
        s = scl_stream_write_range(eng->icell, 0, (size_t)nl, icell, 0, NULL);
    if (s == SCL_OK)
        s = scl_stream_write_range(eng->cell_start, 0, (size_t)g->ncells + 1, g->cell_start, 0,
                                   NULL);
    if (s == SCL_OK && nl > 0)
        s = scl_stream_write_range(eng->nspecial, 0, 3 * (size_t)nl, ns_s, 0, NULL);
    if (s == SCL_OK && nl > 0)
        s = scl_stream_write_range(eng->special, 0, (size_t)nl * (size_t)ms, sp_s, 0, NULL);
    if (s == SCL_OK && nl > 0)
        s = scl_stream_write_range(eng->special_range, 0, 2 * (size_t)nl, range, 0, NULL);
    /* the host buffers above (order and cell_start included) are kept: the
     * writes need not block (the overflow read of the build that follows
     * waits for them) */
    if (s != SCL_OK)
        clFinish(scl_queue(eng->ctx)); /* ilist may be freed on the way out */
    return s;
}

/* Keep the caller's positions for scl_charmm_check_neighbors (its tags and
 * specials are in the kept upload buffers). */
static int keep_copies(scl_charmm *eng, const double *x)
{
    size_t n = (size_t)eng->natoms;
    eng->x_build = rebuild_buf(eng, RB_X, (3 * n + 1) * sizeof *eng->x_build);
    if (!eng->x_build)
        return -1;
    memcpy(eng->x_build, x, 3 * n * sizeof *x);
    return 0;
}

scl_status scl_charmm_set_atoms(scl_charmm *eng, int nlocal, int nghost, const double *x,
                                const int *type, const int64_t *tag, const int *nspecial,
                                const int64_t *special, int maxspecial)
{
    static const char *fn = "scl_charmm_set_atoms";
    if (!eng)
        return SCL_ERR_ARGUMENT;
    scl_context *ctx = eng->ctx;
    if (eng->pending)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "a step is in flight: call finish first");
    if (nlocal < 0 || nghost < 0 || (long)nlocal + nghost >= CHARMM_INDEX_MASK ||
        (nspecial && maxspecial < 0))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "invalid counts nlocal %d, nghost %d, "
                                                   "maxspecial %d",
                        nlocal, nghost, maxspecial);
    char err[512];
    int natoms = nlocal + nghost;
    scl_status s = charmm_check_atoms(natoms, x, type, eng->coeffs.ntypes, err, sizeof err);
    if (s == SCL_OK)
        s = charmm_check_specials(nlocal, nspecial, special, maxspecial, err, sizeof err);
    if (s != SCL_OK)
        return scl_fail(ctx, s, fn, "%s", err);
    double t0 = wall_now(), c0 = thread_cpu_now();
    charmm_atoms_free(eng);
    eng->nlocal = nlocal;
    eng->nghost = nghost;
    eng->natoms = natoms;
    eng->maxspecial = nspecial ? maxspecial : 0;
    /* the grid's arrays and the binned index maps live in kept buffers:
     * no allocation (and no page faults) per rebuild */
    cell_grid g;
    cell_grid_layout(&g, natoms, x, eng->coeffs.cut_neigh / CHARMM_CELL_REACH);
    size_t na1 = (size_t)natoms + 1, nl1 = (size_t)nlocal + 1;
    g.order = rebuild_buf(eng, RB_ORDER, na1 * sizeof *g.order);
    g.cell_of = rebuild_buf(eng, RB_CELL_OF, na1 * sizeof *g.cell_of);
    g.cell_start = rebuild_buf(eng, RB_CELL_START, ((size_t)g.ncells + 1) * sizeof *g.cell_start);
    int *fill = rebuild_buf(eng, RB_FILL, ((size_t)g.ncells + 1) * sizeof *fill);
    eng->ilist = rebuild_buf(eng, RB_ILIST, nl1 * sizeof *eng->ilist);
    eng->local_orig = rebuild_buf(eng, RB_LOCAL_ORIG, nl1 * sizeof *eng->local_orig);
    if (!g.order || !g.cell_of || !g.cell_start || !fill || !eng->ilist || !eng->local_orig ||
        keep_copies(eng, x) != 0) {
        charmm_atoms_free(eng);
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    }
    cell_grid_sort(&g, natoms, x, fill);
    eng->order = g.order;
    double span = 0;
    for (int d = 0; d < 3; d++) {
        eng->grid[d] = g.n[d];
        eng->grid_lo[d] = g.lo[d];
        eng->grid_width[d] = g.width[d];
        eng->origin[d] = g.lo[d] + 0.5 * g.n[d] * g.width[d];
        span = fmax(span, g.n[d] * g.width[d]);
    }
    /* fixed-point step: a power of two whose 2^32 period covers the box plus
     * four list cutoffs (drift until the next rebuild, and the sentinel half
     * a period away stays out of every atom's reach); ~3e-8 A for 100 A */
    if (eng->params.precision == SCL_PREC_DOUBLE) {
        eng->unit = 1.0;
        eng->period = INFINITY;
    } else {
        eng->period = exp2(ceil(log2(span + 4.0 * eng->coeffs.cut_neigh)));
        eng->unit = eng->period / 4294967296.0;
    }
    int cap = estimate_capacity(eng, &g);
    if (cap > eng->capacity) /* lists only grow: the steady state settles quickly */
        eng->capacity = cap;
    s = upload_atoms(eng, &g, x, type, tag, nspecial, special, fn);
    /* (charmm_setup_chunks zeroes it before each build) */
    if (s == SCL_OK)
        s = charmm_stream_reserve(eng, &eng->overflow, "charmm list overflow", SCL_INT, 1, 0);
    eng->t_set_atoms_host += wall_now() - t0;
    eng->t_set_atoms_cpu += thread_cpu_now() - c0;
    if (s == SCL_OK) {
        int want = eng->plan_ready ? eng->nchunks : eng->params.chunks > 0 ? eng->params.chunks : 1;
        s = charmm_setup_chunks(eng, want < 1 ? 1 : want, fn);
    }
    if (s != SCL_OK) {
        charmm_atoms_free(eng);
        return s;
    }
    eng->have_atoms = 1;
    eng->stats.rebuilds++;
    eng->stats.t_neighbor += wall_now() - t0;
    return SCL_OK;
}

double charmm_set_atoms_host_seconds(const struct scl_charmm *eng, double *cpu)
{
    if (cpu)
        *cpu = eng ? eng->t_set_atoms_cpu : 0.0;
    return eng ? eng->t_set_atoms_host : 0.0;
}

/* ---------------------------------------------------------------- checks */

typedef struct {
    int j, kind;
} list_entry;

static int cmp_entry(const void *a, const void *b)
{
    const list_entry *x = a, *y = b;
    return x->j != y->j ? (x->j > y->j) - (x->j < y->j) : (x->kind > y->kind) - (x->kind < y->kind);
}

/* Pairs this close to the list cutoff may fall either way in float. */
static int borderline(const scl_charmm *eng, int i, int j)
{
    const double *x = eng->x_build;
    double d2 = 0;
    for (int k = 0; k < 3; k++)
        d2 += (x[3 * i + k] - x[3 * j + k]) * (x[3 * i + k] - x[3 * j + k]);
    return fabs(sqrt(d2) - eng->coeffs.cut_neigh) < 1e-4 * eng->coeffs.cut_neigh;
}

/* Mismatches between device list `dev` (n entries, caller's indices) and
 * brute force of local ii: positions from the copy of the caller's, tags
 * and specials from the host arrays set_atoms uploaded (binned tags, local
 * specials: the caller's data permuted on the host, not read back). */
static long compare_atom(const scl_charmm *eng, int ii, list_entry *dev, int n, list_entry *host)
{
    int i = eng->local_orig[ii], nh = 0;
    double cutsq = eng->coeffs.cut_neigh * eng->coeffs.cut_neigh;
    size_t ms = (size_t)(eng->maxspecial > 0 ? eng->maxspecial : 1);
    const int *ns = eng->maxspecial > 0 ? (const int *)eng->rebuild_buf[RB_NSPECIAL] + 3 * ii : NULL;
    const int64_t *sp = ns ? (const int64_t *)eng->rebuild_buf[RB_SPECIAL] + (size_t)ii * ms : NULL;
    const int64_t *tag_binned = eng->rebuild_buf[RB_TAG];
    for (int b = 0; b < eng->natoms; b++) {
        int j = eng->order[b];
        if (j == i)
            continue;
        double d2 = 0;
        for (int k = 0; k < 3; k++)
            d2 += (eng->x_build[3 * i + k] - eng->x_build[3 * j + k]) *
                  (eng->x_build[3 * i + k] - eng->x_build[3 * j + k]);
        if (d2 < cutsq)
            host[nh++] = (list_entry){j, charmm_special_kind(ns, sp, tag_binned[b])};
    }
    qsort(dev, (size_t)n, sizeof *dev, cmp_entry);
    qsort(host, (size_t)nh, sizeof *host, cmp_entry);
    long bad = 0;
    int a = 0, b = 0;
    while (a < n || b < nh) {
        int c = a == n ? 1 : b == nh ? -1 : cmp_entry(&dev[a], &host[b]);
        if (c == 0) {
            a++, b++;
        } else if (c < 0) {
            bad += dev[a].j >= eng->natoms || !borderline(eng, i, dev[a].j);
            a++;
        } else {
            bad += !borderline(eng, i, host[b].j);
            b++;
        }
    }
    return bad;
}

scl_status scl_charmm_check_neighbors(scl_charmm *eng, long *mismatches)
{
    static const char *fn = "scl_charmm_check_neighbors";
    if (!eng || !mismatches)
        return eng ? scl_fail(eng->ctx, SCL_ERR_ARGUMENT, fn, "mismatches is NULL")
                   : SCL_ERR_ARGUMENT;
    if (!eng->have_atoms || eng->pending)
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, fn,
                        "no atoms set, or a step is in flight");
    *mismatches = 0;
    int cap = eng->capacity, nl = eng->nlocal;
    int *counts = malloc((size_t)(nl + 1) * sizeof *counts);
    int *slots = NULL;
    list_entry *dev = malloc((size_t)(cap + 1) * sizeof *dev);
    list_entry *host = malloc((size_t)(eng->natoms + 1) * sizeof *host);
    scl_status s = SCL_OK;
    if (!counts || !dev || !host)
        s = scl_fail(eng->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    if (s == SCL_OK && nl > 0)
        s = scl_stream_read_range(eng->numnbr, 0, (size_t)nl, counts, 1, NULL);
    for (int c = 0; c < eng->nchunks && s == SCL_OK; c++) {
        const charmm_chunk *ch = &eng->chunks[c];
        if (ch->count == 0)
            continue;
        size_t nslots = (size_t)ch->count * (size_t)cap;
        free(slots);
        slots = malloc(nslots * sizeof *slots);
        scl_stream *buf = eng->streaming ? eng->shared_nbr : ch->nbr;
        if (!slots)
            s = scl_fail(eng->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
        if (s == SCL_OK && eng->streaming)
            s = charmm_enqueue_build(eng, ch, buf, NULL);
        if (s == SCL_OK)
            s = scl_stream_read_range(buf, 0, nslots, slots, 1, NULL);
        size_t stride = (size_t)ch->count * CHARMM_PAD;
        for (int a = 0; a < ch->count && s == SCL_OK; a++) {
            int ii = ch->first + a, n = counts[ii];
            int npad = (n + CHARMM_PAD - 1) / CHARMM_PAD * CHARMM_PAD;
            if (n < 0 || npad > cap) {
                (*mismatches)++;
                continue;
            }
            for (int k = 0; k < npad; k++) {
                int v = slots[(size_t)(k / CHARMM_PAD) * stride + (size_t)a * CHARMM_PAD +
                              k % CHARMM_PAD];
                int j = v & CHARMM_INDEX_MASK;
                if (k >= n) { /* padding must be the sentinel, nothing else */
                    *mismatches += v != eng->natoms;
                    continue;
                }
                dev[k] = (list_entry){j < eng->natoms ? eng->order[j] : eng->natoms + 1,
                                      (int)((unsigned)v >> CHARMM_KIND_SHIFT)};
            }
            *mismatches += compare_atom(eng, ii, dev, n, host);
        }
    }
    free(counts);
    free(slots);
    free(dev);
    free(host);
    return s;
}
