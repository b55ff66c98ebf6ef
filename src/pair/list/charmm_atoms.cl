/* The caller's tags and special tags as the charmm engine's 64-bit arrays
 * (scl_charmm_set_atoms_from: LAMMPS hands its tagint arrays over as they
 * are, TAG_BYTES 4 in its default build, 8 with -DLAMMPS_BIGBIG), checked on
 * the way: *bad becomes the smallest index of an atom whose tag, or (local
 * atoms) one of whose special tags within its counts, is negative. Entries
 * of a special row past its counts are written as 0 (LAMMPS leaves stale
 * values there; no kernel reads them). The counts are clamped to
 * [0, maxspecial] here: this kernel is queued before the host has bin_bounds'
 * verdict on them (set_atoms fails then). One work-item per atom. */

#ifndef TAG_BYTES
#define TAG_BYTES 8
#endif
#if TAG_BYTES == 4
typedef int tag_in_t;
#else
typedef long tag_in_t;
#endif

__kernel void atoms_tags(const int n, const int has_tag, __global const tag_in_t *tag_in,
                         __global long *tag_out, const int nlocal, const int maxspecial,
                         __global const int *nspecial, __global const tag_in_t *special_in,
                         __global long *special_out, __global int *bad)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    int wrong = 0;
    if (has_tag) {
        const long t = tag_in[i];
        tag_out[i] = t;
        wrong = t < 0;
    }
    if (i < nlocal && maxspecial > 0) {
        const int c = nspecial[3 * i + 2];
        const int count = c < 0 ? 0 : c > maxspecial ? maxspecial : c;
        const size_t row = (size_t)i * (size_t)maxspecial;
        for (int k = 0; k < maxspecial; k++) {
            const long t = k < count ? (long)special_in[row + k] : 0;
            special_out[row + k] = t;
            wrong |= t < 0;
        }
    }
    if (wrong)
        atomic_min(bad, i);
}
