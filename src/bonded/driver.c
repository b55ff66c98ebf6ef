/* The bonded-terms driver: term lists and coefficients on the device, one
 * kernel per kind of term writing per-term force slots, one gather kernel
 * summing each atom's slots (CSR map built here when the lists change),
 * per-group energy/virial partials summed here in double. */
#include "core/fail.h"
#include "streamcl/bonded.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NKERNELS 4
#define NACC 8
#define NACC_DIHEDRAL 16

static const char *const kernel_names[NKERNELS] = {"bonded_bond", "bonded_angle",
                                                    "bonded_dihedral", "bonded_improper"};
static const int atoms_per_term[NKERNELS] = {2, 3, 4, 4};
static const int list_stride[NKERNELS] = {3, 4, 5, 5};
static const int coef_stride[NKERNELS] = {2, 4, 5, 2};

/* a device buffer that grows (never shrinks) to the largest size asked for */
typedef struct {
    scl_stream *s;
    size_t cap;
} buffer;

struct scl_bonded {
    scl_context *ctx;
    int fp64_slots; /* SCL_PREC_DOUBLE: per-atom forces come back in double */
    int wg;
    scl_kernel *term[NKERNELS], *gather, *per_atom;
    scl_kernel *gather_into[2]; /* into another module's force rows: float, double */

    /* coefficients */
    int have_coeffs;
    int ntypes[NKERNELS], natom_types, type_base, implicit_coul, any_weight;
    double qqrd2e;
    buffer coef[NKERNELS], lj14;

    /* topology */
    int have_topology;
    int nlocal, nall, newton;
    int nterms[NKERNELS];
    int max_type[NKERNELS]; /* largest type - type_base in the lists, -1 if none */
    /* Device atom numbering: the owned atoms [0, nlo) as the caller numbers
     * them (nlo: the highest owned index a term uses + 1), then only the
     * ghosts some term uses (ghost[j] -> nlo + j): with one rank the ghosts
     * are mostly the periodic images of the pair cutoff, few of them in
     * bonded terms, so x goes up (and forces down) for ~nlocal atoms, not
     * nall. */
    int nlo, nghost_ref, *ghost;
    double *ghost_x;        /* staging of the used ghosts' positions */
    int nx;                 /* device atoms: nlo + nghost_ref */
    int ngather;            /* device atoms that receive forces */
    int slot_off[NKERNELS], nslots;
    int tev_off[NKERNELS + 1], ntev;
    int part_off[NKERNELS + 1];
    buffer list[NKERNELS], atype, q, x, sf, offsets, slots, fout, tev, part, eatom, vatom;
    /* the host arrays set_topology's non-blocking uploads read from: kept
     * until the next set_topology (compute waits for the queue in between) */
    void *topo_keep[5];
    void *fout_host;
    double *part_host, *eatom_host, *vatom_host;
    size_t fout_host_cap, part_host_cap, eatom_host_cap, vatom_host_cap;
    int pending, flags; /* an evaluation started and not finished; its flags */
    int gathered_into;  /* SCL_BONDED_DEVICE_FORCES: the pending one's gather_into ran */
    /* x from another module's device copy: the used ghosts' rows copied on
     * the device (src/bonded/bonded_rows.cl), their indices up once per
     * topology */
    buffer ghost_idx;
    int ghost_idx_valid;
    scl_kernel *ghost_rows;
};

/* ------------------------------------------------------------ helpers */

static scl_status ensure(scl_bonded *b, buffer *buf, const char *label, scl_type t, size_t n)
{
    if (n < 1)
        n = 1;
    if (buf->s && buf->cap >= n)
        return SCL_OK;
    scl_stream_free(buf->s);
    buf->s = NULL;
    buf->cap = 0;
    size_t cap = n + n / 4;
    scl_status s = scl_stream_create(b->ctx, label, t, cap, 1, 1, 0, &buf->s);
    if (s == SCL_OK)
        buf->cap = cap;
    return s;
}

static void release(buffer *buf)
{
    scl_stream_free(buf->s);
    buf->s = NULL;
    buf->cap = 0;
}

static int grow_host(void **p, size_t *cap, size_t bytes)
{
    if (*cap >= bytes && *p)
        return 1;
    void *n = realloc(*p, bytes ? bytes : 1);
    if (!n)
        return 0;
    *p = n;
    *cap = bytes;
    return 1;
}

static size_t groups(int n, int wg)
{
    return ((size_t)n + (size_t)wg - 1) / (size_t)wg;
}

static int finite_all(const double *a, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return 0;
    return 1;
}

/* ------------------------------------------------------------ create / free */

void scl_bonded_options_default(scl_bonded_options *o)
{
    memset(o, 0, sizeof *o);
    o->precision = SCL_PREC_MIXED;
    o->work_group = 0;
}

scl_status scl_bonded_create(scl_context *ctx, const scl_bonded_options *o, scl_bonded **out)
{
    static const char *fn = "scl_bonded_create";
    if (!out)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "out is NULL");
    *out = NULL;
    scl_bonded_options def;
    if (!o) {
        scl_bonded_options_default(&def);
        o = &def;
    }
    const scl_device_info *dev = scl_device(ctx);
    if (!dev->fp64)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn,
                        "%s has no fp64: the bonded terms do their geometry in double in every "
                        "precision mode (float loses ~1e-5 of a stiff bond's stretch)",
                        dev->name);
    if (o->precision != SCL_PREC_SINGLE && o->precision != SCL_PREC_MIXED &&
        o->precision != SCL_PREC_DOUBLE)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "precision %d is not an scl_precision",
                        (int)o->precision);
    int wg = o->work_group ? o->work_group : 64;
    if (wg < 1 || wg > 1024 || (wg & (wg - 1)) || (size_t)wg > dev->max_work_group)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn,
                        "work_group %d must be a power of two within 1..%zu on %s",
                        o->work_group, dev->max_work_group < 1024 ? dev->max_work_group : 1024,
                        dev->name);
    scl_bonded *b = calloc(1, sizeof *b);
    if (!b)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    b->ctx = ctx;
    b->fp64_slots = o->precision == SCL_PREC_DOUBLE;
    b->wg = wg;
    char opts[64];
    snprintf(opts, sizeof opts, "-DWG=%d -DBONDED_DOUBLE=%d", wg, b->fp64_slots);
    scl_status s = SCL_OK;
    for (int k = 0; k < NKERNELS && s == SCL_OK; k++)
        s = scl_kernel_create(ctx, "bonded", kernel_names[k], opts, &b->term[k]);
    if (s == SCL_OK)
        s = scl_kernel_create(ctx, "bonded", "bonded_gather", opts, &b->gather);
    if (s == SCL_OK)
        s = scl_kernel_create(ctx, "bonded", "bonded_per_atom", opts, &b->per_atom);
    size_t local = (size_t)wg;
    for (int k = 0; k < NKERNELS && s == SCL_OK; k++)
        s = scl_kernel_check_local(b->term[k], 1, &local);
    if (s != SCL_OK) {
        scl_bonded_free(b);
        return s;
    }
    *out = b;
    return SCL_OK;
}

