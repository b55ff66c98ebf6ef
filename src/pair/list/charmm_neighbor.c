/* The lists of the neighbor list object (charmm_nlist.h): chunk layout
 * within the device memory, the list build with overflow regrowth, and
 * pruning. Atom sets come from charmm_bins.c, which calls in here; this
 * file calls only the object's lifecycle (charmm_nlist.c). */
#include "pair/list/charmm_nlist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t stream_bytes(const scl_stream *s) { return s ? scl_stream_bytes(s) : 0; }

/* Device bytes held outside the neighbor lists (the engine's included). */
static size_t fixed_device_bytes(const charmm_nlist *nl)
{
    const scl_stream *all[] = {nl->x_raw,      nl->type_raw,    nl->tag_raw,       nl->nspecial,
                               nl->special,    nl->pos_build,   nl->type,          nl->tag,
                               nl->order_dev,  nl->ilist_dev,   nl->icell,         nl->cell_start,
                               nl->numnbr,     nl->numnbr_in,   nl->nspecial_front, nl->overflow,
                               nl->npairs,     nl->pos_prune_dev, nl->cell_of,  nl->rank,          nl->cell_count,
                               nl->local_count, nl->local_start, nl->box,          nl->check,
                               nl->arrival,
                               nl->tag_in,     nl->special_in,  nl->tag_check};
    size_t sum = nl->extra_bytes;
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        sum += stream_bytes(all[k]);
    return sum;
}

/* Drop the chunk layout but keep its list buffers in *keep (nkeep of them)
 * for reuse: a rebuild must not reallocate ~100 MB of lists every time. */
static void release_chunks(charmm_nlist *nl, scl_stream ***keep, int *nkeep)
{
    *keep = calloc(2 * (size_t)(nl->nchunks > 0 ? nl->nchunks : 1), sizeof **keep);
    *nkeep = 0;
    for (int c = 0; c < nl->nchunks; c++) {
        scl_stream *lists[2] = {nl->chunks[c].nbr, nl->chunks[c].nbr_in};
        for (int l = 0; l < 2; l++) {
            if (*keep && lists[l])
                (*keep)[(*nkeep)++] = lists[l];
            else
                scl_stream_free(lists[l]);
        }
    }
    free(nl->chunks);
    nl->chunks = NULL;
    nl->nchunks = 0;
}

/* A list buffer of at least slots ints: a kept one that is large enough, or
 * a new one with headroom (the list capacity and ghost counts drift). */
static scl_status chunk_buffer(charmm_nlist *nl, scl_stream **keep, int nkeep, size_t slots,
                               const char *label, scl_stream **out)
{
    for (int k = 0; k < nkeep; k++)
        if (keep[k] && scl_stream_count(keep[k]) >= slots) {
            *out = keep[k];
            keep[k] = NULL;
            return SCL_OK;
        }
    return scl_stream_create(nl->ctx, label, SCL_INT, slots + slots / 16 + 64, 1, 1, 0, out);
}

static void free_kept(scl_stream **keep, int nkeep)
{
    for (int k = 0; k < nkeep; k++)
        scl_stream_free(keep[k]);
    free(keep);
}

