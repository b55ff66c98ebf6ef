/*
 * streamcl/integrate.h — velocity Verlet on the device with positions and
 * velocities resident there (issue 21: the integrator of a step that makes no
 * host round trip). The per-atom parts of LAMMPS's fix nve and of fix nh's
 * (nvt/npt) velocity scalings, a kinetic-energy tensor for the thermostat /
 * barostat scalars the caller keeps on the host, and the largest displacement
 * since the last re-neighboring for the caller's neighbor-list decision, one
 * number down.
 *
 *   scl_integrate *it;
 *   scl_integrate_options o;
 *   scl_integrate_options_default(&o);
 *   o.dt = 2.0; o.ftm2v = force->ftm2v; o.force_type = scl_charmm_force_type(pair);
 *   scl_integrate_create(ctx, &o, &it);
 *   after each re-neighboring: scl_integrate_set_atoms(it, n, x, v, dtfm_mass...)
 *   every step:  scl_integrate_initial(it, f)   v += dtf/m f; x += dt v
 *                (forces of the new x into f, on the device)
 *                scl_integrate_final(it, f)     v += dtf/m f
 *                scl_integrate_max_displacement(it, &d2) when the caller checks
 *   output steps: scl_integrate_read(it, x, v)
 *
 * Forces f are rows of 4 values (x, y, z, unused) of force_type, the owned
 * atoms first, in the caller's order: the layout of the pair engine's force
 * rows (scl_charmm_force_hook), so the integrator reads them where they are.
 * x and v are 3 doubles a row (scl_charmm_positions' layout).
 *
 * Arithmetic as LAMMPS's FixNVE, in double, without contraction
 * (FP_CONTRACT OFF): dtfm = dtf / m[i] with dtf = 0.5 dt ftm2v, dtv = dt;
 * v += dtfm * f; x += dtv * v. Needs fp64.
 */
#ifndef STREAMCL_INTEGRATE_H
#define STREAMCL_INTEGRATE_H

#include "streamcl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    scl_precision precision; /* MIXED (default) or DOUBLE: x and v are double in both */
    double dt;               /* time step (default 1) */
    double ftm2v;            /* force / mass -> velocity units (LAMMPS force->ftm2v; default 1) */
    scl_type force_type;     /* SCL_DOUBLE (default) or SCL_FLOAT: the force rows' values */
    int work_group;          /* 0: 64 (a power of two, <= 256) */
} scl_integrate_options;

void scl_integrate_options_default(scl_integrate_options *o);

typedef struct scl_integrate scl_integrate;

scl_status scl_integrate_create(scl_context *ctx, const scl_integrate_options *o,
                                scl_integrate **out);
void scl_integrate_free(scl_integrate *it);

/* The atoms after a re-neighboring (LAMMPS: the owned atoms, in its order):
 * x and v n*3 doubles, mass n masses (LAMMPS: mass[type[i]] or rmass[i]),
 * all uploaded; the positions also become the reference of the
 * displacement check. Checked: finite x, v, positive finite masses
 * (SCL_ERR_ARGUMENT naming the first bad atom). Blocks until uploaded. */
scl_status scl_integrate_set_atoms(scl_integrate *it, int n, const double *x, const double *v,
                                   const double *mass);
int scl_integrate_count(const scl_integrate *it);

/* The first half step on the device: v += dtfm f, then x += dtv v, f rows
 * of options.force_type (at least 4*n values). Queued; returns at once. */
scl_status scl_integrate_initial(scl_integrate *it, const scl_stream *f);
/* The second half step: v += dtfm f. Queued. */
scl_status scl_integrate_final(scl_integrate *it, const scl_stream *f);
/* v[i][d] *= scale[d] for every atom (fix nh's factor_eta, or its per-
 * dimension barostat factors). Queued. */
scl_status scl_integrate_scale_v(scl_integrate *it, const double scale[3]);

/* sum_i m_i v_a v_b over the atoms (xx yy zz xy xz yz, as LAMMPS's compute
 * temp's vector before its mvv2e): work-group partials on the device, their
 * sum on the host in double. Blocks. */
scl_status scl_integrate_kinetic(scl_integrate *it, double mvv[6]);
/* The largest squared displacement of any atom since set_atoms (LAMMPS's
 * Neighbor::check_distance compares it with its trigger). Blocks; one
 * double comes down. 0 for no atoms. */
scl_status scl_integrate_max_displacement(scl_integrate *it, double *d2);

/* The device x and v: streams of n*3 doubles (valid until set_atoms). */
scl_stream *scl_integrate_positions(scl_integrate *it);
scl_stream *scl_integrate_velocities(scl_integrate *it);
/* Copy x and v (n*3 doubles each; either may be NULL) to the host. Blocks. */
scl_status scl_integrate_read(scl_integrate *it, double *x, double *v);

/* Plain C double reference of initial (half 1) or final (half 2) on host
 * arrays: f rows of 4 doubles, dtfm per atom, as the device computes. */
void scl_integrate_reference(int half, int n, double *x, double *v, const double *f4,
                             const double *dtfm, double dtv);

#ifdef __cplusplus
}
#endif

#endif
