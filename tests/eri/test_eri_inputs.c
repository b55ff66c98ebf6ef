/* Bad basis and XYZ input: each refusal names the file and the line. */
#include "test_util.h"
#include "streamcl/eri.h"

#include <string.h>

static void basis_case(const char *text, scl_status want, const char *message)
{
    char err[512] = "";
    scl_eri_basis b;
    scl_status st = scl_eri_basis_parse(text, strlen(text), "b.nw", &b, err, sizeof err);
    CHECK(st == want && strstr(err, message), "basis '%s': got %s '%s', want '%s'", text,
          scl_status_name(st), err, message);
    if (st == SCL_OK)
        scl_eri_basis_free(&b);
}

static void xyz_case(const char *text, const char *message)
{
    char err[512] = "";
    scl_eri_atom *atoms = NULL;
    size_t n = 0;
    scl_status st = scl_eri_xyz_parse(text, strlen(text), "g.xyz", 1, &atoms, &n, err, sizeof err);
    CHECK(st == SCL_ERR_INPUT && strstr(err, message) && !atoms,
          "xyz '%s': got %s '%s', want '%s'", text, scl_status_name(st), err, message);
    free(atoms);
}

/* Refused basis texts: the status and the message (file:line first). */
static const struct {
    const char *text;
    scl_status want;
    const char *message;
} bad_basis[] = {
    {"H S\n 1.0 1.0\nH P\n 1.0 1.0\n", SCL_ERR_UNSUPPORTED, "b.nw:3: P shell of H"},
    {"C SP\n 1.0 1.0 1.0\n", SCL_ERR_UNSUPPORTED, "b.nw:1: SP shell of C"},
    {"Xx S\n 1.0 1.0\n", SCL_ERR_INPUT, "b.nw:1: unknown element 'Xx'"},
    {"H S\n 1.0 abc\n", SCL_ERR_INPUT, "b.nw:2: bad coefficient 'abc'"},
    {"H S\n 1.0 1.0\n 2.0 x\n", SCL_ERR_INPUT, "b.nw:3:"},
    {"H S\n 1.0 1.0\n 2.0 1.0 3.0\n", SCL_ERR_INPUT, "b.nw:3: expected exponent"},
    {"H S\n -1.0 1.0\n", SCL_ERR_INPUT, "b.nw:2: exponent must be positive"},
    {"H S\nHe S\n 1 1\n", SCL_ERR_INPUT, "b.nw:1: shell without primitives"},
    {" 1.0 1.0\n", SCL_ERR_INPUT, "b.nw:1: numbers before"},
    {"H Q\n 1 1\n", SCL_ERR_INPUT, "b.nw:1: unknown shell type 'Q'"},
    {"# nothing\n", SCL_ERR_INPUT, "no shells"},
    {"H S\n 1 nan\n", SCL_ERR_INPUT, "b.nw:2:"},
    {"H S\n 1 1e999\n", SCL_ERR_INPUT, "b.nw:2:"},
};

/* Refused XYZ texts and the message (file:line first). */
static const struct {
    const char *text, *message;
} bad_xyz[] = {
    {"", "g.xyz:1: empty file"},
    {"two\n\nH 0 0 0\n", "g.xyz:1: expected the atom count"},
    {"2\ncomment\nH 0 0 0\n", "g.xyz:4: the file declares 2 atoms but holds 1"},
    {"1\n\nQq 0 0 0\n", "g.xyz:3: unknown element 'Qq'"},
    {"1\n\nH 0 0\n", "g.xyz:3: expected 'Element x y z'"},
    {"1\n\nH 0 0 zz\n", "g.xyz:3: bad coordinate 'zz'"},
    {"2\n\nH 0 0 0\nH 0 0 0.0\n", "g.xyz:4: the nucleus overlaps the one of line 3"},
    {"1\n\nH 0 0 0\nH 1 1 1\n", "g.xyz:4: more atom lines than the 1 declared"},
};

int main(void)
{
    /* good: a BASIS block, a general contraction (two columns), D exponents */
    const char *good = "# comment\nBASIS \"ao basis\" PRINT\nH    S\n  3.42525091  0.15432897\n"
                       "  0.62391373 0.53532814\n 0.16885540 0.44463454\nHe S\n 6.36D0 0.5 0.1\n"
                       " 1.15D0 0.5 0.9\nEND\n";
    char err[512] = "";
    scl_eri_basis b;
    CHECK(scl_eri_basis_parse(good, strlen(good), "good.nw", &b, err, sizeof err) == SCL_OK,
          "%s", err);
    CHECK(b.nshell == 3 && b.shell[0].nprim == 3 && b.shell[1].element == 2 &&
              b.shell[2].nprim == 2 && b.shell[2].coef[1] == 0.9 && b.shell[1].exponent[0] == 6.36,
          "parsed %zu shells", b.nshell);
    scl_eri_basis_free(&b);

    for (size_t i = 0; i < sizeof bad_basis / sizeof bad_basis[0]; i++)
        basis_case(bad_basis[i].text, bad_basis[i].want, bad_basis[i].message);

    for (size_t i = 0; i < sizeof bad_xyz / sizeof bad_xyz[0]; i++)
        xyz_case(bad_xyz[i].text, bad_xyz[i].message);

    /* a good XYZ in angstrom, symbols and atomic numbers */
    const char *xyz = "3\nwater-like\nO 0 0 0\n1 0.9572 0 0\nh2 -0.24 0.927 0\n\n";
    scl_eri_atom *atoms = NULL;
    size_t n = 0;
    CHECK(scl_eri_xyz_parse(xyz, strlen(xyz), "w.xyz", 1, &atoms, &n, err, sizeof err) == SCL_OK &&
              n == 3 && atoms[0].Z == 8 && atoms[1].Z == 1 && atoms[2].Z == 1 &&
              fabs(atoms[1].xyz[0] - 0.9572 / SCL_ERI_BOHR_ANGSTROM) < 1e-14,
          "%s", err);
    /* the basis lacks oxygen: the system refuses, naming the atom */
    scl_eri_basis sto;
    scl_eri_system s;
    CHECK(scl_eri_basis_sto(3, &sto, err, sizeof err) == SCL_OK, "%s", err);
    CHECK(scl_eri_system_build(&sto, atoms, n, &s, err, sizeof err) == SCL_ERR_INPUT &&
              strstr(err, "atom 1 (O)"),
          "'%s'", err);
    scl_eri_atom same[2] = {{1, {1, 2, 3}}, {1, {1, 2, 3}}};
    CHECK(scl_eri_system_build(&sto, same, 2, &s, err, sizeof err) == SCL_ERR_INPUT &&
              strstr(err, "atoms 1 and 2 overlap"),
          "'%s'", err);
    scl_eri_basis_free(&sto);
    free(atoms);
    CHECK(scl_eri_basis_sto(7, &sto, err, sizeof err) == SCL_ERR_ARGUMENT, "STO-7G accepted");
    CHECK(scl_eri_basis_read("/nonexistent/b.nw", &sto, err, sizeof err) == SCL_ERR_IO &&
              strstr(err, "/nonexistent/b.nw: cannot open"),
          "'%s'", err);
    return test_summary("eri_inputs");
}
