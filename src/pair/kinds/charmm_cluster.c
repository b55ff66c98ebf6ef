/* The "cluster" kind of force kernels (charmm_cluster.h): cluster-pair lists
 * rebuilt on the device whenever the neighbor list object has a new atom set,
 * then one force launch over all i-clusters. */
#include "pair/kinds/charmm_cluster.h"
#include "pair/kinds/charmm_kinds.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CLUSTER 8
/* i-clusters past the last one, filled as empty, so that a launch rounded
 * up to whole work-groups (<= 256 work-items, >= 8 per cluster) reads only
 * padding */
#define SLACK 64

static const char *const fn = "scl_charmm_compute";

/* Columns of the x-y grid over the neighbor list's cell grid, relative to
 * the packing origin, about as wide as a cluster of 8 atoms is tall. */
typedef struct {
    int ncx, ncy;
    double lo[2], width[2];
} column_grid;

/* One set of clusters (the local atoms, or all atoms). */
typedef struct {
    scl_stream *col_of, *rank, *count, *col_start, *col_cluster, *entries, *atom, *lo, *hi;
    int bound; /* clusters it may have: n / 8 + columns + 1 */
} cluster_set;

struct charmm_cluster {
    scl_kernel *force[4][2][2]; /* [log2 tpa][tally][fsum > 1] */
    scl_kernel *columns, *scan, *scatter, *sort, *bounds, *pairs, *prune;
    cluster_set set[2]; /* [0] i-clusters (local atoms), [1] j-clusters (all) */
    scl_stream *cj, *cmask, *nj, *sp_list, *sp_count, *overflow;
    scl_stream *cj_in, *cmask_in, *nj_in; /* the pruned (inner) lists */
    int capacity, sp_capacity;
    int pruned; /* the inner lists hold for the lists of this build */
    long built_rebuilds; /* nl->rebuilds of the lists held; -1: none */
    long entries;        /* cluster pairs of the last build (stats, read on demand: -1) */
    long launches_inner, launches_full; /* force launches on the inner / unpruned lists */
};

void charmm_cluster_free(charmm_cluster *cl)
{
    if (!cl)
        return;
    for (int t = 0; t < 4; t++)
        for (int v = 0; v < 2; v++)
            for (int f = 0; f < 2; f++)
                scl_kernel_free(cl->force[t][v][f]);
    scl_kernel *kernels[] = {cl->columns, cl->scan,   cl->scatter, cl->sort,
                             cl->bounds,  cl->pairs, cl->prune};
    scl_kernels_free(kernels, sizeof kernels / sizeof kernels[0]);
    for (int s = 0; s < 2; s++) {
        cluster_set *cs = &cl->set[s];
        scl_stream *all[] = {cs->col_of,  cs->rank,    cs->count, cs->col_start, cs->col_cluster,
                             cs->entries, cs->atom,    cs->lo,    cs->hi};
        scl_streams_free(all, sizeof all / sizeof all[0]);
    }
    scl_stream *pairs[] = {cl->cj,      cl->cmask,    cl->nj,    cl->cj_in,   cl->cmask_in,
                           cl->nj_in,   cl->sp_list,  cl->sp_count, cl->overflow};
    scl_streams_free(pairs, sizeof pairs / sizeof pairs[0]);
    free(cl);
}

static void columns_of(const charmm_nlist *nl, column_grid *g)
{
    double ext[3], vol = 1.0;
    for (int d = 0; d < 3; d++) {
        ext[d] = nl->grid_width[d] * nl->grid[d];
        vol *= ext[d] > 1e-3 ? ext[d] : 1e-3;
    }
    /* a cube holding 8 atoms at the mean density */
    double side = nl->natoms > 0 ? cbrt(8.0 * vol / nl->natoms) : ext[0];
    for (int d = 0; d < 2; d++) {
        double f = side > 0.0 ? ext[d] / side : 1.0;
        int n = f >= 4096.0 ? 4096 : f >= 1.0 ? (int)f : 1;
        g->lo[d] = nl->grid_lo[d] - nl->origin[d];
        g->width[d] = ext[d] > 0.0 ? ext[d] / n : 1.0;
        if (d == 0)
            g->ncx = n;
        else
            g->ncy = n;
    }
}

static int bound_of(int n, const column_grid *g) { return n / CLUSTER + g->ncx * g->ncy + 1; }