void scl_bonded_free(scl_bonded *b)
{
    if (!b)
        return;
    for (int k = 0; k < NKERNELS; k++) {
        scl_kernel_free(b->term[k]);
        release(&b->coef[k]);
        release(&b->list[k]);
    }
    scl_kernel_free(b->gather);
    scl_kernel_free(b->per_atom);
    scl_kernel_free(b->gather_into[0]);
    scl_kernel_free(b->gather_into[1]);
    buffer *bufs[] = {&b->lj14,  &b->atype, &b->q,   &b->x,    &b->sf,    &b->offsets,
                      &b->slots, &b->fout,  &b->tev, &b->part, &b->eatom, &b->vatom};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        release(bufs[i]);
    release(&b->ghost_idx);
    scl_kernel_free(b->ghost_rows);
    free(b->fout_host);
    free(b->part_host);
    free(b->ghost);
    free(b->ghost_x);
    free(b->eatom_host);
    free(b->vatom_host);
    if (b->topo_keep[0] || b->pending)
        scl_finish(b->ctx);
    for (int i = 0; i < 5; i++)
        free(b->topo_keep[i]);
    free(b);
}

/* ------------------------------------------------------------ coefficients */

/* The coefficient arrays by kind of term, as set_coeffs reads them. */
typedef struct {
    int n[NKERNELS];
    const double *arrays[NKERNELS][4];
    int any_weight; /* some dihedral type has a 1-4 pair */
} coeff_view;

static const int coeff_arrays[NKERNELS] = {2, 4, 3, 2};

/* Counts, arrays and values checked; any_weight found. */
static scl_status coeffs_check(scl_bonded *b, const scl_bonded_coeffs *c, coeff_view *v,
                               const char *fn)
{
    static const char *kind[NKERNELS] = {"bond", "angle", "dihedral", "improper"};
    if (c->type_base != 0 && c->type_base != 1)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "type_base %d must be 0 or 1", c->type_base);
    for (int k = 0; k < NKERNELS; k++) {
        const int n = v->n[k];
        if (n < 0)
            return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "%d %s types", n, kind[k]);
        if (b->have_topology && b->max_type[k] >= n)
            return scl_fail(b->ctx, SCL_ERR_INPUT, fn,
                            "the current lists use %s type %d but only %d types are given",
                            kind[k], b->max_type[k] + c->type_base, n);
        for (int a = 0; a < coeff_arrays[k] && n > 0; a++) {
            if (!v->arrays[k][a])
                return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn,
                                "%d %s types but coefficient array %d is NULL", n, kind[k], a);
            if (!finite_all(v->arrays[k][a], n))
                return scl_fail(b->ctx, SCL_ERR_INPUT, fn,
                                "a %s coefficient (array %d) is not finite", kind[k], a);
        }
    }
    if (v->n[2] > 0 && !c->dihedral_multiplicity)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "dihedral_multiplicity is NULL");
    for (int t = 0; t < v->n[2]; t++) {
        if (c->dihedral_multiplicity[t] < 0)
            return scl_fail(b->ctx, SCL_ERR_INPUT, fn,
                            "dihedral type %d has multiplicity %d (must be >= 0)",
                            t + c->type_base, c->dihedral_multiplicity[t]);
        v->any_weight |= c->dihedral_weight[t] > 0.0;
    }
    if (!v->any_weight)
        return SCL_OK;
    const int na = c->natom_types;
    if (na < 1 || !c->lj14_1 || !c->lj14_2 || !c->lj14_3 || !c->lj14_4)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn,
                        "dihedral weights > 0 need natom_types >= 1 and lj14_1..4");
    const double *lj[4] = {c->lj14_1, c->lj14_2, c->lj14_3, c->lj14_4};
    for (int a = 0; a < 4; a++)
        if (!finite_all(lj[a], na * na))
            return scl_fail(b->ctx, SCL_ERR_INPUT, fn, "lj14_%d has a non-finite entry", a + 1);
    if (!isfinite(c->qqrd2e))
        return scl_fail(b->ctx, SCL_ERR_INPUT, fn, "qqrd2e is not finite");
    return SCL_OK;
}

/* One type's coefficients packed as the kernel of kind k reads them. */
static void coeffs_pack(const scl_bonded_coeffs *c, const coeff_view *v, int k, int t, double *o)
{
    if (k != 2) {
        for (int a = 0; a < coef_stride[k]; a++)
            o[a] = v->arrays[k][a][t];
        return;
    }
    const double shift = M_PI * c->dihedral_shift[t] / 180.0;
    o[0] = c->dihedral_k[t];
    o[1] = cos(shift);
    o[2] = sin(shift);
    o[3] = c->dihedral_weight[t];
    o[4] = c->dihedral_multiplicity[t];
}

