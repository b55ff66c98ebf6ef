/* Brute-force check of the device lists (scl_charmm_check_neighbors, tests):
 * every pair within the list cutoff with its special kind, from the caller's
 * arrays as uploaded (read back), against the lists as built. */
#include "pair/list/charmm_nlist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int j, kind;
} list_entry;

static int cmp_entry(const void *a, const void *b)
{
    const list_entry *x = a, *y = b;
    return x->j != y->j ? (x->j > y->j) - (x->j < y->j) : (x->kind > y->kind) - (x->kind < y->kind);
}

/* The caller's arrays of the last set_atoms, read back. */
typedef struct {
    double *x;
    int64_t *tag; /* NULL: the index is the tag */
    int *nspecial;
    int64_t *special;
} raw_atoms;

static void raw_free(raw_atoms *r) { free(r->x), free(r->tag), free(r->nspecial), free(r->special); }

static scl_status raw_read(charmm_nlist *nl, raw_atoms *r, const char *fn)
{
    memset(r, 0, sizeof *r);
    size_t n = (size_t)nl->natoms, nloc = (size_t)nl->nlocal;
    size_t ms = (size_t)(nl->maxspecial > 0 ? nl->maxspecial : 0);
    r->x = malloc((3 * n + 1) * sizeof *r->x);
    int has_tag = nl->has_tag;
    r->tag = has_tag ? malloc(n * sizeof *r->tag) : NULL;
    r->nspecial = ms ? malloc((3 * nloc + 1) * sizeof *r->nspecial) : NULL;
    r->special = ms ? malloc((nloc * ms + 1) * sizeof *r->special) : NULL;
    if (!r->x || (has_tag && !r->tag) || (ms && (!r->nspecial || !r->special)))
        return scl_fail(nl->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    scl_status s = n ? scl_stream_read_range(nl->x_raw, 0, 3 * n, r->x, 1, NULL) : SCL_OK;
    if (s == SCL_OK && has_tag)
        s = scl_stream_read_range(nl->tag_raw, 0, n, r->tag, 1, NULL);
    if (s == SCL_OK && ms && nloc)
        s = scl_stream_read_range(nl->nspecial, 0, 3 * nloc, r->nspecial, 1, NULL);
    if (s == SCL_OK && ms && nloc)
        s = scl_stream_read_range(nl->special, 0, nloc * ms, r->special, 1, NULL);
    return s;
}

static double dist2(const double *x, int i, int j)
{
    double d2 = 0;
    for (int k = 0; k < 3; k++)
        d2 += (x[3 * i + k] - x[3 * j + k]) * (x[3 * i + k] - x[3 * j + k]);
    return d2;
}

/* Pairs this close to the list cutoff may fall either way in float. */
static int borderline(const charmm_nlist *nl, const raw_atoms *r, int i, int j)
{
    return fabs(sqrt(dist2(r->x, i, j)) - nl->coeffs->cut_neigh) < 1e-4 * nl->coeffs->cut_neigh;
}

/* Mismatches between device list `dev` (n entries, caller's indices) and
 * brute force of the local atom of caller's index i. */
static long compare_atom(const charmm_nlist *nl, const raw_atoms *r, int i, list_entry *dev,
                         int n, list_entry *host)
{
    int nh = 0;
    double cutsq = nl->coeffs->cut_neigh * nl->coeffs->cut_neigh;
    size_t ms = (size_t)(nl->maxspecial > 0 ? nl->maxspecial : 1);
    const int *ns = r->nspecial ? r->nspecial + 3 * (size_t)i : NULL;
    const int64_t *sp = ns ? r->special + (size_t)i * ms : NULL;
    for (int j = 0; j < nl->natoms; j++)
        if (j != i && dist2(r->x, i, j) < cutsq) {
            int kind = charmm_special_kind(ns, sp, r->tag ? r->tag[j] : j);
            for (int d = 0; d < 3; d++) /* a far image of the partner is not the partner */
                if (nl->half_box[d] > 0.0 && fabs(r->x[3 * i + d] - r->x[3 * j + d]) > nl->half_box[d])
                    kind = 0;
            host[nh++] = (list_entry){j, kind};
        }
    qsort(dev, (size_t)n, sizeof *dev, cmp_entry);
    qsort(host, (size_t)nh, sizeof *host, cmp_entry);
    long bad = 0;
    int a = 0, b = 0;
    while (a < n || b < nh) {
        int c = a == n ? 1 : b == nh ? -1 : cmp_entry(&dev[a], &host[b]);
        if (c == 0) {
            a++, b++;
        } else if (c < 0) {
            bad += dev[a].j >= nl->natoms || !borderline(nl, r, i, dev[a].j);
            a++;
        } else {
            bad += !borderline(nl, r, i, host[b].j);
            b++;
        }
    }
    return bad;
}

scl_status charmm_nlist_check(charmm_nlist *nl, long *mismatches, const char *fn)
{
    *mismatches = 0;
    int cap = nl->capacity, nloc = nl->nlocal;
    raw_atoms r = {0};
    scl_status s = charmm_nlist_host_maps(nl);
    if (s == SCL_OK)
        s = raw_read(nl, &r, fn);
    int *counts = malloc((size_t)(nloc + 1) * sizeof *counts);
    int *pairs = malloc((size_t)(nloc + 1) * sizeof *pairs);
    int *slots = NULL;
    list_entry *dev = malloc((size_t)(cap + 1) * sizeof *dev);
    list_entry *host = malloc((size_t)(nl->natoms + 1) * sizeof *host);
    if (s == SCL_OK && (!counts || !pairs || !dev || !host))
        s = scl_fail(nl->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    if (s == SCL_OK && nloc > 0)
        s = scl_stream_read_range(nl->numnbr, 0, (size_t)nloc, counts, 1, NULL);
    if (s == SCL_OK && nloc > 0)
        s = scl_stream_read_range(nl->npairs, 0, (size_t)nloc, pairs, 1, NULL);
    for (int c = 0; c < nl->nchunks && s == SCL_OK; c++) {
        const charmm_chunk *ch = &nl->chunks[c];
        if (ch->count == 0)
            continue;
        size_t nslots = (size_t)ch->count * (size_t)cap;
        free(slots);
        slots = malloc(nslots * sizeof *slots);
        scl_stream *buf = nl->streaming ? nl->shared_nbr : ch->nbr;
        if (!slots)
            s = scl_fail(nl->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
        if (s == SCL_OK && nl->streaming)
            s = charmm_nlist_build(nl, ch, buf, NULL);
        if (s == SCL_OK)
            s = scl_stream_read_range(buf, 0, nslots, slots, 1, NULL);
        size_t stride = (size_t)ch->count * CHARMM_PAD;
        for (int a = 0; a < ch->count && s == SCL_OK; a++) {
            /* n slots (a multiple of 8), the sentinel in the few free slots
             * between the lanes' pairs and in the padding: no other entry */
            int ii = ch->first + a, n = counts[ii], m = 0;
            if (n < 0 || n % CHARMM_PAD != 0 || n > cap) {
                (*mismatches)++;
                continue;
            }
            for (int k = 0; k < n; k++) {
                int v = slots[(size_t)(k / CHARMM_PAD) * stride + (size_t)a * CHARMM_PAD +
                              k % CHARMM_PAD];
                int j = v & CHARMM_INDEX_MASK;
                if (v == nl->natoms)
                    continue;
                dev[m++] = (list_entry){j < nl->natoms ? nl->order[j] : nl->natoms + 1,
                                        (int)((unsigned)v >> CHARMM_KIND_SHIFT)};
            }
            /* the lanes evened out: as long as one lane's list would be */
            *mismatches += m != pairs[ii] || n != (m + CHARMM_PAD - 1) / CHARMM_PAD * CHARMM_PAD;
            *mismatches += compare_atom(nl, &r, nl->order[nl->ilist[ii]], dev, m, host);
        }
    }
    raw_free(&r);
    free(counts);
    free(pairs);
    free(slots);
    free(dev);
    free(host);
    return s;
}