static int tpa_index(int tpa) { return tpa == 1 ? 0 : tpa == 2 ? 1 : tpa == 4 ? 2 : 3; }


static scl_status force_kernel(charmm_forces *fk, int tpa, int tally, int fsum, scl_kernel **out)
{
    scl_kernel **k = &fk->cluster->force[tpa_index(tpa)][tally][fsum > 1];
    const charmm_kernel_shape shape = {tpa, tally, fsum, 0, 0};
    scl_status s = charmm_forces_kernel(
        fk, "charmm_cluster_force", "charmm_cluster_force", &shape,
        tally ? "charmm force+energy (cluster)" : "charmm force (cluster)", k);
    *out = *k;
    return s;
}

static scl_status build_kernels(charmm_forces *fk)
{
    charmm_cluster *cl = fk->cluster;
    if (cl->prune)
        return SCL_OK;
    char opts[64];
    snprintf(opts, sizeof opts, "-DSCL_POS_DOUBLE=%d",
             fk->params->precision == SCL_PREC_DOUBLE);
    struct {
        const char *file, *name, *opts;
        scl_kernel **k;
    } all[] = {{"charmm_bin", "bin_scan", NULL, &cl->scan},
               {"charmm_bin", "bin_scatter", NULL, &cl->scatter},
               {"charmm_cluster", "cluster_columns", opts, &cl->columns},
               {"charmm_cluster", "cluster_sort", opts, &cl->sort},
               {"charmm_cluster", "cluster_bounds", opts, &cl->bounds},
               {"charmm_cluster", "cluster_pairs", opts, &cl->pairs},
               {"charmm_cluster", "cluster_prune", opts, &cl->prune}};
    scl_status s = SCL_OK;
    for (size_t k = 0; k < sizeof all / sizeof all[0] && s == SCL_OK; k++) {
        s = scl_kernel_create(fk->ctx, all[k].file, all[k].name, all[k].opts, all[k].k);
        if (s == SCL_OK)
            scl_kernel_set_label(*all[k].k, all[k].k == &cl->prune ? "charmm cluster prune"
                                                                     : "charmm cluster build");
    }
    return s;
}

static scl_status launch_1d(scl_kernel *k, size_t n)
{
    size_t local = 64;
    if (local > scl_kernel_max_work_group(k))
        local = scl_kernel_max_work_group(k);
    size_t global = (n + local - 1) / local * local;
    return scl_kernel_launch(k, 1, &global, &local, NULL);
}

static scl_status set_float4(scl_kernel *k, const char *name, double a, double b)
{
    float v[4] = {(float)a, (float)b, 0.0f, 0.0f};
    return scl_kernel_set_value(k, name, SCL_FLOAT4, v);
}

