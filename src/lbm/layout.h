/* How the solver's device lattice maps to the natural state (internal). */
#ifndef STREAMCL_LBM_LAYOUT_H
#define STREAMCL_LBM_LAYOUT_H

#include "streamcl/lbm.h"

#include <stddef.h>
#include <stdint.h>

/* Which arrangement a raw lattice is in. */
typedef enum {
    LBM_LAYOUT_NATURAL, /* two lattices: f_k(n) at slot k of cell n */
    LBM_LAYOUT_AA_EVEN, /* after an even AA step: f_k(n) at slot opposite(k) of n */
    LBM_LAYOUT_AA_ODD   /* after an odd AA step (and initially): slot k of n + c_k */
} lbm_layout;

/* Raw index (slot*ncell + cell) holding f_k of cell (x, y). */
size_t lbm_layout_index(lbm_layout layout, int k, int x, int y, int nx, int ny);

/* fp16 storage holds f/(w_k rho0) - 1; w_k rho0 per direction. */
void lbm_storage_weights(float density, float wk[SCL_LBM_Q]);
uint16_t lbm_float_to_half(float f);
float lbm_half_to_float(uint16_t h);

/* Natural floats <-> raw storage (float or half) in a layout. */
void lbm_encode(const scl_lbm_params *p, lbm_layout layout, int fp16, const float *natural,
                void *raw);
void lbm_decode(const scl_lbm_params *p, lbm_layout layout, int fp16, const void *raw,
                float *natural);

/* The acceleration of row ny-2 as the benchmark defines it; flags[x] (may be
 * NULL) records where it applied. sign -1 undoes it where flags[x] is set. */
void lbm_accelerate_row(const scl_lbm_params *p, const unsigned char *obstacles, float *f,
                        unsigned char *flags);
void lbm_undo_acceleration(const scl_lbm_params *p, const unsigned char *flags, float *f);
/* The same on row y of the lattice p describes (a row-split slab's local row). */
void lbm_accelerate_row_at(const scl_lbm_params *p, int y, const unsigned char *obstacles,
                           float *f, unsigned char *flags);
void lbm_undo_acceleration_at(const scl_lbm_params *p, int y, const unsigned char *flags,
                              float *f);

#endif
