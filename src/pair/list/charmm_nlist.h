/* The neighbor list object of the charmm engine: the atom set of the last
 * set_atoms (binned order, fixed-point frame), its device arrays, the full
 * lists per chunk with overflow regrowth, and the pruned inner lists.
 *
 * On fp64 devices the whole set_atoms runs on the device (src/pair/list/charmm_bin.cl):
 * the host copies the caller's arrays up as they are and keeps no per-atom
 * data; elsewhere the host bins (cell_grid.c) and uploads the binned arrays.
 *
 * It knows nothing of force kernels: they read chunks[c].nbr (or nbr_in when
 * prune is on), numnbr/numnbr_in, nspecial_front, ilist_dev and order_dev, in
 * the blocked layout of src/pair/list/neighbor.cl. */
#ifndef SCL_PAIR_CHARMM_NLIST_H
#define SCL_PAIR_CHARMM_NLIST_H

#include "pair/pair_internal.h"

#define CHARMM_REBUILD_BUFS 12

/* A range of local atoms (in binned order) launched as one kernel, with its
 * own neighbor-list buffer. */
typedef struct {
    int first, count;
    int group_base;     /* index of its first work-group among all partials (force kernels) */
    scl_stream *nbr;    /* NULL in streaming mode (the shared buffer is used) */
    scl_stream *nbr_in; /* the pruned inner list (when pruning is on) */
} charmm_chunk;

typedef struct {
    scl_context *ctx;
    const charmm_coeffs *coeffs; /* the engine's (cutoffs) */
    int pos_double;              /* positions are double4 (double precision), else int4 fixed */
    int device_bins;             /* bin on the device (fp64 and not params.host_pack) */
    int neighbor_capacity;       /* params.neighbor_capacity */
    size_t device_budget;        /* bytes the whole engine may allocate */
    size_t extra_bytes;          /* device bytes the engine holds outside this object */
    scl_kernel *build, *prune_k;
    scl_kernel *bounds, *count, *scan, *scatter, *sort, *gather, *pack; /* device binning
                                                                        * (sort: bin_rank) */

    /* the atom set of the last set_atoms, in binned (cell-sorted) order */
    int nlocal, nghost, natoms, maxspecial, have_atoms;
    int has_tag;      /* the caller gave tags (else the index is the tag) */
    int *order;       /* binned index -> caller's index (host binning, or read back
                       * by charmm_nlist_host_maps) */
    int *ilist;       /* local slot ii -> binned index (likewise) */
    double origin[3]; /* positions are packed relative to it */
    double unit;      /* Angstrom per fixed-point step (1 with double positions) */
    double period;    /* 2^32 * unit: fixed-point differences are modulo this */
    /* host buffers of set_atoms, kept across rebuilds (grown, never shrunk:
     * fresh multi-MB allocations each rebuild cost page faults) */
    void *rebuild_buf[CHARMM_REBUILD_BUFS];
    size_t rebuild_bytes[CHARMM_REBUILD_BUFS];
    int grid[3];
    double grid_lo[3], grid_width[3];

    /* device arrays of the atom set: the caller's (raw, caller's order;
     * types as given, tags and special tags 64-bit) */
    scl_stream *x_raw, *type_raw, *tag_raw, *nspecial, *special;
    /* device binning: the caller's tags and special tags as given (4 or 8
     * bytes), widened into tag_raw and special by src/pair/list/charmm_atoms.cl, which
     * flags negative ones in tag_check (read back without waiting) */
    scl_stream *tag_in, *special_in, *tag_check;
    scl_kernel *tags_k[2]; /* 32-bit, 64-bit input (created when first used) */
    int tag_check_host, tag_check_pending, tag_bad;
    scl_event tag_check_ev;
    scl_charmm_atoms atoms; /* the arrays of the last set_atoms (error messages) */
    char tag_msg[256];      /* what tag_bad reports */
    /* where the caller's arrays go up from: pinned staging (copied on
     * host_threads threads), or its own memory (direct_upload) */
    charmm_stage stage;
    int direct_upload, host_threads;
    /* binned */
    scl_stream *pos_build, *type, *tag, *order_dev, *ilist_dev, *icell, *cell_start;
    /* numnbr: slots of an atom's full list (a few free slots between the
     * lanes' pairs and the padding included: its pairs rounded up to 8),
     * npairs: its pairs (src/pair/list/neighbor.cl) */
    scl_stream *numnbr, *npairs, *numnbr_in, *nspecial_front, *overflow, *shared_nbr;
    /* device binning's work arrays */
    scl_stream *cell_of, *rank, *arrival, *cell_count, *local_count, *local_start, *box, *check;
    scl_stream *lo_unused; /* binds the pack kernel's residuals when it packs list positions */

    /* lists */
    int capacity;   /* slots per atom, a multiple of 8 */
    /* the overflow count of the last build, read without waiting: checked
     * by charmm_nlist_settle (the engine's finish), which regrows */
    int overflow_host, overflow_pending;
    scl_event overflow_ev;
    int min_chunks; /* fewest chunks whose lists fit one allocation each */
    int streaming;  /* lists do not all fit: rebuilt per chunk every step */
    int lists_off;  /* the force kind in use builds lists of its own (the
                     * "cluster" kind): chunks are laid out, no list built */
    charmm_chunk *chunks;
    int nchunks;
    long neighbors;
    long rebuilds;

    /* dynamic pruning: force kernels read inner lists of the pairs closer
     * than the force cutoff + inner_skin, valid while no atom moved
     * inner_skin/2 since the prune */
    double half_box[3]; /* special partners beyond it are images (0: not periodic) */
    double inner_skin; /* > 0: pruning wanted */
    int prune;         /* on for the current layout (both lists fit) */
    int lanes;         /* work-items per atom of the build and the prune (params.list_lanes) */
    int prune_valid;   /* the inner lists hold for the positions they were pruned at */
    void *pos_prune;   /* host copy of those positions (host packing) */
    size_t pos_prune_bytes;
    scl_stream *pos_prune_dev; /* device copy (device packing) */
    long prunes;

    double t_host, t_cpu; /* host part of set_atoms, summed: wall and thread CPU seconds */
} charmm_nlist;