scl_status charmm_nlist_build(charmm_nlist *nl, const charmm_chunk *ch, scl_stream *nbr,
                              scl_event *ev)
{
    scl_kernel *k = nl->build;
    const scl_arg_stream streams[] = {
        {"pos", nl->pos_build},       {"tag", nl->tag},           {"ilist", nl->ilist_dev},
        {"icell", nl->icell},         {"cell_start", nl->cell_start},
        {"order", nl->order_dev},     {"nspecial", nl->nspecial},
        {"special", nl->special},     {"nbr", nbr},               {"numnbr", nl->numnbr},
        {"npairs", nl->npairs},       {"overflow", nl->overflow}};
    const scl_arg_int ints[] = {
        {"nx", nl->grid[0]},        {"ny", nl->grid[1]},           {"nz", nl->grid[2]},
        {"reach", CHARMM_CELL_REACH}, {"maxspecial", nl->maxspecial}, {"first", ch->first},
        {"count", ch->count},       {"capacity", nl->capacity},    {"sentinel", nl->natoms}};
    scl_status s = scl_kernel_bind(k, streams, sizeof streams / sizeof streams[0], ints,
                               sizeof ints / sizeof ints[0]);
    if (s == SCL_OK)
        s = scl_kernel_set_real(k, "cutsq", nl->coeffs->cut_neigh * nl->coeffs->cut_neigh);
    if (s == SCL_OK)
        s = scl_kernel_set_real(k, "unit", nl->unit);
    /* the cell grid relative to the packing origin, for the row clipping */
    double lo[4] = {nl->grid_lo[0] - nl->origin[0], nl->grid_lo[1] - nl->origin[1],
                    nl->grid_lo[2] - nl->origin[2], 0.0};
    double w[4] = {nl->grid_width[0], nl->grid_width[1], nl->grid_width[2], 0.0};
    if (s == SCL_OK)
        s = charmm_set_real4(k, "grid_lo", nl->pos_double, lo);
    if (s == SCL_OK)
        s = charmm_set_real4(k, "grid_width", nl->pos_double, w);
    double half[4] = {0, 0, 0, 0}; /* not periodic: no limit */
    for (int d = 0; d < 3; d++)
        half[d] = nl->half_box[d] > 0.0 ? nl->half_box[d] : 1e30;
    if (s == SCL_OK)
        s = charmm_set_real4(k, "half_box", nl->pos_double, half);
    /* whole atoms per work-group; local memory (src/pair/list/neighbor.cl): two
     * packed counts and CHARMM_BUILD_HITS scratch slots per work-item, two
     * row lengths per atom */
    size_t local = 64;
    while (local > scl_kernel_max_work_group(k) && local > (size_t)nl->lanes)
        local /= 2;
    size_t global = ((size_t)ch->count * (size_t)nl->lanes + local - 1) / local * local;
    if (s == SCL_OK)
        s = scl_kernel_set_local(k, "lane_count", 2 * local * sizeof(uint64_t));
    if (s == SCL_OK)
        s = scl_kernel_set_local(k, "row_length", 2 * (local / (size_t)nl->lanes) * sizeof(int));
    if (s == SCL_OK)
        s = scl_kernel_set_local(k, "scratch", local * CHARMM_BUILD_HITS * sizeof(int));
    return s == SCL_OK ? scl_kernel_launch(k, 1, &global, &local, ev) : s;
}

scl_status charmm_nlist_for_chunk(charmm_nlist *nl, int c, scl_stream **nbr, scl_stream **num,
                                  scl_stream **nspecial_front, int *sorted)
{
    const charmm_chunk *ch = &nl->chunks[c];
    *nbr = nl->streaming ? nl->shared_nbr : nl->prune ? ch->nbr_in : ch->nbr;
    *num = nl->prune ? nl->numnbr_in : nl->numnbr;
    *nspecial_front = nl->prune ? nl->nspecial_front : nl->numnbr;
    *sorted = nl->prune; /* inner lists hold their special pairs first */
    /* the list of this chunk does not stay resident */
    return nl->streaming ? charmm_nlist_build(nl, ch, *nbr, NULL) : SCL_OK;
}

scl_status charmm_nlist_prune(charmm_nlist *nl, scl_stream *pos, const void *pos_host)
{
    scl_kernel *k = nl->prune_k;
    double cut = sqrt(nl->coeffs->cut_forcesq) + nl->inner_skin;
    scl_status s = scl_kernel_set_real(k, "cutsq", cut * cut);
    if (s == SCL_OK)
        s = scl_kernel_set_real(k, "unit", nl->unit);
    /* nl->lanes work-items per atom, two counts each in local memory, and
     * the marks of 8 * CHARMM_PRUNE_ROWS slots per atom (16 KB at most) */
    size_t local = nl->lanes >= 4 ? 64 : 16 * (size_t)nl->lanes;
    while (local > scl_kernel_max_work_group(k) && local > (size_t)nl->lanes)
        local /= 2;
    if (s == SCL_OK)
        s = scl_kernel_set_local(k, "lane_count", 2 * local * sizeof(int));
    if (s == SCL_OK)
        s = scl_kernel_set_local(k, "marks",
                                 local / (size_t)nl->lanes * CHARMM_PRUNE_ROWS * CHARMM_PAD);
    for (int c = 0; c < nl->nchunks && s == SCL_OK; c++) {
        const charmm_chunk *ch = &nl->chunks[c];
        if (ch->count == 0)
            continue;
        const scl_arg_stream streams[] = {
            {"pos", pos},          {"ilist", nl->ilist_dev},     {"nbr", ch->nbr},
            {"numnbr", nl->numnbr}, {"nbr_in", ch->nbr_in},      {"numnbr_in", nl->numnbr_in},
            {"nspecial_front", nl->nspecial_front}};
        const scl_arg_int ints[] = {
            {"first", ch->first}, {"count", ch->count}, {"sentinel", nl->natoms}};
        s = scl_kernel_bind(k, streams, sizeof streams / sizeof streams[0], ints,
                        sizeof ints / sizeof ints[0]);
        size_t global = ((size_t)ch->count * (size_t)nl->lanes + local - 1) / local * local;
        if (s == SCL_OK)
            s = scl_kernel_launch(k, 1, &global, &local, NULL);
    }
    return s == SCL_OK ? charmm_nlist_prune_mark(nl, pos, pos_host) : s;
}

