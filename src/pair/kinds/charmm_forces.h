/* The force kernels object of the charmm engine: what every force kind
 * shares (coefficient tables, the pair-math arguments, the build of a kernel
 * of charmm_pair.clh) and the interface a kind implements.
 *
 * A kind is one way to compute the forces, in its own file with its kernels
 * beside it: charmm_lanes.c + charmm.cl (full lists, TPA lanes per atom:
 * GPUs), charmm_cpu.c + charmm_cpu.cl (a block of atoms per work-item:
 * CPUs), charmm_cluster.c + charmm_cluster*.cl (cluster-pair lists). The
 * tuner picks the kind and its launch values per device (../charmm_plan.c):
 * each kind names its candidates, says which combinations are legal
 * (prepare) and queues a step (enqueue). Add a kind by writing its file and
 * appending it to the table of charmm_kinds.c, the one place that lists the
 * kinds. Kinds read the neighbor list (../list/), which knows no kind. */
#ifndef SCL_PAIR_CHARMM_FORCES_H
#define SCL_PAIR_CHARMM_FORCES_H

#include "pair/list/charmm_nlist.h"

/* The threads-per-atom values of the "charmm" kind, 1, 2, 4, .. 32, as the
 * variant index 0..5 of its kernels; -1 for any other value. The one list
 * of legal values: the engine's checks, the kind's and the public
 * scl_charmm_tpa_valid (the LAMMPS keyword, the command) ask it. */
#define CHARMM_TPA_VARIANTS 6
static inline int charmm_tpa_index(int tpa)
{
    for (int v = 0; v < CHARMM_TPA_VARIANTS; v++)
        if (tpa == 1 << v)
            return v;
    return -1;
}
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
    /* Optional: free the kind's kernels and state held in fk. */
    void (*release)(charmm_forces *fk);
    /* The kind builds lists of its own from the atom set: it launches once
     * over them (the plan's chunk count changes nothing) and later rebuilds
     * skip the neighbor list object's lists (charmm_nlist.lists_off). */
    int own_lists;
} charmm_force_kind;

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

/* Bytes of a force kernel's local scratch for work-group wg (charmm_pair.clh
 * finish_atom and the tally accumulators). */
size_t charmm_forces_scratch_bytes(const charmm_forces *fk, size_t wg);
/* Float partial sums per FSUM pairs (charmm_pair.clh): mixed with double
 * accumulators only. */
int charmm_forces_has_fsum(const charmm_forces *fk);
/* Whether kernel k (of src/pair/kinds/charmm_pair.clh) launches with work-group wg and its
 * scratch (SCL_ERR_UNSUPPORTED, say, past the device's local memory). */
scl_status charmm_forces_check_scratch(charmm_forces *fk, scl_kernel *k, int wg);
/* The compile-time shape of a force kernel of charmm_pair.clh: TPA, TALLY,
 * FSUM (> 1: 8), PIPE (charmm_force's software-pipelined loop: 1, or 2
 * unrolled twice; 0 none) and a register cap cap > 0 (NVIDIA's
 * -cl-nv-maxrregcount; dropped where the driver refuses it). */
typedef struct {
    int tpa, tally, fsum, pipe, cap;
} charmm_kernel_shape;
/* Kernel `name` of kernel file `program` (one that includes
 * charmm_pair.clh) built for shape into *slot, when *slot is NULL. */
scl_status charmm_forces_kernel(charmm_forces *fk, const char *program, const char *name,
                                const charmm_kernel_shape *shape, const char *label,
                                scl_kernel **slot);

/* Bind the pair-math arguments every force kernel declares: cutoffs and
 * coefficients (real: double when dbl), special factors, the fixed-point
 * cutoffs cut_force_units/cut_coul_units and ntypes. */
scl_status charmm_forces_bind_pair_math(const charmm_forces *fk, const charmm_nlist *nl,
                                        scl_kernel *k, int dbl);

#endif
