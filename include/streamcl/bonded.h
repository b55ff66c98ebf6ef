/*
 * streamcl/bonded.h — CHARMM bonded terms on an OpenCL device, the physics of
 * LAMMPS's bond_style harmonic, angle_style charmm (harmonic + Urey-Bradley),
 * dihedral_style charmm (multi-term, with its weighted 1-4 Lennard-Jones and
 * Coulomb pairs) and improper_style harmonic, usable without LAMMPS.
 *
 * Atoms are given as LAMMPS holds them: nlocal owned atoms followed by ghost
 * atoms; terms index them (0-based) and carry a type. newton_bond has
 * LAMMPS's meaning: on, every atom of a term (ghosts included) receives its
 * force and the term's whole energy/virial counts; off, only owned atoms
 * receive forces and a term's energy/virial counts by the share of its atoms
 * that are owned (a bond with one ghost: half), as LAMMPS's ev_tally does.
 *
 *   scl_bonded *b;
 *   scl_bonded_create(ctx, &options, &b);
 *   scl_bonded_set_coeffs(b, &coeffs);        // after any coefficient change
 *   on steps where the lists change (LAMMPS re-neighboring):
 *       scl_bonded_set_topology(b, &topo);    // builds the atom -> term-slot map
 *   every step:
 *       scl_bonded_compute(b, x, q, flags, f, &result);
 *   (or scl_bonded_compute_start ... other work ... scl_bonded_compute_finish)
 *
 * Forces are deterministic (identical bits run to run, no atomics): each term
 * writes the forces on its atoms into its own slots, and one work-item per
 * atom sums that atom's slots in a fixed order (a CSR map built by
 * set_topology). Energies and virials are reduced per work-group on the
 * device in double and the partials summed on the host in double.
 *
 * Precision (the pair module's enum): the term geometry and the per-term
 * force slots are double in every mode (the device must have fp64, else
 * create is SCL_ERR_UNSUPPORTED: in float, r - r0 of a stiff bond keeps only
 * ~1e-5 of its value); SCL_PREC_MIXED (default) returns each atom's force
 * sum rounded to float (half the download), SCL_PREC_DOUBLE in double.
 * SCL_PREC_SINGLE is taken as mixed. Measured against the double reference
 * (tests/bonded, PoCL): forces within ~5e-8 of max(|f_i|, rms |f|) in
 * mixed, <= 3e-14 in double (60 random seeds); energies and virials
 * ~1e-15 in both.
 *
 * Transfers per compute: x of the owned atoms up to the last one a term
 * uses (none with scl_bonded_compute_start_device: a device copy), plus
 * the ghosts some term uses (packed on the host), up; the same
 * atoms' forces down (float in mixed); a few KB of energy/virial partials
 * when tallying. The lists, types and charges go up only in set_topology.
 *
 * Functions return SCL_OK or an error with a message in scl_last_error(ctx).
 */
#ifndef STREAMCL_BONDED_H
#define STREAMCL_BONDED_H

#include "charmm.h" /* scl_precision */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    scl_precision precision;
    int work_group; /* work-items per group of the term and gather kernels; 0: 64 */
} scl_bonded_options;

/* Mixed precision, automatic work-group. */
void scl_bonded_options_default(scl_bonded_options *o);

/* Coefficients by term type, 0-based arrays of n entries (a term of type t
 * uses entry t - type_base). A kind with n = 0 has no terms; its pointers
 * may be NULL. Angles are in radians except the dihedral shift (degrees, as
 * LAMMPS's dihedral_coeff gives it). */
typedef struct {
    int type_base;                  /* the first term and atom type: 0, or 1 (LAMMPS) */
    int nbond_types;
    const double *bond_k, *bond_r0; /* E = k (r - r0)^2 */
    int nangle_types;               /* E = k (theta - theta0)^2 + k_ub (r13 - r_ub)^2 */
    const double *angle_k, *angle_theta0, *angle_k_ub, *angle_r_ub;
    int ndihedral_types;            /* E = k (1 + cos(n phi - d)), 1-4 pair scaled by w */
    const double *dihedral_k;
    const int *dihedral_multiplicity; /* n >= 0 */
    const double *dihedral_shift;     /* d, degrees */
    const double *dihedral_weight;    /* w in [0, 1]: 0 = no 1-4 pair from this term */
    int nimproper_types;
    const double *improper_k, *improper_chi; /* E = k (chi - chi0)^2 */
    /* 1-4 pairs (used when some weight > 0): natom_types^2 row-major, by
     * atom type - type_base, LAMMPS's lj14_1..lj14_4 of the pair style
     * (48 eps s^12, 24 eps s^6, 4 eps s^12, 4 eps s^6 of the 1-4 parameters). */
    int natom_types;
    const double *lj14_1, *lj14_2, *lj14_3, *lj14_4;
    double qqrd2e;                  /* Coulomb conversion (LAMMPS force->qqrd2e) */
    int implicit;                   /* 1: Coulomb 1/r^2 (pair ... implicit), 0: 1/r */
} scl_bonded_coeffs;