/* Packed per type (and the 1-4 tables interleaved) and written. */
static scl_status coeffs_upload(scl_bonded *b, const scl_bonded_coeffs *c, const coeff_view *v,
                                const char *fn)
{
    const int na = v->any_weight ? c->natom_types : 0;
    int maxn = 4 * na * na;
    for (int k = 0; k < NKERNELS; k++)
        if (coef_stride[k] * v->n[k] > maxn)
            maxn = coef_stride[k] * v->n[k];
    double *tmp = malloc(sizeof(double) * (size_t)(maxn ? maxn : 1));
    if (!tmp)
        return scl_fail(b->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    scl_status s = SCL_OK;
    for (int k = 0; k < NKERNELS && s == SCL_OK; k++) {
        const size_t n = (size_t)coef_stride[k] * (size_t)v->n[k];
        for (int t = 0; t < v->n[k]; t++)
            coeffs_pack(c, v, k, t, tmp + coef_stride[k] * t);
        s = ensure(b, &b->coef[k], "bonded.coef", SCL_DOUBLE, n);
        if (s == SCL_OK && n > 0)
            s = scl_stream_write_range(b->coef[k].s, 0, n, tmp, 1, NULL);
    }
    const double *lj[4] = {c->lj14_1, c->lj14_2, c->lj14_3, c->lj14_4};
    for (int i = 0; i < na * na; i++)
        for (int a = 0; a < 4; a++)
            tmp[4 * i + a] = lj[a][i];
    const size_t nlj = na ? (size_t)4 * na * na : 4;
    if (s == SCL_OK)
        s = ensure(b, &b->lj14, "bonded.lj14", SCL_DOUBLE, nlj);
    if (s == SCL_OK && na)
        s = scl_stream_write_range(b->lj14.s, 0, nlj, tmp, 1, NULL);
    free(tmp);
    return s;
}

scl_status scl_bonded_set_coeffs(scl_bonded *b, const scl_bonded_coeffs *c)
{
    static const char *fn = "scl_bonded_set_coeffs";
    if (!b || !c)
        return b ? scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "coefficients are NULL")
                 : SCL_ERR_ARGUMENT;
    coeff_view w = {
        {c->nbond_types, c->nangle_types, c->ndihedral_types, c->nimproper_types},
        {{c->bond_k, c->bond_r0, NULL, NULL},
         {c->angle_k, c->angle_theta0, c->angle_k_ub, c->angle_r_ub},
         {c->dihedral_k, c->dihedral_shift, c->dihedral_weight, NULL},
         {c->improper_k, c->improper_chi, NULL, NULL}},
        0};
    scl_status s = coeffs_check(b, c, &w, fn);
    if (s == SCL_OK)
        s = coeffs_upload(b, c, &w, fn);
    if (s != SCL_OK)
        return s;
    for (int k = 0; k < NKERNELS; k++)
        b->ntypes[k] = w.n[k];
    b->natom_types = w.any_weight ? c->natom_types : 0;
    b->type_base = c->type_base;
    b->implicit_coul = c->implicit != 0;
    b->qqrd2e = c->qqrd2e;
    b->any_weight = w.any_weight;
    b->have_coeffs = 1;
    return SCL_OK;
}

/* ------------------------------------------------------------ topology */

static const char *const kind_name[NKERNELS] = {"bond", "angle", "dihedral", "improper"};

/* What set_topology builds before it replaces the engine's topology. */
typedef struct {
    int nt[NKERNELS];
    const int *lists[NKERNELS];
    int max_type[NKERNELS];
    int need14;                     /* dihedral 1-4 pairs: types and charges go up */
    int nlo, ngref, nx, ngather;    /* the device numbering (see struct scl_bonded) */
    int *dev_index;                 /* ghost g -> device atom, -1 if unused */
    int *ghost;                     /* device ghost j -> caller's atom */
    double *ghost_x;
    int nslots, nrows, npart;       /* slots, per-term tally rows, partials */
    int *offsets, *slots, *dev_lists, *dtype; /* CSR map, remapped lists, types */
    double *dq;
} topo_build;

static void topo_free(topo_build *w)
{
    free(w->dev_index), free(w->ghost), free(w->ghost_x), free(w->offsets), free(w->slots);
    free(w->dev_lists), free(w->dtype), free(w->dq);
    memset(w, 0, sizeof *w);
}

/* The terms' atoms and types against nall and the coefficients. */
static scl_status topo_check(scl_bonded *b, const scl_bonded_topology *t, topo_build *w,
                             const char *fn)
{
    long long total_slots = 0;
    for (int k = 0; k < NKERNELS; k++) {
        w->max_type[k] = -1;
        if (w->nt[k] < 0 || (w->nt[k] > 0 && !w->lists[k]))
            return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "%d %ss with list %p", w->nt[k],
                            kind_name[k], (const void *)w->lists[k]);
        const int na = atoms_per_term[k];
        for (int i = 0; i < w->nt[k]; i++) {
            const int *e = w->lists[k] + (size_t)list_stride[k] * i;
            for (int a = 0; a < na; a++)
                if (e[a] < 0 || e[a] >= t->nall)
                    return scl_fail(b->ctx, SCL_ERR_INPUT, fn,
                                    "%s %d: atom index %d is outside [0, %d)", kind_name[k], i,
                                    e[a], t->nall);
            const int ty = e[na] - b->type_base;
            if (ty < 0 || ty >= b->ntypes[k])
                return scl_fail(b->ctx, SCL_ERR_INPUT, fn,
                                "%s %d: type %d is outside the %d %s types (from %d)",
                                kind_name[k], i, e[na], b->ntypes[k], kind_name[k], b->type_base);
            if (ty > w->max_type[k])
                w->max_type[k] = ty;
        }
        total_slots += (long long)na * w->nt[k];
    }
    if (total_slots > (1LL << 30))
        return scl_fail(b->ctx, SCL_ERR_TOO_LARGE, fn, "%lld term slots (at most 2^30)",
                        total_slots);
    w->need14 = b->any_weight && t->ndihedrals > 0;
    if (w->need14 && (!t->type || !t->q))
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn,
                        "dihedral 1-4 pairs need atom types and charges (type/q NULL)");
    return SCL_OK;
}

/* The device numbering: owned atoms up to the last one a term uses, then
 * the used ghosts in index order; their types and charges checked. */
