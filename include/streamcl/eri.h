/*
 * streamcl eri: two-electron repulsion integrals over contracted s-type
 * Gaussians, integral-direct Coulomb/exchange builds on the device, and a
 * closed-shell Hartree-Fock (RHF) driver.
 *
 *   phi_mu(r) = sum_a c_a exp(-alpha_a |r - A|^2)       (c_a includes the primitive
 *                                                        norms and the contraction's)
 *   (ab|cd)   = 2 pi^(5/2) / (p q sqrt(p+q)) K_ab K_cd F0(p q/(p+q) |P-Q|^2)
 *   F0(t)     = int_0^1 exp(-t u^2) du   (the Boys function of order 0)
 *
 * with p = a+b, P = (aA+bB)/p, K_ab = c_a c_b exp(-ab/p |A-B|^2). Primitive
 * pair quantities (p, P, K_ab) are computed once per system; a primitive
 * quartet is then one F0 and a handful of products.
 *
 * Units: atomic units throughout (bohr, hartree). XYZ files are in angstrom
 * unless told otherwise (1 angstrom = 1/0.52917721092 bohr, PySCF's value).
 *
 * Only s shells are supported; the basis and system types carry the angular
 * momentum of each shell so that p and higher shells can be added later. A
 * basis with a higher shell is refused with a message naming file and line.
 *
 * Integral indexing: functions i >= j form the pair index ij = i(i+1)/2 + j;
 * the unique integrals (ij|kl) with ij >= kl are stored at ij(ij+1)/2 + kl
 * (8-fold permutational symmetry), see scl_eri_index.
 */
#ifndef STREAMCL_ERI_H
#define STREAMCL_ERI_H

#include "streamcl.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCL_ERI_MAX_PRIM 16     /* primitives per contracted function */
#define SCL_ERI_BOHR_ANGSTROM 0.52917721092

/* ------------------------------------------------------------ basis sets */

/* One contracted shell of one element as read (coefficients refer to
 * normalised primitives, as in the Basis Set Exchange files). */
typedef struct {
    int element;                      /* atomic number */
    int l;                            /* angular momentum (only 0 is accepted) */
    int nprim;
    double exponent[SCL_ERI_MAX_PRIM];
    double coef[SCL_ERI_MAX_PRIM];
} scl_eri_shell;

typedef struct {
    size_t nshell;
    scl_eri_shell *shell;             /* malloc'd */
    char name[64];
} scl_eri_basis;

/* STO-nG (n = 1..6) for the hydrogen 1s (zeta = 1.24): Stewart's least-squares
 * exponents (J. Chem. Phys. 52, 431 (1970)) scaled by zeta^2, the values of
 * the Basis Set Exchange and PySCF for n = 2..6. */
scl_status scl_eri_basis_sto(int n, scl_eri_basis *out, char *err, size_t errlen);
/* A basis in NWChem format ("BASIS ... END" block or bare element lines
 * "H S" followed by "exponent coefficient" rows; '#' comments; Fortran D
 * exponents). s shells only: "SP", "P", ... shells are refused. Errors name
 * label (the file name) and the line. */
scl_status scl_eri_basis_parse(const char *text, size_t len, const char *label,
                               scl_eri_basis *out, char *err, size_t errlen);
scl_status scl_eri_basis_read(const char *path, scl_eri_basis *out, char *err, size_t errlen);
void scl_eri_basis_free(scl_eri_basis *b);

/* ------------------------------------------------------------ geometry */

typedef struct {
    int Z;                 /* nuclear charge */
    double xyz[3];         /* bohr */
} scl_eri_atom;

/* nx*ny*nz atoms of charge Z on a cubic lattice of the given spacing (bohr),
 * x fastest; *atoms is malloc'd. */
scl_status scl_eri_lattice(int nx, int ny, int nz, double spacing, int Z, scl_eri_atom **atoms,
                           size_t *natoms, char *err, size_t errlen);
/* XYZ file: atom count, comment line, then "Symbol x y z" lines (a symbol or
 * an atomic number). angstrom != 0: coordinates in angstrom, else bohr. */
scl_status scl_eri_xyz_parse(const char *text, size_t len, const char *label, int angstrom,
                             scl_eri_atom **atoms, size_t *natoms, char *err, size_t errlen);
scl_status scl_eri_xyz_read(const char *path, int angstrom, scl_eri_atom **atoms,
                            size_t *natoms, char *err, size_t errlen);
/* Atomic number of an element symbol (case-insensitive), or 0. */
int scl_eri_element(const char *symbol);
const char *scl_eri_element_symbol(int Z);