/* Clusters of the local atoms (local 1) or of all atoms, sorted by column and z. */
static scl_status build_set(charmm_forces *fk, charmm_nlist *nl, int local, const column_grid *g)
{
    charmm_cluster *cl = fk->cluster;
    cluster_set *cs = &cl->set[local ? 0 : 1];
    scl_context *ctx = fk->ctx;
    int n = local ? nl->nlocal : nl->natoms, ncols = g->ncx * g->ncy;
    cs->bound = bound_of(n, g);
    size_t nc = (size_t)cs->bound + SLACK, nn = (size_t)(n > 0 ? n : 1);
    struct {
        scl_stream **s;
        const char *label;
        scl_type type;
        size_t count;
    } streams[] = {{&cs->col_of, "charmm cluster columns", SCL_INT, nn},
                   {&cs->rank, "charmm cluster ranks", SCL_INT, nn},
                   {&cs->count, "charmm cluster column counts", SCL_INT, (size_t)ncols},
                   {&cs->col_start, "charmm cluster column starts", SCL_INT, (size_t)ncols + 1},
                   {&cs->col_cluster, "charmm cluster column clusters", SCL_INT, (size_t)ncols + 1},
                   {&cs->entries, "charmm cluster column entries", SCL_INT, nn},
                   {&cs->atom, "charmm cluster atoms", SCL_INT, CLUSTER * nc},
                   {&cs->lo, "charmm cluster boxes", SCL_FLOAT4, nc},
                   {&cs->hi, "charmm cluster boxes", SCL_FLOAT4, nc}};
    scl_status s = SCL_OK;
    for (size_t k = 0; k < sizeof streams / sizeof streams[0] && s == SCL_OK; k++)
        s = charmm_stream_reserve(ctx, streams[k].s, streams[k].label, streams[k].type,
                                  streams[k].count, 0);
    int zero = 0, none = -1;
    if (s == SCL_OK)
        s = scl_stream_fill_range(cs->count, 0, (size_t)ncols, &zero, NULL);
    if (s == SCL_OK)
        s = scl_stream_fill_range(cs->atom, 0, CLUSTER * nc, &none, NULL);
    float unit = (float)nl->unit;
    const scl_arg_stream col_streams[] = {{"pos", nl->pos_build}, {"map", nl->ilist_dev},
                                             {"col_of", cs->col_of},  {"rank", cs->rank},
                                             {"count", cs->count}};
    const scl_arg_int col_ints[] = {
        {"use_map", local}, {"n", n}, {"ncx", g->ncx}, {"ncy", g->ncy}};
    if (s == SCL_OK)
        s = scl_kernel_bind(cl->columns, col_streams, 5, col_ints, 4);
    if (s == SCL_OK)
        s = scl_kernel_set_float(cl->columns, "unit", unit);
    if (s == SCL_OK)
        s = set_float4(cl->columns, "grid_lo", g->lo[0], g->lo[1]);
    if (s == SCL_OK)
        s = set_float4(cl->columns, "inv_width", 1.0 / g->width[0], 1.0 / g->width[1]);
    if (s == SCL_OK)
        s = launch_1d(cl->columns, nn);
    /* column starts and cluster starts */
    const scl_arg_stream scan_streams[] = {{"count", cs->count},
                                              {"local_count", cs->count},
                                              {"cell_start", cs->col_start},
                                              {"local_start", cs->col_cluster}};
    const scl_arg_int scan_ints[] = {{"ncells", ncols}, {"cluster_size", CLUSTER}};
    size_t swg = 256;
    if (swg > scl_kernel_max_work_group(cl->scan))
        swg = scl_kernel_max_work_group(cl->scan);
    if (s == SCL_OK)
        s = scl_kernel_bind(cl->scan, scan_streams, 4, scan_ints, 2);
    if (s == SCL_OK)
        s = scl_kernel_set_local(cl->scan, "sa", swg * sizeof(int));
    if (s == SCL_OK)
        s = scl_kernel_set_local(cl->scan, "sb", swg * sizeof(int));
    if (s == SCL_OK)
        s = scl_kernel_launch(cl->scan, 1, &swg, &swg, NULL);
    /* entries by column (arrival order), then z order within the column */
    const scl_arg_stream sc_streams[] = {{"cell_of", cs->col_of},
                                            {"rank", cs->rank},
                                            {"cell_start", cs->col_start},
                                            {"order", cs->entries}};
    const scl_arg_int sc_ints[] = {{"n", n}};
    if (s == SCL_OK)
        s = scl_kernel_bind(cl->scatter, sc_streams, 4, sc_ints, 1);
    if (s == SCL_OK)
        s = launch_1d(cl->scatter, nn);
    const scl_arg_stream so_streams[] = {{"pos", nl->pos_build},       {"map", nl->ilist_dev},
                                            {"col_of", cs->col_of},       {"col_start", cs->col_start},
                                            {"col_cluster", cs->col_cluster},
                                            {"col_entries", cs->entries}, {"cl_atom", cs->atom}};
    const scl_arg_int so_ints[] = {{"use_map", local}, {"n", n}};
    if (s == SCL_OK)
        s = scl_kernel_bind(cl->sort, so_streams, 7, so_ints, 2);
    if (s == SCL_OK)
        s = scl_kernel_set_float(cl->sort, "unit", unit);
    if (s == SCL_OK)
        s = launch_1d(cl->sort, nn);
    const scl_arg_stream b_streams[] = {{"pos", nl->pos_build}, {"map", nl->ilist_dev},
                                           {"cl_atom", cs->atom},  {"cl_lo", cs->lo},
                                           {"cl_hi", cs->hi}};
    const scl_arg_int b_ints[] = {{"use_map", local}, {"nclusters", (int)nc}};
    if (s == SCL_OK)
        s = scl_kernel_bind(cl->bounds, b_streams, 5, b_ints, 2);
    if (s == SCL_OK)
        s = scl_kernel_set_float(cl->bounds, "unit", unit);
    if (s == SCL_OK)
        s = launch_1d(cl->bounds, nc);
    return s;
}

/* j-clusters in reach of one i-cluster, from the cluster volume: the box of
 * two cluster edges grown by the cutoff (Steiner's formula), 20% spare. */