static scl_status topo_number(scl_bonded *b, const scl_bonded_topology *t, topo_build *w,
                              const char *fn)
{
    const int nghost = t->nall - t->nlocal;
    if (!(w->dev_index = malloc(sizeof(int) * (size_t)(nghost > 0 ? nghost : 1))))
        return scl_fail(b->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    for (int g = 0; g < nghost; g++)
        w->dev_index[g] = -1;
    for (int k = 0; k < NKERNELS; k++)
        for (int i = 0; i < w->nt[k]; i++)
            for (int a = 0; a < atoms_per_term[k]; a++) {
                const int at = w->lists[k][(size_t)list_stride[k] * i + a];
                if (at >= t->nlocal)
                    w->dev_index[at - t->nlocal] = 0;
                else if (at >= w->nlo)
                    w->nlo = at + 1;
            }
    for (int g = 0; g < nghost; g++)
        w->ngref += w->dev_index[g] == 0;
    w->ghost = malloc(sizeof(int) * (size_t)(w->ngref ? w->ngref : 1));
    w->ghost_x = malloc(sizeof(double) * 3 * (size_t)(w->ngref ? w->ngref : 1));
    if (!w->ghost || !w->ghost_x)
        return scl_fail(b->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    for (int g = 0, j = 0; g < nghost; g++)
        if (w->dev_index[g] == 0) {
            w->ghost[j] = t->nlocal + g;
            w->dev_index[g] = w->nlo + j++;
        }
    w->nx = w->nlo + w->ngref;
    w->ngather = t->newton_bond ? w->nx : w->nlo;
    for (int d = 0; w->need14 && d < w->nx; d++) {
        const int i = d < w->nlo ? d : w->ghost[d - w->nlo];
        const int ty = t->type[i] - b->type_base;
        if (ty < 0 || ty >= b->natom_types)
            return scl_fail(b->ctx, SCL_ERR_INPUT, fn,
                            "atom %d: type %d is outside the %d atom types (from %d)", i,
                            t->type[i], b->natom_types, b->type_base);
        if (!isfinite(t->q[i]))
            return scl_fail(b->ctx, SCL_ERR_INPUT, fn, "atom %d: charge is not finite", i);
    }
    return SCL_OK;
}

/* Slot ranges by kind; per-term tally rows (1-4 pairs after impropers). */
static void topo_layout(scl_bonded *b, topo_build *w)
{
    int slot = 0, row = 0, part = 0;
    for (int k = 0; k < NKERNELS; k++) {
        b->slot_off[k] = slot;
        slot += atoms_per_term[k] * w->nt[k];
        b->tev_off[k] = row;
        row += w->nt[k];
        b->part_off[k] = part;
        part += (int)groups(w->nt[k], b->wg) * (k == 2 ? NACC_DIHEDRAL : NACC);
    }
    b->tev_off[NKERNELS] = row;
    b->part_off[NKERNELS] = part;
    w->nslots = slot;
    w->nrows = row + w->nt[2];
    w->npart = part;
}

/* The lists in the device numbering (types kept), the CSR map atom ->
 * slots over [0, ngather) in kind, term, position order, and the device
 * atoms' types and charges. */
static scl_status topo_csr(scl_bonded *b, const scl_bonded_topology *t, topo_build *w,
                           const char *fn)
{
    size_t list_total = 0;
    for (int k = 0; k < NKERNELS; k++)
        list_total += (size_t)list_stride[k] * w->nt[k];
    const size_t ndev = w->need14 && w->nx ? (size_t)w->nx : 1;
    w->offsets = calloc((size_t)w->ngather + 1, sizeof *w->offsets);
    w->slots = malloc(sizeof *w->slots * (size_t)(w->nslots ? w->nslots : 1));
    w->dev_lists = malloc(sizeof(int) * (list_total ? list_total : 1));
    w->dtype = malloc(sizeof(int) * ndev);
    w->dq = malloc(sizeof(double) * ndev);
    int *fill = malloc(sizeof *fill * (size_t)(w->ngather ? w->ngather : 1));
    if (!w->offsets || !w->slots || !w->dev_lists || !w->dtype || !w->dq || !fill) {
        free(fill);
        return scl_fail(b->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    }
    size_t o = 0;
    for (int k = 0; k < NKERNELS; k++)
        for (int i = 0; i < w->nt[k]; i++) {
            const int *e = w->lists[k] + (size_t)list_stride[k] * i;
            for (int a = 0; a < atoms_per_term[k]; a++) {
                const int at = e[a] < t->nlocal ? e[a] : w->dev_index[e[a] - t->nlocal];
                w->dev_lists[o++] = at;
                if (at < w->ngather) /* the CSR counts, in the same pass */
                    w->offsets[at + 1]++;
            }
            w->dev_lists[o++] = e[atoms_per_term[k]];
        }
    for (int d = 0; w->need14 && d < w->nx; d++) {
        const int i = d < w->nlo ? d : w->ghost[d - w->nlo];
        w->dtype[d] = t->type[i];
        w->dq[d] = t->q[i];
    }
    for (int a = 0; a < w->ngather; a++)
        w->offsets[a + 1] += w->offsets[a];
    memcpy(fill, w->offsets, sizeof *fill * (size_t)w->ngather);
    const int *e = w->dev_lists; /* slots in order: the remapped lists in order */
    for (int k = 0; k < NKERNELS; k++)
        for (int i = 0; i < w->nt[k]; i++, e += atoms_per_term[k] + 1)
            for (int a = 0; a < atoms_per_term[k]; a++)
                if (e[a] < w->ngather)
                    w->slots[fill[e[a]]++] = b->slot_off[k] + atoms_per_term[k] * i + a;
    free(fill);
    return SCL_OK;
}

/* Device buffers sized and written (non-blocking: the host arrays go to
 * topo_keep, freed by the next set_topology or free). */
static scl_status topo_upload(scl_bonded *b, topo_build *w, const char *fn)
{
    scl_status s = SCL_OK;
    size_t list_at = 0;
    for (int k = 0; k < NKERNELS && s == SCL_OK; k++) {
        const size_t n = (size_t)list_stride[k] * w->nt[k];
        s = ensure(b, &b->list[k], "bonded.list", SCL_INT, n);
        if (s == SCL_OK && n)
            s = scl_stream_write_range(b->list[k].s, 0, n, w->dev_lists + list_at, 0, NULL);
        list_at += n;
    }
    const size_t ng = (size_t)w->ngather, nx = (size_t)w->nx, nsl = (size_t)w->nslots;
    const size_t ndev = w->need14 ? nx : 1;
    const scl_type out_type = b->fp64_slots ? SCL_DOUBLE : SCL_FLOAT;
    if (s == SCL_OK) s = ensure(b, &b->offsets, "bonded.offsets", SCL_INT, ng + 1);
    if (s == SCL_OK) s = scl_stream_write_range(b->offsets.s, 0, ng + 1, w->offsets, 0, NULL);
    if (s == SCL_OK) s = ensure(b, &b->slots, "bonded.slots", SCL_INT, nsl);
    if (s == SCL_OK && nsl) s = scl_stream_write_range(b->slots.s, 0, nsl, w->slots, 0, NULL);
    if (s == SCL_OK) s = ensure(b, &b->sf, "bonded.slot_forces", SCL_DOUBLE, 3 * nsl);
    if (s == SCL_OK) s = ensure(b, &b->fout, "bonded.forces", out_type, 3 * ng);
    if (s == SCL_OK) s = ensure(b, &b->tev, "bonded.term_tally", SCL_DOUBLE, 8 * (size_t)w->nrows);
    if (s == SCL_OK) s = ensure(b, &b->part, "bonded.partials", SCL_DOUBLE, (size_t)w->npart);
    if (s == SCL_OK) s = ensure(b, &b->x, "bonded.x", SCL_DOUBLE, 3 * nx);
    if (s == SCL_OK) s = ensure(b, &b->atype, "bonded.type", SCL_INT, ndev);
    if (s == SCL_OK) s = ensure(b, &b->q, "bonded.q", SCL_DOUBLE, ndev);
    if (s == SCL_OK && w->need14 && nx)
        s = scl_stream_write_range(b->atype.s, 0, nx, w->dtype, 0, NULL);
    if (s == SCL_OK && w->need14 && nx)
        s = scl_stream_write_range(b->q.s, 0, nx, w->dq, 0, NULL);
    void *keep[5] = {w->dev_lists, w->offsets, w->slots, w->dtype, w->dq};
    memcpy(b->topo_keep, keep, sizeof keep);
    w->dev_lists = w->offsets = w->slots = w->dtype = NULL, w->dq = NULL;
    const size_t fbytes = 3 * ng * (b->fp64_slots ? sizeof(double) : sizeof(float));
    if (s == SCL_OK && (!grow_host(&b->fout_host, &b->fout_host_cap, fbytes) ||
                        !grow_host((void **)&b->part_host, &b->part_host_cap,
                                   sizeof(double) * (size_t)(w->npart ? w->npart : 1))))
        s = scl_fail(b->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    return s;
}

/* The engine takes the new topology. */
static void topo_commit(scl_bonded *b, const scl_bonded_topology *t, topo_build *w)
{
    free(b->ghost);
    free(b->ghost_x);
    b->ghost = w->ghost;
    b->ghost_x = w->ghost_x;
    w->ghost = NULL, w->ghost_x = NULL;
    b->nlo = w->nlo;
    b->nghost_ref = w->ngref;
    b->ghost_idx_valid = 0;
    for (int k = 0; k < NKERNELS; k++) {
        b->nterms[k] = w->nt[k];
        b->max_type[k] = w->max_type[k];
    }
    b->nlocal = t->nlocal;
    b->nall = t->nall;
    b->newton = t->newton_bond != 0;
    b->nx = w->nx;
    b->ngather = w->ngather;
    b->nslots = w->nslots;
    b->ntev = w->nrows;
    b->have_topology = 1;
}

scl_status scl_bonded_set_topology(scl_bonded *b, const scl_bonded_topology *t)
{
    static const char *fn = "scl_bonded_set_topology";
    if (!b || !t)
        return b ? scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "topology is NULL") : SCL_ERR_ARGUMENT;
    if (!b->have_coeffs)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "no coefficients yet (scl_bonded_set_coeffs)");
    if (b->pending)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn,
                        "an evaluation is pending (scl_bonded_compute_finish first)");
    if (b->topo_keep[0]) { /* the last uploads have read them (compute waited), or wait now */
        scl_status sf = scl_finish(b->ctx);
        if (sf != SCL_OK)
            return sf;
        for (int i = 0; i < 5; i++) {
            free(b->topo_keep[i]);
            b->topo_keep[i] = NULL;
        }
    }
    if (t->nlocal < 0 || t->nall < t->nlocal)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "nlocal %d, nall %d", t->nlocal, t->nall);
    topo_build w;
    memset(&w, 0, sizeof w);
    const int nt[NKERNELS] = {t->nbonds, t->nangles, t->ndihedrals, t->nimpropers};
    const int *lists[NKERNELS] = {t->bonds, t->angles, t->dihedrals, t->impropers};
    memcpy(w.nt, nt, sizeof nt);
    memcpy(w.lists, lists, sizeof lists);
    scl_status s = topo_check(b, t, &w, fn);
    if (s == SCL_OK)
        s = topo_number(b, t, &w, fn);
    if (s != SCL_OK) { /* refused: the engine keeps its topology */
        topo_free(&w);
        return s;
    }
    topo_layout(b, &w); /* from here the old topology is gone */
    s = topo_csr(b, t, &w, fn);
    if (s == SCL_OK)
        s = topo_upload(b, &w, fn);
    if (s == SCL_OK)
        topo_commit(b, t, &w);
    else
        b->have_topology = 0;
    topo_free(&w);
    return s;
}