/* The term lists as LAMMPS holds them (neighbor->bondlist[0] etc.):
 * bonds (i, j, type) x nbonds, angles (i, j, k, type), dihedrals and
 * impropers (i, j, k, l, type); atom indices 0-based into x. */
typedef struct {
    int nlocal, nall;               /* owned atoms; owned + ghost atoms */
    int newton_bond;
    int nbonds, nangles, ndihedrals, nimpropers;
    const int *bonds, *angles, *dihedrals, *impropers;
    const int *type;                /* nall atom types (from type_base), for 1-4 pairs; may
                                       be NULL without 1-4 pairs */
    const double *q;                /* nall charges, for 1-4 pairs (may be NULL then); see
                                       scl_bonded_compute to change them between topologies */
} scl_bonded_topology;

/* The four kinds of terms, for per-kind results and masks. */
typedef enum {
    SCL_BONDED_BOND = 0,
    SCL_BONDED_ANGLE = 1,
    SCL_BONDED_DIHEDRAL = 2,
    SCL_BONDED_IMPROPER = 3,
    SCL_BONDED_PAIR14 = 4, /* the dihedrals' 1-4 pairs (LAMMPS tallies them in the pair) */
    SCL_BONDED_KINDS = 5
} scl_bonded_kind;

enum {
    SCL_BONDED_TALLY = 1,        /* global energies and virials */
    SCL_BONDED_PER_ATOM = 2,     /* per-atom energies and virials too */
    SCL_BONDED_DEVICE_FORCES = 4 /* forces summed into another module's device array
                                    (scl_bonded_gather_into), not downloaded */
};

typedef struct {
    /* per kind: energy, and the virial xx yy zz xy xz yz (LAMMPS order); the
     * 1-4 pairs split their energy into van der Waals (energy) and Coulomb
     * (energy_coul, only for SCL_BONDED_PAIR14) */
    double energy[SCL_BONDED_KINDS];
    double energy_coul;
    double virial[SCL_BONDED_KINDS][6];
    /* SCL_BONDED_PER_ATOM: filled when non-NULL, for atoms [0, ngather) of
     * the topology (nall with newton_bond on, nlocal off):
     * eatom[kind * nall + i] (energy; PAIR14 van der Waals + Coulomb) and
     * vatom[(kind * nall + i) * 6 + c]. Written (not added). */
    double *eatom;
    double *vatom;
} scl_bonded_result;

typedef struct scl_bonded scl_bonded;

scl_status scl_bonded_create(scl_context *ctx, const scl_bonded_options *o, scl_bonded **out);
void scl_bonded_free(scl_bonded *b);

/* Coefficients (copied). SCL_ERR_INPUT for non-finite values or negative
 * multiplicities, SCL_ERR_ARGUMENT for missing arrays. */
scl_status scl_bonded_set_coeffs(scl_bonded *b, const scl_bonded_coeffs *c);

/* The lists changed: upload them (copied; type and q too) and rebuild the
 * atom -> term-slot map. SCL_ERR_INPUT names the first term with an atom
 * index outside [0, nall) or a type outside the coefficients. */
scl_status scl_bonded_set_topology(scl_bonded *b, const scl_bonded_topology *t);

/* One evaluation of every term of the topology at positions x (3*nall
 * doubles; only atoms up to the highest index a term uses are read). q: new
 * charges (nall) or NULL to keep those of set_topology. flags:
 * SCL_BONDED_TALLY, SCL_BONDED_PER_ATOM. Adds the forces: f[3i+d] += ...
 * for the atoms that receive forces (see newton_bond). result may be NULL
 * without flags; with them its energies and virials are written.
 * Blocks until done. */