static int estimate_capacity(const charmm_nlist *nl, const column_grid *g)
{
    double side = sqrt(g->width[0] * g->width[1]), a = 2.0 * side, r = nl->coeffs->cut_neigh;
    double v = a * a * a + 6.0 * a * a * r + 3.0 * 3.14159265358979 * a * r * r + 4.0 / 3.0 * 3.14159265358979 * r * r * r;
    double n = 1.2 * v / (side * side * side) + 16.0;
    return n > 1e6 ? 1000000 : n > 64.0 ? (int)n : 64;
}

static scl_status build_pairs(charmm_forces *fk, charmm_nlist *nl, const column_grid *g)
{
    charmm_cluster *cl = fk->cluster;
    scl_context *ctx = fk->ctx;
    const cluster_set *ci = &cl->set[0], *cjs = &cl->set[1];
    size_t nic = (size_t)ci->bound;
    /* one image of each partner passes the half-box test; without a box
     * (scl_charmm_set_box) every image in reach counts: regrown below */
    if (cl->sp_capacity < nl->maxspecial)
        cl->sp_capacity = nl->maxspecial;
    if (cl->sp_capacity < 1)
        cl->sp_capacity = 1;
    int est = estimate_capacity(nl, g);
    if (cl->capacity < est)
        cl->capacity = est;
    scl_status s = SCL_OK;
    for (int attempt = 0; attempt < 3; attempt++) {
        size_t cap = (size_t)cl->capacity;
        s = charmm_stream_reserve(ctx, &cl->cj, "charmm cluster pairs", SCL_INT, nic * cap, 0);
        if (s == SCL_OK)
            s = charmm_stream_reserve(ctx, &cl->cmask, "charmm cluster pair masks", SCL_INT2,
                                      nic * cap, 0);
        if (s == SCL_OK)
            s = charmm_stream_reserve(ctx, &cl->cj_in, "charmm cluster pairs (inner)", SCL_INT,
                                      nic * cap, 0);
        if (s == SCL_OK)
            s = charmm_stream_reserve(ctx, &cl->cmask_in, "charmm cluster pair masks (inner)",
                                      SCL_INT2, nic * cap, 0);
        if (s == SCL_OK)
            s = charmm_stream_reserve(ctx, &cl->nj_in, "charmm cluster pair counts (inner)",
                                      SCL_INT, nic, 0);
        if (s == SCL_OK)
            s = charmm_stream_reserve(ctx, &cl->nj, "charmm cluster pair counts", SCL_INT, nic, 0);
        if (s == SCL_OK)
            s = charmm_stream_reserve(ctx, &cl->sp_list, "charmm cluster special pairs", SCL_INT,
                                      CLUSTER * nic * (size_t)cl->sp_capacity, 0);
        if (s == SCL_OK)
            s = charmm_stream_reserve(ctx, &cl->sp_count, "charmm cluster special counts",
                                      SCL_INT, CLUSTER * nic, 0);
        if (s == SCL_OK)
            s = charmm_stream_reserve(ctx, &cl->overflow, "charmm cluster overflow", SCL_INT, 2,
                                      0);
        int zero = 0;
        if (s == SCL_OK)
            s = scl_stream_fill_range(cl->overflow, 0, 2, &zero, NULL);
        scl_kernel *k = cl->pairs;
        const scl_arg_stream streams[] = {
            {"pos", nl->pos_build},     {"ilist", nl->ilist_dev},   {"order", nl->order_dev},
            {"tag", nl->tag},           {"nspecial", nl->nspecial}, {"special", nl->special},
            {"cl_atom_i", ci->atom},    {"cl_lo_i", ci->lo},        {"cl_hi_i", ci->hi},
            {"cl_atom_j", cjs->atom},   {"cl_lo_j", cjs->lo},       {"cl_hi_j", cjs->hi},
            {"col_cluster", cjs->col_cluster}, {"cj", cl->cj},      {"cmask", cl->cmask},
            {"nj", cl->nj},             {"sp_list", cl->sp_list},   {"sp_count", cl->sp_count},
            {"overflow", cl->overflow}};
        const scl_arg_int ints[] = {{"maxspecial", nl->maxspecial}, {"ncx", g->ncx},
                                       {"ncy", g->ncy},                {"capacity", cl->capacity},
                                       {"sp_capacity", cl->sp_capacity}};
        if (s == SCL_OK)
            s = scl_kernel_bind(k, streams, sizeof streams / sizeof streams[0], ints,
                            sizeof ints / sizeof ints[0]);
        if (s == SCL_OK)
            s = set_float4(k, "grid_lo", g->lo[0], g->lo[1]);
        if (s == SCL_OK)
            s = set_float4(k, "inv_width", 1.0 / g->width[0], 1.0 / g->width[1]);
        if (s == SCL_OK)
            s = scl_kernel_set_float(k, "cut", (float)nl->coeffs->cut_neigh);
        if (s == SCL_OK)
            s = scl_kernel_set_float(k, "unit", (float)nl->unit);
        float half[4] = {1e30f, 1e30f, 1e30f, 0.0f}; /* not periodic: no limit */
        for (int d = 0; d < 3; d++)
            if (nl->half_box[d] > 0.0)
                half[d] = (float)nl->half_box[d];
        if (s == SCL_OK)
            s = scl_kernel_set_value(k, "half_box", SCL_FLOAT4, half);
        size_t local = CLUSTER * CLUSTER, global = nic * local;
        if (s == SCL_OK)
            s = scl_kernel_launch(k, 1, &global, &local, NULL);
        int over[2] = {0, 0};
        if (s == SCL_OK)
            s = scl_stream_read_range(cl->overflow, 0, 2, over, 1, NULL);
        if (s != SCL_OK)
            return s;
        if (over[0] <= cl->capacity && over[1] <= cl->sp_capacity)
            return SCL_OK;
        /* regrow with headroom and rebuild: never truncate */
        long grown = (long)over[0] + over[0] / 8 + 16;
        if (grown > (1L << 24) || over[1] > (1 << 16))
            return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn,
                            "a cluster has %d cluster pairs, an atom %d special pairs", over[0],
                            over[1]);
        if (over[0] > cl->capacity)
            cl->capacity = (int)grown;
        if (over[1] > cl->sp_capacity)
            cl->sp_capacity = over[1] + 2;
    }
    return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn, "cluster-pair lists still overflow after regrowing");
}