int scl_bonded_gather_count(const scl_bonded *b)
{
    return !b->have_topology ? 0 : b->newton ? b->nall : b->nlocal;
}

/* ------------------------------------------------------------ compute */

static scl_status launch_term(scl_bonded *b, int k, int tally, int per_atom)
{
    scl_kernel *kn = b->term[k];
    scl_status s = scl_kernel_set_int(kn, "nterms", b->nterms[k]);
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "type_base", b->type_base);
    /* owned in the device numbering: below nlo (ghosts follow it) */
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "nlocal", b->nlo);
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "newton", b->newton);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "x", b->x.s);
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "slot_off", b->slot_off[k]);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "sf", b->sf.s);
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "tally", tally);
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "per_atom", per_atom);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "tev", b->tev.s);
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "tev_off", b->tev_off[k]);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "part", b->part.s);
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "part_off", b->part_off[k]);
    if (s == SCL_OK) s = scl_kernel_set_local(kn, "scratch", sizeof(double) * (size_t)b->wg);
    static const char *list_arg[NKERNELS] = {"bonds", "angles", "dihedrals", "impropers"};
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, list_arg[k], b->list[k].s);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "coef", b->coef[k].s);
    if (k == 2) {
        if (s == SCL_OK) s = scl_kernel_set_stream(kn, "atype", b->atype.s);
        if (s == SCL_OK) s = scl_kernel_set_stream(kn, "q", b->q.s);
        if (s == SCL_OK) s = scl_kernel_set_stream(kn, "lj14", b->lj14.s);
        if (s == SCL_OK) s = scl_kernel_set_int(kn, "natom_types", b->natom_types);
        if (s == SCL_OK) s = scl_kernel_set_double(kn, "qqrd2e", b->qqrd2e);
        if (s == SCL_OK) s = scl_kernel_set_int(kn, "implicit_coul", b->implicit_coul);
        if (s == SCL_OK) s = scl_kernel_set_int(kn, "tev14_off", b->tev_off[NKERNELS]);
    }
    const size_t local = (size_t)b->wg, global = groups(b->nterms[k], b->wg) * local;
    if (s == SCL_OK)
        s = scl_kernel_launch(kn, 1, &global, &local, NULL);
    return s;
}

