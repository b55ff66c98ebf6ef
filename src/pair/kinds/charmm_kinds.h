/* The force kinds of the charmm engine, listed in one place
 * (charmm_kinds.c). The engine and its plan reach the kinds through this
 * table only; a kind's own header (charmm_cpu.h, charmm_cluster.h) adds
 * what its tests and stats read. */
#ifndef SCL_PAIR_CHARMM_KINDS_H
#define SCL_PAIR_CHARMM_KINDS_H

#include "pair/kinds/charmm_forces.h"

extern const charmm_force_kind charmm_lanes_kind;   /* "charmm" (charmm_lanes.c) */
extern const charmm_force_kind charmm_cpu_kind;     /* "cpu" (charmm_cpu.c) */
extern const charmm_force_kind charmm_cluster_kind; /* "cluster" (charmm_cluster.c) */

/* Every kind, in the order the plan tries them. */
extern const charmm_force_kind *const charmm_force_kinds[];
extern const int charmm_force_nkinds;

/* The kind named name, or NULL. */
const charmm_force_kind *charmm_kinds_find(const char *name);
/* "charmm, cpu or cluster" into buf (messages); returns buf. */
const char *charmm_kinds_names(char *buf, size_t len);

/* Free what every kind holds in fk (before charmm_forces_free). */
void charmm_kinds_release(charmm_forces *fk);

#endif