/* The cluster-pair lists of the neighbor list's current atom set. */
static scl_status lists_ready(charmm_forces *fk, charmm_nlist *nl)
{
    charmm_cluster *cl = fk->cluster;
    if (cl->built_rebuilds == nl->rebuilds)
        return SCL_OK;
    scl_status s = build_kernels(fk);
    column_grid g;
    columns_of(nl, &g);
    if (s == SCL_OK)
        s = build_set(fk, nl, 1, &g);
    if (s == SCL_OK)
        s = build_set(fk, nl, 0, &g);
    if (s == SCL_OK)
        s = build_pairs(fk, nl, &g);
    if (s == SCL_OK) {
        cl->built_rebuilds = nl->rebuilds;
        cl->entries = -1;
        cl->pruned = 0;
    }
    return s;
}

static int cluster_candidates(const charmm_forces *fk, scl_tune_param *params)
{
    const scl_device_info *dev = scl_device(fk->ctx);
    const char *want = fk->params->kernel;
    /* the column scan and scatter are src/pair/list/charmm_bin.cl's (fp64); on CPU
     * cores only when asked for by name (the "cpu" kind is shaped for them) */
    if (!dev->fp64 || (!dev->is_gpu && !(want && !strcmp(want, "cluster"))))
        return 0;
    /* tpa 4: a warp takes 8 i atoms x 4 j atoms (the 8 x 4 blocks of the
     * prediction in bench/RESULTS.md); 8: 4 x 8; fewer lanes leave a 32k
     * system too few warps for an H200 (4086 i-clusters) */
    params[0] = dev->is_gpu ? (scl_tune_param){"tpa", 2, {4, 8}}
                            : (scl_tune_param){"tpa", 2, {1, 2}};
    params[1] = dev->is_gpu ? (scl_tune_param){"wg", 3, {128, 64, 256}}
                            : (scl_tune_param){"wg", 2, {64, 128}};
    if (!charmm_forces_has_fsum(fk))
        return 2;
    params[2] = dev->is_gpu ? (scl_tune_param){"fsum", 2, {8, 1}}
                            : (scl_tune_param){"fsum", 2, {1, 8}};
    return 3;
}