/* ------------------------------------------------------------ systems */

/* One contracted function of a system: coef[] multiplies exp(-alpha r^2)
 * directly (primitive norms and the normalisation of the contraction, so
 * that <phi|phi> = 1, folded in, as PySCF does). */
typedef struct {
    int atom, l, nprim;
    double center[3];
    double exponent[SCL_ERI_MAX_PRIM];
    double coef[SCL_ERI_MAX_PRIM];
} scl_eri_function;

typedef struct {
    size_t natoms, nfunc;
    scl_eri_atom *atoms;        /* copies */
    scl_eri_function *func;
    int nelectron;              /* sum of Z (neutral) */
} scl_eri_system;

/* Place the basis on the atoms. Fails with SCL_ERR_INPUT for an element the
 * basis lacks or nuclei closer than 1e-6 bohr (message names both atoms). */
scl_status scl_eri_system_build(const scl_eri_basis *basis, const scl_eri_atom *atoms,
                                size_t natoms, scl_eri_system *out, char *err, size_t errlen);
void scl_eri_system_free(scl_eri_system *s);

static inline size_t scl_eri_pair_index(size_t i, size_t j)
{
    return i >= j ? i * (i + 1) / 2 + j : j * (j + 1) / 2 + i;
}
/* Position of (ij|kl) in the unique array (any of the 8 orders). */
static inline size_t scl_eri_index(size_t i, size_t j, size_t k, size_t l)
{
    return scl_eri_pair_index(scl_eri_pair_index(i, j), scl_eri_pair_index(k, l));
}
/* Number of unique integrals of n functions. */
static inline size_t scl_eri_unique_count(size_t n)
{
    size_t np = n * (n + 1) / 2;
    return np * (np + 1) / 2;
}

/* ------------------------------------------------------------ host reference */

/* Boys function F0(t) for t >= 0 in double: a 7-term Taylor expansion about
 * the nearest point of a table with spacing 1/16 on [0, 36) (table entries
 * F0..F7 computed in long double), 0.5 sqrt(pi/t) beyond (erfc(6) < 3e-17).
 * Relative error <= 1e-14 over the whole range (tests/eri/test_boys.c). */
double scl_eri_boys0(double t);
/* The table the device kernels use: SCL_ERI_BOYS_POINTS rows of
 * SCL_ERI_BOYS_ORDER+1 values F_k(i h) / k! (-1)^k, row-major. */
#define SCL_ERI_BOYS_POINTS 577     /* 36 * 16 + 1 */
#define SCL_ERI_BOYS_ORDER 7
#define SCL_ERI_BOYS_STEP (1.0 / 16.0)
#define SCL_ERI_BOYS_TMAX 36.0
const double *scl_eri_boys_table(void);

/* Overlap S, kinetic T and nuclear attraction V (n x n, row-major). */
void scl_eri_one_electron(const scl_eri_system *s, double *S, double *T, double *V);
double scl_eri_nuclear_repulsion(const scl_eri_system *s);
/* One contracted integral (ij|kl) in double. */
double scl_eri_ref_quartet(const scl_eri_system *s, size_t i, size_t j, size_t k, size_t l);
/* Schwarz factors Q_ij = sqrt((ij|ij)) for every pair (n(n+1)/2 values). */
void scl_eri_ref_schwarz(const scl_eri_system *s, double *Q);
/* Every unique integral; quartets with Q_ij Q_kl < threshold are stored as 0
 * (threshold 0: none). OpenMP over pairs. *screened (optional) counts them. */
scl_status scl_eri_ref_tensor(const scl_eri_system *s, double threshold, double *unique,
                              size_t *screened);
/* J_ij = sum_kl (ij|kl) D_kl and K_ij = sum_kl (ik|jl) D_kl from a stored
 * unique tensor (n x n, row-major, D symmetric). */
void scl_eri_jk_from_tensor(size_t n, const double *unique, const double *D, double *J,
                            double *K);

/* ------------------------------------------------------------ device engine */

typedef struct {
    double schwarz;          /* skip quartets with Q_ij Q_kl below this (0: none) */
    /* SCL_PREC_DOUBLE: integrals, J/K and SCF in double; SCL_PREC_SINGLE:
     * integrals in float, the tensor only (not J/K or SCF); no MIXED */
    scl_precision precision;
    int tune;                /* 1: time plan candidates; 0: cached plan or defaults */
    const char *force;       /* "wg=128,boys=0" fixes plan parameters, or NULL */
} scl_eri_options;

