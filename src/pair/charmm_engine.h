/* The engine object of the charmm pair module, shared by its source files:
 * charmm_engine.c (create, per-step compute/finish), charmm_neighbor.c (atom
 * sets, binning, device list build, chunks), charmm_plan.c (tuning). */
#ifndef SCL_PAIR_CHARMM_ENGINE_H
#define SCL_PAIR_CHARMM_ENGINE_H

#include "pair/pair_internal.h"

#define CHARMM_TPA_VARIANTS 6 /* threads per atom 1, 2, 4, 8, 16, 32 */
#define CHARMM_REBUILD_BUFS 13

/* A range of local atoms (in binned order) launched as one kernel, with its
 * own neighbor-list buffer. */
typedef struct {
    int first, count;
    int group_base; /* index of its first work-group among all partials */
    scl_stream *nbr; /* NULL in streaming mode (the shared buffer is used) */
    scl_stream *nbr_in; /* the pruned inner list (when pruning is on) */
} charmm_chunk;

struct scl_charmm {
    scl_context *ctx;
    scl_charmm_params params; /* epsilon/sigma pointers are not kept */
    charmm_coeffs coeffs;
    size_t acc_size;          /* bytes of one accumulator: 8 (double, fixed) or 4 */
    size_t device_budget;     /* bytes the engine may allocate on the device */

    scl_program *nbr_program;
    cl_kernel nbr_kernel, prune_kernel;
    scl_program *force_program[CHARMM_TPA_VARIANTS][2];
    cl_kernel force_kernel[CHARMM_TPA_VARIANTS][2]; /* [log2 tpa][tally] */

    /* the atom set of the last set_atoms, in binned (cell-sorted) order */
    int nlocal, nghost, natoms, maxspecial, have_atoms;
    int *order;       /* binned index -> caller's index (in rebuild_buf) */
    int *local_orig;  /* local slot ii -> caller's index of that local atom (rebuild_buf) */
    int *ilist;       /* local slot ii -> binned index (rebuild_buf) */
    double origin[3]; /* positions are packed relative to it */
    double unit;      /* Angstrom per fixed-point step (single/mixed; 1 in double) */
    double period;    /* 2^32 * unit: fixed-point differences are modulo this */
    double *x_build;  /* caller's positions at the last set_atoms (list checks),
                       * in rebuild_buf */
    /* host buffers of set_atoms, kept across rebuilds (grown, never shrunk:
     * fresh multi-MB allocations each rebuild cost page faults) */
    void *rebuild_buf[CHARMM_REBUILD_BUFS];
    size_t rebuild_bytes[CHARMM_REBUILD_BUFS];
    int grid[3];
    double grid_lo[3], grid_width[3]; /* the cell grid of the last set_atoms */

    /* host staging of the per-step streams */
    void *pos_host;   /* natoms+1 int4 fixed point (double4 in double precision);
                       * the last one is the far-away sentinel */
    void *lo_host;    /* natoms+1 float4 residuals x - fixed x, ..., q - (float)q
                       * (mixed, steps with double pair math only) */
    void *force_host; /* 4*nlocal accumulators */
    void *partials_host, *eatom_host, *vatom_host;
    int error_host[8];    /* the error stream: [0..3] force kernel, [4..7] pack (below) */
    size_t host_bytes[6]; /* capacities of the six staging buffers above */
    scl_stream *stage[5]; /* host-mapped storage of pos_host, lo_host, force_host,
                           * x_host, q_host */
    void *stage_ptr[5];
    size_t stage_bytes[5];

    /* device packing (fp64 devices, see cl/charmm_pack.cl): the caller's x
     * and q are copied as they are into x_host/q_host (pinned), uploaded, and
     * gathered, shifted and converted by the pack kernel into pos/pos_lo.
     * Error stream slots: [4] INT_MAX - smallest caller's index of an atom
     * with a bad coordinate or charge (0: none), [5] max squared
     * displacement since the last prune, [6] max squared one-step
     * displacement (float bits, rounded up), [7] the inner lists were stale. */
    int dev_pack;
    scl_program *pack_program;
    cl_kernel pack_kernel;
    void *x_host, *q_host;
    scl_stream *x_dev, *q_dev, *order_dev, *pos_prune_dev;
    int have_prev;          /* pos holds the previous step of this atom set */
    int disp_known;         /* disp_prune holds the last finished step's value */
    int pruned_now;         /* the step in flight pruned (after its pack) */
    int check_now;          /* the step in flight checked its pruning on the device */
    double disp_prune;      /* max displacement since the last prune (A), last step */
    double step_max;        /* recent max one-step displacement (A), see prune_decide */
    long prune_redos;       /* steps recomputed because the lagged decision was late */

