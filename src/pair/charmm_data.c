/* Reader of LAMMPS data files with atom_style full, for lj/charmm/coul/long:
 * box, Pair Coeffs (or PairIJ Coeffs), Atoms, Bonds; everything else is
 * skipped. Errors name the file and line. */
#include "pair/charmm_system.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    FILE *f;
    const char *path;
    long line;
    char buf[4096];
    char *err;
    size_t errlen;
} data_reader;

static int fail(data_reader *r, const char *fmt, ...)
{
    if (r->err && r->errlen) {
        int n = snprintf(r->err, r->errlen, "%s:%ld: ", r->path, r->line);
        if (n >= 0 && (size_t)n < r->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

/* Next line with comments removed; NULL at end of file. */
static char *next_line(data_reader *r)
{
    if (!fgets(r->buf, sizeof r->buf, r->f))
        return NULL;
    r->line++;
    char *hash = strchr(r->buf, '#');
    if (hash)
        *hash = '\0';
    size_t n = strlen(r->buf);
    while (n > 0 && isspace((unsigned char)r->buf[n - 1]))
        r->buf[--n] = '\0';
    char *p = r->buf;
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

static int is_section(const char *p) { return isalpha((unsigned char)*p); }

/* Parse exactly n doubles from text (more are allowed); returns the count read. */
static int parse_numbers(const char *p, double *v, int n)
{
    int k = 0;
    while (k < n) {
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(d))
            break;
        v[k++] = d;
        p = end;
    }
    return k;
}

typedef struct {
    long natoms, nbonds;
    int ntypes;
    double *eps1, *sig1; /* per type (Pair Coeffs) */
    int have_pair, have_pairij, have_atoms, have_bonds;
    int64_t *ids;        /* per atom, file order */
    int *bonds;          /* 2*nbonds atom ids, mapped to indices later */
    long nbond_read, natom_read;
} data_state;

static int read_header(data_reader *r, data_state *st, charmm_system *sys, char **section)
{
    int have_box[3] = {0, 0, 0};
    char *p;
    next_line(r); /* the title line */
    while ((p = next_line(r))) {
        if (!*p)
            continue;
        if (is_section(p)) {
            *section = p;
            break;
        }
        double v[2];
        char w1[32] = "", w2[32] = "";
        if (strstr(p, "xlo xhi") || strstr(p, "ylo yhi") || strstr(p, "zlo zhi")) {
            int d = strstr(p, "xlo") ? 0 : strstr(p, "ylo") ? 1 : 2;
            if (parse_numbers(p, v, 2) != 2 || !(v[1] > v[0]))
                return fail(r, "bad box bounds '%s'", p);
            sys->lo[d] = v[0];
            sys->hi[d] = v[1];
            have_box[d] = 1;
        } else if (sscanf(p, "%lf %31s %31s", &v[0], w1, w2) >= 2) {
            if (!strcmp(w1, "atoms"))
                st->natoms = (long)v[0];
            else if (!strcmp(w1, "bonds"))
                st->nbonds = (long)v[0];
            else if (!strcmp(w1, "atom") && !strcmp(w2, "types"))
                st->ntypes = (int)v[0];
            /* other counts (angles, ...) are not needed here */
        } else if (strstr(p, "xy xz yz")) {
            return fail(r, "triclinic boxes are not supported");
        } else {
            return fail(r, "unexpected header line '%s'", p);
        }
    }
    if (!p)
        return fail(r, "no sections (Atoms missing)");
    if (st->natoms < 1 || st->natoms > 0x3fffffff || st->ntypes < 1 || st->ntypes > 4096 ||
        st->nbonds < 0)
        return fail(r, "header needs 'N atoms' (1..2^30) and 'N atom types' (1..4096) before "
                       "the first section");
    if (!have_box[0] || !have_box[1] || !have_box[2])
        return fail(r, "header lacks the xlo xhi / ylo yhi / zlo zhi box");
    return 0;
}

/* Section body: the numeric lines up to the next section keyword. */
static int read_section(data_reader *r, data_state *st, charmm_system *sys, const char *name,
                        char **next)
{
    char *p;
    *next = NULL;
    int kind = !strcmp(name, "Pair Coeffs")      ? 1
               : !strcmp(name, "PairIJ Coeffs")  ? 2
               : !strncmp(name, "Atoms", 5)      ? 3
               : !strcmp(name, "Bonds")          ? 4
                                                 : 0;
    if (kind == 3 && strchr(name, '#') == NULL && strlen(name) > 5 && !strstr(name, "full"))
        return fail(r, "Atoms section style '%s' is not atom_style full", name + 5);
    while ((p = next_line(r))) {
        if (!*p)
            continue;
        if (is_section(p)) {
            *next = p;
            return 0;
        }
        double v[10];
        if (kind == 1) {
            int n = parse_numbers(p, v, 5);
            int t = (int)v[0];
            if (n < 3 || t < 1 || t > st->ntypes || v[1] < 0 || v[2] < 0)
                return fail(r, "Pair Coeffs line needs 'type epsilon sigma [eps14 sigma14]' with "
                               "type in 1..%d: '%s'", st->ntypes, p);
            st->eps1[t - 1] = v[1];
            st->sig1[t - 1] = v[2];
            st->have_pair = 1;
        } else if (kind == 2) {
            int n = parse_numbers(p, v, 4);
            int a = (int)v[0], b = (int)v[1], nt = st->ntypes;
            if (n < 4 || a < 1 || b < 1 || a > nt || b > nt)
                return fail(r, "PairIJ Coeffs line needs 'i j epsilon sigma': '%s'", p);
            sys->epsilon[(a - 1) * nt + b - 1] = sys->epsilon[(b - 1) * nt + a - 1] = v[2];
            sys->sigma[(a - 1) * nt + b - 1] = sys->sigma[(b - 1) * nt + a - 1] = v[3];
            st->have_pairij = 1;
        } else if (kind == 3) {
            int n = parse_numbers(p, v, 7);
            if (n < 7)
                return fail(r, "Atoms line needs 'id mol type q x y z' (atom_style full): '%s'", p);
            if (st->natom_read >= st->natoms)
                return fail(r, "more Atoms lines than the %ld atoms of the header", st->natoms);
            int t = (int)v[2];
            if (t < 1 || t > st->ntypes || v[0] < 1)
                return fail(r, "atom id %g or type %d outside 1..%d", v[0], t, st->ntypes);
            long i = st->natom_read++;
            st->ids[i] = (int64_t)v[0];
            sys->tag[i] = (int64_t)v[0];
            sys->type[i] = t - 1;
            sys->q[i] = v[3];
            memcpy(sys->x + 3 * i, v + 4, 3 * sizeof v[0]);
            st->have_atoms = 1;
        } else if (kind == 4) {
            int n = parse_numbers(p, v, 4);
            if (n < 4 || v[2] < 1 || v[3] < 1)
                return fail(r, "Bonds line needs 'id type atom1 atom2': '%s'", p);
            if (st->nbond_read >= st->nbonds)
                return fail(r, "more Bonds lines than the %ld bonds of the header", st->nbonds);
            st->bonds[2 * st->nbond_read] = (int)v[2];
            st->bonds[2 * st->nbond_read + 1] = (int)v[3];
            st->nbond_read++;
            st->have_bonds = 1;
        }
    }
    return 0;
}

/* Bond atom ids -> atom indices. */
static int map_bonds(data_reader *r, data_state *st)
{
    int64_t maxid = 0;
    for (long i = 0; i < st->natoms; i++)
        if (st->ids[i] > maxid)
            maxid = st->ids[i];
    if (maxid > 4 * st->natoms + 1024)
        return fail(r, "atom ids up to %lld are too sparse for %ld atoms", (long long)maxid,
                    st->natoms);
    int *index = malloc(((size_t)maxid + 1) * sizeof *index);
    if (!index)
        return fail(r, "out of memory");
    for (int64_t k = 0; k <= maxid; k++)
        index[k] = -1;
    for (long i = 0; i < st->natoms; i++) {
        if (index[st->ids[i]] >= 0) {
            free(index);
            return fail(r, "atom id %lld appears twice", (long long)st->ids[i]);
        }
        index[st->ids[i]] = (int)i;
    }
    for (long b = 0; b < 2 * st->nbonds; b++) {
        int id = st->bonds[b];
        if (id > maxid || index[id] < 0) {
            free(index);
            return fail(r, "bond %ld names atom %d, which is not in Atoms", b / 2 + 1, id);
        }
        st->bonds[b] = index[id];
    }
    free(index);
    return 0;
}

int charmm_read_data(const char *path, charmm_system *sys, char *err, size_t errlen)
{
    memset(sys, 0, sizeof *sys);
    data_reader r = {.path = path, .err = err, .errlen = errlen};
    data_state st = {0};
    r.f = fopen(path, "r");
    if (!r.f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char *section = NULL;
    int rc = read_header(&r, &st, sys, &section);
    if (rc == 0) {
        size_t n = (size_t)st.natoms, t = (size_t)st.ntypes;
        sys->natoms = (int)st.natoms;
        sys->ntypes = st.ntypes;
        sys->x = malloc(3 * n * sizeof *sys->x);
        sys->q = malloc(n * sizeof *sys->q);
        sys->type = malloc(n * sizeof *sys->type);
        sys->tag = malloc(n * sizeof *sys->tag);
        sys->epsilon = malloc(t * t * sizeof *sys->epsilon);
        sys->sigma = malloc(t * t * sizeof *sys->sigma);
        st.eps1 = malloc(t * sizeof *st.eps1);
        st.sig1 = malloc(t * sizeof *st.sig1);
        st.ids = malloc(n * sizeof *st.ids);
        st.bonds = malloc((2 * (size_t)st.nbonds + 1) * sizeof *st.bonds);
        if (!sys->x || !sys->q || !sys->type || !sys->tag || !sys->epsilon || !sys->sigma ||
            !st.eps1 || !st.sig1 || !st.ids || !st.bonds)
            rc = fail(&r, "out of memory for %ld atoms", st.natoms);
        for (size_t k = 0; rc == 0 && k < t * t; k++)
            sys->epsilon[k] = sys->sigma[k] = NAN; /* "missing" until set */
        for (size_t k = 0; rc == 0 && k < t; k++)
            st.eps1[k] = st.sig1[k] = NAN;
    }
    /* section names are copied: the line buffer is reused */
    char name[64];
    while (rc == 0 && section) {
        snprintf(name, sizeof name, "%s", section);
        rc = read_section(&r, &st, sys, name, &section);
    }
    if (rc == 0 && st.natom_read != st.natoms)
        rc = fail(&r, "Atoms has %ld lines, the header says %ld atoms", st.natom_read, st.natoms);
    if (rc == 0 && st.nbond_read != st.nbonds)
        rc = fail(&r, "Bonds has %ld lines, the header says %ld bonds", st.nbond_read, st.nbonds);
    if (rc == 0 && !st.have_pairij) { /* arithmetic mixing, as in.rhodo's pair_modify */
        int nt = st.ntypes;
        for (int a = 0; a < nt; a++)
            for (int b = 0; b < nt; b++) {
                sys->epsilon[a * nt + b] = sqrt(st.eps1[a] * st.eps1[b]);
                sys->sigma[a * nt + b] = 0.5 * (st.sig1[a] + st.sig1[b]);
            }
    }
    for (int k = 0; rc == 0 && k < st.ntypes * st.ntypes; k++)
        if (isnan(sys->epsilon[k]) || isnan(sys->sigma[k]))
            rc = fail(&r, "no Pair Coeffs for atom types %d %d", k / st.ntypes + 1,
                      k % st.ntypes + 1);
    if (rc == 0)
        rc = map_bonds(&r, &st);
    if (rc == 0 && charmm_specials_from_bonds(sys, st.nbonds, st.bonds) != 0)
        rc = fail(&r, "out of memory for special lists");
    free(st.eps1);
    free(st.sig1);
    free(st.ids);
    free(st.bonds);
    fclose(r.f);
    if (rc != 0)
        charmm_system_free(sys);
    return rc;
}
