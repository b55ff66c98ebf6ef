/* Atom sets of the neighbor list object: binning on the device (fp64
 * devices, src/pair/list/charmm_bin.cl: the host only copies the caller's arrays up) or
 * on the host (cell_grid.c, then the binned arrays go up), the fixed-point
 * frame, and the list build. */
#include "pair/list/charmm_nlist.h"

#include <limits.h>
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

/* Initial list capacity: the density estimate of neighbors within the list
 * cutoff, with headroom; overflow regrows it if the system is inhomogeneous. */
static int estimate_capacity(const charmm_nlist *nl, const cell_grid *g)
{
    if (nl->neighbor_capacity > 0)
        return (nl->neighbor_capacity + CHARMM_PAD - 1) / CHARMM_PAD * CHARMM_PAD;
    double volume = 1.0;
    for (int d = 0; d < 3; d++)
        volume *= g->n[d] * g->width[d];
    double rc = nl->coeffs->cut_neigh;
    double expected = nl->natoms / volume * (4.0 / 3.0) * 3.14159265358979 * rc * rc * rc;
    double want = 1.3 * expected + 16;
    if (want > nl->natoms + CHARMM_PAD)
        want = nl->natoms + CHARMM_PAD;
    return ((int)want + CHARMM_PAD - 1) / CHARMM_PAD * CHARMM_PAD;
}

/* The device streams of the caller's arrays (both binning paths): x,
 * 0-based (host binning) or the caller's (device binning) types, special
 * counts, 64-bit tags and special tags; with device binning also the
 * caller's tags and special tags as given (tag_bytes wide). */
static scl_status reserve_raw(charmm_nlist *nl, const scl_charmm_atoms *a)
{
    scl_context *ctx = nl->ctx;
    size_t n = (size_t)nl->natoms, nloc = (size_t)nl->nlocal;
    size_t ms = (size_t)(nl->maxspecial > 0 ? nl->maxspecial : 1);
    int has_sp = a->nspecial != NULL;
    scl_status s = charmm_stream_reserve(ctx, &nl->x_raw, "charmm caller positions (list)",
                                         SCL_DOUBLE, 3 * n + 3, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &nl->type_raw, "charmm caller types", SCL_INT, n, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &nl->tag_raw, "charmm caller tags", SCL_LONG,
                                  a->tag ? n : 1, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &nl->nspecial, "charmm special counts", SCL_INT,
                                  has_sp ? 3 * nloc : 1, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &nl->special, "charmm special tags", SCL_LONG,
                                  has_sp ? nloc * ms : 1, 0);
    if (!nl->device_bins)
        return s;
    scl_type tt = a->tag_bytes == 4 ? SCL_INT : SCL_LONG;
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &nl->tag_in, "charmm caller tags (as given)", tt,
                                  a->tag ? n : 1, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &nl->special_in, "charmm special tags (as given)", tt,
                                  has_sp ? nloc * ms : 1, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &nl->tag_check, "charmm tag check", SCL_INT, 1, 0);
    return s;
}

/* Host binning: the caller's arrays in the engine's own form (0-based int
 * types, 64-bit tags and special tags), converted on the host where they
 * are not already (this path serves devices without fp64 and host_pack). */
