/* Host integrals: the Szabo & Ostlund H2 / STO-3G values, 8-fold symmetry on
 * random systems, the pair-data path against the direct contraction, the
 * stored tensor's indexing, and the RHF energy of H2. */
#include "test_util.h"
#include "streamcl/eri.h"

#include <string.h>

static int near(double x, double want, double tol)
{
    return fabs(x - want) <= tol; /* false for NaN */
}

static void szabo(void)
{
    char err[512];
    scl_eri_basis b;
    scl_eri_system s;
    scl_eri_atom atoms[2] = {{1, {0, 0, 0}}, {1, {0, 0, 1.4}}};
    CHECK(scl_eri_basis_sto(3, &b, err, sizeof err) == SCL_OK, "%s", err);
    CHECK(scl_eri_system_build(&b, atoms, 2, &s, err, sizeof err) == SCL_OK, "%s", err);
    /* Szabo & Ostlund, Modern Quantum Chemistry, eq. 3.235: printed to 4 digits */
    double v1111 = scl_eri_ref_quartet(&s, 0, 0, 0, 0), v1122 = scl_eri_ref_quartet(&s, 0, 0, 1, 1),
           v2111 = scl_eri_ref_quartet(&s, 1, 0, 0, 0), v2121 = scl_eri_ref_quartet(&s, 1, 0, 1, 0);
    printf("H2 STO-3G: (11|11) %.6f (11|22) %.6f (21|11) %.6f (21|21) %.6f\n", v1111, v1122,
           v2111, v2121);
    CHECK(near(v1111, 0.7746, 5e-5), "(11|11) = %.6f", v1111);
    CHECK(near(v1122, 0.5697, 5e-5), "(11|22) = %.6f", v1122);
    CHECK(near(v2111, 0.4441, 5e-5), "(21|11) = %.6f", v2111);
    CHECK(near(v2121, 0.2970, 5e-5), "(21|21) = %.6f", v2121);
    scl_eri_scf_result r;
    scl_eri_scf_options o = {0};
    CHECK(scl_eri_rhf(&s, NULL, NULL, &o, &r, err, sizeof err) == SCL_OK, "%s", err);
    printf("H2 STO-3G RHF: %.10f hartree in %d iterations\n", r.energy, r.iterations);
    /* E0 = -1.831 electronic + 1/1.4 nuclear = -1.1167 (S&O section 3.5.2) */
    CHECK(near(r.energy, -1.1167, 5e-5) && r.converged, "E = %.6f", r.energy);
    CHECK(near(r.e_nuclear, 1 / 1.4, 1e-15), "E_nuc = %.17g", r.e_nuclear);
    scl_eri_scf_result_free(&r);
    /* an odd electron count is refused with a message */
    scl_eri_system odd;
    CHECK(scl_eri_system_build(&b, atoms, 1, &odd, err, sizeof err) == SCL_OK, "%s", err);
    err[0] = '\0';
    CHECK(scl_eri_rhf(&odd, NULL, NULL, &o, &r, err, sizeof err) == SCL_ERR_INPUT &&
              strstr(err, "1 electrons"),
          "odd count: '%s'", err);
    scl_eri_system_free(&odd);
    scl_eri_system_free(&s);
    scl_eri_basis_free(&b);
}

static void symmetry(uint64_t *seed)
{
    char err[512];
    scl_eri_basis b;
    int sto = 1 + (int)(6 * test_uniform(seed));
    CHECK(scl_eri_basis_sto(sto, &b, err, sizeof err) == SCL_OK, "%s", err);
    scl_eri_atom atoms[5];
    for (int a = 0; a < 5; a++) {
        atoms[a].Z = 1;
        for (int d = 0; d < 3; d++)
            atoms[a].xyz[d] = 4 * test_uniform(seed) - 2;
    }
    scl_eri_system s;
    CHECK(scl_eri_system_build(&b, atoms, 5, &s, err, sizeof err) == SCL_OK, "%s", err);
    size_t n = s.nfunc;
    double worst_perm = 0, worst_path = 0;
    for (int t = 0; t < 40; t++) {
        size_t i = (size_t)(n * test_uniform(seed)), j = (size_t)(n * test_uniform(seed)),
               k = (size_t)(n * test_uniform(seed)), l = (size_t)(n * test_uniform(seed));
        double v[8] = {scl_eri_ref_quartet(&s, i, j, k, l), scl_eri_ref_quartet(&s, j, i, k, l),
                       scl_eri_ref_quartet(&s, i, j, l, k), scl_eri_ref_quartet(&s, j, i, l, k),
                       scl_eri_ref_quartet(&s, k, l, i, j), scl_eri_ref_quartet(&s, l, k, i, j),
                       scl_eri_ref_quartet(&s, k, l, j, i), scl_eri_ref_quartet(&s, l, k, j, i)};
        for (int p = 1; p < 8; p++)
            worst_perm = test_max(worst_perm, fabs(v[p] - v[0]) / fabs(v[0]));
        CHECK(v[0] > 0 && isfinite(v[0]), "(%zu%zu|%zu%zu) = %g", i, j, k, l, v[0]);
    }
    /* the stored tensor (pair data, OpenMP) against the direct contraction */
    double *u = malloc(scl_eri_unique_count(n) * sizeof *u);
    CHECK(u && scl_eri_ref_tensor(&s, 0, u, NULL) == SCL_OK, "tensor");
    for (size_t i = 0; u && i < n; i++)
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < n; k++)
                for (size_t l = 0; l < n; l++)
                    worst_path = test_max(worst_path, fabs(u[scl_eri_index(i, j, k, l)] -
                                                       scl_eri_ref_quartet(&s, i, j, k, l)));
    printf("STO-%dG, 5 random H: worst relative permutation difference %.3e, tensor vs direct "
           "%.3e\n",
           sto, worst_perm, worst_path);
    CHECK(worst_perm <= 1e-14, "permutations differ by %.3e", worst_perm);
    CHECK(worst_path <= 1e-14, "pair-data tensor vs direct: %.3e", worst_path);
    free(u);
    scl_eri_system_free(&s);
    scl_eri_basis_free(&b);
}