scl_status charmm_nlist_prune_mark(charmm_nlist *nl, scl_stream *pos, const void *pos_host)
{
    scl_status s = SCL_OK;
    /* the positions the inner lists hold for */
    size_t count = (size_t)nl->natoms + 1;
    size_t bytes = count * (nl->pos_double ? 32 : 16);
    if (s == SCL_OK && !pos_host) {
        s = charmm_stream_reserve(nl->ctx, &nl->pos_prune_dev, "charmm pruning positions",
                                  scl_stream_type(pos), count, 0);
        if (s == SCL_OK)
            s = scl_stream_copy(nl->pos_prune_dev, 0, pos, 0, count, NULL);
    } else if (s == SCL_OK) {
        if (nl->pos_prune_bytes < bytes) {
            free(nl->pos_prune);
            nl->pos_prune = malloc(bytes + bytes / 8);
            nl->pos_prune_bytes = nl->pos_prune ? bytes + bytes / 8 : 0;
            if (!nl->pos_prune)
                s = scl_fail(nl->ctx, SCL_ERR_MEMORY, "scl_charmm_compute", "out of host memory");
        }
        if (s == SCL_OK)
            memcpy(nl->pos_prune, pos_host, bytes);
    }
    if (s == SCL_OK) {
        nl->prune_valid = 1;
        nl->prunes++;
    }
    return s;
}

/* Invalidate the inner lists once some atom has moved inner_skin/2 since the
 * last prune: a pair then may have closed in by inner_skin, from outside the
 * inner list to inside the cutoff. Ghosts move with their atoms. */
void charmm_nlist_prune_check(charmm_nlist *nl, const void *pos_host)
{
    if (!nl->prune || !nl->prune_valid)
        return;
    const long n = nl->natoms;
    double max2 = 0;
    if (nl->pos_double) {
        const double *now = pos_host, *then = nl->pos_prune;
#pragma omp parallel for schedule(static) reduction(max : max2) if (n > 20000)
        for (long b = 0; b < n; b++) {
            double d2 = 0;
            for (int c = 0; c < 3; c++)
                d2 += (now[4 * b + c] - then[4 * b + c]) * (now[4 * b + c] - then[4 * b + c]);
            max2 = d2 > max2 ? d2 : max2;
        }
    } else { /* fixed point: the integer differences are exact (modular) */
        const uint32_t *now = pos_host, *then = nl->pos_prune;
#pragma omp parallel for schedule(static) reduction(max : max2) if (n > 20000)
        for (long b = 0; b < n; b++) {
            double d2 = 0;
            for (int c = 0; c < 3; c++) {
                double d = (double)(int32_t)(now[4 * b + c] - then[4 * b + c]);
                d2 += d * d;
            }
            max2 = d2 > max2 ? d2 : max2;
        }
        max2 *= nl->unit * nl->unit;
    }
    /* 1e-3 A to spare: the prune kernel compares float distances */
    double allowed = 0.5 * (nl->inner_skin - 1e-3);
    if (max2 >= allowed * allowed)
        nl->prune_valid = 0;
}

scl_status charmm_nlist_inner_slots(charmm_nlist *nl, long *slots)
{
    *slots = 0;
    if (!nl->prune || !nl->prune_valid || nl->nlocal <= 0)
        return SCL_OK;
    int *counts = malloc((size_t)nl->nlocal * sizeof *counts);
    if (!counts)
        return scl_fail(nl->ctx, SCL_ERR_MEMORY, "scl_charmm_stats_get", "out of host memory");
    scl_status s = scl_stream_read_range(nl->numnbr_in, 0, (size_t)nl->nlocal, counts, 1, NULL);
    /* in long: a list the current kernel kind does not use may hold INT_MAX */
    for (int i = 0; i < nl->nlocal && s == SCL_OK; i++)
        *slots += ((long)counts[i] + CHARMM_PAD - 1) / CHARMM_PAD * CHARMM_PAD;
    free(counts);
    return s;
}

/* Largest list buffer one chunk may have: one allocation, and (streaming)
 * whatever the budget leaves. */
