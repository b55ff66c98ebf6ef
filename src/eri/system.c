/* A system: the basis placed on the atoms, contractions normalised. */
#include "eri_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void scl_eri_system_free(scl_eri_system *s)
{
    if (!s)
        return;
    free(s->atoms);
    free(s->func);
    memset(s, 0, sizeof *s);
}

/* coef = d_a (2a/pi)^(3/4), then scaled so that <phi|phi> = 1 (PySCF's
 * convention; the published coefficients are normalised only approximately). */
static int normalise(scl_eri_function *f)
{
    for (int a = 0; a < f->nprim; a++)
        f->coef[a] *= pow(2 * f->exponent[a] / M_PI, 0.75);
    double s = 0;
    for (int a = 0; a < f->nprim; a++)
        for (int b = 0; b < f->nprim; b++)
            s += f->coef[a] * f->coef[b] * pow(M_PI / (f->exponent[a] + f->exponent[b]), 1.5);
    if (!(s > 0) || !isfinite(s))
        return -1;
    for (int a = 0; a < f->nprim; a++)
        f->coef[a] /= sqrt(s);
    return 0;
}

scl_status scl_eri_system_build(const scl_eri_basis *basis, const scl_eri_atom *atoms,
                                size_t natoms, scl_eri_system *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!basis || !atoms || natoms == 0)
        return eri_fail(err, errlen, SCL_ERR_ARGUMENT, "scl_eri_system_build: no atoms or basis");
    size_t nfunc = 0;
    for (size_t a = 0; a < natoms; a++) {
        size_t found = 0;
        for (size_t s = 0; s < basis->nshell; s++)
            found += basis->shell[s].element == atoms[a].Z;
        if (!found)
            return eri_fail(err, errlen, SCL_ERR_INPUT,
                            "scl_eri_system_build: atom %zu (%s): basis %s has no functions for "
                            "this element",
                            a + 1, scl_eri_element_symbol(atoms[a].Z), basis->name);
        nfunc += found;
        for (size_t b = 0; b < a; b++) {
            double r2 = 0;
            for (int d = 0; d < 3; d++)
                r2 += (atoms[a].xyz[d] - atoms[b].xyz[d]) * (atoms[a].xyz[d] - atoms[b].xyz[d]);
            if (r2 < 1e-12)
                return eri_fail(err, errlen, SCL_ERR_INPUT,
                                "scl_eri_system_build: atoms %zu and %zu overlap (distance %.3g "
                                "bohr)",
                                b + 1, a + 1, sqrt(r2));
        }
    }
    out->atoms = malloc(natoms * sizeof *out->atoms);
    out->func = calloc(nfunc, sizeof *out->func);
    if (!out->atoms || !out->func) {
        scl_eri_system_free(out);
        return eri_fail(err, errlen, SCL_ERR_MEMORY, "scl_eri_system_build: out of memory");
    }
    memcpy(out->atoms, atoms, natoms * sizeof *atoms);
    out->natoms = natoms;
    size_t m = 0;
    for (size_t a = 0; a < natoms; a++) {
        out->nelectron += atoms[a].Z;
        for (size_t s = 0; s < basis->nshell; s++) {
            const scl_eri_shell *sh = &basis->shell[s];
            if (sh->element != atoms[a].Z)
                continue;
            if (sh->l != 0) {
                scl_eri_system_free(out);
                return eri_fail(err, errlen, SCL_ERR_UNSUPPORTED,
                                "scl_eri_system_build: %s has an l = %d shell: only s shells",
                                scl_eri_element_symbol(sh->element), sh->l);
            }
            scl_eri_function *f = &out->func[m++];
            f->atom = (int)a;
            f->l = 0;
            f->nprim = sh->nprim;
            memcpy(f->center, atoms[a].xyz, sizeof f->center);
            memcpy(f->exponent, sh->exponent, sizeof f->exponent);
            memcpy(f->coef, sh->coef, sizeof f->coef);
            if (sh->nprim < 1 || normalise(f)) {
                scl_eri_system_free(out);
                return eri_fail(err, errlen, SCL_ERR_INPUT,
                                "scl_eri_system_build: a %s shell of basis %s cannot be "
                                "normalised (zero norm)",
                                scl_eri_element_symbol(sh->element), basis->name);
            }
        }
    }
    out->nfunc = nfunc;
    return SCL_OK;
}
