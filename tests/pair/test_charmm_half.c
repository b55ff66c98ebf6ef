/* The "cpu" force kind (cl/charmm_cpu.cl) with half lists and coloured
 * blocks against the same kind with full lists and against the double
 * reference:
 *   - double: half and full lists give bitwise identical forces, energies,
 *     virial and per-atom terms, over steps that move the atoms through
 *     re-pruning (inner skin 0.3 A);
 *   - mixed/single: half vs full within float rounding (bounds below), and
 *     both vs the double reference within the engine's stated bounds;
 *   - the colouring: no two blocks of one colour write the same atom
 *     (checked on the half lists read back: each block's i atoms and local
 *     partners), every local pair stored once, every block in one colour;
 *   - the host colouring alone on random cell layouts (block write sets in
 *     cells disjoint within a colour).
 * With --hash it prints a hash of the double and single forces of a fixed
 * system instead: charmm_half_threads.cmake runs it under 1 and 2 PoCL
 * threads and requires the same hashes. */
#include "charmm_test_util.h"
#include "pair/kinds/charmm_colour.h"
#include "pair/kinds/charmm_cpu.h"
#include "pair/charmm_engine.h"

#define CELL_REACH 2

typedef struct {
    double *f, *e, *v;
    scl_charmm_result r;
} outcome;

static void outcome_free(outcome *o) { free(o->f), free(o->e), free(o->v); }

static scl_charmm_params cpu_params(const test_atoms *a, scl_precision prec, int list)
{
    scl_charmm_params p = test_params(&a->sys, prec);
    p.kernel = "cpu";
    p.lists = list;
    return p;
}

/* Per-tag, per-step displacement in [-scale, scale] (ghosts move with their atoms). */
static double shake(int64_t tag, int step, int dim, double scale)
{
    uint64_t h = (uint64_t)tag * 0x9E3779B97F4A7C15ULL ^
                 (uint64_t)(step + 1) * 0xBF58476D1CE4E5B9ULL ^
                 (uint64_t)(dim + 1) * 0x94D049BB133111EBULL;
    h ^= h >> 31;
    h *= 0xD6E8FEB86CD8B979ULL;
    h ^= h >> 29;
    return scale * (2.0 * (double)(h >> 11) * (1.0 / 9007199254740992.0) - 1.0);
}

/* Every colour's blocks write disjoint atoms; every local pair is stored
 * once; every block is in exactly one colour. */
static void check_colouring(scl_charmm *eng)
{
    int *counts, *rows, *slot_of, cap;
    const charmm_colouring *col;
    scl_status s = charmm_cpu_half_lists(&eng->forces, &eng->nlist, &counts, &rows, &cap,
                                         &slot_of, &col);
    CHECK(s == SCL_OK, "half lists: %s", scl_last_error(eng->ctx));
    if (s != SCL_OK)
        return;
    int nl = eng->nlist.nlocal;
    int *owner = malloc((size_t)nl * sizeof *owner), *seen = calloc((size_t)col->nblocks + 1, sizeof(int));
    long conflicts = 0, twice = 0, local_pairs = 0, bad_blocks = 0;
    for (int c = 0; c < col->ncolours; c++) {
        for (int k = 0; k < nl; k++)
            owner[k] = -1;
        for (int o = col->colour_start[c]; o < col->colour_start[c + 1]; o++) {
            int b = col->order[o];
            bad_blocks += b < 0 || b >= col->nblocks || seen[b]++ || col->block_colour[b] != c;
            if (b < 0 || b >= col->nblocks)
                continue;
            for (int ii = col->block_start[b]; ii < col->block_start[b + 1]; ii++) {
                int writes[1 + 4096], nw = 0;
                writes[nw++] = ii;
                for (int m = 0; m < counts[ii] && nw < 4097; m++) {
                    int j = rows[(size_t)ii * (size_t)cap + (size_t)m] & CHARMM_INDEX_MASK;
                    if (slot_of[j] >= 0)
                        writes[nw++] = slot_of[j];
                }
                for (int w = 0; w < nw; w++) {
                    conflicts += owner[writes[w]] >= 0 && owner[writes[w]] != b;
                    owner[writes[w]] = b;
                }
            }
        }
    }
    for (int b = 0; b < col->nblocks; b++)
        bad_blocks += seen[b] != 1;
    /* a local pair stored in both directions would be counted twice */
    for (int ii = 0; ii < nl; ii++)
        for (int m = 0; m < counts[ii]; m++) {
            int j = rows[(size_t)ii * (size_t)cap + (size_t)m] & CHARMM_INDEX_MASK;
            int jj = slot_of[j];
            if (jj < 0)
                continue;
            local_pairs++;
            for (int k = 0; k < counts[jj]; k++)
                twice += slot_of[rows[(size_t)jj * (size_t)cap + (size_t)k] & CHARMM_INDEX_MASK] ==
                         ii;
        }
    printf("colouring: %d blocks in %d colours, %ld local pairs; conflicts %ld, pairs stored "
           "twice %ld, misplaced blocks %ld\n",
           col->nblocks, col->ncolours, local_pairs, conflicts, twice, bad_blocks);
    CHECK(col->ncolours >= 2 && col->nblocks >= col->ncolours, "%d blocks, %d colours",
          col->nblocks, col->ncolours);
    CHECK(local_pairs > 0 && conflicts == 0 && twice == 0 && bad_blocks == 0,
          "colouring: %ld conflicts, %ld pairs twice, %ld misplaced blocks", conflicts, twice,
          bad_blocks);
    free(owner), free(seen), free(counts), free(rows), free(slot_of);
}

