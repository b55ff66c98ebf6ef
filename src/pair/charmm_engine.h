/* The charmm engine (scl_charmm): per-step positions (packing on the device
 * or the host), the step in flight and its read-backs, over two objects of
 * its own: the neighbor list (charmm_nlist.h) and the force kernels
 * (charmm_forces.h), whose kind and launch values the plan picks
 * (charmm_plan.c). */
#ifndef SCL_PAIR_CHARMM_ENGINE_H
#define SCL_PAIR_CHARMM_ENGINE_H

#include "pair/kinds/charmm_forces.h"

enum { STAGE_POS, STAGE_LO, STAGE_FORCE, STAGE_XQ, STAGE_COUNT };

/* Ghost rows gathered on the device from the owned rows (charmm_ghosts.c,
 * scl_charmm_set_ghost_sources). */
typedef struct {
    scl_stream *img;     /* int4 per ghost: source row, images in x, y, z */
    scl_kernel *gather;  /* src/pair/list/charmm_ghosts.cl */
    int *img_host;       /* the same on the host (built by set_ghost_sources) */
    size_t img_cap;
    double *q_host;      /* the q of the last upload, to see whether it changed */
    size_t q_cap;
    int on;              /* enabled for the current atom set */
    int full_done;       /* a compute of this atom set uploaded every row */
    int box_fresh;       /* set_ghost_box since the last compute */
    scl_charmm_box box;
    long steps;          /* steps gathered */
    const scl_stream *source; /* owned rows on the device (set_position_source), or NULL */
} charmm_ghosts;

struct scl_charmm {
    scl_context *ctx;
    scl_charmm_params params; /* epsilon/sigma pointers are not kept */
    char kernel_name[16];     /* params.kernel points here */
    charmm_coeffs coeffs;
    charmm_nlist nlist;
    charmm_forces forces;
    scl_plan *plan;           /* force kind and launch values; NULL until the first step */
    void *plan_users;         /* the plan's callback data (charmm_plan.c) */

    /* host staging of the per-step transfers: host-mapped (pinned on
     * discrete GPUs, where copies from pageable memory are several times
     * slower), kept mapped */
    charmm_stage stage[STAGE_COUNT];
    int direct_inputs;       /* compute's x and q go up from the caller's memory
                              * (params.inputs_stable, charmm_direct_upload) */
    const double *packed_x, *packed_q; /* what the pack kernel of the step read */
    int host_threads;        /* charmm_host_threads: 0 = OpenMP's default */
    void *partials_host, *eatom_host, *vatom_host;
    size_t host_bytes[3];
    int error_host[8]; /* [0..3] force kernels, [4..7] pack kernel (src/pair/list/charmm_pack.cl) */
    /* the error stream: [0..3] force kernels, [4..7] and [8..11] the pack
     * kernel's of alternate steps (stat_base 0, 4), each step's pack kernel
     * zeroing the next step's (no fill a step) */
    int error_raw[12];
    int stat_base;  /* the pack flags of the step in flight are at 4 + stat_base */
    int stat_clean; /* the flags the next step's pack kernel uses are zero */

    /* device streams of a step (the atom set's are the neighbor list's) */
    scl_stream *pos, *pos_lo, *force, *partials, *eatom, *vatom, *error;
    scl_stream *xq_dev; /* device packing's input: x (3 per atom), then q */
    int xq_natoms;      /* atoms of the last compute xq_dev holds (0: none since set_atoms) */
    charmm_step_io io;
    /* scl_charmm_set_force_hook: other modules add into the force stream
     * before finish reads it back (hook_rows extra rows reserved after the
     * owned ones; extra_used of them read back by the last finish) */
    scl_charmm_force_hook hook, hook_next; /* the step's; from the next compute */
    void *hook_user, *hook_user_next;
    int hook_rows, extra_used;
    int step_hooked; /* the step in flight leaves its force read-back to finish */

    /* device packing (fp64 devices, unless params.host_pack): the caller's x
     * and q go up as they are and src/pair/list/charmm_pack.cl packs them */
    int dev_pack;
    scl_kernel *pack;
    int have_prev;     /* pos holds the previous step of this atom set */
    int disp_known;    /* disp_prune holds the last finished step's value */
    int pruned_now;    /* the step in flight pruned */
    int check_now;     /* the step in flight checked its pruning on the device */
    double disp_prune; /* max displacement since the last prune (A), last step */
    double step_max;   /* recent max one-step displacement (A), see prune_decide */
    long prune_redos;  /* steps recomputed: the lagged pruning decision was late,
                        * or the list build overflowed */

    /* the step in flight */
    int pending, record_events;
    scl_event ev_upload[3], *ev_force, *ev_read; /* upload: x/pos, q/lo, pack kernel */
    int nev_force, nev_read, total_groups;
    scl_charmm_stats stats;
    charmm_ghosts ghosts;
};

/* Device bytes of the engine's own streams and coefficient tables (the
 * neighbor list's budget counts them). */
size_t charmm_engine_device_bytes(const scl_charmm *eng);

/* charmm_plan.c: choose the force kind, its launch values and the chunk
 * count (the tuner), and lay the chunks out for them. The plan calls
 * nothing of charmm_engine.c: the engine calls the plan. */
scl_status charmm_plan(scl_charmm *eng);
/* Queue the force launches of the step described by eng->io, the prune of
 * the inner lists first where they are stale (a new atom set or chunk
 * layout, or atoms moved), at the step's packed positions. */
scl_status charmm_plan_forces(scl_charmm *eng);

/* charmm_ghosts.c: a new atom set (the gather is off until enabled again),
 * teardown, and the per-step upload of device packing: whether this step
 * gathers (the owned rows and, where changed, q go up, then the gather
 * kernel fills the ghost rows of xq_dev), and what a full upload records. */
void charmm_ghosts_forget(charmm_ghosts *g);
void charmm_ghosts_free(charmm_ghosts *g);
int charmm_ghosts_active(const scl_charmm *eng);
scl_status charmm_ghosts_upload(scl_charmm *eng, const double *x, const double *q);
scl_status charmm_ghosts_uploaded_all(scl_charmm *eng, const double *q);

#endif
