/* Binning on the device (cl/charmm_bin.cl) against the host binning it
 * replaces (cell_grid.c, params.host_pack) and against brute force: the
 * binned order, cell starts, local slots and their cells, binned types and
 * tags are bitwise those of the host; every atom lies in the cell it is
 * binned into; the lists of both agree with a brute-force list, and are the
 * same slot for slot whatever the lanes per atom of the build. Random water
 * boxes of awkward sizes, in mixed and double precision. */
#include "charmm_test_util.h"
#include "pair/charmm_engine.h"

static int *read_ints(scl_context *ctx, scl_stream *s, size_t n)
{
    int *v = malloc((n + 1) * sizeof *v);
    if (v && n)
        CHECK_OK(ctx, scl_stream_read_range(s, 0, n, v, 1, NULL));
    return v;
}

static void bins_match(scl_context *ctx, const test_atoms *a, scl_precision prec)
{
    scl_charmm_params p = test_params(&a->sys, prec);
    scl_charmm *eng[2] = {NULL, NULL}; /* device binning, host binning */
    for (int e = 0; e < 2; e++) {
        p.host_pack = e;
        CHECK_OK(ctx, scl_charmm_create(ctx, &p, &eng[e]));
        if (!eng[e])
            return;
        CHECK_OK(ctx, scl_charmm_set_atoms(eng[e], a->nlocal, a->nghost, a->x, a->type, a->tag,
                                           a->sys.nspecial, a->sys.special, a->sys.maxspecial));
    }
    const charmm_nlist *d = &eng[0]->nlist, *h = &eng[1]->nlist;
    if (!d->device_bins) {
        SKIP("no fp64: no device binning");
        scl_charmm_free(eng[0]), scl_charmm_free(eng[1]);
        return;
    }
    CHECK(!h->device_bins, "host_pack did not bin on the host");
    size_t n = (size_t)a->nlocal + (size_t)a->nghost, nl = (size_t)a->nlocal;
    int ncells = d->grid[0] * d->grid[1] * d->grid[2];
    CHECK(memcmp(d->grid, h->grid, sizeof d->grid) == 0 &&
              memcmp(d->grid_lo, h->grid_lo, sizeof d->grid_lo) == 0 &&
              memcmp(d->grid_width, h->grid_width, sizeof d->grid_width) == 0 &&
              d->unit == h->unit && memcmp(d->origin, h->origin, sizeof d->origin) == 0,
          "grid or frame differs");
    struct {
        const char *what;
        scl_stream *sd, *sh;
        size_t count;
    } arrays[] = {{"order", d->order_dev, h->order_dev, n},
                  {"cell starts", d->cell_start, h->cell_start, (size_t)ncells + 1},
                  {"local slots", d->ilist_dev, h->ilist_dev, nl},
                  {"local cells", d->icell, h->icell, nl},
                  {"types", d->type, h->type, n + 1}};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        int *vd = read_ints(ctx, arrays[k].sd, arrays[k].count);
        int *vh = read_ints(ctx, arrays[k].sh, arrays[k].count);
        long diff = 0;
        for (size_t i = 0; vd && vh && i < arrays[k].count; i++)
            diff += vd[i] != vh[i];
        printf("precision %d: %s (%zu): %ld differ\n", (int)prec, arrays[k].what,
               arrays[k].count, diff);
        CHECK(vd && vh && diff == 0, "%s: %ld entries differ from the host binning",
              arrays[k].what, diff);
        free(vd), free(vh);
    }
    /* brute force: every binned atom lies in its cell */
    int *order = read_ints(ctx, d->order_dev, n), *start = read_ints(ctx, d->cell_start,
                                                                         (size_t)ncells + 1);
    long outside = 0;
    for (int c = 0; order && start && c < ncells; c++) {
        int cc[3] = {c % d->grid[0], c / d->grid[0] % d->grid[1], c / (d->grid[0] * d->grid[1])};
        for (int b = start[c]; b < start[c + 1]; b++)
            for (int k = 0; k < 3; k++) {
                double v = a->x[3 * (size_t)order[b] + (size_t)k];
                double lo = d->grid_lo[k] + cc[k] * d->grid_width[k];
                int below = cc[k] > 0 && v < lo - 1e-9;
                int above = cc[k] < d->grid[k] - 1 && v > lo + d->grid_width[k] + 1e-9;
                outside += below || above;
            }
    }
    CHECK(order && start && start[ncells] == (int)n && outside == 0,
          "%ld coordinates outside their cells (%d atoms binned of %zu)", outside,
          start ? start[ncells] : -1, n);
    free(order), free(start);
    for (int e = 0; e < 2; e++) {
        long mismatches = -1;
        CHECK_OK(ctx, scl_charmm_check_neighbors(eng[e], &mismatches));
        CHECK(mismatches == 0, "%s binning: %ld list entries differ from brute force",
              e ? "host" : "device", mismatches);
    }
    scl_charmm_free(eng[0]), scl_charmm_free(eng[1]);
}