/* Steps over moving atoms with half and full lists side by side. */
static void half_vs_full(scl_context *ctx, const test_atoms *a, scl_precision prec,
                         double bound, outcome *half_out)
{
    static const char *names[] = {"single", "mixed", "double"};
    size_t n = (size_t)a->nlocal, nall = (size_t)(a->nlocal + a->nghost);
    double *x = malloc(3 * nall * sizeof *x);
    outcome o[2];
    scl_charmm *eng[2] = {NULL, NULL};
    memcpy(x, a->x, 3 * nall * sizeof *x);
    for (int e = 0; e < 2; e++) {
        o[e].f = malloc(3 * n * sizeof *o[e].f);
        o[e].e = malloc(n * sizeof *o[e].e);
        o[e].v = malloc(6 * n * sizeof *o[e].v);
        scl_charmm_params p = cpu_params(a, prec, e == 0 ? CHARMM_CPU_HALF : CHARMM_CPU_FULL);
        p.inner_skin = 0.3; /* re-pruned every few of the steps below */
        CHECK_OK(ctx, scl_charmm_create(ctx, &p, &eng[e]));
        CHECK_OK(ctx, scl_charmm_set_atoms(eng[e], a->nlocal, a->nghost, x, a->type, a->tag,
                                           a->sys.nspecial, a->sys.special, a->sys.maxspecial));
    }
    int identical = 1;
    double worst = 0, worst_e = 0;
    const int steps = 6;
    for (int step = 0; step < steps && eng[0] && eng[1]; step++) {
        if (step > 0)
            for (size_t i = 0; i < nall; i++)
                for (int d = 0; d < 3; d++)
                    x[3 * i + (size_t)d] += shake(a->tag[i], step, d, 0.05);
        int tally = step == 0 || step == steps - 1;
        for (int e = 0; e < 2; e++) {
            memset(o[e].f, 0, 3 * n * sizeof *o[e].f);
            memset(o[e].e, 0, n * sizeof *o[e].e);
            memset(o[e].v, 0, 6 * n * sizeof *o[e].v);
            memset(&o[e].r, 0, sizeof o[e].r);
            CHECK_OK(ctx, scl_charmm_compute(eng[e], x, a->q, tally, tally, tally, tally));
            CHECK_OK(ctx, scl_charmm_finish(eng[e], o[e].f, &o[e].r, o[e].e, o[e].v));
        }
        int lists[2];
        for (int e = 0; e < 2; e++) {
            int launches, colours, blocks;
            charmm_cpu_describe(&eng[e]->forces, &lists[e], &launches, &colours, &blocks);
        }
        CHECK(lists[0] == CHARMM_CPU_HALF && lists[1] == CHARMM_CPU_FULL,
              "the engines ran lists %d and %d, not half and full", lists[0], lists[1]);
        identical &= !memcmp(o[0].f, o[1].f, 3 * n * sizeof *o[0].f);
        if (tally)
            identical &= !memcmp(&o[0].r, &o[1].r, sizeof o[0].r) &&
                         !memcmp(o[0].e, o[1].e, n * sizeof *o[0].e) &&
                         !memcmp(o[0].v, o[1].v, 6 * n * sizeof *o[0].v);
        worst = test_max(worst, rms_relative(o[0].f, o[1].f, 3 * n));
        if (tally) {
            double esum = fabs(o[1].r.evdwl) + fabs(o[1].r.ecoul);
            worst_e = test_max(worst_e, fabs(o[0].r.ecoul - o[1].r.ecoul) / esum);
            worst_e = test_max(worst_e, fabs(o[0].r.evdwl - o[1].r.evdwl) / esum);
        }
        if (step == 0 && prec == SCL_PREC_DOUBLE)
            check_colouring(eng[0]);
    }
    scl_charmm_stats st;
    CHECK_OK(ctx, scl_charmm_stats_get(eng[0], &st));
    printf("%s half vs full lists over %d moving steps (%ld prunes): %s; forces differ by "
           "%.2e, energies by %.2e\n",
           names[prec], steps, st.prunes, identical ? "identical" : "not identical", worst,
           worst_e);
    CHECK(st.prunes >= 2, "%s: the steps did not re-prune (%ld prunes)", names[prec], st.prunes);
    if (prec == SCL_PREC_DOUBLE)
        CHECK(identical, "double: half lists change the bits (forces differ by %g)", worst);
    else
        CHECK(within(worst, bound) && within(worst_e, 5 * bound),
              "%s: half lists change forces by %g, energies by %g (bounds %g, %g)", names[prec],
              worst, worst_e, bound, 5 * bound);
    *half_out = o[0];
    outcome_free(&o[1]);
    scl_charmm_free(eng[0]);
    scl_charmm_free(eng[1]);
    test_atoms moved = *a;
    moved.x = x;
    outcome ref = {malloc(3 * n * sizeof *ref.f), malloc(n * sizeof *ref.e),
                   malloc(6 * n * sizeof *ref.v), {0, 0, {0}}};
    scl_charmm_params pref = cpu_params(a, prec, 0);
    if (test_reference(&pref, &moved, ref.f, &ref.r, ref.e, ref.v) == SCL_OK) {
        /* the engine's stated accuracy (include/streamcl/charmm.h), with room; double
         * energies carry a 2^-32 rounding per pair (fixed-point sums) */
        double fbound = prec == SCL_PREC_DOUBLE ? 1e-9 : 2e-6;
        /* single sums energies in float per block lane (hundreds of atoms'
         * pairs): 1e-5 of |E_vdwl| + |E_coul| (which cancel; the engine states
         * ~1e-8 of the sum of |pair energies|) */
        double ebound = prec == SCL_PREC_DOUBLE ? 1e-10 : prec == SCL_PREC_MIXED ? 1e-6 : 1e-5;
        double esum = fabs(ref.r.evdwl) + fabs(ref.r.ecoul);
        double ferr = rms_relative(half_out->f, ref.f, 3 * n);
        double eerr = test_max(fabs(half_out->r.ecoul - ref.r.ecoul), fabs(half_out->r.evdwl - ref.r.evdwl)) / esum;
        double verr = 0, vnorm = 0;
        for (int k = 0; k < 6; k++) {
            verr = test_max(verr, fabs(half_out->r.virial[k] - ref.r.virial[k]));
            vnorm = test_max(vnorm, fabs(ref.r.virial[k]));
        }
        verr /= vnorm;
        double aerr = rms_relative(half_out->e, ref.e, n);
        printf("%s half lists vs the double reference: forces %.2e, energies %.2e, virial %.2e, "
               "per-atom energy %.2e\n",
               names[prec], ferr, eerr, verr, aerr);
        CHECK(within(ferr, fbound) && within(eerr, ebound) && within(verr, 10 * ebound) &&
                  within(aerr, 100 * ebound),
              "%s vs reference: forces %g, energies %g, virial %g, per-atom %g", names[prec],
              ferr, eerr, verr, aerr);
    }
    outcome_free(&ref);
    free(x);
}

