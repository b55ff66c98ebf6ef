/* The neighbor list object's lifecycle (charmm_nlist.h): kernels and
 * settings, freeing, the kept host buffers and device streams. The bottom
 * of the list's files: charmm_neighbor.c (lists) and charmm_bins.c (atom
 * sets) call in here, never the other way. */
#include "pair/list/charmm_nlist.h"

#include <stdlib.h>
#include <string.h>

scl_status charmm_nlist_init(charmm_nlist *nl, scl_context *ctx, const charmm_coeffs *coeffs,
                             const scl_charmm_params *p, size_t device_budget)
{
    memset(nl, 0, sizeof *nl);
    nl->ctx = ctx;
    nl->coeffs = coeffs;
    nl->pos_double = p->precision == SCL_PREC_DOUBLE;
    nl->neighbor_capacity = p->neighbor_capacity;
    nl->device_budget = device_budget;
    /* pruning pays off once the inner list is clearly shorter: a quarter of
     * the skin keeps ~3/4 of the shell out (12 -> 10.5 A: 2/3 of the slots)
     * and holds for tens of MD steps */
    nl->inner_skin = p->inner_skin < 0.0 ? 0.0 : p->inner_skin > 0.0 ? p->inner_skin
                                                                      : 0.25 * p->skin;
    if (nl->inner_skin >= p->skin)
        nl->inner_skin = 0.0; /* no shorter than the full list */
    nl->device_bins = scl_device(ctx)->fp64 && !p->host_pack;
    nl->direct_upload = charmm_direct_upload(scl_device(ctx), p->inputs_stable);
    nl->host_threads = charmm_host_threads(scl_device(ctx), p->host_threads);
    /* a CPU work-item is a loop iteration: lanes there only add the
     * barrier, the local-memory offsets and (build) the holes */
    nl->lanes = p->list_lanes > 0 ? p->list_lanes : scl_device(ctx)->is_gpu ? CHARMM_LIST_LANES : 1;
    char opts[64];
    snprintf(opts, sizeof opts, "-DSCL_POS_DOUBLE=%d -DLANES=%d", nl->pos_double, nl->lanes);
    scl_status s = scl_kernel_create(ctx, "neighbor", "neighbor_build", opts, &nl->build);
    if (s == SCL_OK)
        s = scl_kernel_create(ctx, "neighbor", "neighbor_prune", opts, &nl->prune_k);
    if (s == SCL_OK) {
        scl_kernel_set_label(nl->build, "charmm neighbor build");
        scl_kernel_set_label(nl->prune_k, "charmm list prune");
    }
    if (s == SCL_OK && nl->device_bins) {
        struct {
            const char *name;
            scl_kernel **k;
        } bins[] = {{"bin_bounds", &nl->bounds},   {"bin_count", &nl->count},
                    {"bin_scan", &nl->scan},       {"bin_scatter", &nl->scatter},
                    {"bin_rank", &nl->sort},       {"bin_gather", &nl->gather}};
        for (size_t k = 0; k < sizeof bins / sizeof bins[0] && s == SCL_OK; k++) {
            s = scl_kernel_create(ctx, "charmm_bin", bins[k].name, NULL, bins[k].k);
            if (s == SCL_OK)
                scl_kernel_set_label(*bins[k].k, "charmm binning");
        }
        snprintf(opts, sizeof opts, "-DPOS_DOUBLE=%d", nl->pos_double);
        if (s == SCL_OK)
            s = scl_kernel_create(ctx, "charmm_pack", "charmm_pack", opts, &nl->pack);
        if (s == SCL_OK)
            scl_kernel_set_label(nl->pack, "charmm binning");
    }
    return s;
}

void charmm_nlist_forget(charmm_nlist *nl)
{
    /* order and ilist live in the kept rebuild buffers */
    nl->order = nl->ilist = NULL;
    nl->have_atoms = 0;
}

void charmm_nlist_free(charmm_nlist *nl)
{
    if (nl->overflow_pending) {
        scl_event_wait(nl->ctx, nl->overflow_ev);
        scl_event_release(nl->overflow_ev);
    }
    charmm_nlist_tags_drain(nl);
    charmm_nlist_forget(nl);
    charmm_stage_free(&nl->stage);
    scl_stream *given[] = {nl->tag_in, nl->special_in, nl->tag_check};
    scl_streams_free(given, sizeof given / sizeof given[0]);
    scl_kernel_free(nl->tags_k[0]);
    scl_kernel_free(nl->tags_k[1]);
    for (int k = 0; k < CHARMM_REBUILD_BUFS; k++)
        free(nl->rebuild_buf[k]);
    for (int c = 0; c < nl->nchunks; c++) {
        scl_stream_free(nl->chunks[c].nbr);
        scl_stream_free(nl->chunks[c].nbr_in);
    }
    free(nl->chunks);
    free(nl->pos_prune);
    scl_stream *all[] = {nl->x_raw,      nl->type_raw,    nl->tag_raw,       nl->nspecial,
                         nl->special,    nl->pos_build,   nl->type,          nl->tag,
                         nl->order_dev,  nl->ilist_dev,   nl->icell,         nl->cell_start,
                         nl->numnbr,     nl->numnbr_in,   nl->nspecial_front, nl->overflow,
                         nl->npairs,     nl->shared_nbr, nl->pos_prune_dev, nl->cell_of,     nl->rank,
                         nl->cell_count, nl->local_count, nl->local_start,   nl->box,
                         nl->check,      nl->lo_unused,   nl->arrival};
    scl_streams_free(all, sizeof all / sizeof all[0]);
    scl_kernel *kernels[] = {nl->build,   nl->prune_k, nl->bounds, nl->count, nl->scan,
                             nl->scatter, nl->sort,    nl->gather, nl->pack};
    scl_kernels_free(kernels, sizeof kernels / sizeof kernels[0]);
    memset(nl, 0, sizeof *nl);
}

void *charmm_nlist_buf(charmm_nlist *nl, int k, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (nl->rebuild_bytes[k] < bytes) {
        free(nl->rebuild_buf[k]);
        size_t want = bytes + bytes / 8; /* ghost counts drift between rebuilds */
        nl->rebuild_buf[k] = malloc(want);
        nl->rebuild_bytes[k] = nl->rebuild_buf[k] ? want : 0;
    }
    return nl->rebuild_buf[k];
}

scl_status charmm_stream_reserve(scl_context *ctx, scl_stream **s, const char *label,
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
    return scl_stream_create(ctx, label, type, want, 1, 1, flags, s);
}

void charmm_nlist_tags_drain(charmm_nlist *nl)
{
    if (!nl->tag_check_pending)
        return;
    scl_event_wait(nl->ctx, nl->tag_check_ev);
    scl_event_release(nl->tag_check_ev);
    nl->tag_check_pending = 0;
}