/* Kernels and settings; inner_skin as in scl_charmm_params (resolved). */
scl_status charmm_nlist_init(charmm_nlist *nl, scl_context *ctx, const charmm_coeffs *coeffs,
                             const scl_charmm_params *p, size_t device_budget);
void charmm_nlist_free(charmm_nlist *nl);

/* Bin the atoms, pick the fixed-point frame, upload what the build needs and
 * build the lists in nchunks chunks (regrowing on overflow). */
scl_status charmm_nlist_set_atoms(charmm_nlist *nl, const scl_charmm_atoms *a, int nchunks,
                                  const char *fn);
/* The tag check of the last set_atoms (device binning): waits for it; an
 * error naming the bad tag while the atom set is the one it flagged. */
scl_status charmm_nlist_tags_settle(charmm_nlist *nl, const char *fn);
/* Wait for a tag check in flight and drop its result. */
void charmm_nlist_tags_drain(charmm_nlist *nl);
/* Wait for the overflow count of the last build; when some atom had more
 * neighbors than the capacity, regrow and rebuild (*rebuilt = 1: lists used
 * since were incomplete). */
scl_status charmm_nlist_settle(charmm_nlist *nl, int *rebuilt, const char *fn);

/* Pack positions x (and charges q; NULL: zero) of all atoms into the binned
 * order and the frame of the last set_atoms, sentinel last (natoms + 1
 * entries): double4 (x - origin, q) with double positions, else int4 fixed
 * point with the float bits of q, and with lo (mixed residuals, may be
 * NULL) the float4 (x - fixed x, ..., q - (float)q). Returns -1, or the
 * caller's index of an atom with a non-finite coordinate or charge or
 * farther than charmm_pack_limit() from the origin (nothing else is
 * reported). Bitwise what src/pair/list/charmm_pack.cl computes. */
long charmm_pack_positions(const charmm_nlist *nl, const double *x, const double *q, void *pos,
                           float *lo);
/* Largest |x - origin| packing accepts (fixed point aliases beyond). */
double charmm_pack_limit(const charmm_nlist *nl);

/* Lay out nchunks chunks over the local atoms and (re)build their lists;
 * wait 0: the overflow check is left to charmm_nlist_settle. */
scl_status charmm_nlist_chunks(charmm_nlist *nl, int nchunks, int wait, const char *fn);

/* Enqueue the list build of one chunk into buffer nbr. */
scl_status charmm_nlist_build(charmm_nlist *nl, const charmm_chunk *ch, scl_stream *nbr,
                              scl_event *ev);

/* The list buffer a force launch of chunk c reads (building it first when
 * streaming), its counts and the count of special pairs at its front. */
scl_status charmm_nlist_for_chunk(charmm_nlist *nl, int c, scl_stream **nbr, scl_stream **num,
                                  scl_stream **nspecial_front, int *sorted);

/* Enqueue the pruning of every chunk's list at positions pos (device), and
 * keep them as the pruning positions: pos_host (natoms+1 packed entries) on
 * the host, or a device copy of pos when pos_host is NULL. */
scl_status charmm_nlist_prune(charmm_nlist *nl, scl_stream *pos, const void *pos_host);
/* Its second half alone: keep pos as the pruning positions and count the
 * prune, for a force kind that prunes lists of its own (the inner lists are
 * then not valid for other kinds). */
scl_status charmm_nlist_prune_mark(charmm_nlist *nl, scl_stream *pos, const void *pos_host);

/* Host check of packed positions against the pruning positions: clears
 * prune_valid once some atom moved inner_skin/2 (host packing). */
void charmm_nlist_prune_check(charmm_nlist *nl, const void *pos_host);

/* Slots of the inner lists (padding included), read back (stats). */
scl_status charmm_nlist_inner_slots(charmm_nlist *nl, long *slots);

/* Host copies of order and ilist (read back when binned on the device). */
scl_status charmm_nlist_host_maps(charmm_nlist *nl);
/* Caller's index of local slot ii / of binned atom b (error messages). */
int charmm_nlist_caller_of_slot(charmm_nlist *nl, int ii);
int charmm_nlist_caller_of(charmm_nlist *nl, int b);
/* Pairs in the lists (padding excluded), read back. */
scl_status charmm_nlist_count(charmm_nlist *nl, long *pairs);

/* Brute-force comparison with the device lists (scl_charmm_check_neighbors). */
scl_status charmm_nlist_check(charmm_nlist *nl, long *mismatches, const char *fn);

/* Kept host buffers of set_atoms (RB_*): at least bytes, contents not
 * preserved; NULL when out of memory. */
enum {
    RB_TYPE, RB_TAG, RB_ICELL, RB_ORDER, RB_CELL_OF, RB_CELL_START, RB_FILL, RB_ILIST, RB_POS,
    RB_IN_TYPE, RB_IN_TAG, RB_IN_SPECIAL /* host binning: the caller's arrays converted */
};
void *charmm_nlist_buf(charmm_nlist *nl, int k, size_t bytes);
/* Drop the atom set (its host maps live in the kept buffers). */
void charmm_nlist_forget(charmm_nlist *nl);

/* Grow (never shrink) a device stream to hold at least count elements. */
scl_status charmm_stream_reserve(scl_context *ctx, scl_stream **s, const char *label,
                                 scl_type type, size_t count, unsigned flags);

#endif