scl_status scl_bonded_compute(scl_bonded *b, const double *x, const double *q, int flags,
                              double *f, scl_bonded_result *result);

/* The same in two halves, so that the device works while the caller does
 * other things: start uploads x (straight from the caller's array: keep x
 * unchanged until finish returns), queues the kernels and the read-backs and
 * returns; finish waits, adds the forces and writes result (as compute).
 * One evaluation at a time: set_topology and start refuse while one is
 * pending (SCL_ERR_ARGUMENT). */
scl_status scl_bonded_compute_start(scl_bonded *b, const double *x, const double *q, int flags);
scl_status scl_bonded_compute_finish(scl_bonded *b, double *f, scl_bonded_result *result);
int scl_bonded_pending(const scl_bonded *b);

/* compute_start with the positions already on the device: x_dev, a stream
 * of doubles on the engine's context holding x in the caller's numbering
 * (at least 3 * the owned atoms a term uses; e.g. scl_charmm_positions of
 * the pair engine's pending step), is copied on the device for the owned
 * atoms instead of uploading them; the few ghosts some term uses are
 * copied from it too where it holds all nall atoms (their indices go up
 * once per topology), else taken from x (host, 3*nall). The same results
 * bit for bit. SCL_ERR_ARGUMENT
 * for a stream of another context, of another type or too short. */
scl_status scl_bonded_compute_start_device(scl_bonded *b, const scl_stream *x_dev,
                                           const double *x, const double *q, int flags);

/* One force download per step with another module of the context (e.g.
 * the pair engine's, through scl_charmm_set_force_hook): an evaluation
 * started with SCL_BONDED_DEVICE_FORCES queues its terms but no force
 * gather or read-back; scl_bonded_gather_into then queues the sum of each
 * atom's slots into `force`, rows of 4 values (x, y, z, unused) of `type`
 * (SCL_FLOAT or SCL_DOUBLE): added (in double, rounded once) to row i for
 * an owned atom i, written to row nlocal + j for the j-th used ghost
 * (scl_bonded_ghost_rows of them, newton_bond on; at most extra_rows).
 * Returns the ghost rows written, or -1 (scl_last_error says why); may be
 * called again for the same evaluation (the other module rewrote its
 * rows, e.g. recomputed its step). The
 * other module reads the rows back; scl_bonded_compute_finish_rows waits,
 * adds the ghost rows (as read back) to their atoms' f and writes result
 * as scl_bonded_compute_finish does. Forces: the same terms and slot sums;
 * owned atoms' now round once with the other module's (mixed: the bonded
 * sum is no longer rounded to float on its own). */
int scl_bonded_ghost_rows(const scl_bonded *b);
/* The caller's atom index (a ghost) of each of those rows, in row order
 * (*n = scl_bonded_ghost_rows); NULL and 0 when there are none. Valid until
 * the next topology. */
const int *scl_bonded_ghost_atoms(const scl_bonded *b, int *n);
int scl_bonded_gather_into(scl_bonded *b, scl_stream *force, scl_type type, int nlocal,
                           int extra_rows);
scl_status scl_bonded_compute_finish_rows(scl_bonded *b, const void *rows, scl_type type,
                                          double *f, scl_bonded_result *result);
/* Build now the kernels that the device forms (compute_start_device's
 * ghost-row copy, gather_into with rows of `type`, SCL_FLOAT or SCL_DOUBLE)
 * would otherwise build on their first call: at set-up, so that no time
 * step compiles a program. Once per type; later calls cost nothing. */
scl_status scl_bonded_prepare_rows(scl_bonded *b, scl_type type);

/* Atoms whose forces compute adds (and per-atom arrays cover): nall with
 * newton_bond on, nlocal off. */
int scl_bonded_gather_count(const scl_bonded *b);

/* ---- plain C reference (double), the test oracle: the same contract as
 * scl_bonded_compute (adds forces; result as there, per-atom arrays written
 * when non-NULL). SCL_ERR_INPUT / SCL_ERR_ARGUMENT as set_coeffs/topology;
 * err (optional) gets the message. */
scl_status scl_bonded_reference(const scl_bonded_coeffs *c, const scl_bonded_topology *t,
                                const double *x, double *f, scl_bonded_result *result,
                                char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
