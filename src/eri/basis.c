/* Basis sets: the built-in hydrogen STO-nG and the NWChem-format reader. */
#include "eri_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Hydrogen 1s, zeta = 1.24. n = 2..6: the Basis Set Exchange / PySCF values
 * (Hehre, Stewart, Pople 1969; Stewart 1970). n = 1: Stewart's zeta = 1
 * exponent 0.2709498091 scaled by zeta^2 = 1.5376. */
static const double sto_exp[6][6] = {
    {0.2709498091 * 1.24 * 1.24},
    {1.309756377, 0.2331359749},
    {3.425250914, 0.6239137298, 0.1688554040},
    {8.021420155, 1.467821061, 0.4077767635, 0.1353374420},
    {17.38354739, 3.185489246, 0.8897299079, 0.3037874103, 0.1144784984},
    {35.52322122, 6.513143725, 1.822142904, 0.6259552659, 0.2430767471, 0.1001124280},
};
static const double sto_coef[6][6] = {
    {1.0},
    {0.4301284983, 0.6789135305},
    {0.1543289673, 0.5353281423, 0.4446345422},
    {0.05675242080, 0.2601413550, 0.5328461143, 0.2916254405},
    {0.02214055312, 0.1135411520, 0.3318161484, 0.4825700713, 0.1935721966},
    {0.009163596281, 0.04936149294, 0.1685383049, 0.3705627997, 0.4164915298, 0.1303340841},
};

scl_status scl_eri_basis_sto(int n, scl_eri_basis *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || n > 6)
        return eri_fail(err, errlen, SCL_ERR_ARGUMENT, "scl_eri_basis_sto: STO-%dG: n is 1..6", n);
    out->shell = calloc(1, sizeof *out->shell);
    if (!out->shell)
        return eri_fail(err, errlen, SCL_ERR_MEMORY, "scl_eri_basis_sto: out of memory");
    out->nshell = 1;
    scl_eri_shell *sh = &out->shell[0];
    sh->element = 1;
    sh->l = 0;
    sh->nprim = n;
    for (int a = 0; a < n; a++) {
        sh->exponent[a] = sto_exp[n - 1][a];
        sh->coef[a] = sto_coef[n - 1][a];
    }
    snprintf(out->name, sizeof out->name, "STO-%dG", n);
    return SCL_OK;
}

void scl_eri_basis_free(scl_eri_basis *b)
{
    if (!b)
        return;
    free(b->shell);
    b->shell = NULL;
    b->nshell = 0;
}

/* Highest angular momentum of a shell type ("S" 0, "SP" 1, "D" 2), -1 if unknown. */
static int shell_l(const char *type)
{
    static const char letters[] = "SPDFGHIK";
    int l = -1;
    for (const char *t = type; *t; t++) {
        const char *c = strchr(letters, toupper((unsigned char)*t));
        if (!c)
            return -1;
        if ((int)(c - letters) > l)
            l = (int)(c - letters);
    }
    return l;
}

#define ERI_MAX_TOKENS 64

static int add_shell(scl_eri_basis *b, size_t *cap)
{
    if (b->nshell == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        scl_eri_shell *s = realloc(b->shell, ncap * sizeof *s);
        if (!s)
            return -1;
        b->shell = s;
        *cap = ncap;
    }
    memset(&b->shell[b->nshell], 0, sizeof b->shell[0]);
    b->nshell++;
    return 0;
}