static scl_status launch_gather(scl_bonded *b, scl_kernel *kn, int per_atom)
{
    scl_status s = scl_kernel_set_int(kn, "ngather", b->ngather);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "offsets", b->offsets.s);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "slots", b->slots.s);
    if (!per_atom) {
        if (s == SCL_OK) s = scl_kernel_set_stream(kn, "sf", b->sf.s);
        if (s == SCL_OK) s = scl_kernel_set_stream(kn, "f", b->fout.s);
    } else {
        const char *names[7] = {"b1", "b2", "b3", "t1", "t2", "t3", "t4"};
        const int vals[7] = {b->slot_off[1], b->slot_off[2], b->slot_off[3], b->tev_off[1],
                             b->tev_off[2], b->tev_off[3], b->tev_off[4]};
        for (int i = 0; i < 7 && s == SCL_OK; i++)
            s = scl_kernel_set_int(kn, names[i], vals[i]);
        if (s == SCL_OK) s = scl_kernel_set_int(kn, "nall", b->ngather);
        if (s == SCL_OK) s = scl_kernel_set_stream(kn, "tev", b->tev.s);
        if (s == SCL_OK) s = scl_kernel_set_stream(kn, "eatom", b->eatom.s);
        if (s == SCL_OK) s = scl_kernel_set_stream(kn, "vatom", b->vatom.s);
    }
    const size_t local = (size_t)b->wg, global = groups(b->ngather, b->wg) * local;
    if (s == SCL_OK && b->ngather > 0)
        s = scl_kernel_launch(kn, 1, &global, &local, NULL);
    return s;
}

/* The kernels of the device forms, built once (scl_bonded_prepare_rows
 * builds them at set-up; else the first call does). */
static scl_status ghost_rows_kernel(scl_bonded *b)
{
    return b->ghost_rows ? SCL_OK
                         : scl_kernel_create(b->ctx, "bonded_rows", "bonded_ghost_x", NULL,
                                             &b->ghost_rows);
}

static scl_status gather_into_kernel(scl_bonded *b, scl_type type)
{
    scl_kernel **kp = &b->gather_into[type == SCL_DOUBLE];
    if (*kp)
        return SCL_OK;
    char opts[80];
    snprintf(opts, sizeof opts, "-DWG=%d -DBONDED_DOUBLE=%d -DINTO_DOUBLE=%d", b->wg,
             b->fp64_slots, type == SCL_DOUBLE);
    return scl_kernel_create(b->ctx, "bonded", "bonded_gather_into", opts, kp);
}

scl_status scl_bonded_prepare_rows(scl_bonded *b, scl_type type)
{
    if (!b)
        return SCL_ERR_ARGUMENT;
    if (type != SCL_FLOAT && type != SCL_DOUBLE)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, "scl_bonded_prepare_rows",
                        "rows of %s: SCL_FLOAT or SCL_DOUBLE only", scl_type_name(type));
    scl_status s = ghost_rows_kernel(b);
    return s == SCL_OK ? gather_into_kernel(b, type) : s;
}

/* The used ghosts' rows copied from x_dev (all the caller's atoms) on the
 * device: their indices go up once per topology. */
static scl_status ghost_rows_from(scl_bonded *b, const scl_stream *x_dev)
{
    scl_status s = ensure(b, &b->ghost_idx, "bonded.ghost_idx", SCL_INT, (size_t)b->nghost_ref);
    if (s == SCL_OK && !b->ghost_idx_valid)
        s = scl_stream_write_range(b->ghost_idx.s, 0, (size_t)b->nghost_ref, b->ghost, 1, NULL);
    b->ghost_idx_valid = s == SCL_OK;
    if (s == SCL_OK)
        s = ghost_rows_kernel(b);
    scl_kernel *k = b->ghost_rows;
    const scl_arg_stream streams[] = {{"xsrc", (scl_stream *)x_dev}, {"ghost", b->ghost_idx.s},
                                      {"x", b->x.s}};
    const scl_arg_int ints[] = {{"nghost", b->nghost_ref}, {"nlo", b->nlo}};
    if (s == SCL_OK)
        s = scl_kernel_bind(k, streams, 3, ints, 2);
    const size_t local = 64, global = groups(b->nghost_ref, 64) * local;
    return s == SCL_OK ? scl_kernel_launch(k, 1, &global, &local, NULL) : s;
}

/* The device atoms' positions into b->x: the owned ones copied on the device
 * from x_dev when given (the same numbering), else written from x; the used
 * ghosts (few) from x_dev too where it holds every atom of the caller, else
 * from the host staging. */
static scl_status put_positions(scl_bonded *b, const scl_stream *x_dev, const double *x)
{
    scl_status s = SCL_OK;
    if (b->nlo > 0)
        s = x_dev ? scl_stream_copy(b->x.s, 0, x_dev, 0, 3 * (size_t)b->nlo, NULL)
                  : scl_stream_write_range(b->x.s, 0, 3 * (size_t)b->nlo, x, 0, NULL);
    if (s == SCL_OK && x_dev && b->nghost_ref > 0 &&
        scl_stream_count(x_dev) >= 3 * (size_t)b->nall)
        return ghost_rows_from(b, x_dev);
    for (int j = 0; j < b->nghost_ref; j++)
        memcpy(b->ghost_x + 3 * j, x + 3 * (size_t)b->ghost[j], 3 * sizeof(double));
    if (s == SCL_OK && b->nghost_ref > 0)
        s = scl_stream_write_range(b->x.s, 3 * (size_t)b->nlo, 3 * (size_t)b->nghost_ref,
                                   b->ghost_x, 0, NULL);
    return s;
}

static scl_status start_evaluation(scl_bonded *b, const scl_stream *x_dev, const double *x,
                                   const double *q, int flags);

scl_status scl_bonded_compute_start(scl_bonded *b, const double *x, const double *q, int flags)
{
    return start_evaluation(b, NULL, x, q, flags);
}

scl_status scl_bonded_compute_start_device(scl_bonded *b, const scl_stream *x_dev,
                                           const double *x, const double *q, int flags)
{
    if (b && !x_dev)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, "scl_bonded_compute_start_device",
                        "x_dev is NULL (scl_bonded_compute_start uploads x)");
    return start_evaluation(b, x_dev, x, q, flags);
}

