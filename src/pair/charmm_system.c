/* Water-like test/benchmark systems, replication, and special lists derived
 * from bonds (1-2 bonded, 1-3 through one atom, 1-4 through two, each partner
 * listed once at its closest relation, as LAMMPS's Special class does). */
#include "pair/charmm_system.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void scl_charmm_system_free(scl_charmm_system *sys)
{
    if (!sys)
        return;
    free(sys->x);
    free(sys->q);
    free(sys->type);
    free(sys->tag);
    free(sys->nspecial);
    free(sys->special);
    free(sys->epsilon);
    free(sys->sigma);
    memset(sys, 0, sizeof *sys);
}

static int system_alloc(scl_charmm_system *sys, int natoms, int ntypes)
{
    size_t n = (size_t)(natoms > 0 ? natoms : 1), t = (size_t)ntypes * (size_t)ntypes;
    sys->natoms = natoms;
    sys->ntypes = ntypes;
    sys->x = calloc(3 * n, sizeof *sys->x);
    sys->q = calloc(n, sizeof *sys->q);
    sys->type = calloc(n, sizeof *sys->type);
    sys->tag = calloc(n, sizeof *sys->tag);
    sys->epsilon = calloc(t, sizeof *sys->epsilon);
    sys->sigma = calloc(t, sizeof *sys->sigma);
    return sys->x && sys->q && sys->type && sys->tag && sys->epsilon && sys->sigma ? 0 : -1;
}

/* ------------------------------------------------------------------ specials */

static int contains(const int64_t *list, int n, int64_t v)
{
    for (int k = 0; k < n; k++)
        if (list[k] == v)
            return 1;
    return 0;
}

int charmm_specials_from_bonds(scl_charmm_system *sys, long nbonds, const int *bond_atoms)
{
    int n = sys->natoms;
    int *start = calloc((size_t)n + 1, sizeof *start);
    int *adj = malloc((size_t)(2 * nbonds + 1) * sizeof *adj);
    int *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!start || !adj || !fill) {
        free(start), free(adj), free(fill);
        return -1;
    }
    for (long b = 0; b < nbonds; b++) {
        start[bond_atoms[2 * b] + 1]++;
        start[bond_atoms[2 * b + 1] + 1]++;
    }
    for (int i = 0; i < n; i++)
        start[i + 1] += start[i];
    memcpy(fill, start, (size_t)n * sizeof *fill);
    for (long b = 0; b < nbonds; b++) {
        int a = bond_atoms[2 * b], c = bond_atoms[2 * b + 1];
        adj[fill[a]++] = c;
        adj[fill[c]++] = a;
    }
    free(fill);
    /* first pass finds maxspecial, second fills; idx[k] is the atom of tmp[k] */
    int maxsp = 0, cap = CHARMM_MAX_SPECIAL, hub = 0;
    int64_t *tmp = malloc((size_t)cap * sizeof *tmp);
    int *idx = malloc((size_t)cap * sizeof *idx);
    int *ns = calloc(3 * (size_t)(n > 0 ? n : 1), sizeof *ns);
    int64_t *sp = NULL;
    int ok = tmp && idx && ns;
    for (int pass = 0; pass < 2 && ok; pass++) {
        for (int i = 0; i < n && ok; i++) {
            int cnt = 0, prev_lo = -1, prev_hi = 0; /* -1: expand from atom i itself */
            for (int level = 1; level <= 3 && ok; level++) {
                int level_lo = cnt;
                for (int f = prev_lo; f < prev_hi && ok; f++) {
                    int atom = f < 0 ? i : idx[f];
                    for (int e = start[atom]; e < start[atom + 1]; e++) {
                        int64_t t = sys->tag[adj[e]];
                        if (t == sys->tag[i] || contains(tmp, cnt, t))
                            continue;
                        if (cnt == cap) { /* bonds of a pathological hub */
                            ok = 0;
                            hub = 1;
                            break;
                        }
                        idx[cnt] = adj[e];
                        tmp[cnt++] = t;
                    }
                }
                ns[3 * i + level - 1] = cnt;
                prev_lo = level_lo;
                prev_hi = cnt;
            }
            if (pass == 0 && cnt > maxsp)
                maxsp = cnt;
            if (pass == 1)
                memcpy(sp + (size_t)i * (size_t)maxsp, tmp, (size_t)cnt * sizeof *tmp);
        }
        if (pass == 0 && ok) {
            sp = calloc((size_t)(n > 0 ? n : 1) * (size_t)(maxsp > 0 ? maxsp : 1), sizeof *sp);
            ok = sp != NULL;
        }
    }
    free(idx);
    free(tmp);
    free(start);
    free(adj);
    if (!ok) {
        free(ns), free(sp);
        return hub ? CHARMM_TOO_MANY_SPECIALS : -1;
    }
    free(sys->nspecial);
    free(sys->special);
    sys->nspecial = ns;
    sys->special = sp;
    sys->maxspecial = maxsp;
    return 0;
}

/* ------------------------------------------------------------------ water */

