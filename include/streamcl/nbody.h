/*
 * streamcl n-body: all-pairs gravity with leapfrog (kick-drift-kick) time steps.
 *
 *   a_i = G sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2)
 *   E_kin = sum_i m_i v_i^2 / 2,   E_pot = -G sum_{i<j} m_i m_j / sqrt(r_ij^2 + eps^2)
 *
 * The device kernel follows the "combined" copious-parallelism scheme (Rocki,
 * Burtscher, Suda 2014): each work-item owns V bodies held in OpenCL vector
 * types (V = 1, 2, 4, 8, 16), and the j bodies pass through local memory in
 * tiles. V, the tile size and the work-group size are plan parameters chosen
 * by scl_plan_tune per device, precision and problem size. N that fits no
 * launch shape is padded with zero-mass bodies.
 *
 * FLOP convention: 20 floating-point operations per interaction, the count of
 * the GPU Gems 3 CUDA sample (3 differences, 6 for r^2 + eps^2, 3 for m/r^3,
 * 6 for the accumulation, the reciprocal square root as 2); a force
 * evaluation counts N^2 interactions (padding bodies excluded).
 *
 * Positions, velocities and accelerations cross the API as double arrays of
 * 3N values (x0 y0 z0 x1 y1 z1 ...); masses as N doubles. Bodies are stored on
 * the device in single or double precision.
 */
#ifndef STREAMCL_NBODY_H
#define STREAMCL_NBODY_H

#include "streamcl.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCL_NBODY_FLOPS_PER_INTERACTION 20

typedef enum { SCL_NBODY_SINGLE = 0, SCL_NBODY_DOUBLE = 1 } scl_nbody_precision;

typedef struct {
    double G;                      /* gravitational constant (0 means 1) */
    double eps;                    /* softening length, >= 0; 0: exact 1/r^2 with j = i skipped */
    double dt;                     /* time step, > 0 */
    scl_nbody_precision precision; /* device storage and arithmetic */
    int tune;                      /* 1: time plan candidates; 0: cached plan or defaults */
    const char *force;             /* "V=4,wg=64,tile=256" fixes plan parameters, or NULL */
} scl_nbody_options;

typedef struct scl_nbody scl_nbody;

/* Upload a system of n bodies and compute its initial accelerations. Fails with
 * SCL_ERR_ARGUMENT for n == 0, dt <= 0, eps < 0 or G < 0, with SCL_ERR_INPUT
 * for non-finite values or negative masses, SCL_ERR_UNSUPPORTED for double
 * precision on a device without fp64. */
scl_status scl_nbody_create(scl_context *ctx, const scl_nbody_options *opt, size_t n,
                            const double *pos, const double *vel, const double *mass,
                            scl_nbody **out);
void scl_nbody_free(scl_nbody *nb);

/* Advance `steps` leapfrog steps (kernels are queued; reads wait for them). */
scl_status scl_nbody_step(scl_nbody *nb, long steps);

/* Read the current state; any pointer may be NULL. */
scl_status scl_nbody_read(scl_nbody *nb, double *pos, double *vel, double *acc);

/* Kinetic and potential energy of the current state: potentials per body on the
 * device, sums on the host in double. */
scl_status scl_nbody_energy(scl_nbody *nb, double *kinetic, double *potential);

/* Per-body potentials phi_i = -G sum_{j != i} m_j / sqrt(r_ij^2 + eps^2) of
 * the owned bodies against all sources (n values), and the energies
 * scl_nbody_energy adds up from them on the host (the same sums in the
 * same order: kinetic sum_i m_i v_i^2 / 2, potential sum_i m_i phi_i / 2). */
scl_status scl_nbody_potentials(scl_nbody *nb, double *phi);
void scl_nbody_energy_sum(size_t n, const double *vel, const double *mass, const double *phi,
                          double *kinetic, double *potential);