static scl_status start_evaluation(scl_bonded *b, const scl_stream *x_dev, const double *x,
                                   const double *q, int flags)
{
    static const char *fn = "scl_bonded_compute_start";
    if (!b)
        return SCL_ERR_ARGUMENT;
    if (!b->have_topology)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "no topology (scl_bonded_set_topology)");
    if (b->pending)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn,
                        "an evaluation is pending (scl_bonded_compute_finish first)");
    if (b->nx > 0 && !x)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "x is NULL");
    const int tally = (flags & (SCL_BONDED_TALLY | SCL_BONDED_PER_ATOM)) != 0;
    const int per_atom = (flags & SCL_BONDED_PER_ATOM) != 0;
    b->flags = flags;
    b->gathered_into = 0;
    scl_status s = SCL_OK;
    if (b->nx == 0) {
        b->pending = 1;
        return SCL_OK;
    }
    s = put_positions(b, x_dev, x);
    if (s == SCL_OK && q && b->any_weight && b->nterms[2] > 0) {
        /* new charges: the device atoms' ones, gathered like x (rare: blocking) */
        double *dq = malloc(sizeof(double) * (size_t)b->nx);
        if (!dq)
            return scl_fail(b->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
        for (int d = 0; d < b->nx; d++)
            dq[d] = q[d < b->nlo ? d : b->ghost[d - b->nlo]];
        s = scl_stream_write_range(b->q.s, 0, (size_t)b->nx, dq, 1, NULL);
        free(dq);
    }
    for (int k = 0; k < NKERNELS && s == SCL_OK; k++)
        if (b->nterms[k] > 0)
            s = launch_term(b, k, tally, per_atom);
    /* deferred: scl_bonded_gather_into sums them into another array later */
    const int own_forces = !(flags & SCL_BONDED_DEVICE_FORCES);
    if (s == SCL_OK && own_forces)
        s = launch_gather(b, b->gather, 0);
    if (s == SCL_OK && own_forces && b->ngather > 0)
        s = scl_stream_read_range(b->fout.s, 0, 3 * (size_t)b->ngather, b->fout_host, 0, NULL);
    if (s == SCL_OK && tally && b->part_off[NKERNELS] > 0)
        s = scl_stream_read_range(b->part.s, 0, (size_t)b->part_off[NKERNELS], b->part_host, 0,
                                  NULL);
    if (s == SCL_OK && per_atom && b->ngather > 0) {
        const size_t n = (size_t)SCL_BONDED_KINDS * (size_t)b->ngather;
        s = ensure(b, &b->eatom, "bonded.eatom", SCL_DOUBLE, n);
        if (s == SCL_OK)
            s = ensure(b, &b->vatom, "bonded.vatom", SCL_DOUBLE, 6 * n);
        if (s == SCL_OK && (!grow_host((void **)&b->eatom_host, &b->eatom_host_cap,
                                       sizeof(double) * n) ||
                            !grow_host((void **)&b->vatom_host, &b->vatom_host_cap,
                                       sizeof(double) * 6 * n)))
            s = scl_fail(b->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
        if (s == SCL_OK)
            s = launch_gather(b, b->per_atom, 1);
        if (s == SCL_OK)
            s = scl_stream_read_range(b->eatom.s, 0, n, b->eatom_host, 0, NULL);
        if (s == SCL_OK)
            s = scl_stream_read_range(b->vatom.s, 0, 6 * n, b->vatom_host, 0, NULL);
    }
    if (s == SCL_OK)
        s = scl_flush(b->ctx);
    if (s != SCL_OK) {
        scl_finish(b->ctx); /* nothing may still read x or write our buffers */
        return s;
    }
    b->pending = 1;
    return SCL_OK;
}

int scl_bonded_ghost_rows(const scl_bonded *b)
{
    return b && b->have_topology && b->ngather > b->nlo ? b->ngather - b->nlo : 0;
}

const int *scl_bonded_ghost_atoms(const scl_bonded *b, int *n)
{
    const int rows = scl_bonded_ghost_rows(b);
    if (n)
        *n = rows;
    return rows > 0 ? b->ghost : NULL;
}

int scl_bonded_gather_into(scl_bonded *b, scl_stream *force, scl_type type, int nlocal,
                           int extra_rows)
{
    static const char *fn = "scl_bonded_gather_into";
    if (!b)
        return -1;
    /* again in the same evaluation: the other module recomputed its forces */
    if (!b->pending || !(b->flags & SCL_BONDED_DEVICE_FORCES)) {
        scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn,
                 "no evaluation started with SCL_BONDED_DEVICE_FORCES waits for its forces");
        return -1;
    }
    const int ghosts = scl_bonded_ghost_rows(b);
    const int nown = b->ngather < b->nlo ? b->ngather : b->nlo;
    if (!force || (type != SCL_FLOAT && type != SCL_DOUBLE) || nown > nlocal ||
        ghosts > extra_rows ||
        scl_stream_count(force) < 4 * ((size_t)nlocal + (size_t)ghosts) ||
        scl_stream_type(force) != type) {
        scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn,
                 "the force rows do not fit: %d owned and %d ghost rows needed, %d and %d given",
                 nown, ghosts, nlocal, extra_rows);
        return -1;
    }
    /* the variant for this row type (built at set-up by prepare_rows) */
    scl_status s = gather_into_kernel(b, type);
    scl_kernel *kn = b->gather_into[type == SCL_DOUBLE];
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "ngather", b->ngather);
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "nlo", b->nlo);
    if (s == SCL_OK) s = scl_kernel_set_int(kn, "nrows", nlocal);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "offsets", b->offsets.s);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "slots", b->slots.s);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "sf", b->sf.s);
    if (s == SCL_OK) s = scl_kernel_set_stream(kn, "f4", force);
    const size_t local = (size_t)b->wg, global = groups(b->ngather, b->wg) * local;
    if (s == SCL_OK && b->ngather > 0)
        s = scl_kernel_launch(kn, 1, &global, &local, NULL);
    if (s != SCL_OK)
        return -1;
    b->gathered_into = 1;
    return ghosts;
}

int scl_bonded_pending(const scl_bonded *b)
{
    return b && b->pending;
}

/* f += this evaluation's downloaded forces: owned atoms in place, used
 * ghosts (newton_bond on) scattered back. */
