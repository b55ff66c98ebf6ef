/* Whole lj/charmm/coul/long systems without LAMMPS, for programs that
 * drive scl_charmm themselves (`streamcl pair-bench`, tests, examples): a
 * water-like box generator and a reader of LAMMPS atom_style full data
 * files. Host-only: no context, no device; failures return nonzero (the
 * reader with "FILE:LINE: message" in err). */
#ifndef STREAMCL_CHARMM_SYSTEM_H
#define STREAMCL_CHARMM_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int natoms;          /* all local (no ghosts) */
    double lo[3], hi[3]; /* periodic box */
    double *x, *q;       /* 3*natoms, natoms */
    int *type;           /* 0-based */
    int64_t *tag;        /* 1-based global ids */
    /* specials as LAMMPS holds them (cumulative counts, partner tags) */
    int *nspecial;       /* 3*natoms */
    int64_t *special;    /* natoms*maxspecial */
    int maxspecial;
    int ntypes;
    double *epsilon, *sigma; /* ntypes*ntypes, mixed */
} scl_charmm_system;

void scl_charmm_system_free(scl_charmm_system *sys);

/* nmol rigid-geometry water-like molecules (O -0.834, H +0.417, TIP3P/CHARMM
 * LJ) on a jittered lattice at 0.1 atoms/A^3, random orientations, 1-2 and 1-3
 * specials. Returns 0, or -1 when out of memory. */
int scl_charmm_water_box(int nmol, uint64_t seed, scl_charmm_system *sys);

/* Replicate a system nx*ny*nz times (tags and specials shifted per copy). */
int scl_charmm_system_replicate(const scl_charmm_system *in, int nx, int ny, int nz,
                                scl_charmm_system *out);

/* Read a LAMMPS data file (atom_style full): box, Masses, Pair Coeffs
 * (epsilon sigma [eps14 sigma14], arithmetic mixing), Atoms, Bonds; 1-2,
 * 1-3 and 1-4 specials are derived from the bonds as LAMMPS does. Returns 0,
 * or -1 with "FILE:LINE: message" in err. */
int scl_charmm_read_data(const char *path, scl_charmm_system *sys, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