/* The host colouring on random layouts: write sets in cells disjoint per colour. */
static void colouring_alone(uint64_t *rng)
{
    for (int trial = 0; trial < 4; trial++) {
        int grid[3] = {3 + (int)(12 * test_uniform(rng)), 3 + (int)(12 * test_uniform(rng)),
                       1 + (int)(12 * test_uniform(rng))};
        int ncells = grid[0] * grid[1] * grid[2];
        int nlocal = 1 + (int)(4000 * test_uniform(rng));
        int *icell = malloc((size_t)nlocal * sizeof *icell);
        for (int i = 0; i < nlocal; i++)
            icell[i] = (int)(ncells * test_uniform(rng));
        for (int i = 1; i < nlocal; i++) /* binned order: sorted cells */
            for (int k = i; k > 0 && icell[k - 1] > icell[k]; k--) {
                int t = icell[k];
                icell[k] = icell[k - 1], icell[k - 1] = t;
            }
        int block = 1 + (int)(100 * test_uniform(rng));
        charmm_colouring c;
        int rc = charmm_colour_blocks(&c, nlocal, icell, grid, CELL_REACH, block);
        CHECK(rc == 0 || rc == -2, "colouring returned %d", rc);
        if (rc != 0) {
            free(icell);
            continue;
        }
        int *owner = malloc((size_t)ncells * sizeof *owner);
        long conflicts = 0, covered = 0;
        for (int col = 0; col < c.ncolours; col++) {
            for (int k = 0; k < ncells; k++)
                owner[k] = -1;
            for (int o = c.colour_start[col]; o < c.colour_start[col + 1]; o++) {
                int b = c.order[o];
                covered += c.block_start[b + 1] - c.block_start[b];
                for (int ii = c.block_start[b]; ii < c.block_start[b + 1]; ii++) {
                    int cx = icell[ii] % grid[0], cy = icell[ii] / grid[0] % grid[1],
                        cz = icell[ii] / (grid[0] * grid[1]);
                    for (int z = cz; z <= cz + CELL_REACH && z < grid[2]; z++)
                        for (int y = cy - CELL_REACH; y <= cy + CELL_REACH; y++)
                            for (int x = cx - CELL_REACH; x <= cx + CELL_REACH; x++) {
                                if (y < 0 || y >= grid[1] || x < 0 || x >= grid[0])
                                    continue;
                                int w = (z * grid[1] + y) * grid[0] + x;
                                conflicts += owner[w] >= 0 && owner[w] != b;
                                owner[w] = b;
                            }
                }
            }
        }
        printf("colouring alone: grid %dx%dx%d, %d atoms, blocks of %d: %d blocks, %d colours, "
               "%ld conflicts\n",
               grid[0], grid[1], grid[2], nlocal, block, c.nblocks, c.ncolours, conflicts);
        CHECK(conflicts == 0 && covered == nlocal, "%ld conflicts, %ld of %d atoms covered",
              conflicts, covered, nlocal);
        free(owner);
        free(icell);
        charmm_colouring_free(&c);
    }
}