static void add_own_forces(const scl_bonded *b, double *f)
{
    const size_t nown = 3 * (size_t)(b->ngather < b->nlo ? b->ngather : b->nlo);
    const int nghost = b->ngather > b->nlo ? b->nghost_ref : 0;
    const double *hd = b->fout_host;
    const float *hf = b->fout_host;
    for (size_t i = 0; i < nown; i++)
        f[i] += b->fp64_slots ? hd[i] : (double)hf[i];
    for (int j = 0; j < nghost; j++)
        for (int d = 0; d < 3; d++) {
            const size_t at = 3 * (size_t)(b->nlo + j) + (size_t)d;
            f[3 * (size_t)b->ghost[j] + d] += b->fp64_slots ? hd[at] : (double)hf[at];
        }
}

/* f += the ghost rows scl_bonded_gather_into wrote (4 values per row). */
static void add_ghost_rows(const scl_bonded *b, const void *rows, scl_type type, double *f)
{
    for (int j = 0; j < scl_bonded_ghost_rows(b); j++)
        for (int d = 0; d < 3; d++) {
            const size_t at = 4 * (size_t)j + (size_t)d;
            f[3 * (size_t)b->ghost[j] + d] +=
                type == SCL_DOUBLE ? ((const double *)rows)[at] : (double)((const float *)rows)[at];
        }
}

/* The group partials of every kind into result's energies and virials. */
static void sum_partials(const scl_bonded *b, scl_bonded_result *result)
{
    for (int k = 0; k < NKERNELS; k++) {
        const int nacc = k == 2 ? NACC_DIHEDRAL : NACC;
        const size_t ng = groups(b->nterms[k], b->wg);
        for (size_t g = 0; g < ng; g++) {
            const double *p = b->part_host + b->part_off[k] + g * (size_t)nacc;
            result->energy[k] += p[0];
            for (int c = 0; c < 6; c++)
                result->virial[k][c] += p[c + 1];
            if (k == 2) {
                result->energy[SCL_BONDED_PAIR14] += p[7];
                result->energy_coul += p[8];
                for (int c = 0; c < 6; c++)
                    result->virial[SCL_BONDED_PAIR14][c] += p[c + 9];
            }
        }
    }
}

/* Per-atom rows: [0, ngather) in the device numbering, stride ngather, to
 * the caller's: stride nall, zero where no term gives anything. */
static void spread_per_atom(const scl_bonded *b, scl_bonded_result *result)
{
    const int nout = scl_bonded_gather_count(b), ng = b->ngather;
    for (int k = 0; k < SCL_BONDED_KINDS; k++)
        for (int w = 0; w < 2; w++) {
            const int width = w ? 6 : 1;
            double *out = w ? result->vatom : result->eatom;
            if (!out)
                continue;
            out += (size_t)k * b->nall * width;
            memset(out, 0, sizeof(double) * (size_t)nout * width);
            const double *src = (w ? b->vatom_host : b->eatom_host) + (size_t)k * ng * width;
            for (int d = 0; d < ng; d++) {
                const int i = d < b->nlo ? d : b->ghost[d - b->nlo];
                memcpy(out + (size_t)i * width, src + (size_t)d * width, sizeof(double) * width);
            }
        }
}

/* Wait for the pending evaluation; then its results, with forces from
 * add (the own download, or the ghost rows of gather_into). */
static scl_status finish(scl_bonded *b, const char *fn, int device_forces, const void *rows,
                         scl_type type, double *f, scl_bonded_result *result)
{
    if (!b)
        return SCL_ERR_ARGUMENT;
    if (!b->pending)
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "nothing pending (scl_bonded_compute_start)");
    const int deferred = (b->flags & SCL_BONDED_DEVICE_FORCES) != 0;
    const int tally = (b->flags & (SCL_BONDED_TALLY | SCL_BONDED_PER_ATOM)) != 0;
    const int per_atom = (b->flags & SCL_BONDED_PER_ATOM) != 0;
    scl_status s = scl_finish(b->ctx);
    b->pending = 0;
    if (s != SCL_OK)
        return s;
    if (deferred != device_forces || (deferred && b->nx > 0 && !b->gathered_into))
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn,
                        deferred ? "started with SCL_BONDED_DEVICE_FORCES: finish with "
                                   "scl_bonded_compute_finish_rows after scl_bonded_gather_into"
                                 : "not started with SCL_BONDED_DEVICE_FORCES");
    const int ghosts = deferred ? scl_bonded_ghost_rows(b) : 0;
    if ((!deferred && b->ngather > 0 && !f) || (ghosts > 0 && (!f || !rows)) ||
        (tally && !result))
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, fn, "f%s is NULL",
                        tally ? ", rows or result" : " or rows");
    if (result) {
        memset(result->energy, 0, sizeof result->energy);
        memset(result->virial, 0, sizeof result->virial);
        result->energy_coul = 0.0;
    }
    if (!deferred)
        add_own_forces(b, f);
    else if (ghosts > 0)
        add_ghost_rows(b, rows, type, f);
    if (tally && b->nx > 0)
        sum_partials(b, result);
    if (per_atom && result && (result->eatom || result->vatom))
        spread_per_atom(b, result);
    return SCL_OK;
}

scl_status scl_bonded_compute_finish(scl_bonded *b, double *f, scl_bonded_result *result)
{
    return finish(b, "scl_bonded_compute_finish", 0, NULL, SCL_DOUBLE, f, result);
}

scl_status scl_bonded_compute_finish_rows(scl_bonded *b, const void *rows, scl_type type,
                                          double *f, scl_bonded_result *result)
{
    return finish(b, "scl_bonded_compute_finish_rows", 1, rows, type, f, result);
}

scl_status scl_bonded_compute(scl_bonded *b, const double *x, const double *q, int flags,
                              double *f, scl_bonded_result *result)
{
    if (!b)
        return SCL_ERR_ARGUMENT;
    const int tally = (flags & (SCL_BONDED_TALLY | SCL_BONDED_PER_ATOM)) != 0;
    if ((b->have_topology && b->nx > 0 && !f) || (tally && !result))
        return scl_fail(b->ctx, SCL_ERR_ARGUMENT, "scl_bonded_compute", "f%s is NULL",
                        tally ? " or result" : "");
    scl_status s = scl_bonded_compute_start(b, x, q, flags);
    return s == SCL_OK ? scl_bonded_compute_finish(b, f, result) : s;
}