static scl_status cluster_prepare(charmm_forces *fk, const int *values)
{
    int tpa = values[0], wg = values[1], fsum = charmm_forces_has_fsum(fk) ? values[2] : 1;
    if (fsum != 1 && fsum != 8)
        return scl_fail(fk->ctx, SCL_ERR_ARGUMENT, fn, "fsum %d (plan or forced) is not 1 or 8",
                        fsum);
    /* unsupported, not wrong: values forced for the engine (tpa 16, wg 32)
     * may suit the other kinds, and the planner then skips this one */
    if (tpa != 1 && tpa != 2 && tpa != 4 && tpa != 8)
        return scl_fail(fk->ctx, SCL_ERR_UNSUPPORTED, fn,
                        "lanes per atom %d (plan or forced) is not 1, 2, 4 or 8 for the cluster "
                        "kernel", tpa);
    if (wg < CLUSTER * tpa || wg > 256 || (wg & (wg - 1)))
        return scl_fail(fk->ctx, SCL_ERR_UNSUPPORTED, fn,
                        "work-group %d must be a power of two in %d..256 (8 x lanes per atom)",
                        wg, CLUSTER * tpa);
    if (!fk->cluster) {
        fk->cluster = calloc(1, sizeof *fk->cluster);
        if (!fk->cluster)
            return scl_fail(fk->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
        fk->cluster->built_rebuilds = -1;
    }
    for (int tally = 0; tally < 2; tally++) {
        scl_kernel *k;
        scl_status s = force_kernel(fk, tpa, tally, fsum, &k);
        if (s == SCL_OK)
            s = charmm_forces_check_scratch(fk, k, wg);
        if (s != SCL_OK)
            return s;
    }
    scl_status s = build_kernels(fk);
    if (s != SCL_OK)
        return s;
    fk->tpa = tpa;
    fk->wg = wg;
    fk->fsum = fsum;
    return SCL_OK;
}

static size_t launch_size(const charmm_forces *fk, const charmm_nlist *nl)
{
    column_grid g;
    columns_of(nl, &g);
    size_t wg = (size_t)fk->wg, n = (size_t)bound_of(nl->nlocal, &g) * CLUSTER * (size_t)fk->tpa;
    return (n + wg - 1) / wg * wg;
}

static int cluster_groups(const charmm_forces *fk, const charmm_nlist *nl)
{
    return (int)(launch_size(fk, nl) / (size_t)fk->wg);
}

static scl_status cluster_enqueue(charmm_forces *fk, charmm_nlist *nl, const charmm_step_io *io,
                                  scl_event *events)
{
    charmm_cluster *cl = fk->cluster;
    scl_status s = lists_ready(fk, nl);
    scl_kernel *k;
    if (s == SCL_OK)
        s = force_kernel(fk, fk->tpa, io->tally, fk->fsum, &k);
    if (s != SCL_OK)
        return s;
    int dbl = charmm_forces_pair_double(fk, io->tally);
    const scl_arg_stream streams[] = {
        {"pos", io->pos},           {"pos_lo", io->pos_lo},     {"type", nl->type},
        {"ilist", nl->ilist_dev},   {"order", nl->order_dev},   {"cl_atom_i", cl->set[0].atom},
        {"cl_atom_j", cl->set[1].atom},
        {"nj", cl->pruned ? cl->nj_in : cl->nj},
        {"cj", cl->pruned ? cl->cj_in : cl->cj},
        {"cmask", cl->pruned ? cl->cmask_in : cl->cmask},
        {"sp_list", cl->sp_list},   {"sp_count", cl->sp_count},
        {"ljc", dbl ? fk->ljc_double : fk->ljc},                {"force", io->force},
        {"partials", io->partials}, {"eatom", io->per_atom ? io->eatom : io->force},
        {"vatom", io->per_atom ? io->vatom : io->force},        {"error", io->error}};
    const scl_arg_int ints[] = {{"capacity", cl->capacity},
                                   {"sp_capacity", cl->sp_capacity},
                                   {"per_atom", io->per_atom}};
    s = scl_kernel_bind(k, streams, sizeof streams / sizeof streams[0], ints,
                    sizeof ints / sizeof ints[0]);
    if (s == SCL_OK)
        s = charmm_forces_bind_pair_math(fk, nl, k, dbl);
    size_t wg = (size_t)fk->wg, global = launch_size(fk, nl);
    if (s == SCL_OK)
        s = scl_kernel_set_local(k, "scratch", charmm_forces_scratch_bytes(fk, wg));
    if (events)
        events[0] = NULL;
    if (s == SCL_OK && nl->nlocal > 0)
        s = scl_kernel_launch(k, 1, &global, &wg, events ? &events[0] : NULL);
    if (s == SCL_OK && nl->nlocal > 0)
        *(cl->pruned ? &cl->launches_inner : &cl->launches_full) += 1;
    return s;
}

/* The engine's prune (instead of the atom lists'): the inner cluster-pair
 * lists of the pairs within the force cutoff + the inner skin at positions
 * pos (the lists of a new atom set are built first). */
static scl_status cluster_prune(charmm_forces *fk, charmm_nlist *nl, scl_stream *pos,
                                const void *pos_host)
{
    charmm_cluster *cl = fk->cluster;
    scl_status s = lists_ready(fk, nl);
    scl_kernel *k = cl->prune;
    const scl_arg_stream streams[] = {
        {"pos", pos},          {"ilist", nl->ilist_dev},  {"cl_atom_i", cl->set[0].atom},
        {"cl_atom_j", cl->set[1].atom}, {"cj", cl->cj},   {"cmask", cl->cmask},
        {"nj", cl->nj},        {"cj_in", cl->cj_in},      {"cmask_in", cl->cmask_in},
        {"nj_in", cl->nj_in}};
    const scl_arg_int ints[] = {{"capacity", cl->capacity}};
    if (s == SCL_OK)
        s = scl_kernel_bind(k, streams, sizeof streams / sizeof streams[0], ints,
                        sizeof ints / sizeof ints[0]);
    double cut = sqrt(nl->coeffs->cut_forcesq) + nl->inner_skin;
    if (s == SCL_OK)
        s = scl_kernel_set_float(k, "cutsq", (float)(cut * cut));
    if (s == SCL_OK)
        s = scl_kernel_set_float(k, "unit", (float)nl->unit);
    size_t local = 64, global = (size_t)cl->set[0].bound * local;
    if (s == SCL_OK)
        s = scl_kernel_set_local(k, "kept", local * sizeof(int));
    if (s == SCL_OK)
        s = scl_kernel_launch(k, 1, &global, &local, NULL);
    if (s == SCL_OK)
        cl->pruned = 1;
    return s == SCL_OK ? charmm_nlist_prune_mark(nl, pos, pos_host) : s;
}

void charmm_cluster_describe(const charmm_forces *fk, long *entries, int *iclusters)
{
    *entries = 0;
    *iclusters = 0;
    charmm_cluster *cl = fk->cluster;
    if (!cl || cl->built_rebuilds < 0)
        return;
    *iclusters = cl->set[0].bound;
    if (cl->entries < 0) {
        size_t n = (size_t)cl->set[0].bound;
        int *nj = malloc(n * sizeof *nj);
        long sum = 0;
        if (nj && scl_stream_read_range(cl->nj, 0, n, nj, 1, NULL) == SCL_OK)
            for (size_t c = 0; c < n; c++)
                sum += nj[c];
        free(nj);
        cl->entries = sum;
    }
    *entries = cl->entries;
}

/* Squared distance of packed positions a and b (binned indices). */
static double packed_r2(const charmm_nlist *nl, const void *pos, int a, int b)
{
    double d[3];
    for (int c = 0; c < 3; c++) {
        if (nl->pos_double) {
            const double *p = pos;
            d[c] = p[4 * (size_t)a + (size_t)c] - p[4 * (size_t)b + (size_t)c];
        } else { /* modulo 2^32 as the kernels' as_int((uint)a - (uint)b) */
            const int *p = pos;
            uint32_t u = (uint32_t)p[4 * (size_t)a + (size_t)c] - (uint32_t)p[4 * (size_t)b + (size_t)c];
            int64_t v = u >= 0x80000000u ? (int64_t)u - 0x100000000LL : (int64_t)u;
            d[c] = (double)v * nl->unit;
        }
    }
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

static void census_rows(const charmm_forces *fk, const charmm_nlist *nl, const void *pos,
                        const int *nj, const int *cj, const int *cmask, const int *atom_i,
                        const int *atom_j, const int *ilist, charmm_cluster_census *c)
{
    const charmm_cluster *cl = fk->cluster;
    int tpa = fk->tpa > 0 ? fk->tpa : 1;
    int ig = 32 / tpa < CLUSTER ? 32 / tpa : CLUSTER; /* i atoms of a warp step */
    double cutsq = nl->coeffs->cut_forcesq;
    for (int ic = 0; ic < cl->set[0].bound; ic++) {
        int n = nj[ic] < cl->capacity ? nj[ic] : cl->capacity;
        c->entries += n;
        for (int p = 0; p < n; p++) {
            size_t e = (size_t)ic * (size_t)cl->capacity + (size_t)p;
            int jc = cj[e];
            for (int i0 = 0; i0 < CLUSTER; i0 += ig)
                for (int k0 = 0; k0 < CLUSTER; k0 += tpa) {
                    int any = 0;
                    for (int i = i0; i < i0 + ig; i++)
                        for (int k = k0; k < k0 + tpa && k < CLUSTER; k++) {
                            uint32_t word = (uint32_t)cmask[2 * e + (i < 4 ? 0 : 1)];
                            if (!((word >> (CLUSTER * (i % 4) + k)) & 1u))
                                continue;
                            any = 1;
                            c->mask_pairs++;
                            int ai = atom_i[CLUSTER * ic + i], bj = atom_j[CLUSTER * jc + k];
                            if (ai >= 0 && bj >= 0 && packed_r2(nl, pos, ilist[ai], bj) < cutsq)
                                c->cut_pairs++;
                        }
                    c->warp_steps += any;
                    c->warp_steps_all++;
                }
        }
    }
}

scl_status charmm_cluster_count(const charmm_forces *fk, const charmm_nlist *nl, scl_stream *pos,
                                charmm_cluster_census *c)
{
    memset(c, 0, sizeof *c);
    const charmm_cluster *cl = fk->cluster;
    if (!cl)
        return SCL_OK;
    c->launches_inner = cl->launches_inner;
    c->launches_full = cl->launches_full;
    if (cl->built_rebuilds < 0 || !pos || nl->nlocal <= 0)
        return SCL_OK;
    size_t nic = (size_t)cl->set[0].bound, rows = nic * (size_t)cl->capacity;
    size_t nja = CLUSTER * (size_t)cl->set[1].bound, na = (size_t)nl->natoms + 1;
    int *nj = malloc(nic * sizeof *nj), *cj = malloc(rows * sizeof *cj);
    int *cmask = malloc(2 * rows * sizeof *cmask), *atom_i = malloc(CLUSTER * nic * sizeof *atom_i);
    int *atom_j = malloc(nja * sizeof *atom_j), *ilist = malloc((size_t)nl->nlocal * sizeof *ilist);
    void *p = malloc(na * 4 * (nl->pos_double ? sizeof(double) : sizeof(int)));
    scl_status s = nj && cj && cmask && atom_i && atom_j && ilist && p
                       ? SCL_OK
                       : scl_fail(fk->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    if (s == SCL_OK)
        s = scl_stream_read_range(cl->pruned ? cl->nj_in : cl->nj, 0, nic, nj, 1, NULL);
    if (s == SCL_OK)
        s = scl_stream_read_range(cl->pruned ? cl->cj_in : cl->cj, 0, rows, cj, 1, NULL);
    if (s == SCL_OK)
        s = scl_stream_read_range(cl->pruned ? cl->cmask_in : cl->cmask, 0, rows, cmask, 1, NULL);
    if (s == SCL_OK)
        s = scl_stream_read_range(cl->set[0].atom, 0, CLUSTER * nic, atom_i, 1, NULL);
    if (s == SCL_OK)
        s = scl_stream_read_range(cl->set[1].atom, 0, nja, atom_j, 1, NULL);
    if (s == SCL_OK)
        s = scl_stream_read_range(nl->ilist_dev, 0, (size_t)nl->nlocal, ilist, 1, NULL);
    if (s == SCL_OK)
        s = scl_stream_read_range(pos, 0, na, p, 1, NULL);
    if (s == SCL_OK)
        census_rows(fk, nl, p, nj, cj, cmask, atom_i, atom_j, ilist, c);
    free(nj), free(cj), free(cmask), free(atom_i), free(atom_j), free(ilist), free(p);
    return s;
}

static void cluster_release(charmm_forces *fk)
{
    charmm_cluster_free(fk->cluster);
    fk->cluster = NULL;
}

const charmm_force_kind charmm_cluster_kind = {
    .name = "cluster",
    .candidates = cluster_candidates,
    .prepare = cluster_prepare,
    .enqueue = cluster_enqueue,
    .groups = cluster_groups,
    .prune = cluster_prune,
    .release = cluster_release,
    .own_lists = 1,
};
