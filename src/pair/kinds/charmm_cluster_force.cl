/* The "cluster" kind's force kernel (kinds/charmm_cluster.c); the pair
 * math, options and precisions are those of charmm_pair.clh. */
#include "charmm_pair.clh"

/* Forces over the cluster-pair lists of src/pair/kinds/charmm_cluster.cl (the "cluster"
 * kind): 8 TPA work-items per i-cluster, TPA lanes per i atom (i = 0..7).
 * Lane l of atom i takes q = l, l + TPA, ... over the flattened (j-cluster
 * entry q / 8, its atom q % 8) where the entry's mask has bit 8 i + q % 8,
 * then the atom's special pairs (general pair code, kind from the list).
 * The lanes of the 8 i atoms read the same j atoms at the same time: one
 * position gather serves 8 pairs (charmm_force gathers one per pair), and
 * there is no per-pair list index to load. Cutoff tests as charmm_force
 * (CUTOFF_TESTS). Outputs, partials (one per
 * work-group) and precisions as charmm_force. */
/* Why 36 arguments: charmm_force's, plus the cluster-pair list (cj, cmask, nj) and its specials. */
__kernel void charmm_cluster_force(__global const pos4 *restrict pos,
                                   __global const float4 *restrict pos_lo,
                                   __global const int *restrict type,
                                   __global const int *restrict ilist,
                                   __global const int *restrict order,
                                   __global const int *restrict cl_atom_i,
                                   __global const int *restrict cl_atom_j,
                                   __global const int *restrict nj, __global const int *restrict cj,
                                   __global const int2 *restrict cmask, const int capacity,
                                   __global const int *restrict sp_list,
                                   __global const int *restrict sp_count, const int sp_capacity,
                                   __global const real4 *restrict ljc, const int ntypes,
                                   const real cut_forcesq, const real cut_coulsq,
                                   const real cut_ljsq, const real cut_lj_innersq,
                                   const real inv_denom_lj, const real qqrd2e, const real g_ewald,
                                   const real4 special_lj, const real4 special_coul,
                                   const real min_r2, const real unit,
                                   const ulong cut_force_units, const ulong cut_coul_units,
                                   const int per_atom, __global out_t *force,
                                   __global part_t *partials, __global out_t *eatom,
                                   __global out_t *vatom, volatile __global int *error,
                                   __local acc *scratch)
{
    const int gid = get_global_id(0), lid = get_local_id(0), wg = get_local_size(0);
    const int ic = gid / (8 * TPA), i8 = (gid / TPA) % 8, lane = gid % TPA;
    const int slot = 8 * ic + i8;
    const int ai = cl_atom_i[slot];
    const int active = ai >= 0;
    const int ii = active ? ai : 0;
    const int i = ilist[ii];
    const pos4 pi = pos[i];
    const float4 lo_i = residuals(pos_lo, i);
    const real qi = pair_delta(pi, pi, lo_i, pos_lo, i, unit).w;
    const int ti = type[i];
    const int n8 = active ? 8 * nj[ic] : 0;
    const int nsp = active ? sp_count[slot] : 0;
    const size_t base = (size_t)ic * (size_t)capacity;
    const int bit = 8 * (i8 % 4);
    TALLY_ACCUMULATORS();
    int since = 0;
#if POS_FIXED && !PAIR_DOUBLE
    const real cut_hi = cut_forcesq * CUT_BAND_HI, band_lo = min(cut_forcesq, cut_coulsq) * CUT_BAND_LO;
#endif
    /* phase 0: the cluster pairs (kind 0 known at compile time, no special
     * factors or erf series in the code), phase 1: the atom's special pairs */
#pragma unroll
    for (int phase = 0; phase < 2; phase++)
    for (int q = lane; q < (phase == 0 ? n8 : nsp); q += TPA) {
#if PARTIALS
        if (++since == FSUM) {
            FLUSH_ALL();
            since = 0;
        }
#endif
        int j, kind;
        if (phase == 0) { /* q >= 0: shifts, not signed divisions */
            const int2 m = cmask[base + (q >> 3)];
            if (!((as_uint(i8 < 4 ? m.x : m.y) >> (bit + (q & 7))) & 1u))
                continue;
            j = cl_atom_j[8 * cj[base + (q >> 3)] + (q & 7)];
            kind = 0;
        } else {
            const int packed = sp_list[(size_t)slot * (size_t)sp_capacity + (size_t)q];
            j = packed & INDEX_MASK;
            kind = (packed >> KIND_SHIFT) & 3;
        }
        const pos4 pj = pos[j];
        const real4 d = pair_delta(pi, pj, lo_i, pos_lo, j, unit);
        const real dx = d.x, dy = d.y, dz = d.z, qj = d.w;
        PAIR_STEP(type[j]);
    }
#if PARTIALS
    FLUSH_ALL();
#endif
    (void)since, (void)pfx, (void)pfy, (void)pfz;
    FINISH_SUMS();
    finish_atom(scratch, lid, wg, lane, active, order, i, fx, fy, fz, per_atom, force,
                partials, eatom, vatom, get_group_id(0));
}
