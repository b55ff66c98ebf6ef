/* Geometries: element symbols, the cubic lattice of the seed, XYZ files. */
#include "eri_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const symbols[] = {
    "",   "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si",
    "P",  "S",  "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu",
    "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru",
    "Rh", "Pd", "Ag", "Cd", "In", "Sn", "Sb", "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr",
    "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W",
    "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn"};
#define NELEMENTS ((int)(sizeof symbols / sizeof symbols[0]))

int scl_eri_element(const char *symbol)
{
    for (int z = 1; z < NELEMENTS; z++)
        if (!strcasecmp(symbol, symbols[z]))
            return z;
    return 0;
}

const char *scl_eri_element_symbol(int Z)
{
    return Z > 0 && Z < NELEMENTS ? symbols[Z] : "?";
}

scl_status scl_eri_lattice(int nx, int ny, int nz, double spacing, int Z, scl_eri_atom **atoms,
                           size_t *natoms, char *err, size_t errlen)
{
    *atoms = NULL;
    *natoms = 0;
    if (nx < 1 || ny < 1 || nz < 1 || (long)nx * ny * nz > 1000000)
        return eri_fail(err, errlen, SCL_ERR_ARGUMENT,
                        "scl_eri_lattice: %dx%dx%d: each count must be >= 1, at most 1e6 atoms",
                        nx, ny, nz);
    if (!(spacing > 1e-6) || !isfinite(spacing))
        return eri_fail(err, errlen, SCL_ERR_ARGUMENT,
                        "scl_eri_lattice: spacing %g bohr: must be finite and > 1e-6", spacing);
    if (Z < 1 || Z >= NELEMENTS)
        return eri_fail(err, errlen, SCL_ERR_ARGUMENT, "scl_eri_lattice: nuclear charge %d", Z);
    size_t n = (size_t)nx * ny * nz;
    scl_eri_atom *a = malloc(n * sizeof *a);
    if (!a)
        return eri_fail(err, errlen, SCL_ERR_MEMORY, "scl_eri_lattice: out of memory");
    size_t m = 0;
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                a[m].Z = Z;
                a[m].xyz[0] = x * spacing;
                a[m].xyz[1] = y * spacing;
                a[m].xyz[2] = z * spacing;
                m++;
            }
    *atoms = a;
    *natoms = n;
    return SCL_OK;
}

/* "H", "h", "H12" (a label), or an atomic number. */
static int parse_element(const char *tok)
{
    if (isdigit((unsigned char)tok[0])) {
        char *end;
        long z = strtol(tok, &end, 10);
        return *end || z < 1 || z >= NELEMENTS ? 0 : (int)z;
    }
    char sym[4];
    size_t n = 0;
    while (isalpha((unsigned char)tok[n]) && n < 3) {
        sym[n] = tok[n];
        n++;
    }
    sym[n] = '\0';
    for (size_t k = n; tok[k]; k++)
        if (!isdigit((unsigned char)tok[k]))
            return 0;
    return scl_eri_element(sym);
}

scl_status scl_eri_xyz_parse(const char *text, size_t len, const char *label, int angstrom,
                             scl_eri_atom **atoms, size_t *natoms, char *err, size_t errlen)
{
    *atoms = NULL;
    *natoms = 0;
    eri_lines it = {text, text + len, 0};
    const char *line;
    size_t n;
    char buf[512];
    char *tok[8];
    if (!eri_next_line(&it, &line, &n))
        return eri_fail(err, errlen, SCL_ERR_INPUT, "%s:1: empty file (expected the atom count)",
                        label);
    int nt = eri_tokens(line, n, buf, sizeof buf, tok, 8);
    char *end = NULL;
    long count = nt == 1 ? strtol(tok[0], &end, 10) : -1;
    if (nt != 1 || *end || count < 1 || count > 20000)
        return eri_fail(err, errlen, SCL_ERR_INPUT,
                        "%s:1: expected the atom count (1..20000) alone on the line", label);
    if (!eri_next_line(&it, &line, &n))
        return eri_fail(err, errlen, SCL_ERR_INPUT,
                        "%s:2: the file declares %ld atoms but ends before its comment line",
                        label, count);
    scl_eri_atom *a = malloc((size_t)count * sizeof *a);
    int *where = malloc((size_t)count * sizeof *where);
    scl_status st = SCL_OK;
    if (!a || !where) {
        st = eri_fail(err, errlen, SCL_ERR_MEMORY, "%s: out of memory", label);
        goto fail;
    }
    const double scale = angstrom ? 1.0 / SCL_ERI_BOHR_ANGSTROM : 1.0;
    long m = 0;
    while (eri_next_line(&it, &line, &n)) {
        nt = eri_tokens(line, n, buf, sizeof buf, tok, 8);
        if (nt == 0)
            continue;
        if (m == count) {
            st = eri_fail(err, errlen, SCL_ERR_INPUT,
                          "%s:%d: more atom lines than the %ld declared on line 1", label,
                          it.number, count);
            goto fail;
        }
        if (nt != 4) {
            st = eri_fail(err, errlen, SCL_ERR_INPUT,
                          "%s:%d: expected 'Element x y z', got %d fields", label, it.number, nt);
            goto fail;
        }
        int Z = parse_element(tok[0]);
        if (!Z) {
            st = eri_fail(err, errlen, SCL_ERR_INPUT, "%s:%d: unknown element '%s'", label,
                          it.number, tok[0]);
            goto fail;
        }
        a[m].Z = Z;
        for (int d = 0; d < 3; d++) {
            if (eri_parse_double(tok[1 + d], &a[m].xyz[d]) || fabs(a[m].xyz[d]) > 1e6) {
                st = eri_fail(err, errlen, SCL_ERR_INPUT,
                              "%s:%d: bad coordinate '%s' (finite, |x| <= 1e6)", label,
                              it.number, tok[1 + d]);
                goto fail;
            }
            a[m].xyz[d] *= scale;
        }
        where[m] = it.number;
        for (long k = 0; k < m; k++) {
            double dx = a[m].xyz[0] - a[k].xyz[0], dy = a[m].xyz[1] - a[k].xyz[1],
                   dz = a[m].xyz[2] - a[k].xyz[2];
            if (dx * dx + dy * dy + dz * dz < 1e-12) {
                st = eri_fail(err, errlen, SCL_ERR_INPUT,
                              "%s:%d: the nucleus overlaps the one of line %d", label, it.number,
                              where[k]);
                goto fail;
            }
        }
        m++;
    }
    if (m < count) {
        st = eri_fail(err, errlen, SCL_ERR_INPUT,
                      "%s:%d: the file declares %ld atoms but holds %ld", label, it.number + 1,
                      count, m);
        goto fail;
    }
    free(where);
    *atoms = a;
    *natoms = (size_t)count;
    return SCL_OK;
fail:
    free(a);
    free(where);
    return st;
}

scl_status scl_eri_xyz_read(const char *path, int angstrom, scl_eri_atom **atoms,
                            size_t *natoms, char *err, size_t errlen)
{
    char *text;
    size_t len;
    *atoms = NULL;
    *natoms = 0;
    scl_status st = eri_read_file(path, &text, &len, err, errlen);
    if (st != SCL_OK)
        return st;
    st = scl_eri_xyz_parse(text, len, path, angstrom, atoms, natoms, err, errlen);
    free(text);
    return st;
}