static double uniform(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return (double)((x * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static void random_unit(uint64_t *s, double u[3])
{
    double z = 2.0 * uniform(s) - 1.0, phi = 6.283185307179586 * uniform(s);
    double r = sqrt(1.0 - z * z);
    u[0] = r * cos(phi);
    u[1] = r * sin(phi);
    u[2] = z;
}

int scl_charmm_water_box(int nmol, uint64_t seed, scl_charmm_system *sys)
{
    memset(sys, 0, sizeof *sys);
    if (nmol < 1 || system_alloc(sys, 3 * nmol, 2) != 0) {
        scl_charmm_system_free(sys);
        return -1;
    }
    uint64_t s = seed ? seed : 88172645463325252ULL;
    const double eps[2] = {0.1521, 0.046}, sig[2] = {3.1507, 0.4};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            sys->epsilon[2 * a + b] = sqrt(eps[a] * eps[b]);
            sys->sigma[2 * a + b] = 0.5 * (sig[a] + sig[b]);
        }
    double len = cbrt(3.0 * nmol / 0.1);
    int per_side = (int)ceil(cbrt((double)nmol));
    double a = len / per_side;
    for (int d = 0; d < 3; d++) {
        sys->lo[d] = 0.0;
        sys->hi[d] = len;
    }
    const double r_oh = 0.9572, half_angle = 0.5 * 104.52 * 3.14159265358979 / 180.0;
    int *bonds = malloc(4 * (size_t)nmol * sizeof *bonds);
    if (!bonds) {
        scl_charmm_system_free(sys);
        return -1;
    }
    for (int m = 0; m < nmol; m++) {
        int l[3] = {m % per_side, (m / per_side) % per_side, m / (per_side * per_side)};
        double o[3], u[3], v[3], w[3];
        for (int d = 0; d < 3; d++)
            o[d] = (l[d] + 0.5) * a + 0.3 * (uniform(&s) - 0.5);
        /* bisector u, and v perpendicular to it: H = O + r (cos u +- sin v) */
        random_unit(&s, u);
        random_unit(&s, w);
        double dot = u[0] * w[0] + u[1] * w[1] + u[2] * w[2];
        for (int d = 0; d < 3; d++)
            v[d] = w[d] - dot * u[d];
        double vn = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (vn < 1e-6) { /* w parallel to u: any perpendicular will do */
            v[0] = -u[1], v[1] = u[0], v[2] = 0.0;
            vn = sqrt(v[0] * v[0] + v[1] * v[1]) + 1e-300;
        }
        for (int k = 0; k < 3; k++) {
            int i = 3 * m + k;
            double sign = k == 1 ? 1.0 : -1.0;
            for (int d = 0; d < 3; d++)
                sys->x[3 * i + d] =
                    k == 0 ? o[d]
                           : o[d] + r_oh * (cos(half_angle) * u[d] +
                                            sign * sin(half_angle) * v[d] / vn);
            sys->type[i] = k == 0 ? 0 : 1;
            sys->q[i] = k == 0 ? -0.834 : 0.417;
            sys->tag[i] = i + 1;
        }
        bonds[4 * m] = 3 * m, bonds[4 * m + 1] = 3 * m + 1;
        bonds[4 * m + 2] = 3 * m, bonds[4 * m + 3] = 3 * m + 2;
    }
    int rc = charmm_specials_from_bonds(sys, 2L * nmol, bonds);
    free(bonds);
    if (rc != 0)
        scl_charmm_system_free(sys);
    return rc;
}

int scl_charmm_system_replicate(const scl_charmm_system *in, int nx, int ny, int nz, scl_charmm_system *out)
{
    memset(out, 0, sizeof *out);
    long copies = (long)nx * ny * nz;
    if (copies < 1 || (long)in->natoms * copies > 0x3fffffff ||
        system_alloc(out, (int)(in->natoms * copies), in->ntypes) != 0) {
        scl_charmm_system_free(out);
        return -1;
    }
    size_t t = (size_t)in->ntypes * (size_t)in->ntypes, ms = (size_t)in->maxspecial;
    memcpy(out->epsilon, in->epsilon, t * sizeof *out->epsilon);
    memcpy(out->sigma, in->sigma, t * sizeof *out->sigma);
    double len[3];
    int rep[3] = {nx, ny, nz};
    for (int d = 0; d < 3; d++) {
        len[d] = in->hi[d] - in->lo[d];
        out->lo[d] = in->lo[d];
        out->hi[d] = in->lo[d] + rep[d] * len[d];
    }
    out->maxspecial = in->maxspecial;
    out->nspecial = malloc(3 * (size_t)out->natoms * sizeof *out->nspecial);
    out->special = malloc(((size_t)out->natoms * ms + 1) * sizeof *out->special);
    if (!out->nspecial || !out->special) {
        scl_charmm_system_free(out);
        return -1;
    }
    int64_t maxtag = 0;
    for (int i = 0; i < in->natoms; i++)
        if (in->tag[i] > maxtag)
            maxtag = in->tag[i];
    for (long c = 0; c < copies; c++) {
        int sh[3] = {(int)(c % nx), (int)((c / nx) % ny), (int)(c / ((long)nx * ny))};
        for (int i = 0; i < in->natoms; i++) {
            size_t o = (size_t)c * (size_t)in->natoms + (size_t)i;
            for (int d = 0; d < 3; d++)
                out->x[3 * o + d] = in->x[3 * i + d] + sh[d] * len[d];
            out->q[o] = in->q[i];
            out->type[o] = in->type[i];
            out->tag[o] = in->tag[i] + c * maxtag;
            if (in->nspecial) {
                memcpy(out->nspecial + 3 * o, in->nspecial + 3 * (size_t)i, 3 * sizeof(int));
                for (size_t k = 0; k < ms; k++)
                    out->special[o * ms + k] = in->special[(size_t)i * ms + k] + c * maxtag;
            } else {
                memset(out->nspecial + 3 * o, 0, 3 * sizeof(int));
            }
        }
    }
    return 0;
}
