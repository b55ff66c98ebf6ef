/* The "cpu" kind of force kernels of the charmm engine (charmm_cpu.cl):
 * a block of atoms per work-item, 8 neighbors per SIMD vector, over the
 * neighbor list object's full lists or over half lists derived from them
 * with coloured blocks (charmm_colour.h). Plan values: "list" (1 full,
 * 2 half) and "block" (atoms per work-item). */
#ifndef SCL_PAIR_CHARMM_CPU_H
#define SCL_PAIR_CHARMM_CPU_H

#include "pair/kinds/charmm_colour.h"
#include "pair/kinds/charmm_forces.h"

enum { CHARMM_CPU_FULL = 1, CHARMM_CPU_HALF = 2 };


typedef struct charmm_cpu charmm_cpu;
void charmm_cpu_free(charmm_cpu *cpu);

/* The half lists of the last step and their colouring, read back for
 * checks (tests): counts (nlocal), rows (nlocal*capacity; entries are
 * binned index | kind << 30), slot_of (natoms+1: local slot of a binned
 * atom, -1 for ghosts) are malloc'd for the caller; the colouring stays
 * owned by fk. SCL_ERR_ARGUMENT when the last step did not use half lists. */
scl_status charmm_cpu_half_lists(charmm_forces *fk, const charmm_nlist *nl, int **counts,
                                 int **rows, int *capacity, int **slot_of,
                                 const charmm_colouring **colouring);

/* Launches of the last step and the colours/blocks of its layout (stats). */
void charmm_cpu_describe(const charmm_forces *fk, int *list, int *launches, int *colours,
                         int *blocks);

#endif