static scl_status host_form(charmm_nlist *nl, const scl_charmm_atoms *a, const int **type,
                            const int64_t **tag, const int64_t **special, const char *fn)
{
    size_t n = (size_t)nl->natoms, nsp = (size_t)nl->nlocal * (size_t)nl->maxspecial;
    *type = a->type;
    *tag = a->tag;
    *special = a->special;
    if (a->type_base != 0) {
        int *t = charmm_nlist_buf(nl, RB_IN_TYPE, n * sizeof *t);
        if (!t)
            return scl_fail(nl->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
        for (size_t i = 0; i < n; i++)
            t[i] = a->type[i] - a->type_base; /* checked before */
        *type = t;
    }
    if (a->tag_bytes == 8)
        return SCL_OK;
    int64_t *tg = a->tag ? charmm_nlist_buf(nl, RB_IN_TAG, n * sizeof *tg) : NULL;
    int64_t *sp = nsp ? charmm_nlist_buf(nl, RB_IN_SPECIAL, nsp * sizeof *sp) : NULL;
    if ((a->tag && !tg) || (nsp && !sp))
        return scl_fail(nl->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    for (size_t i = 0; tg && i < n; i++)
        tg[i] = charmm_tag_at(a->tag, 4, i);
    for (size_t k = 0; sp && k < nsp; k++)
        sp[k] = charmm_tag_at(a->special, 4, k);
    *tag = tg;
    *special = nsp ? sp : NULL;
    return SCL_OK;
}

/* Host binning: upload the caller's arrays in the engine's form, without
 * waiting (the caller keeps them unchanged until the next finish; the
 * converted copies live in the kept rebuild buffers). */
static scl_status upload_host_form(charmm_nlist *nl, const scl_charmm_atoms *a, const int *type,
                                   const int64_t *tag, const int64_t *special)
{
    size_t n = (size_t)nl->natoms, nloc = (size_t)nl->nlocal, ms = (size_t)nl->maxspecial;
    scl_status s = SCL_OK;
    if (n > 0)
        s = scl_stream_write_range(nl->x_raw, 0, 3 * n, a->x, 0, NULL);
    if (s == SCL_OK && n > 0)
        s = scl_stream_write_range(nl->type_raw, 0, n, type, 0, NULL);
    if (s == SCL_OK && n > 0 && tag)
        s = scl_stream_write_range(nl->tag_raw, 0, n, tag, 0, NULL);
    if (s == SCL_OK && nloc > 0 && a->nspecial)
        s = scl_stream_write_range(nl->nspecial, 0, 3 * nloc, a->nspecial, 0, NULL);
    if (s == SCL_OK && nloc > 0 && a->nspecial && ms > 0)
        s = scl_stream_write_range(nl->special, 0, nloc * ms, special, 0, NULL);
    return s;
}

/* Device binning: where the caller's arrays go up from. */
enum { IN_X, IN_TYPE, IN_NSPECIAL, IN_TAG, IN_SPECIAL, IN_COUNT };

static size_t align64(size_t b) { return (b + 63) & ~(size_t)63; }

/* Device binning: the sources of the uploads of the caller's arrays: its own
 * memory where the device reads it cheaply (charmm_direct_upload), else a
 * copy in pinned staging made on host_threads threads (on discrete GPUs a
 * write from pageable memory is staged by the driver on the calling thread,
 * at a fraction of the copy bandwidth). Only the rows of the local atoms of
 * nspecial and special are read. */
static scl_status stage_inputs(charmm_nlist *nl, const scl_charmm_atoms *a,
                               const void *src[IN_COUNT])
{
    size_t n = (size_t)nl->natoms, nloc = (size_t)nl->nlocal, tb = (size_t)a->tag_bytes;
    size_t ms = (size_t)nl->maxspecial;
    size_t bytes[IN_COUNT] = {3 * n * sizeof(double), n * sizeof(int), 0, 0, 0};
    bytes[IN_NSPECIAL] = a->nspecial ? 3 * nloc * sizeof(int) : 0;
    bytes[IN_TAG] = a->tag ? n * tb : 0;
    bytes[IN_SPECIAL] = a->nspecial ? nloc * ms * tb : 0;
    const void *from[IN_COUNT] = {a->x, a->type, a->nspecial, a->tag, a->special};
    for (int k = 0; k < IN_COUNT; k++)
        src[k] = from[k];
    if (nl->direct_upload)
        return SCL_OK;
    size_t off[IN_COUNT], total = 0;
    for (int k = 0; k < IN_COUNT; k++) {
        off[k] = total;
        total += align64(bytes[k]);
    }
    void *base;
    scl_status s = charmm_stage_reserve(nl->ctx, &nl->stage, total, &base);
    if (s != SCL_OK)
        return s;
    charmm_copy c[IN_COUNT];
    int m = 0;
    for (int k = 0; k < IN_COUNT; k++) {
        src[k] = (char *)base + off[k];
        if (bytes[k])
            c[m++] = (charmm_copy){(char *)base + off[k], from[k], bytes[k]};
    }
    charmm_copy_parallel(c, m, nl->host_threads);
    return SCL_OK;
}

/* Device binning, the first uploads: what the bounds kernel reads. */
static scl_status upload_first(charmm_nlist *nl, const void *src[IN_COUNT], int has_special)
{
    size_t n = (size_t)nl->natoms, nloc = (size_t)nl->nlocal;
    scl_status s = SCL_OK;
    if (n > 0)
        s = scl_stream_write_range(nl->x_raw, 0, 3 * n, src[IN_X], 0, NULL);
    if (s == SCL_OK && n > 0)
        s = scl_stream_write_range(nl->type_raw, 0, n, src[IN_TYPE], 0, NULL);
    if (s == SCL_OK && nloc > 0 && has_special)
        s = scl_stream_write_range(nl->nspecial, 0, 3 * nloc, src[IN_NSPECIAL], 0, NULL);
    return s;
}

/* Device binning, beside the bounds: the tags and special tags as given,
 * widened and checked by src/pair/list/charmm_atoms.cl (its counts clamped: bin_bounds
 * checks them); the check comes back without waiting
 * (charmm_nlist_tags_settle). */
static scl_status upload_tags(charmm_nlist *nl, const scl_charmm_atoms *a,
                              const void *src[IN_COUNT])
{
    size_t n = (size_t)nl->natoms, nloc = (size_t)nl->nlocal, ms = (size_t)nl->maxspecial;
    int wide = a->tag_bytes == 8;
    scl_kernel **k = &nl->tags_k[wide];
    scl_status s = SCL_OK;
    if (!*k) {
        s = scl_kernel_create(nl->ctx, "charmm_atoms", "atoms_tags",
                              wide ? "-DTAG_BYTES=8" : "-DTAG_BYTES=4", k);
        if (s == SCL_OK)
            scl_kernel_set_label(*k, "charmm binning");
    }
    if (s == SCL_OK && n > 0 && a->tag)
        s = scl_stream_write_range(nl->tag_in, 0, n, src[IN_TAG], 0, NULL);
    if (s == SCL_OK && nloc > 0 && ms > 0)
        s = scl_stream_write_range(nl->special_in, 0, nloc * ms, src[IN_SPECIAL], 0, NULL);
    int big = INT_MAX;
    if (s == SCL_OK)
        s = scl_stream_fill_range(nl->tag_check, 0, 1, &big, NULL);
    const scl_arg_stream streams[] = {{"tag_in", nl->tag_in},         {"tag_out", nl->tag_raw},
                                         {"nspecial", nl->nspecial},     {"special_in", nl->special_in},
                                         {"special_out", nl->special},   {"bad", nl->tag_check}};
    const scl_arg_int ints[] = {{"n", nl->natoms},
                                   {"has_tag", a->tag != NULL},
                                   {"nlocal", nl->nlocal},
                                   {"maxspecial", nl->maxspecial}};
    if (s == SCL_OK)
        s = scl_kernel_bind(*k, streams, sizeof streams / sizeof streams[0], ints,
                        sizeof ints / sizeof ints[0]);
    size_t local = 64, global = (n + local - 1) / local * local;
    if (s == SCL_OK && n > 0)
        s = scl_kernel_launch(*k, 1, &global, &local, NULL);
    if (s == SCL_OK) {
        s = scl_stream_read_range(nl->tag_check, 0, 1, &nl->tag_check_host, 0,
                                  &nl->tag_check_ev);
        nl->tag_check_pending = s == SCL_OK;
    }
    return s;
}

/* Binned arrays the build reads (both binning paths). */
static scl_status reserve_binned(charmm_nlist *nl, int ncells)
{
    scl_context *ctx = nl->ctx;
    size_t na = (size_t)nl->natoms + 1, nli = (size_t)(nl->nlocal > 0 ? nl->nlocal : 1);
    scl_type pos_t = nl->pos_double ? SCL_DOUBLE4 : SCL_INT4;
    scl_status s = SCL_OK;
#define RESERVE(field, label, t, count)                                                          \
    if (s == SCL_OK)                                                                             \
    s = charmm_stream_reserve(ctx, &nl->field, label, t, count, 0)
    RESERVE(pos_build, "charmm list positions", pos_t, na);
    RESERVE(type, "charmm types", SCL_INT, na);
    RESERVE(tag, "charmm tags", SCL_LONG, na);
    RESERVE(order_dev, "charmm binned order", SCL_INT, na);
    RESERVE(ilist_dev, "charmm local atoms", SCL_INT, nli);
    RESERVE(icell, "charmm atom cells", SCL_INT, nli);
    RESERVE(cell_start, "charmm cell starts", SCL_INT, (size_t)ncells + 1);
    RESERVE(numnbr, "charmm neighbor counts", SCL_INT, nli);
    RESERVE(npairs, "charmm neighbor pair counts", SCL_INT, nli);
    RESERVE(numnbr_in, "charmm inner neighbor counts", SCL_INT, nl->inner_skin > 0.0 ? nli : 1);
    RESERVE(nspecial_front, "charmm inner special counts", SCL_INT,
            nl->inner_skin > 0.0 ? nli : 1);
    RESERVE(overflow, "charmm list overflow", SCL_INT, 1);
#undef RESERVE
    return s;
}

/* Host binning: sort on the host, upload the binned arrays. */
static scl_status host_bins(charmm_nlist *nl, cell_grid *g, const double *x, const int *type,
                            const int64_t *tag, const char *fn)
{
    char err[512];
    int n = nl->natoms, nloc = nl->nlocal;
    scl_status s = charmm_check_atoms(n, x, type, nl->coeffs->ntypes, err, sizeof err);
    if (s != SCL_OK)
        return scl_fail(nl->ctx, s, fn, "%s", err);

    cell_grid_layout(g, n, x, nl->coeffs->cut_neigh / CHARMM_CELL_REACH);
    size_t na1 = (size_t)n + 1, nl1 = (size_t)nloc + 1;
    g->order = charmm_nlist_buf(nl, RB_ORDER, na1 * sizeof *g->order);
    g->cell_of = charmm_nlist_buf(nl, RB_CELL_OF, na1 * sizeof *g->cell_of);
    g->cell_start = charmm_nlist_buf(nl, RB_CELL_START, ((size_t)g->ncells + 1) * sizeof(int));
    int *fill = charmm_nlist_buf(nl, RB_FILL, ((size_t)g->ncells + 1) * sizeof *fill);
    nl->ilist = charmm_nlist_buf(nl, RB_ILIST, nl1 * sizeof *nl->ilist);
    int *type_s = charmm_nlist_buf(nl, RB_TYPE, na1 * sizeof *type_s);
    int64_t *tag_s = charmm_nlist_buf(nl, RB_TAG, na1 * sizeof *tag_s);
    int *icell = charmm_nlist_buf(nl, RB_ICELL, nl1 * sizeof *icell);
    if (!g->order || !g->cell_of || !g->cell_start || !fill || !nl->ilist || !type_s || !tag_s ||
        !icell)
        return scl_fail(nl->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    cell_grid_sort(g, n, x, fill);
    nl->order = g->order;
    /* one pass in binned order: types, tags, and the local slots (in binned
     * order, so ii grows with b) with their cells */
    for (int b = 0, ii = 0; b < n; b++) {
        int o = g->order[b];
        type_s[b] = type[o];
        tag_s[b] = tag ? tag[o] : o;
        if (o < nloc) {
            nl->ilist[ii] = b;
            icell[ii++] = g->cell_of[o];
        }
    }
    type_s[n] = 0; /* the sentinel */
    tag_s[n] = -1;
    return SCL_OK;
}

/* Device binning, first half: the caller's arrays go up, the bounding box
 * (bbox: lo, hi) and the input checks come back (the grid's size decides
 * the allocations). */
static scl_status device_box(charmm_nlist *nl, const scl_charmm_atoms *a, double bbox[6],
                             const char *fn)
{
    const void *src[IN_COUNT];
    scl_status s = stage_inputs(nl, a, src);
    if (s == SCL_OK)
        s = upload_first(nl, src, a->nspecial != NULL);
    if (s != SCL_OK)
        return s;
    scl_context *ctx = nl->ctx;
    int n = nl->natoms, nloc = nl->nlocal;
    /* bounds: work-groups of 256 with ~8 atoms a work-item, at most 256 */
    size_t wg = 256;
    if (wg > scl_kernel_max_work_group(nl->bounds))
        wg = scl_kernel_max_work_group(nl->bounds);
    size_t groups = ((size_t)n + 8 * wg - 1) / (8 * wg);
    groups = groups < 1 ? 1 : groups > 256 ? 256 : groups;
    size_t bglobal = groups * wg;
    s = charmm_stream_reserve(ctx, &nl->box, "charmm bounding box", SCL_DOUBLE, 6 * groups, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &nl->check, "charmm binning checks", SCL_INT, 8, 0);
    int big = INT_MAX, zero = 0;
    if (s == SCL_OK)
        s = scl_stream_fill_range(nl->check, 0, 4, &big, NULL);
    if (s == SCL_OK)
        s = scl_stream_fill_range(nl->check, 4, 4, &zero, NULL);
    const scl_arg_stream bstreams[] = {{"x", nl->x_raw},       {"type", nl->type_raw},
                                          {"nspecial", nl->nspecial}, {"box", nl->box},
                                          {"check", nl->check}};
    const scl_arg_int bints[] = {{"n", n},
                                    {"type_base", a->type_base},
                                    {"ntypes", nl->coeffs->ntypes},
                                    {"has_special", a->nspecial != NULL},
                                    {"nlocal", nloc},
                                    {"maxspecial", nl->maxspecial}};
    if (s == SCL_OK)
        s = scl_kernel_bind(nl->bounds, bstreams, sizeof bstreams / sizeof bstreams[0], bints,
                        sizeof bints / sizeof bints[0]);
    if (s == SCL_OK)
        s = scl_kernel_set_local(nl->bounds, "scratch", 6 * wg * sizeof(double));
    if (s == SCL_OK)
        s = scl_kernel_launch(nl->bounds, 1, &bglobal, &wg, NULL);
    double box[6 * 256];
    int check[3];
    scl_event box_ev = NULL;
    if (s == SCL_OK)
        s = scl_stream_read_range(nl->check, 0, 3, check, 0, NULL);
    if (s == SCL_OK)
        s = scl_stream_read_range(nl->box, 0, 6 * groups, box, 0, &box_ev);
    /* the tags and specials go up while the device finds the box: the
     * driver's host side of their writes overlaps the wait for it */
    if (s == SCL_OK)
        s = upload_tags(nl, a, src);
    if (s == SCL_OK)
        s = scl_flush(ctx);
    if (box_ev) {
        scl_status w = scl_event_wait(ctx, box_ev);
        scl_event_release(box_ev);
        s = s == SCL_OK ? w : s;
    }
    if (s != SCL_OK) {
        scl_finish(ctx); /* check and box are targets of reads in flight */
        return s;
    }
    for (size_t b = 1; b < groups; b++) /* the work-groups' extremes (exact, any order) */
        for (int d = 0; d < 3; d++) {
            box[d] = box[6 * b + d] < box[d] ? box[6 * b + d] : box[d];
            box[3 + d] = box[6 * b + 3 + d] > box[3 + d] ? box[6 * b + 3 + d] : box[3 + d];
        }
    if (check[0] != INT_MAX || check[1] != INT_MAX || check[2] != INT_MAX) {
        /* the host checks again for their messages (error path only) */
        char err[512] = "bad input";
        s = charmm_check_atom_arrays(a, nl->coeffs->ntypes, err, sizeof err);
        return scl_fail(ctx, s == SCL_OK ? SCL_ERR_INPUT : s, fn, "%s", err);
    }
    memcpy(bbox, box, 6 * sizeof *bbox);
    return SCL_OK;
}

/* Device binning, second half (queued): cells, cell starts, the binned
 * order and the binned arrays over grid g. */
static scl_status device_sort(charmm_nlist *nl, const cell_grid *g, const scl_charmm_atoms *a)
{
    scl_context *ctx = nl->ctx;
    int n = nl->natoms, nloc = nl->nlocal, zero = 0;
    scl_status s = SCL_OK;
    size_t nc = (size_t)g->ncells, na = (size_t)n + 1;
#define RESERVE(field, label, count)                                                             \
    if (s == SCL_OK)                                                                             \
    s = charmm_stream_reserve(ctx, &nl->field, label, SCL_INT, count, 0)
    RESERVE(cell_of, "charmm binning cells", na);
    RESERVE(rank, "charmm binning ranks", na);
    RESERVE(arrival, "charmm binning arrival order", na);
    RESERVE(cell_count, "charmm binning counts", nc);
    RESERVE(local_count, "charmm binning local counts", nc);
    RESERVE(local_start, "charmm binning local starts", nc + 1);
#undef RESERVE
    if (s == SCL_OK)
        s = reserve_binned(nl, g->ncells);
    if (s == SCL_OK)
        s = scl_stream_fill_range(nl->cell_count, 0, nc, &zero, NULL);
    if (s == SCL_OK)
        s = scl_stream_fill_range(nl->local_count, 0, nc, &zero, NULL);
    /* cells */
    scl_kernel *k = nl->count;
    const scl_arg_stream cstreams[] = {{"x", nl->x_raw},
                                          {"cell_of", nl->cell_of},
                                          {"rank", nl->rank},
                                          {"count", nl->cell_count},
                                          {"local_count", nl->local_count}};
    const scl_arg_int cints[] = {{"n", n},          {"nlocal", nloc},    {"nx", g->n[0]},
                                    {"ny", g->n[1]},   {"nz", g->n[2]}};
    if (s == SCL_OK)
        s = scl_kernel_bind(k, cstreams, sizeof cstreams / sizeof cstreams[0], cints,
                        sizeof cints / sizeof cints[0]);
    const char *lo_names[3] = {"lo_x", "lo_y", "lo_z"}, *w_names[3] = {"width_x", "width_y",
                                                                      "width_z"};
    for (int d = 0; d < 3 && s == SCL_OK; d++) {
        s = scl_kernel_set_double(k, lo_names[d], g->lo[d]);
        if (s == SCL_OK)
            s = scl_kernel_set_double(k, w_names[d], g->width[d]);
    }
    size_t local = 64, global = (size_t)(n > 0 ? n : 1);
    if (s == SCL_OK)
        s = scl_kernel_launch(k, 1, &global, &local, NULL);
    /* cell starts */
    const scl_arg_stream sstreams[] = {{"count", nl->cell_count},
                                          {"local_count", nl->local_count},
                                          {"cell_start", nl->cell_start},
                                          {"local_start", nl->local_start}};
    const scl_arg_int sints[] = {{"ncells", g->ncells}, {"cluster_size", 0}};
    size_t swg = 1024; /* one work-group walks the cells: a wide one */
    if (swg > scl_kernel_max_work_group(nl->scan))
        swg = scl_kernel_max_work_group(nl->scan);
    if (s == SCL_OK)
        s = scl_kernel_bind(nl->scan, sstreams, 4, sints, 2);
    if (s == SCL_OK)
        s = scl_kernel_set_local(nl->scan, "sa", swg * sizeof(int));
    if (s == SCL_OK)
        s = scl_kernel_set_local(nl->scan, "sb", swg * sizeof(int));
    if (s == SCL_OK)
        s = scl_kernel_launch(nl->scan, 1, &swg, &swg, NULL);
    /* order */
    const scl_arg_stream pstreams[] = {{"cell_of", nl->cell_of},
                                          {"rank", nl->rank},
                                          {"cell_start", nl->cell_start},
                                          {"order", nl->arrival}};
    const scl_arg_int pints[] = {{"n", n}};
    if (s == SCL_OK)
        s = scl_kernel_bind(nl->scatter, pstreams, 4, pints, 1);
    if (s == SCL_OK)
        s = scl_kernel_launch(nl->scatter, 1, &global, &local, NULL);
    const scl_arg_stream ostreams[] = {{"cell_of", nl->cell_of},
                                          {"cell_start", nl->cell_start},
                                          {"arrival", nl->arrival},
                                          {"order", nl->order_dev}};
    if (s == SCL_OK)
        s = scl_kernel_bind(nl->sort, ostreams, 4, pints, 1);
    if (s == SCL_OK)
        s = scl_kernel_launch(nl->sort, 1, &global, &local, NULL);
    /* binned arrays */
    const scl_arg_stream gstreams[] = {
        {"order", nl->order_dev},     {"cell_of", nl->cell_of}, {"cell_start", nl->cell_start},
        {"local_start", nl->local_start}, {"type", nl->type_raw}, {"tag", nl->tag_raw},
        {"type_binned", nl->type},    {"tag_binned", nl->tag},  {"ilist", nl->ilist_dev},
        {"icell", nl->icell}};
    const scl_arg_int gints[] = {{"n", n},
                                    {"nlocal", nloc},
                                    {"type_base", a->type_base},
                                    {"has_tag", a->tag != NULL}};
    size_t aglobal = na;
    if (s == SCL_OK)
        s = scl_kernel_bind(nl->gather, gstreams, sizeof gstreams / sizeof gstreams[0], gints,
                        sizeof gints / sizeof gints[0]);
    if (s == SCL_OK)
        s = scl_kernel_launch(nl->gather, 1, &aglobal, &local, NULL);
    return s;
}


/* Device binning (src/pair/list/charmm_bin.cl): the box comes back first,
 * the rest is queued. */
static scl_status device_bins(charmm_nlist *nl, cell_grid *g, const scl_charmm_atoms *a,
                              const char *fn)
{
    double box[6];
    scl_status s = device_box(nl, a, box, fn);
    if (s != SCL_OK)
        return s;
    int n = nl->natoms;
    double lo[3] = {box[0], box[1], box[2]}, hi[3] = {box[3], box[4], box[5]};
    if (n == 0)
        memset(lo, 0, sizeof lo), memset(hi, 0, sizeof hi);
    cell_grid_layout_box(g, n, lo, hi, nl->coeffs->cut_neigh / CHARMM_CELL_REACH);
    return device_sort(nl, g, a);
}

/* The list positions: the pack kernel on the device, else the host packing. */
static scl_status pack_build_positions(charmm_nlist *nl, const double *x, const char *fn)
{
    size_t na = (size_t)nl->natoms + 1;
    if (!nl->device_bins) {
        void *pos = charmm_nlist_buf(nl, RB_POS, na * (nl->pos_double ? 32 : 16));
        if (!pos)
            return scl_fail(nl->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
        if (charmm_pack_positions(nl, x, NULL, pos, NULL) >= 0) /* (within the box just binned) */
            return scl_fail(nl->ctx, SCL_ERR_INPUT, fn, "an atom is out of the fixed-point range");
        return scl_stream_write_range(nl->pos_build, 0, na, pos, 1, NULL);
    }
    scl_kernel *k = nl->pack;
    scl_status s = charmm_stream_reserve(nl->ctx, &nl->lo_unused, "charmm unused residuals",
                                         SCL_FLOAT4, 1, 0);
    /* no charges, residuals, pruning checks or previous step here: those
     * streams are bound to satisfy the signature and never touched */
    const scl_arg_stream streams[] = {
        {"x", nl->x_raw},       {"q", nl->x_raw},       {"order", nl->order_dev},
        {"pos", nl->pos_build}, {"lo", nl->lo_unused},  {"pos_prune", nl->pos_build},
        {"stat_all", nl->check}};
    const scl_arg_int ints[] = {{"has_q", 0},     {"q_first", 0}, {"n", nl->natoms},
                                   {"residuals", 0}, {"check", 0},   {"have_prev", 0},
                                   {"stat_base", 0}, {"clear", 0}};
    if (s == SCL_OK)
        s = scl_kernel_bind(k, streams, sizeof streams / sizeof streams[0], ints,
                        sizeof ints / sizeof ints[0]);
    const struct {
        const char *name;
        double v;
    } reals[] = {{"ox", nl->origin[0]},     {"oy", nl->origin[1]},
                 {"oz", nl->origin[2]},     {"unit", nl->unit},
                 {"inv_unit", 1.0 / nl->unit}, {"limit", charmm_pack_limit(nl)},
                 {"allowed2", 0.0},         {"unit2", 1.0}};
    for (size_t a = 0; a < sizeof reals / sizeof reals[0] && s == SCL_OK; a++)
        s = scl_kernel_set_double(k, reals[a].name, reals[a].v);
    size_t local = 64, global = (na + local - 1) / local * local;
    if (s == SCL_OK)
        s = scl_kernel_launch(k, 1, &global, &local, NULL);
    return s;
}

scl_status charmm_nlist_set_atoms(charmm_nlist *nl, const scl_charmm_atoms *a, int nchunks,
                                  const char *fn)
{
    scl_context *ctx = nl->ctx;
    int nlocal = a->nlocal, nghost = a->nghost, natoms = nlocal + nghost;
    if (natoms > 0 && (!a->x || !a->type))
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "positions or types are NULL");
    if (a->nspecial && !a->special && a->maxspecial > 0)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "nspecial given but special is NULL");
    if (a->tag_bytes != 4 && a->tag_bytes != 8)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "tag_bytes %d is not 4 or 8", a->tag_bytes);
    /* the last build's checks first: its buffers are about to be reused */
    charmm_nlist_tags_drain(nl);
    nl->tag_bad = 0;
    int rebuilt;
    scl_status s = charmm_nlist_settle(nl, &rebuilt, fn);
    if (s != SCL_OK)
        return s;
    char err[512];
    s = nl->device_bins ? SCL_OK : charmm_check_atom_arrays(a, nl->coeffs->ntypes, err, sizeof err);
    if (s != SCL_OK)
        return scl_fail(ctx, s, fn, "%s", err);
    double t0 = wall_now(), c0 = thread_cpu_now();
    charmm_nlist_forget(nl);
    nl->nlocal = nlocal;
    nl->nghost = nghost;
    nl->natoms = natoms;
    nl->maxspecial = a->nspecial ? a->maxspecial : 0;
    nl->has_tag = a->tag != NULL;
    nl->atoms = *a;
    cell_grid g;
    s = reserve_raw(nl, a);
    if (s == SCL_OK && nl->device_bins) {
        s = device_bins(nl, &g, a, fn);
    } else if (s == SCL_OK) {
        const int *type;
        const int64_t *tag, *special;
        s = host_form(nl, a, &type, &tag, &special, fn);
        if (s == SCL_OK)
            s = host_bins(nl, &g, a->x, type, tag, fn);
        if (s == SCL_OK)
            s = upload_host_form(nl, a, type, tag, special);
    }
    if (s != SCL_OK) {
        scl_finish(ctx); /* the caller's arrays may be in flight */
        charmm_nlist_tags_drain(nl);
        charmm_nlist_forget(nl);
        return s;
    }
    double span = 0;
    for (int d = 0; d < 3; d++) {
        nl->grid[d] = g.n[d];
        nl->grid_lo[d] = g.lo[d];
        nl->grid_width[d] = g.width[d];
        nl->origin[d] = g.lo[d] + 0.5 * g.n[d] * g.width[d];
        span = fmax(span, g.n[d] * g.width[d]);
    }
    /* fixed-point step: a power of two whose 2^32 period covers the box plus
     * four list cutoffs (drift until the next rebuild, and the sentinel half
     * a period away stays out of every atom's reach); ~3e-8 A for 100 A */
    if (nl->pos_double) {
        nl->unit = 1.0;
        nl->period = INFINITY;
    } else {
        nl->period = exp2(ceil(log2(span + 4.0 * nl->coeffs->cut_neigh)));
        nl->unit = nl->period / 4294967296.0;
    }
    int cap = estimate_capacity(nl, &g);
    if (cap > nl->capacity) /* lists only grow: the steady state settles quickly */
        nl->capacity = cap;
    if (!nl->device_bins) { /* the binned arrays of host_bins */
        size_t na = (size_t)natoms + 1, nloc = (size_t)nlocal;
        s = reserve_binned(nl, g.ncells);
        if (s == SCL_OK && natoms > 0)
            s = scl_stream_write_range(nl->order_dev, 0, (size_t)natoms, nl->order, 0, NULL);
        if (s == SCL_OK)
            s = scl_stream_write_range(nl->type, 0, na, nl->rebuild_buf[RB_TYPE], 0, NULL);
        if (s == SCL_OK)
            s = scl_stream_write_range(nl->tag, 0, na, nl->rebuild_buf[RB_TAG], 0, NULL);
        if (s == SCL_OK && nloc > 0)
            s = scl_stream_write_range(nl->ilist_dev, 0, nloc, nl->ilist, 0, NULL);
        if (s == SCL_OK && nloc > 0)
            s = scl_stream_write_range(nl->icell, 0, nloc, nl->rebuild_buf[RB_ICELL], 0, NULL);
        if (s == SCL_OK)
            s = scl_stream_write_range(nl->cell_start, 0, (size_t)g.ncells + 1, g.cell_start, 0,
                                       NULL);
    }
    if (s == SCL_OK)
        s = pack_build_positions(nl, a->x, fn);
    nl->t_host += wall_now() - t0;
    nl->t_cpu += thread_cpu_now() - c0;
    /* the build's overflow read waits for everything queued above */
    if (s == SCL_OK)
        s = charmm_nlist_chunks(nl, nchunks < 1 ? 1 : nchunks, 0, fn);
    if (s != SCL_OK) {
        scl_finish(ctx);
        charmm_nlist_tags_drain(nl);
        charmm_nlist_forget(nl);
        return s;
    }
    nl->have_atoms = 1;
    nl->rebuilds++;
    return SCL_OK;
}

scl_status charmm_nlist_host_maps(charmm_nlist *nl)
{
    if (nl->order || !nl->have_atoms)
        return SCL_OK;
    size_t n = (size_t)nl->natoms, nloc = (size_t)nl->nlocal;
    int *order = charmm_nlist_buf(nl, RB_ORDER, (n + 1) * sizeof *order);
    int *ilist = charmm_nlist_buf(nl, RB_ILIST, (nloc + 1) * sizeof *ilist);
    if (!order || !ilist)
        return scl_fail(nl->ctx, SCL_ERR_MEMORY, "charmm neighbor list", "out of host memory");
    scl_status s = n > 0 ? scl_stream_read_range(nl->order_dev, 0, n, order, 1, NULL) : SCL_OK;
    if (s == SCL_OK && nloc > 0)
        s = scl_stream_read_range(nl->ilist_dev, 0, nloc, ilist, 1, NULL);
    if (s == SCL_OK)
        nl->order = order, nl->ilist = ilist;
    return s;
}

int charmm_nlist_caller_of(charmm_nlist *nl, int b)
{
    if (b < 0 || b >= nl->natoms || charmm_nlist_host_maps(nl) != SCL_OK)
        return -1;
    return nl->order[b];
}

int charmm_nlist_caller_of_slot(charmm_nlist *nl, int ii)
{
    if (ii < 0 || ii >= nl->nlocal || charmm_nlist_host_maps(nl) != SCL_OK)
        return -1;
    return nl->order[nl->ilist[ii]];
}

scl_status charmm_nlist_tags_settle(charmm_nlist *nl, const char *fn)
{
    if (nl->tag_check_pending) {
        scl_status s = scl_event_wait(nl->ctx, nl->tag_check_ev);
        scl_event_release(nl->tag_check_ev);
        nl->tag_check_pending = 0;
        if (s != SCL_OK)
            return s;
        nl->tag_bad = nl->tag_check_host != INT_MAX;
        /* the caller's arrays are unchanged until this finish returns: the
         * host check names the value (error path only), kept for the
         * steps that follow on the same atoms */
        if (nl->tag_bad &&
            charmm_check_atom_arrays(&nl->atoms, nl->coeffs->ntypes, nl->tag_msg,
                                     sizeof nl->tag_msg) == SCL_OK)
            snprintf(nl->tag_msg, sizeof nl->tag_msg, "atom %d has a negative tag or special tag",
                     nl->tag_check_host);
    }
    if (!nl->tag_bad || !nl->have_atoms)
        return SCL_OK;
    return scl_fail(nl->ctx, SCL_ERR_INPUT, fn, "%s (the atoms of the last set_atoms)",
                    nl->tag_msg);
}