/* Shells of a general contraction share exponents: one shell per column. */
scl_status scl_eri_basis_parse(const char *text, size_t len, const char *label,
                               scl_eri_basis *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", label);
    eri_lines it = {text, text + len, 0};
    const char *line;
    size_t n, cap = 0;
    char buf[512];
    char *tok[ERI_MAX_TOKENS];
    size_t first = 0;      /* first shell of the current block */
    int columns = 0, shell_line = 0;
    scl_status st = SCL_OK;
#define FAIL(status, ...)                                                 \
    do {                                                                  \
        st = eri_fail(err, errlen, status, __VA_ARGS__);                  \
        goto fail;                                                        \
    } while (0)
    while (eri_next_line(&it, &line, &n)) {
        int nt = eri_tokens(line, n, buf, sizeof buf, tok, ERI_MAX_TOKENS);
        if (nt == 0)
            continue;
        if (nt == ERI_MAX_TOKENS)
            FAIL(SCL_ERR_INPUT, "%s:%d: too many columns", label, it.number);
        if (!strcasecmp(tok[0], "BASIS")) {
            continue;
        }
        if (!strcasecmp(tok[0], "END")) {
            if (columns && out->shell[out->nshell - 1].nprim == 0)
                FAIL(SCL_ERR_INPUT, "%s:%d: shell without primitives", label, shell_line);
            columns = 0;
            continue;
        }
        if (!strcasecmp(tok[0], "ECP") || !strcasecmp(tok[0], "SO"))
            FAIL(SCL_ERR_INPUT, "%s:%d: %s blocks are not supported", label, it.number, tok[0]);
        double v;
        if (eri_parse_double(tok[0], &v) == 0) {
            /* a primitive row: exponent then one coefficient per column */
            if (!columns)
                FAIL(SCL_ERR_INPUT, "%s:%d: numbers before any 'Element S' shell line", label,
                     it.number);
            if (nt != 1 + columns)
                FAIL(SCL_ERR_INPUT, "%s:%d: expected exponent and %d coefficient%s, got %d numbers",
                     label, it.number, columns, columns > 1 ? "s" : "", nt);
            if (!(v > 0))
                FAIL(SCL_ERR_INPUT, "%s:%d: exponent must be positive, got '%s'", label, it.number,
                     tok[0]);
            for (int c = 0; c < columns; c++) {
                scl_eri_shell *sh = &out->shell[first + (size_t)c];
                double coef;
                if (eri_parse_double(tok[1 + c], &coef))
                    FAIL(SCL_ERR_INPUT, "%s:%d: bad coefficient '%s'", label, it.number, tok[1 + c]);
                if (sh->nprim == SCL_ERI_MAX_PRIM)
                    FAIL(SCL_ERR_INPUT, "%s:%d: more than %d primitives in one shell", label,
                         it.number, SCL_ERI_MAX_PRIM);
                sh->exponent[sh->nprim] = v;
                sh->coef[sh->nprim] = coef;
                sh->nprim++;
            }
            continue;
        }
        /* a shell line: "Element TYPE" */
        int Z = scl_eri_element(tok[0]);
        if (!Z)
            FAIL(SCL_ERR_INPUT, "%s:%d: unknown element '%s'", label, it.number, tok[0]);
        if (nt != 2)
            FAIL(SCL_ERR_INPUT, "%s:%d: expected 'Element S', got %d words", label, it.number, nt);
        int l = shell_l(tok[1]);
        if (l < 0)
            FAIL(SCL_ERR_INPUT, "%s:%d: unknown shell type '%s'", label, it.number, tok[1]);
        if (l > 0)
            FAIL(SCL_ERR_UNSUPPORTED, "%s:%d: %s shell of %s: only s shells are supported", label,
                 it.number, tok[1], tok[0]);
        if (columns && out->shell[out->nshell - 1].nprim == 0)
            FAIL(SCL_ERR_INPUT, "%s:%d: shell without primitives", label, shell_line);
        /* the column count is known from the first row; allocate lazily */
        first = out->nshell;
        shell_line = it.number;
        columns = 0;
        /* peek at the next non-blank line for its number of columns */
        eri_lines peek = it;
        const char *pl;
        size_t pn;
        char pbuf[512];
        char *ptok[ERI_MAX_TOKENS];
        int pnt = 0;
        while (eri_next_line(&peek, &pl, &pn))
            if ((pnt = eri_tokens(pl, pn, pbuf, sizeof pbuf, ptok, ERI_MAX_TOKENS)) > 0)
                break;
        double pv;
        /* a row that is not a shell line, END or BASIS is a primitive row
         * with a bad exponent ("nan", "1e999"): say that, not "no primitives" */
        if (pnt >= 1 && eri_parse_double(ptok[0], &pv) && !scl_eri_element(ptok[0]) &&
            strcasecmp(ptok[0], "END") && strcasecmp(ptok[0], "BASIS"))
            FAIL(SCL_ERR_INPUT, "%s:%d: bad exponent '%s' (a positive finite number)", label,
                 peek.number, ptok[0]);
        if (pnt < 2 || eri_parse_double(ptok[0], &pv))
            FAIL(SCL_ERR_INPUT, "%s:%d: shell without primitives", label, shell_line);
        columns = pnt - 1;
        for (int c = 0; c < columns; c++) {
            if (add_shell(out, &cap))
                FAIL(SCL_ERR_MEMORY, "%s:%d: out of memory", label, it.number);
            out->shell[out->nshell - 1].element = Z;
            out->shell[out->nshell - 1].l = l;
        }
    }
    if (out->nshell == 0)
        FAIL(SCL_ERR_INPUT, "%s:%d: no shells found", label, it.number);
    return SCL_OK;
#undef FAIL
fail:
    scl_eri_basis_free(out);
    return st;
}

scl_status scl_eri_basis_read(const char *path, scl_eri_basis *out, char *err, size_t errlen)
{
    char *text;
    size_t len;
    memset(out, 0, sizeof *out);
    scl_status st = eri_read_file(path, &text, &len, err, errlen);
    if (st != SCL_OK)
        return st;
    st = scl_eri_basis_parse(text, len, path, out, err, errlen);
    free(text);
    return st;
}
