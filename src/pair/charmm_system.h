/* The pair module's side of include/streamcl/charmm_system.h: deriving
 * specials from bonds (the water box and the data reader share it), and the
 * names the tests knew before the systems became public (to be replaced by
 * the scl_ names in the tests, then dropped). */
#ifndef SCL_PAIR_CHARMM_SYSTEM_H
#define SCL_PAIR_CHARMM_SYSTEM_H

#include "streamcl/charmm_system.h"

/* Derive specials (1-2, 1-3, 1-4 partners by tag) from bonds given as pairs of
 * atom indices. Returns 0, -1 when out of memory, or CHARMM_TOO_MANY_SPECIALS
 * when an atom has more than CHARMM_MAX_SPECIAL partners. */
#define CHARMM_MAX_SPECIAL 256
#define CHARMM_TOO_MANY_SPECIALS (-2)
int charmm_specials_from_bonds(scl_charmm_system *sys, long nbonds, const int *bond_atoms);

/* the earlier names (tests) */
typedef scl_charmm_system charmm_system;
#define charmm_system_free scl_charmm_system_free
#define charmm_water_box scl_charmm_water_box
#define charmm_system_replicate scl_charmm_system_replicate
#define charmm_read_data scl_charmm_read_data

#endif