/* ------------------------------------------------------------ a run in blocks */
/* One process of a run over several (the streamcl command under mpirun)
 * owns a block of the bodies: a system made with scl_nbody_create from them
 * (its initial accelerations count the block only), given the positions and
 * masses of all `total` bodies as sources, block by block. A step is then
 *   scl_nbody_drift                  the opening half kick and the drift,
 *   scl_nbody_pack                   the block's new positions and masses (to send),
 *   per source block, in the bodies' order:
 *     scl_nbody_put_sources          its positions and masses,
 *     scl_nbody_accumulate           its forces added (BEGIN on the first block;
 *                                    CLOSE | KICK on the last, CLOSE alone
 *                                    for the initial accelerations).
 * Each owned body's force is summed over the sources in index order, as one
 * system of all the bodies sums it: with the same plan the bits are the
 * same. Potentials (and scl_nbody_energy) then run against the sources. A
 * block is 4 * count reals of the body precision: x[count] y[count] z[count]
 * m[count] (scl_nbody_block_bytes). scl_nbody_put_sources only queues the
 * copy: the block must stay as it is until a call that waits for the
 * device (scl_nbody_pack, _read, _potentials, _energy, scl_finish), so that
 * the next block can arrive while the forces run. scl_nbody_step refuses a
 * system with sources. */
enum { SCL_NBODY_BEGIN = 1, SCL_NBODY_CLOSE = 2, SCL_NBODY_KICK = 4 };
scl_status scl_nbody_sources_create(scl_nbody *nb, size_t total);
size_t scl_nbody_block_bytes(const scl_nbody *nb, size_t count);
scl_status scl_nbody_pack(scl_nbody *nb, void *block);
scl_status scl_nbody_put_sources(scl_nbody *nb, size_t first, size_t count, const void *block);
scl_status scl_nbody_accumulate(scl_nbody *nb, size_t first, size_t count, unsigned flags);
scl_status scl_nbody_drift(scl_nbody *nb);

/* The launch plan in use (names "V", "wg", "tile"). */
const scl_plan *scl_nbody_plan(const scl_nbody *nb);
size_t scl_nbody_count(const scl_nbody *nb);
/* Total and median device seconds and the count of force evaluations since
 * creation (needs a profiling context; zeros otherwise). Each evaluation is
 * n^2 interactions. Any pointer may be NULL. */
scl_status scl_nbody_force_time(scl_nbody *nb, double *seconds, double *median,
                                long *evaluations);

/* ------------------------------------------------------------ host reference */
/* Plain C in double, O(N^2): the test oracle and the CPU baseline. `parallel`
 * selects the OpenMP version (same arithmetic, rows split over threads). */
scl_status scl_nbody_ref_accel(size_t n, const double *pos, const double *mass, double G,
                               double eps, int parallel, double *acc);
/* One kick-drift-kick step in place; acc holds the accelerations of pos on
 * entry and of the new positions on return. Both return SCL_ERR_MEMORY if
 * their O(N) scratch cannot be allocated. */
scl_status scl_nbody_ref_step(size_t n, double *pos, double *vel, double *acc,
                              const double *mass, double G, double eps, double dt, int parallel);
void scl_nbody_ref_energy(size_t n, const double *pos, const double *vel, const double *mass,
                          double G, double eps, int parallel, double *kinetic, double *potential);

/* ------------------------------------------------------------ initial conditions */
/* Plummer sphere in N-body units (G = M = 1, E = -1/4; Aarseth, Henon & Wielen
 * 1974), equal masses, centre of mass at rest at the origin. */
void scl_nbody_plummer(size_t n, uint64_t seed, double *pos, double *vel, double *mass);
/* Cold uniform sphere of radius 1, total mass 1, at rest. */
void scl_nbody_uniform(size_t n, uint64_t seed, double *pos, double *vel, double *mass);

/* Read bodies from a text file: one body per line "x y z vx vy vz m" separated
 * by blanks or commas; '#' starts a comment; a header line of names is skipped;
 * "# n = N" declares the count (a shorter file is reported as truncated).
 * On success *pos, *vel (3n) and *mass (n) are malloc'd. On failure err holds
 * "FILE:LINE: what is wrong" and nothing is allocated. */
scl_status scl_nbody_load(const char *path, size_t *n, double **pos, double **vel,
                          double **mass, char *err, size_t errlen);
/* Write the same format (with "# n = N" and a header line). Written to a
 * temporary file and renamed, so a failure leaves no half file. */
scl_status scl_nbody_save(const char *path, size_t n, const double *pos, const double *vel,
                          const double *mass, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