static size_t max_chunk_atoms(const charmm_nlist *nl, size_t per_atom)
{
    size_t max_alloc = scl_device(nl->ctx)->max_alloc;
    if (max_alloc > nl->device_budget)
        max_alloc = nl->device_budget;
    return max_alloc / per_atom;
}

/* Lay out the chunks over the local atoms for the current capacity: whether
 * the lists stream (do not all fit) and are pruned, the chunk count (at
 * least nchunks, at least what fits), and each chunk's list buffers (kept
 * from the last layout where large enough). */
static scl_status layout_chunks(charmm_nlist *nl, int nchunks, const char *fn)
{
    scl_context *ctx = nl->ctx;
    scl_status s = SCL_OK;
    int nlocal = nl->nlocal;
    scl_stream **keep = NULL;
    int nkeep = 0;
    release_chunks(nl, &keep, &nkeep);
    size_t per_atom = (size_t)nl->capacity * sizeof(int);
    size_t fixed = fixed_device_bytes(nl);
    size_t chunk_max = max_chunk_atoms(nl, per_atom);
    if (fixed >= nl->device_budget || chunk_max < 64) {
        free_kept(keep, nkeep);
        return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn,
                        "%d local + %d ghost atoms with %d list slots each do not fit %zu "
                        "bytes of device memory even in chunks of 64 atoms (%zu bytes "
                        "are needed outside the lists)",
                        nl->nlocal, nl->nghost, nl->capacity, nl->device_budget, fixed);
    }
    size_t list_bytes = (size_t)nlocal * per_atom;
    nl->min_chunks = (int)((size_t)nlocal / chunk_max + ((size_t)nlocal % chunk_max != 0));
    if (nl->min_chunks < 1)
        nl->min_chunks = 1;
    int n = nchunks > nl->min_chunks ? nchunks : nl->min_chunks;
    if (n > nlocal)
        n = nlocal > 0 ? nlocal : 1;
    nl->streaming = fixed + list_bytes > nl->device_budget;
    /* pruning needs the inner lists beside the full ones */
    nl->prune = nl->inner_skin > 0.0 && fixed + 2 * list_bytes <= nl->device_budget;
    nl->prune_valid = 0;
    if (nl->streaming) { /* one shared buffer: chunks small enough for what is left */
        size_t left_atoms = (nl->device_budget - fixed) / per_atom;
        if (left_atoms < (size_t)chunk_max)
            chunk_max = left_atoms;
        if (chunk_max < 64) {
            free_kept(keep, nkeep);
            return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn,
                            "neighbor lists of %d atoms x %d slots do not fit %zu bytes of "
                            "device memory even one chunk of 64 atoms at a time",
                            nlocal, nl->capacity, nl->device_budget);
        }
        int need = (int)((size_t)nlocal / chunk_max + ((size_t)nlocal % chunk_max != 0));
        if (n < need)
            n = need;
    }
    if (nl->streaming) { /* memory is tight: nothing kept */
        free_kept(keep, nkeep);
        keep = NULL;
        nkeep = 0;
    } else {
        scl_stream_free(nl->shared_nbr);
        nl->shared_nbr = NULL;
    }
    nl->chunks = calloc((size_t)n, sizeof *nl->chunks);
    if (!nl->chunks) {
        free_kept(keep, nkeep);
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    }
    nl->nchunks = n;
    int per = (nlocal + n - 1) / n;
    size_t per_slots = (size_t)(per > 0 ? per : 1) * (size_t)nl->capacity;
    for (int k = 0; k < nkeep; k++) /* too small for any chunk: free before allocating */
        if (keep[k] && scl_stream_count(keep[k]) < per_slots) {
            scl_stream_free(keep[k]);
            keep[k] = NULL;
        }
    for (int c = 0; c < n; c++) {
        charmm_chunk *ch = &nl->chunks[c];
        ch->first = c * per < nlocal ? c * per : nlocal;
        int end = (c + 1) * per < nlocal ? (c + 1) * per : nlocal;
        ch->count = end - ch->first;
        if (nl->streaming)
            continue;
        s = chunk_buffer(nl, keep, nkeep, per_slots, "charmm neighbor list", &ch->nbr);
        if (s == SCL_OK && nl->prune)
            s = chunk_buffer(nl, keep, nkeep, per_slots, "charmm inner neighbor list",
                             &ch->nbr_in);
        if (s != SCL_OK) {
            free_kept(keep, nkeep);
            return s;
        }
    }
    free_kept(keep, nkeep);
    if (nl->streaming && (!nl->shared_nbr || scl_stream_count(nl->shared_nbr) < per_slots)) {
        scl_stream_free(nl->shared_nbr);
        nl->shared_nbr = NULL;
        s = scl_stream_create(ctx, "charmm neighbor list (shared)", SCL_INT, per_slots, 1, 1,
                              0, &nl->shared_nbr);
        if (s != SCL_OK)
            return s;
    }
    return SCL_OK;
}

