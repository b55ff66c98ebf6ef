/* The "cluster" kind of force kernels of the charmm engine: cluster-pair
 * lists (charmm_cluster.cl, built on the device from the neighbor list
 * object's packed positions at each rebuild) and charmm_cluster_force
 * (charmm_cluster_force.cl): 8 local atoms per i-cluster, 8 atoms per j-cluster, a
 * 64-bit mask per cluster pair, special pairs in a short list per atom.
 * Plan values: "tpa" (lanes per i atom: 1, 2, 4, 8), "wg" (work-group, a
 * power of two and a multiple of 8 tpa), "fsum" (mixed on fp64 devices).
 * Runs on fp64 devices (the column scan and scatter of ../list/charmm_bin.cl);
 * on CPU devices only when asked for by name. */
#ifndef SCL_PAIR_CHARMM_CLUSTER_H
#define SCL_PAIR_CHARMM_CLUSTER_H

#include "pair/kinds/charmm_forces.h"


typedef struct charmm_cluster charmm_cluster;
void charmm_cluster_free(charmm_cluster *cl);

/* Cluster pairs (list entries) and i-clusters of the last build (stats;
 * 0 before the first). */
void charmm_cluster_describe(const charmm_forces *fk, long *entries, int *iclusters);

/* What the force launches walk (stats, read back on demand; all 0 before
 * the first build): entries of the lists the next launch binds (the inner
 * lists once pruned), the atom pairs their masks keep, of those the pairs
 * within the force cutoff at positions pos (packed as the engine's), and
 * the warp steps with a kept pair (32 work-items: 32 / tpa i atoms x tpa j
 * atoms of an entry per step); launches: force launches on the inner lists
 * and on the unpruned lists since the kind was created. */
typedef scl_charmm_cluster_stats charmm_cluster_census;
scl_status charmm_cluster_count(const charmm_forces *fk, const charmm_nlist *nl, scl_stream *pos,
                                charmm_cluster_census *c);

#endif