    /* device streams */
    scl_stream *pos, *pos_lo, *pos_build, *type, *tag, *ilist_dev, *icell, *cell_start;
    scl_stream *nspecial, *special, *numnbr, *ljc, *force, *partials, *eatom, *vatom;
    scl_stream *ljc_double, *special_range, *error, *overflow, *shared_nbr, *numnbr_in;
    scl_stream *nspecial_front; /* special pairs at the front of each inner list */

    /* neighbor lists */
    int capacity;      /* slots per atom, a multiple of 8 */
    int min_chunks;    /* fewest chunks whose lists fit one allocation each */
    int streaming;     /* lists do not all fit: rebuilt per chunk every step */
    charmm_chunk *chunks;
    int nchunks, total_groups;
    long neighbors;

    /* dynamic pruning (params.inner_skin) */
    double inner_skin;  /* > 0: pruning wanted */
    int prune;          /* on for the current layout (both lists fit) */
    int prune_valid;    /* the inner lists hold for the positions in pos_prune */
    void *pos_prune;    /* pos_host at the last prune (natoms+1 entries) */
    size_t pos_prune_bytes;
    long prunes;

    /* plan */
    int tpa, wg, plan_ready;

    /* the step in flight */
    int pending, tally, per_atom;
    cl_event ev_upload[3], *ev_force, *ev_read; /* upload: x/pos, q/lo, pack kernel */
    int nev_force, nev_read;
    scl_charmm_stats stats;
    double t_set_atoms_host; /* host part of set_atoms, summed (seconds, wall) */
    double t_set_atoms_cpu;  /* the same in CPU time of the calling thread */
};

/* charmm_neighbor.c */
void charmm_atoms_free(scl_charmm *eng);
/* Free the kept set_atoms buffers (engine free). */
void charmm_rebuild_bufs_free(scl_charmm *eng);
/* Lay out nchunks chunks over the local atoms and (re)build their lists. */
scl_status charmm_setup_chunks(scl_charmm *eng, int nchunks, const char *fn);
/* Enqueue the list build of one chunk into buffer nbr. */
scl_status charmm_enqueue_build(scl_charmm *eng, const charmm_chunk *ch, scl_stream *nbr,
                                cl_event *ev);

/* Enqueue the pruning of every chunk's list at the current positions (pos)
 * and remember them as the pruning positions. */
scl_status charmm_enqueue_prune(scl_charmm *eng);

/* charmm_engine.c */
/* Stream type of the accumulators: SCL_LONG (fixed point, double
 * precision), SCL_DOUBLE (mixed on fp64 devices) or SCL_FLOAT. */
scl_type charmm_acc_type(const scl_charmm *eng);
/* Pack positions (relative to the origin, fixed point in single/mixed; q may
 * be NULL: zero charges) into pos_host (and with residuals set, the residuals
 * into lo_host), binned order, sentinel last. Fails on non-finite
 * coordinates or charges and on atoms that left the fixed-point range. */
scl_status charmm_pack(scl_charmm *eng, const double *x, const double *q, int residuals,
                       const char *fn);
/* Kernel for (tpa, tally), built on first use. */
scl_status charmm_force_kernel(scl_charmm *eng, int tpa, int tally, cl_kernel *out);
/* Enqueue the force kernels of every chunk (and per-chunk list builds when
 * streaming). events (nchunks, optional) receive the force launches. */
scl_status charmm_enqueue_forces(scl_charmm *eng, int tally, int per_atom, cl_event *events);

/* charmm_plan.c: choose tpa, work-group size and chunks (the tuner). */
scl_status charmm_plan(scl_charmm *eng);

/* Grow (never shrink) a device stream to hold at least count elements. */
scl_status charmm_stream_reserve(scl_charmm *eng, scl_stream **s, const char *label,
                                 scl_type type, size_t count, unsigned flags);

#endif