/* schwarz 0, double precision, tune 0, nothing forced (what a NULL options
 * pointer means). */
void scl_eri_options_default(scl_eri_options *o);

typedef struct scl_eri scl_eri;

/* Upload the primitive pair data and the Boys table of a system. Fails with
 * SCL_ERR_UNSUPPORTED on a device without fp64, SCL_ERR_ARGUMENT for a
 * negative threshold. The system must outlive the engine. */
scl_status scl_eri_create(scl_context *ctx, const scl_eri_system *sys, const scl_eri_options *opt,
                          scl_eri **out);
void scl_eri_free(scl_eri *e);

/* Every unique integral on the device (screened ones are 0). unique may be
 * NULL (compute only, for timing); it receives scl_eri_unique_count(n)
 * doubles. seconds (optional): device time of the integral kernel. */
scl_status scl_eri_tensor(scl_eri *e, double *unique, double *seconds);
/* Integral-direct J and K (n x n) for a symmetric density D (n x n): every
 * unique quartet is computed once and scattered by 8-fold symmetry; the
 * tensor is never stored. FP64 only. */
scl_status scl_eri_jk(scl_eri *e, const double *D, double *J, double *K, double *seconds);

typedef struct {
    uint64_t primitive_quartets;  /* of the unique quartets not screened (last call) */
    uint64_t screened_quartets;   /* contracted quartets skipped by Schwarz */
    uint64_t unique_quartets;
} scl_eri_counts;
scl_eri_counts scl_eri_last_counts(const scl_eri *e);
const scl_plan *scl_eri_plan(const scl_eri *e);

/* ------------------------------------------------------------ RHF */

typedef struct {
    int max_iter;          /* 0: 100 */
    double e_tol;          /* energy change (0: 1e-10 hartree) */
    double g_tol;          /* max |FDS - SDF| in the orthogonal basis (0: 1e-8) */
    int diis;              /* DIIS subspace size (0: 8; -1: off) */
    double schwarz;        /* for the host J/K when no engine is given (0: none) */
    /* Called after every iteration (may be NULL): the library never prints. */
    void (*iteration)(void *user, int iter, double energy, double delta_e, double gradient);
    void *user;
} scl_eri_scf_options;

typedef struct {
    double energy, e_nuclear, e_one, e_two;
    int iterations, converged;
    double seconds_one_electron, seconds_jk, seconds_diag, seconds_total;
    double *orbital_energies;   /* n, malloc'd (free with scl_eri_scf_result_free) */
    double *coefficients;       /* n x n, column m = MO m */
    double *density;            /* n x n */
    double *core_hamiltonian;   /* n x n */
} scl_eri_scf_result;

/* Closed-shell RHF from the core-Hamiltonian guess with DIIS. J/K come from
 * engine (integral-direct on the device) when given, else from tensor (a
 * stored unique tensor) when given, else from the host reference tensor
 * computed here. An odd electron count is SCL_ERR_INPUT. */
scl_status scl_eri_rhf(const scl_eri_system *s, scl_eri *engine, const double *tensor,
                       const scl_eri_scf_options *opt, scl_eri_scf_result *res, char *err,
                       size_t errlen);
void scl_eri_scf_result_free(scl_eri_scf_result *r);

/* The core-Hamiltonian guess density (2 C_occ C_occ^T of H in the
 * S-orthogonal basis), n x n: the first density of scl_eri_rhf. */
scl_status scl_eri_core_density(const scl_eri_system *s, double *D);

/* Symmetric eigensolver (cyclic Jacobi): A (n x n, destroyed) -> ascending
 * eigenvalues w, eigenvectors in the columns of V. */
scl_status scl_eri_eigh(size_t n, double *A, double *w, double *V);

/* ------------------------------------------------------------ FCIDUMP */

/* Write h (n x n) and unique two-electron integrals in FCIDUMP format
 * (Knowles & Handy; chemists' notation, |value| >= cutoff, ecore last).
 * Written to a temporary file and renamed. */
scl_status scl_eri_fcidump_write(const char *path, size_t n, int nelec, const double *h,
                                 const double *unique, double ecore, double cutoff, char *err,
                                 size_t errlen);
/* Transform AO quantities to the MO basis of C (n x n, columns): h_mo and the
 * unique MO tensor (scl_eri_unique_count(n) doubles). O(n^5) host work. */
scl_status scl_eri_ao_to_mo(size_t n, const double *C, const double *h_ao,
                            const double *unique_ao, double *h_mo, double *unique_mo);

#ifdef __cplusplus
}
#endif
#endif