/* FNV-1a of the forces of a fixed system: the same on any thread count. */
static int print_hashes(scl_context *ctx)
{
    test_atoms a = {0};
    if (charmm_water_box(400, 12345, &a.sys) != 0 || test_add_ghosts(&a, 12.0) != 0)
        return 1;
    size_t n = (size_t)a.nlocal;
    double *f = malloc(3 * n * sizeof *f);
    for (int prec = SCL_PREC_SINGLE; prec <= SCL_PREC_DOUBLE; prec += 2) {
        scl_charmm_params p = cpu_params(&a, (scl_precision)prec, CHARMM_CPU_HALF);
        scl_charmm_result r;
        if (test_engine_step(ctx, &p, &a, f, &r, NULL, NULL, NULL) != SCL_OK) {
            fprintf(stderr, "%s\n", scl_last_error(ctx));
            return 1;
        }
        uint64_t h = 1469598103934665603ULL;
        const unsigned char *bytes = (const unsigned char *)f;
        for (size_t k = 0; k < 3 * n * sizeof *f; k++)
            h = (h ^ bytes[k]) * 1099511628211ULL;
        const unsigned char *rb = (const unsigned char *)&r;
        for (size_t k = 0; k < sizeof r; k++)
            h = (h ^ rb[k]) * 1099511628211ULL;
        printf("hash %s %016llx\n", prec == SCL_PREC_DOUBLE ? "double" : "single",
               (unsigned long long)h);
    }
    free(f);
    test_atoms_free(&a);
    return 0;
}

int main(int argc, char **argv)
{
    scl_context *ctx = test_context();
    if (argc > 1 && !strcmp(argv[1], "--hash")) {
        int rc = print_hashes(ctx);
        scl_context_free(ctx);
        return rc;
    }
    uint64_t rng = test_seed();
    colouring_alone(&rng);
    test_atoms a = {0};
    int nmol = 500 + (int)(300 * test_uniform(&rng));
    CHECK(charmm_water_box(nmol, rng, &a.sys) == 0, "water box");
    CHECK(test_add_ghosts(&a, 12.0) == 0, "ghosts");
    /* single sums in float: half lists add in another order (forces ~5e-7,
     * energies up to ~1e-6 of |E_vdwl| + |E_coul|, which cancel) */
    const double bound[3] = {2e-6, 1e-12, 0};
    for (int prec = SCL_PREC_DOUBLE; prec >= SCL_PREC_SINGLE; prec--) {
        outcome half = {0};
        half_vs_full(ctx, &a, (scl_precision)prec, bound[prec], &half);
        outcome_free(&half);
    }
    test_atoms_free(&a);
    scl_context_free(ctx);
    return test_summary("test_charmm_half");
}
