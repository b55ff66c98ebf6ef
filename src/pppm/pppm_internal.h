/* Shared between the pppm driver and its C reference. */
#ifndef SCL_PPPM_INTERNAL_H
#define SCL_PPPM_INTERNAL_H

#include "streamcl/pppm.h"

/* LAMMPS's OFFSET: keeps (int) truncation a floor for atoms slightly below boxlo */
#define PPPM_OFFSET 16384

/* Grid point g and offsets d of atom xi (LAMMPS particle_map + the dx of
 * make_rho); 1 when the stencil leaves the brick or x is not finite. */
int pppm_map_atom(const scl_pppm_params *p, const double *xi, int g[3], double d[3]);
/* w[k] = assignment weight of stencil point nlower + k at offset d. */
void pppm_weights(int order, const double *coeff, double d, double *w);
size_t pppm_brick_points(const scl_pppm_params *p);

#endif