scl_status charmm_nlist_chunks(charmm_nlist *nl, int nchunks, int wait, const char *fn)
{
    if (nl->overflow_pending) { /* superseded by this build */
        scl_event_wait(nl->ctx, nl->overflow_ev);
        scl_event_release(nl->overflow_ev);
        nl->overflow_pending = 0;
    }
    scl_context *ctx = nl->ctx;
    scl_status s = SCL_OK;
    for (;;) {
        s = layout_chunks(nl, nchunks, fn);
        if (s != SCL_OK)
            return s;
        int n = nl->nchunks;
        if (nl->lists_off)
            break;
        int zero = 0;
        s = scl_stream_fill_range(nl->overflow, 0, 1, &zero, NULL);
        for (int c = 0; c < n && s == SCL_OK; c++)
            if (nl->chunks[c].count > 0)
                s = charmm_nlist_build(nl, &nl->chunks[c],
                                         nl->streaming ? nl->shared_nbr : nl->chunks[c].nbr,
                                         NULL);
        if (s == SCL_OK && !wait) { /* the common path: no round trip here */
            s = scl_stream_read_range(nl->overflow, 0, 1, &nl->overflow_host, 0,
                                      &nl->overflow_ev);
            nl->overflow_pending = s == SCL_OK;
            break;
        }
        int overflow = 0;
        if (s == SCL_OK)
            s = scl_stream_read_range(nl->overflow, 0, 1, &overflow, 1, NULL);
        if (s != SCL_OK)
            return s;
        if (overflow <= nl->capacity)
            break;
        /* regrow with headroom and rebuild: never truncate */
        long grown = ((long)overflow + overflow / 8 + CHARMM_PAD + CHARMM_PAD - 1) / CHARMM_PAD *
                     CHARMM_PAD;
        if (grown > CHARMM_INDEX_MASK)
            return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn, "an atom has %d neighbors", overflow);
        nl->capacity = (int)grown;
        nl->rebuilds++;
    }
    nl->neighbors = nl->lists_off ? 0 : -1; /* counted when asked (charmm_nlist_count) */
    return s;
}

scl_status charmm_nlist_settle(charmm_nlist *nl, int *rebuilt, const char *fn)
{
    *rebuilt = 0;
    if (!nl->overflow_pending)
        return SCL_OK;
    scl_status s = scl_event_wait(nl->ctx, nl->overflow_ev);
    scl_event_release(nl->overflow_ev);
    nl->overflow_pending = 0;
    if (s != SCL_OK || nl->overflow_host <= nl->capacity)
        return s;
    /* regrow with headroom and rebuild, waiting this time: never truncate */
    long grown = ((long)nl->overflow_host + nl->overflow_host / 8 + 2 * CHARMM_PAD - 1) /
                 CHARMM_PAD * CHARMM_PAD;
    if (grown > CHARMM_INDEX_MASK)
        return scl_fail(nl->ctx, SCL_ERR_TOO_LARGE, fn, "an atom has %d neighbors",
                        nl->overflow_host);
    nl->capacity = (int)grown;
    nl->rebuilds++;
    *rebuilt = 1;
    return charmm_nlist_chunks(nl, nl->nchunks, 1, fn);
}

scl_status charmm_nlist_count(charmm_nlist *nl, long *pairs)
{
    int rebuilt;
    scl_status st = charmm_nlist_settle(nl, &rebuilt, "charmm neighbor count");
    if (st != SCL_OK)
        return st;
    if (nl->neighbors < 0 && nl->nlocal > 0) {
        int *counts = malloc((size_t)nl->nlocal * sizeof *counts);
        if (!counts)
            return scl_fail(nl->ctx, SCL_ERR_MEMORY, "charmm neighbor count", "out of host memory");
        scl_status s = scl_stream_read_range(nl->npairs, 0, (size_t)nl->nlocal, counts, 1, NULL);
        long total = 0;
        for (int i = 0; i < nl->nlocal && s == SCL_OK; i++)
            total += counts[i];
        free(counts);
        if (s != SCL_OK)
            return s;
        nl->neighbors = total;
    }
    *pairs = nl->neighbors > 0 ? nl->neighbors : 0;
    return SCL_OK;
}