/* The lists are in the scan order (increasing j) whatever the lanes per
 * atom of the build: slot for slot the same with 1, 2, 4 and 8 lanes. */
static void order_independent_of_lanes(scl_context *ctx, const test_atoms *a)
{
    int *ref = NULL, *ref_num = NULL;
    size_t nslots = 0;
    for (int lanes = 1; lanes <= 8; lanes *= 2) {
        scl_charmm_params p = test_params(&a->sys, SCL_PREC_MIXED);
        p.list_lanes = lanes;
        p.chunks = 1;
        p.tune = 0;
        scl_charmm *eng = NULL;
        CHECK_OK(ctx, scl_charmm_create(ctx, &p, &eng));
        if (!eng)
            break;
        CHECK_OK(ctx, scl_charmm_set_atoms(eng, a->nlocal, a->nghost, a->x, a->type, a->tag,
                                           a->sys.nspecial, a->sys.special, a->sys.maxspecial));
        const charmm_nlist *nl = &eng->nlist;
        size_t n = (size_t)nl->nlocal * (size_t)nl->capacity;
        int *num = read_ints(ctx, nl->numnbr, (size_t)nl->nlocal);
        int *slots = read_ints(ctx, nl->chunks[0].nbr, n);
        if (lanes == 1) {
            ref = slots, ref_num = num, nslots = n;
        } else {
            long differ = 0;
            size_t stride = (size_t)nl->nlocal * CHARMM_PAD;
            for (int i = 0; i < nl->nlocal; i++) {
                differ += num[i] != ref_num[i];
                for (int k = 0; k < num[i] && num[i] == ref_num[i]; k++) {
                    size_t at = (size_t)(k / CHARMM_PAD) * stride + (size_t)i * CHARMM_PAD +
                                (size_t)(k % CHARMM_PAD);
                    differ += at < nslots && slots[at] != ref[at];
                }
            }
            printf("list order with %d lanes vs 1: %ld slots differ\n", lanes, differ);
            CHECK(differ == 0, "%d lanes: %ld slots differ from 1 lane's", lanes, differ);
            free(slots), free(num);
        }
        scl_charmm_free(eng);
    }
    free(ref), free(ref_num);
}

int main(void)
{
    uint64_t rng = test_seed();
    scl_context *ctx = test_context();
    if (!scl_device(ctx)->fp64) {
        SKIP("no fp64: binning stays on the host");
        scl_context_free(ctx);
        return test_summary("test_charmm_bins");
    }
    for (int round = 0; round < 2; round++) {
        test_atoms a = {0};
        int nmol = 300 + (int)(400 * test_uniform(&rng)); /* box > 2 x the ghost cutoff */
        CHECK(charmm_water_box(nmol, rng, &a.sys) == 0, "water box");
        CHECK(test_add_ghosts(&a, 12.0) == 0, "ghosts");
        printf("water box: %d local + %d ghost atoms\n", a.nlocal, a.nghost);
        bins_match(ctx, &a, round == 0 ? SCL_PREC_MIXED : SCL_PREC_DOUBLE);
        if (round == 0)
            order_independent_of_lanes(ctx, &a);
        test_atoms_free(&a);
    }
    scl_context_free(ctx);
    return test_summary("test_charmm_bins");
}
