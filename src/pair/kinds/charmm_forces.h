/* The force kernels object of the charmm engine: coefficient tables, the
 * kernel variants of each force-kernel kind, and the launch of a step over
 * a neighbor list object.
 *
 * A kind is one way to compute the forces (cl/charmm.cl: full lists,
 * several lanes per atom, for GPUs; others may follow, e.g. a CPU-shaped
 * kernel). The tuner picks the kind and its launch values per device
 * (charmm_plan.c): each kind names its candidates, says which combinations
 * are legal (prepare) and queues a step (enqueue). Add a kind by appending
 * it to charmm_force_kinds[] in charmm_forces.c. */
#ifndef SCL_PAIR_CHARMM_FORCES_H
#define SCL_PAIR_CHARMM_FORCES_H

#include "pair/charmm_nlist.h"

#define CHARMM_TPA_VARIANTS 6 /* threads per atom 1, 2, 4, 8, 16, 32 */
/* Launch events a kind may record beyond one per chunk (charmm_cpu.c: one
 * per colour of half lists and their upkeep). */
#define CHARMM_FORCE_EXTRA_EVENTS 72

/* What one step's force launch reads and writes. */
typedef struct {
    scl_stream *pos, *pos_lo;  /* packed positions (binned order), mixed residuals */
    scl_stream *force;         /* 4 accumulators per local atom, caller's order */
    scl_stream *partials;      /* 8 energy/virial sums per work-group (tally) */
    scl_stream *eatom, *vatom; /* per-atom energy / virial, caller's order (per_atom) */
    scl_stream *error;         /* int[8]; [0..3] raised by the force kernels */
    int tally, per_atom;
} charmm_step_io;

typedef struct charmm_forces charmm_forces;

/* One kind of force kernel. values are the plan's, in the order of the
 * kind's tune parameters (charmm_force_tune_params). */
typedef struct {
    const char *name;
    /* Candidates on this device: fills params (at most SCL_PLAN_MAX_PARAMS,
     * the chunk count excluded: the plan adds it) and returns their count,
     * or 0 when the kind does not run on this device / precision. */
    int (*candidates)(const charmm_forces *fk, scl_tune_param *params);
    /* Make the variant of values ready (kernels built); SCL_ERR_UNSUPPORTED
     * for an illegal combination (skipped by the tuner). */
    scl_status (*prepare)(charmm_forces *fk, const int *values);
    /* Queue one step with the prepared values over the lists of nl.
     * events (nl->nchunks + CHARMM_FORCE_EXTRA_EVENTS, optional, NULL
     * filled) receive the force launches. */
    scl_status (*enqueue)(charmm_forces *fk, charmm_nlist *nl, const charmm_step_io *io,
                          scl_event *events);
    /* Work-groups whose partials a tallying step writes (after enqueue's
     * layout): the engine sizes and reads io->partials by it. */
    int (*groups)(const charmm_forces *fk, const charmm_nlist *nl);
    /* Optional: the step's prune of the lists of nl at positions pos (as
     * charmm_nlist_prune, which runs when this is NULL), for a kind that
     * prunes its own lists. */
    scl_status (*prune)(charmm_forces *fk, charmm_nlist *nl, scl_stream *pos,
                        const void *pos_host);
} charmm_force_kind;

extern const charmm_force_kind *const charmm_force_kinds[];
extern const int charmm_force_nkinds;

struct charmm_forces {
    scl_context *ctx;
    const scl_charmm_params *params; /* the engine's */
    const charmm_coeffs *coeffs;
    scl_type out_type;     /* element type of the force, eatom and vatom streams */
    scl_type partial_type; /* element type of the partials stream */
    int partial_width;     /* elements per partial value: 2 in double precision
                            * (integer part, fraction in 2^-32 units), else 1 */
    scl_stream *ljc, *ljc_double; /* float4 / double4 lj1..lj4 per type pair */
    /* the plan in use */
    const charmm_force_kind *kind;
    int values[SCL_PLAN_MAX_PARAMS];
    int tpa, wg, fsum, pipe, tcap; /* of the "charmm" kind */
    /* [log2 tpa][tally][fsum > 1][pipe 0..2][tcap > 0], built on first use */
    scl_kernel *kernel[CHARMM_TPA_VARIANTS][2][2][3][2];
    struct charmm_cpu *cpu; /* the "cpu" kind's state (charmm_cpu.c) */
    struct charmm_cluster *cluster; /* the "cluster" kind's (charmm_cluster.c) */
};

scl_status charmm_forces_init(charmm_forces *fk, scl_context *ctx, const scl_charmm_params *p,
                              const charmm_coeffs *coeffs);
void charmm_forces_free(charmm_forces *fk);

/* Whether tallying steps do their pair math in double (mixed with
 * mixed_tally_double on fp64 devices, and double precision). */
int charmm_forces_pair_double(const charmm_forces *fk, int tally);

/* Bytes of a force kernel's local scratch for work-group wg (cl/charmm.cl
 * finish_atom and the tally accumulators). */
size_t charmm_forces_scratch_bytes(const charmm_forces *fk, size_t wg);
/* Float partial sums per FSUM pairs (cl/charmm.cl): mixed with double
 * accumulators only. */
int charmm_forces_has_fsum(const charmm_forces *fk);
/* Whether kernel k (of cl/charmm.cl) launches with work-group wg and its
 * scratch (SCL_ERR_UNSUPPORTED, say, past the device's local memory). */
scl_status charmm_forces_check_scratch(charmm_forces *fk, scl_kernel *k, int wg);
/* Kernel `name` of cl/charmm.cl for (tpa, tally, fsum) into *slot, built
 * when *slot is NULL. */
scl_status charmm_forces_kernel(charmm_forces *fk, const char *name, int tpa, int tally,
                                int fsum, const char *label, scl_kernel **slot);

/* Bind the pair-math arguments every force kernel declares: cutoffs and
 * coefficients (real: double when dbl), special factors, the fixed-point
 * cutoffs cut_force_units/cut_coul_units and ntypes. */
scl_status charmm_forces_bind_pair_math(const charmm_forces *fk, const charmm_nlist *nl,
                                        scl_kernel *k, int dbl);

#endif
