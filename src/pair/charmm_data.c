/* Reader of LAMMPS data files with atom_style full, for lj/charmm/coul/long:
 * box, Pair Coeffs (or PairIJ Coeffs), Atoms, Bonds; the other sections LAMMPS
 * knows are skipped, unknown ones refused. Every field is parsed as a whole
 * word of its type (an id "2.5" or a count "29.5 atoms" is an error, not a
 * truncation), and every error names the file and the line it is about.
 * Memory grows with the lines actually read, never with a header's claim. */
#include "core/text_input.h"
#include "pair/charmm_system.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 12
#define MAX_ATOMS 0x3fffffffL  /* the engine indexes atoms with int */
#define MAX_TAG 0x7fffffffLL   /* LAMMPS's tagint (smallbig) */
#define MAX_TYPES 4096

typedef struct {
    FILE *f;
    const char *path;
    long line;
    char buf[4096];
    char *err;
    size_t errlen;
} data_reader;

static int vfail_at(data_reader *r, long line, const char *fmt, va_list ap)
{
    if (r->err && r->errlen) {
        int n = snprintf(r->err, r->errlen, "%s:%ld: ", r->path, line);
        if (n >= 0 && (size_t)n < r->errlen)
            vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    }
    return -1;
}

/* An error about the current line. */
static int fail(data_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(r, r->line, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error about an earlier line (a bond, a header count). */
static int fail_at(data_reader *r, long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(r, line, fmt, ap);
    va_end(ap);
    return -1;
}

/* Next line with comments and surrounding blanks removed; NULL at the end of
 * the file or on an error (*bad set, message in r->err). */
static char *next_line(data_reader *r, int *bad)
{
    if (!fgets(r->buf, sizeof r->buf, r->f)) {
        if (ferror(r->f))
            *bad = fail(r, "read error: %s", scl_text_input_why(errno));
        return NULL;
    }
    r->line++;
    size_t n = strlen(r->buf);
    if (n == sizeof r->buf - 1 && r->buf[n - 1] != '\n' && !feof(r->f)) {
        *bad = fail(r, "line longer than %zu characters", sizeof r->buf - 2);
        return NULL;
    }
    char *hash = strchr(r->buf, '#');
    if (hash)
        *hash = '\0';
    n = strlen(r->buf);
    while (n > 0 && isspace((unsigned char)r->buf[n - 1]))
        r->buf[--n] = '\0';
    char *p = r->buf;
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

static int is_section(const char *p) { return isalpha((unsigned char)*p); }

/* Splits p in place into blank-separated words; returns the count (MAX_WORDS
 * + 1 when there are more). */
static int split_words(char *p, char *w[MAX_WORDS])
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(p, " \t\r\n\v\f", &save); t;
         t = strtok_r(NULL, " \t\r\n\v\f", &save)) {
        if (n == MAX_WORDS)
            return MAX_WORDS + 1;
        w[n++] = t;
    }
    return n;
}

/* A whole word holding an integer in [lo, hi]. */
static int word_int(const char *w, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(w, &end, 10);
    if (end == w || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* A whole word holding a finite number. */
static int word_real(const char *w, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(w, &end);
    if (end == w || *end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Section keywords of LAMMPS's read_data: those read here and the ones skipped. */
enum { SEC_SKIP, SEC_PAIR, SEC_PAIRIJ, SEC_ATOMS, SEC_BONDS };
static int section_kind(const char *name)
{
    static const char *skipped[] = {
        "Masses", "Velocities", "Ellipsoids", "Lines", "Triangles", "Bodies", "Angles",
        "Dihedrals", "Impropers", "Bond Coeffs", "Angle Coeffs", "Dihedral Coeffs",
        "Improper Coeffs", "BondBond Coeffs", "BondAngle Coeffs", "MiddleBondTorsion Coeffs",
        "EndBondTorsion Coeffs", "AngleTorsion Coeffs", "AngleAngleTorsion Coeffs",
        "BondBond13 Coeffs", "AngleAngle Coeffs"};
    if (!strcmp(name, "Pair Coeffs"))
        return SEC_PAIR;
    if (!strcmp(name, "PairIJ Coeffs"))
        return SEC_PAIRIJ;
    if (!strcmp(name, "Atoms"))
        return SEC_ATOMS;
    if (!strcmp(name, "Bonds"))
        return SEC_BONDS;
    for (size_t k = 0; k < sizeof skipped / sizeof *skipped; k++)
        if (!strcmp(name, skipped[k]))
            return SEC_SKIP;
    return -1;
}

typedef struct {
    int64_t id;
    int type;
    double q, x[3];
    long line;
} atom_rec;

typedef struct {
    int64_t a, b; /* atom ids, then (after map_bonds) atom indices */
    long line;
} bond_rec;

typedef struct {
    long natoms, nbonds;
    int ntypes;
    long natoms_line, nbonds_line, ntypes_line; /* where the header said so */
    double *eps1, *sig1;                        /* per type (Pair Coeffs) */
    int have_pair, have_pairij;
    atom_rec *atoms;
    long natom_read, atom_cap;
    bond_rec *bonds;
    long nbond_read, bond_cap;
} data_state;

/* Room for one more record in a growing array whose final size is at most max. */
static int grow(void **p, long *cap, long used, long max, size_t size)
{
    if (used < *cap)
        return 0;
    long c = *cap ? 2 * *cap : 1024;
    if (c > max)
        c = max;
    void *q = realloc(*p, (size_t)c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* One header line: a box, a triclinic tilt (refused), or "N keyword...". */
static int header_line(data_reader *r, data_state *st, scl_charmm_system *sys, char *p, int have_box[3])
{
    char *w[MAX_WORDS];
    int n = split_words(p, w);
    static const char *box_words[3][2] = {{"xlo", "xhi"}, {"ylo", "yhi"}, {"zlo", "zhi"}};
    for (int d = 0; d < 3; d++)
        if (n == 4 && !strcmp(w[2], box_words[d][0]) && !strcmp(w[3], box_words[d][1])) {
            if (word_real(w[0], &sys->lo[d]) || word_real(w[1], &sys->hi[d]) ||
                !(sys->hi[d] > sys->lo[d]))
                return fail(r, "bad box bounds: '%s %s %s %s' needs two finite numbers, lo < hi",
                            w[0], w[1], w[2], w[3]);
            have_box[d] = 1;
            return 0;
        }
    if (n == 6 && !strcmp(w[3], "xy") && !strcmp(w[4], "xz") && !strcmp(w[5], "yz"))
        return fail(r, "triclinic boxes are not supported");
    long long v;
    if (n < 2 || n > MAX_WORDS)
        return fail(r, "unexpected header line (wanted 'N keyword', e.g. '32000 atoms')");
    if (word_int(w[0], 0, MAX_TAG, &v))
        return fail(r, "the count '%s' of '%s' must be an integer in 0..%lld", w[0], w[1],
                    MAX_TAG);
    if (n == 2 && !strcmp(w[1], "atoms")) {
        if (v < 1 || v > MAX_ATOMS)
            return fail(r, "%lld atoms: need 1..%ld", v, MAX_ATOMS);
        st->natoms = (long)v;
        st->natoms_line = r->line;
    } else if (n == 2 && !strcmp(w[1], "bonds")) {
        st->nbonds = (long)v;
        st->nbonds_line = r->line;
    } else if (n == 3 && !strcmp(w[1], "atom") && !strcmp(w[2], "types")) {
        if (v < 1 || v > MAX_TYPES)
            return fail(r, "%lld atom types: need 1..%d", v, MAX_TYPES);
        st->ntypes = (int)v;
        st->ntypes_line = r->line;
    } /* other counts (angles, bond types, ...) are not needed here */
    return 0;
}

static int read_header(data_reader *r, data_state *st, scl_charmm_system *sys, char **section)
{
    int have_box[3] = {0, 0, 0}, bad = 0;
    char *p;
    if (!next_line(r, &bad)) /* the title line */
        return bad ? -1 : fail(r, "empty file (not a LAMMPS data file)");
    while ((p = next_line(r, &bad))) {
        if (!*p)
            continue;
        if (is_section(p)) {
            *section = p;
            break;
        }
        if (header_line(r, st, sys, p, have_box))
            return -1;
    }
    if (bad)
        return -1;
    if (!p)
        return fail(r, "no sections (Atoms missing)");
    if (!st->natoms || !st->ntypes)
        return fail(r, "header needs 'N atoms' and 'N atom types' before the first section");
    if (!have_box[0] || !have_box[1] || !have_box[2])
        return fail(r, "header lacks the xlo xhi / ylo yhi / zlo zhi box");
    return 0;
}

static int pair_coeffs_line(data_reader *r, data_state *st, char **w, int n)
{
    long long t;
    double e, s, e14, s14;
    if ((n != 3 && n != 5) || word_int(w[0], 1, st->ntypes, &t) || word_real(w[1], &e) ||
        word_real(w[2], &s) || e < 0 || s < 0 ||
        (n == 5 && (word_real(w[3], &e14) || word_real(w[4], &s14))))
        return fail(r, "Pair Coeffs line needs 'type epsilon sigma [eps14 sigma14]' with type an "
                       "integer in 1..%d and epsilon, sigma >= 0", st->ntypes);
    st->eps1[t - 1] = e;
    st->sig1[t - 1] = s;
    st->have_pair = 1;
    return 0;
}

static int pairij_coeffs_line(data_reader *r, data_state *st, scl_charmm_system *sys, char **w, int n)
{
    long long a, b;
    double e, s, e14, s14;
    int nt = st->ntypes;
    if ((n != 4 && n != 6) || word_int(w[0], 1, nt, &a) || word_int(w[1], 1, nt, &b) ||
        word_real(w[2], &e) || word_real(w[3], &s) || e < 0 || s < 0 ||
        (n == 6 && (word_real(w[4], &e14) || word_real(w[5], &s14))))
        return fail(r, "PairIJ Coeffs line needs 'i j epsilon sigma [eps14 sigma14]' with i, j "
                       "integers in 1..%d and epsilon, sigma >= 0", nt);
    sys->epsilon[(a - 1) * nt + b - 1] = sys->epsilon[(b - 1) * nt + a - 1] = e;
    sys->sigma[(a - 1) * nt + b - 1] = sys->sigma[(b - 1) * nt + a - 1] = s;
    st->have_pairij = 1;
    return 0;
}

static int atoms_line(data_reader *r, data_state *st, char **w, int n)
{
    atom_rec a = {.line = r->line};
    long long id, mol, type, image;
    if (n != 7 && n != 10)
        return fail(r, "Atoms line needs 'id mol type q x y z [ix iy iz]' (atom_style full), "
                       "found %s%d words", n > MAX_WORDS ? "more than " : "",
                    n > MAX_WORDS ? MAX_WORDS : n);
    if (word_int(w[0], 1, MAX_TAG, &id))
        return fail(r, "atom id '%s' is not an integer in 1..%lld", w[0], MAX_TAG);
    if (word_int(w[1], 0, MAX_TAG, &mol))
        return fail(r, "molecule id '%s' is not an integer in 0..%lld", w[1], MAX_TAG);
    if (word_int(w[2], 1, st->ntypes, &type))
        return fail(r, "atom type '%s' is not an integer in 1..%d", w[2], st->ntypes);
    if (word_real(w[3], &a.q))
        return fail(r, "charge '%s' is not a finite number", w[3]);
    for (int d = 0; d < 3; d++)
        if (word_real(w[4 + d], &a.x[d]))
            return fail(r, "coordinate '%s' is not a finite number", w[4 + d]);
    for (int d = 7; d < n; d++)
        if (word_int(w[d], -MAX_TAG, MAX_TAG, &image))
            return fail(r, "image flag '%s' is not an integer", w[d]);
    if (st->natom_read >= st->natoms)
        return fail(r, "more Atoms lines than the %ld atoms of the header (line %ld)", st->natoms,
                    st->natoms_line);
    if (grow((void **)&st->atoms, &st->atom_cap, st->natom_read, st->natoms, sizeof a))
        return fail(r, "out of memory after %ld atoms", st->natom_read);
    a.id = id;
    a.type = (int)type - 1;
    st->atoms[st->natom_read++] = a;
    return 0;
}

static int bonds_line(data_reader *r, data_state *st, char **w, int n)
{
    long long id, type, a, b;
    if (n != 4 || word_int(w[0], 1, MAX_TAG, &id) || word_int(w[1], 1, MAX_TAG, &type))
        return fail(r, "Bonds line needs 'id type atom1 atom2' (integers)");
    if (word_int(w[2], 1, MAX_TAG, &a) || word_int(w[3], 1, MAX_TAG, &b))
        return fail(r, "bond %lld: atom ids '%s' '%s' must be integers in 1..%lld", id, w[2], w[3],
                    MAX_TAG);
    if (a == b)
        return fail(r, "bond %lld joins atom %lld to itself", id, a);
    if (st->nbond_read >= st->nbonds)
        return fail(r, "more Bonds lines than the %ld bonds of the header%s", st->nbonds,
                    st->nbonds_line ? "" : " (it has no 'N bonds' line)");
    if (grow((void **)&st->bonds, &st->bond_cap, st->nbond_read, st->nbonds, sizeof(bond_rec)))
        return fail(r, "out of memory after %ld bonds", st->nbond_read);
    st->bonds[st->nbond_read++] = (bond_rec){a, b, r->line};
    return 0;
}

/* Section body: the lines up to the next section keyword. */
static int read_section(data_reader *r, data_state *st, scl_charmm_system *sys, const char *name,
                        char **next)
{
    char *p;
    int bad = 0, kind = section_kind(name);
    *next = NULL;
    if (kind < 0)
        return fail(r, "unknown section '%s' (not a LAMMPS data file keyword)", name);
    while ((p = next_line(r, &bad))) {
        if (!*p)
            continue;
        if (is_section(p)) {
            *next = p;
            return 0;
        }
        char *w[MAX_WORDS];
        int n = split_words(p, w), rc = 0;
        if (kind == SEC_PAIR)
            rc = pair_coeffs_line(r, st, w, n);
        else if (kind == SEC_PAIRIJ)
            rc = pairij_coeffs_line(r, st, sys, w, n);
        else if (kind == SEC_ATOMS)
            rc = atoms_line(r, st, w, n);
        else if (kind == SEC_BONDS)
            rc = bonds_line(r, st, w, n);
        if (rc)
            return rc;
    }
    return bad ? -1 : 0;
}

typedef struct {
    int64_t id;
    int index;
} id_index;

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
    return (x > y) - (x < y);
}

/* Atom ids must be unique; bond atom ids -> atom indices (sorted lookup: ids
 * may be as sparse as LAMMPS allows). */
static int map_bonds(data_reader *r, data_state *st, int *bond_atoms)
{
    long n = st->natom_read;
    id_index *map = malloc((size_t)n * sizeof *map);
    if (!map)
        return fail(r, "out of memory for %ld atom ids", n);
    for (long i = 0; i < n; i++)
        map[i] = (id_index){st->atoms[i].id, (int)i};
    qsort(map, (size_t)n, sizeof *map, by_id);
    for (long i = 1; i < n; i++)
        if (map[i].id == map[i - 1].id) {
            long l1 = st->atoms[map[i - 1].index].line, l2 = st->atoms[map[i].index].line;
            long long id = (long long)map[i].id;
            free(map);
            return fail_at(r, l1 > l2 ? l1 : l2, "atom id %lld appears twice (also on line %ld)",
                           id, l1 < l2 ? l1 : l2);
        }
    for (long b = 0; b < st->nbond_read; b++)
        for (int end = 0; end < 2; end++) {
            id_index key = {end ? st->bonds[b].b : st->bonds[b].a, 0};
            id_index *hit = bsearch(&key, map, (size_t)n, sizeof *map, by_id);
            if (!hit) {
                free(map);
                return fail_at(r, st->bonds[b].line, "bond names atom %lld, which is not in Atoms",
                               (long long)key.id);
            }
            bond_atoms[2 * b + end] = hit->index;
        }
    free(map);
    return 0;
}

/* Lines and per-type tables once the header is known. */
static int alloc_types(data_reader *r, data_state *st, scl_charmm_system *sys)
{
    size_t t = (size_t)st->ntypes;
    sys->ntypes = st->ntypes;
    sys->epsilon = malloc(t * t * sizeof *sys->epsilon);
    sys->sigma = malloc(t * t * sizeof *sys->sigma);
    st->eps1 = malloc(t * sizeof *st->eps1);
    st->sig1 = malloc(t * sizeof *st->sig1);
    if (!sys->epsilon || !sys->sigma || !st->eps1 || !st->sig1)
        return fail(r, "out of memory for %d atom types", st->ntypes);
    for (size_t k = 0; k < t * t; k++)
        sys->epsilon[k] = sys->sigma[k] = NAN; /* "missing" until set */
    for (size_t k = 0; k < t; k++)
        st->eps1[k] = st->sig1[k] = NAN;
    return 0;
}

/* Header counts vs what the sections held, coefficients for every pair of
 * types, then the system's arrays and special lists. */
static int finish(data_reader *r, data_state *st, scl_charmm_system *sys)
{
    if (st->natom_read != st->natoms)
        return fail_at(r, st->natoms_line, "the header says %ld atoms, Atoms has %ld lines",
                       st->natoms, st->natom_read);
    if (st->nbond_read != st->nbonds)
        return fail_at(r, st->nbonds_line, "the header says %ld bonds, Bonds has %ld lines",
                       st->nbonds, st->nbond_read);
    int nt = st->ntypes;
    if (!st->have_pairij) /* arithmetic mixing, as in.rhodo's pair_modify */
        for (int a = 0; a < nt; a++)
            for (int b = 0; b < nt; b++) {
                sys->epsilon[a * nt + b] = sqrt(st->eps1[a] * st->eps1[b]);
                sys->sigma[a * nt + b] = 0.5 * (st->sig1[a] + st->sig1[b]);
            }
    for (int k = 0; k < nt * nt; k++)
        if (isnan(sys->epsilon[k]) || isnan(sys->sigma[k]))
            return fail_at(r, st->ntypes_line, "no %s for atom types %d %d (of %d)",
                           st->have_pairij ? "PairIJ Coeffs" : "Pair Coeffs", k / nt + 1,
                           k % nt + 1, nt);
    size_t n = (size_t)st->natoms;
    sys->natoms = (int)st->natoms;
    sys->x = malloc(3 * n * sizeof *sys->x);
    sys->q = malloc(n * sizeof *sys->q);
    sys->type = malloc(n * sizeof *sys->type);
    sys->tag = malloc(n * sizeof *sys->tag);
    int *bond_atoms = malloc((2 * (size_t)st->nbonds + 1) * sizeof *bond_atoms);
    int rc = 0;
    if (!sys->x || !sys->q || !sys->type || !sys->tag || !bond_atoms)
        rc = fail(r, "out of memory for %ld atoms", st->natoms);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const atom_rec *a = &st->atoms[i];
        memcpy(sys->x + 3 * i, a->x, sizeof a->x);
        sys->q[i] = a->q;
        sys->type[i] = a->type;
        sys->tag[i] = a->id;
    }
    if (rc == 0)
        rc = map_bonds(r, st, bond_atoms);
    if (rc == 0) {
        int s = charmm_specials_from_bonds(sys, st->nbonds, bond_atoms);
        if (s == CHARMM_TOO_MANY_SPECIALS)
            rc = fail(r, "an atom has more than %d 1-2, 1-3 and 1-4 partners in Bonds",
                      CHARMM_MAX_SPECIAL);
        else if (s != 0)
            rc = fail(r, "out of memory for special lists");
    }
    free(bond_atoms);
    return rc;
}

int scl_charmm_read_data(const char *path, scl_charmm_system *sys, char *err, size_t errlen)
{
    memset(sys, 0, sizeof *sys);
    data_reader r = {.path = path, .err = err, .errlen = errlen};
    data_state st = {0};
    r.f = scl_open_text_input(path, "LAMMPS data file", 8ull << 30, err, errlen);
    if (!r.f)
        return -1;
    char *section = NULL;
    int rc = read_header(&r, &st, sys, &section);
    if (rc == 0)
        rc = alloc_types(&r, &st, sys);
    /* section names are copied: the line buffer is reused */
    char name[64];
    while (rc == 0 && section) {
        snprintf(name, sizeof name, "%s", section);
        rc = read_section(&r, &st, sys, name, &section);
    }
    if (rc == 0)
        rc = finish(&r, &st, sys);
    free(st.eps1);
    free(st.sig1);
    free(st.atoms);
    free(st.bonds);
    fclose(r.f);
    if (rc != 0)
        scl_charmm_system_free(sys);
    return rc;
}