/* Overlap normalised to 1; the lattice and the nuclear repulsion. */
static void one_electron(void)
{
    char err[512];
    scl_eri_basis b;
    scl_eri_atom *atoms;
    size_t na;
    scl_eri_system s;
    CHECK(scl_eri_basis_sto(6, &b, err, sizeof err) == SCL_OK, "%s", err);
    CHECK(scl_eri_lattice(2, 1, 1, 2.0, 1, &atoms, &na, err, sizeof err) == SCL_OK && na == 2,
          "%s", err);
    CHECK(scl_eri_system_build(&b, atoms, na, &s, err, sizeof err) == SCL_OK, "%s", err);
    double S[4], T[4], V[4];
    scl_eri_one_electron(&s, S, T, V);
    CHECK(near(S[0], 1, 1e-14) && near(S[3], 1, 1e-14), "S diagonal %.17g %.17g", S[0], S[3]);
    CHECK(S[1] == S[2] && S[1] > 0 && S[1] < 1, "S offdiagonal %g", S[1]);
    /* STO-6G kinetic energy of the H 1s approaches zeta^2/2 = 0.7688 */
    CHECK(near(T[0], 0.7688, 5e-3), "T00 = %.6f", T[0]);
    CHECK(near(scl_eri_nuclear_repulsion(&s), 0.5, 1e-15), "E_nuc");
    free(atoms);
    scl_eri_system_free(&s);
    scl_eri_basis_free(&b);
}

/* Nuclear repulsion with nuclei other than hydrogen (with hydrogen only,
 * Z_a*Z_a passes for Z_a*Z_b): H2O and LiH against values by hand.
 *   H2O, O at 0, H at (1.8,0,0) and (0,1.8,0) bohr:
 *     8/1.8 + 8/1.8 + 1/(1.8*sqrt 2) = 9.28172598954808...
 *   LiH at 3.015 bohr: 3/3.015 = 0.99502487562189...
 *   Li, O, H on a line at 0, 2, 5 bohr: 3*8/2 + 3/5 + 8/3 = 15.2666666... */
static void heavy_nuclei(void)
{
    static const char text[] = "O S\n 5.0 1.0\nLi S\n 0.8 1.0\nH S\n 0.5 1.0\n";
    scl_eri_basis b;
    char err[256];
    if (scl_eri_basis_parse(text, sizeof text - 1, "heavy", &b, err, sizeof err) != SCL_OK) {
        CHECK(0, "basis: %s", err);
        return;
    }
    const struct {
        const char *name;
        int n;
        scl_eri_atom atoms[3];
        double want;
    } cases[] = {
        {"H2O", 3, {{8, {0, 0, 0}}, {1, {1.8, 0, 0}}, {1, {0, 1.8, 0}}},
         16 / 1.8 + 1 / (1.8 * 1.4142135623730951)},
        {"LiH", 2, {{3, {0, 0, 0}}, {1, {0, 0, 3.015}}}, 3 / 3.015},
        {"LiOH line", 3, {{3, {0, 0, 0}}, {8, {0, 0, 2}}, {1, {0, 0, 5}}}, 12 + 0.6 + 8.0 / 3},
    };
    for (int c = 0; c < 3; c++) {
        scl_eri_system s;
        if (scl_eri_system_build(&b, cases[c].atoms, (size_t)cases[c].n, &s, err, sizeof err) !=
            SCL_OK) {
            CHECK(0, "%s: %s", cases[c].name, err);
            continue;
        }
        char field[64];
        snprintf(field, sizeof field, "%s nuclear repulsion", cases[c].name);
        CHECK_CLOSE(field, 0, scl_eri_nuclear_repulsion(&s), cases[c].want, 1e-14, 0);
        printf("%s: nuclear repulsion %.15f (by hand %.15f)\n", cases[c].name,
               scl_eri_nuclear_repulsion(&s), cases[c].want);
        scl_eri_system_free(&s);
    }
    scl_eri_basis_free(&b);
}

int main(void)
{
    uint64_t seed = test_seed();
    szabo();
    for (int r = 0; r < 3; r++)
        symmetry(&seed);
    one_electron();
    heavy_nuclei();
    return test_summary("eri_integrals");
}
