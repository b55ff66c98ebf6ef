/* Whole systems for lj/charmm/coul/long without LAMMPS: a water-like box
 * generator and a reader of LAMMPS atom_style full data files. Used by
 * `streamcl pair-bench` and the tests (not part of the public API). */
#ifndef SCL_PAIR_CHARMM_SYSTEM_H
#define SCL_PAIR_CHARMM_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

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
} charmm_system;

void charmm_system_free(charmm_system *sys);

/* nmol rigid-geometry water-like molecules (O -0.834, H +0.417, TIP3P/CHARMM
 * LJ) on a jittered lattice at 0.1 atoms/A^3, random orientations, 1-2 and 1-3
 * specials. Returns 0, or -1 when out of memory. */
int charmm_water_box(int nmol, uint64_t seed, charmm_system *sys);

/* Replicate a system nx*ny*nz times (tags and specials shifted per copy). */
int charmm_system_replicate(const charmm_system *in, int nx, int ny, int nz, charmm_system *out);

/* Read a LAMMPS data file (atom_style full): box, Masses, Pair Coeffs
 * (epsilon sigma [eps14 sigma14], arithmetic mixing), Atoms, Bonds; 1-2,
 * 1-3 and 1-4 specials are derived from the bonds as LAMMPS does. Returns 0,
 * or -1 with "FILE:LINE: message" in err. */
int charmm_read_data(const char *path, charmm_system *sys, char *err, size_t errlen);

/* Derive specials (1-2, 1-3, 1-4 partners by tag) from bonds given as pairs of
 * atom indices. Returns 0, -1 when out of memory, or CHARMM_TOO_MANY_SPECIALS
 * when an atom has more than CHARMM_MAX_SPECIAL partners. */
#define CHARMM_MAX_SPECIAL 256
#define CHARMM_TOO_MANY_SPECIALS (-2)
int charmm_specials_from_bonds(charmm_system *sys, long nbonds, const int *bond_atoms);

/* Host-only seconds of scl_charmm_set_atoms summed over its calls (binning,
 * binned arrays, upload enqueues; not the list build and its read-backs),
 * for pair-bench; *cpu (optional) receives the same in CPU time of the
 * calling thread (insensitive to other load on the host). */
struct scl_charmm;
double charmm_set_atoms_host_seconds(const struct scl_charmm *eng, double *cpu);

#endif
