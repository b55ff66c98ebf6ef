/* The "charmm" kind of force kernels (charmm.cl): full lists, TPA lanes
 * per atom, work-group partials; the GPUs' kind. Plan values: "tpa", "wg",
 * "fsum" (mixed on fp64 devices), "pipe", "tcap". */
#include "pair/kinds/charmm_kinds.h"

#include <string.h>

/* Kernel for (tpa, tally, fsum, pipe, tcap), built on first use; tcap caps
 * the registers of the tallying kernel only. */
static scl_status lanes_kernel(charmm_forces *fk, int tpa, int tally, int fsum, int pipe,
                               int tcap, scl_kernel **out)
{
    int cap = tally ? tcap : 0;
    scl_kernel **k = &fk->kernel[charmm_tpa_index(tpa)][tally][fsum > 1][pipe][cap > 0];
    const charmm_kernel_shape shape = {tpa, tally, fsum, pipe, cap};
    scl_status s = charmm_forces_kernel(fk, "charmm", "charmm_force", &shape,
                                        tally ? "charmm force+energy" : "charmm force", k);
    *out = *k;
    return s;
}

/* Whether -cl-nv-maxrregcount is understood (NVIDIA's OpenCL on a GPU). */
static int nvidia_gpu(const charmm_forces *fk)
{
    const scl_device_info *d = scl_device(fk->ctx);
    return d->is_gpu && (strstr(d->vendor, "NVIDIA") || strstr(d->platform, "NVIDIA"));
}

static int lanes_candidates(const charmm_forces *fk, scl_tune_param *params)
{
    /* GPUs want several lanes per atom to fill warps with short lists (and at
     * 32k atoms, 8 lanes per atom are barely one wave on an H200: 16 lanes
     * were 18% faster there, 0.176 -> 0.144 ms); a CPU work-item is a loop
     * iteration, so one lane per atom first there */
    int gpu = scl_device(fk->ctx)->is_gpu;
    /* on CPU cores only when asked for: the "cpu" kind's forces took 3.3x
     * less time on PoCL (rhodo pair-bench, bench/RESULTS.md ## pair), and
     * timing these candidates there takes minutes */
    const char *want = fk->params->kernel;
    if (!gpu && !(want && !strcmp(want, "charmm")))
        return 0;
    params[0] = gpu ? (scl_tune_param){"tpa", 4, {8, 16, 32, 4}}
                    : (scl_tune_param){"tpa", 4, {1, 2, 4, 8}};
    params[1] = gpu ? (scl_tune_param){"wg", 3, {128, 64, 256}}
                    : (scl_tune_param){"wg", 3, {64, 128, 256}};
    /* the software-pipelined loop (loads one iteration ahead; 2: unrolled
     * twice) or not: it holds ~5 more registers */
    int n = 2;
    if (charmm_forces_has_fsum(fk))
        /* float partial sums over 8 pairs, or a double add per pair: GPUs run
         * FP64 and conversions at a fraction of the FP32 rate, CPUs do not
         * (on GPUs 8 only: the H200 took 8 in every tuning, and pipe doubled
         * the candidates) */
        params[n++] =
            gpu ? (scl_tune_param){"fsum", 1, {8}} : (scl_tune_param){"fsum", 2, {1, 8}};
    params[n++] = (scl_tune_param){"pipe", 3, {1, 2, 0}};
    /* tcap: a register cap for the tallying kernel (NVIDIA GPUs, forced
     * only): the H200 measured no gain from 64 (run15: tally 0.1130 ms with
     * it, 0.1121 without), so uncapped by default; the tuner times
     * force-only steps, so it cannot pick this itself */
    params[n++] = (scl_tune_param){"tcap", 1, {0}};
    return n;
}

/* Legal when both variants (force-only and tallying) launch with wg. */
static scl_status lanes_prepare(charmm_forces *fk, const int *values)
{
    int has_fsum = charmm_forces_has_fsum(fk);
    int tpa = values[0], wg = values[1], fsum = has_fsum ? values[2] : 1;
    int pipe = values[has_fsum ? 3 : 2], tcap = values[has_fsum ? 4 : 3];
    if (pipe < 0 || pipe > 2)
        return scl_fail(fk->ctx, SCL_ERR_ARGUMENT, "scl_charmm_compute",
                        "pipe %d (plan or forced) is not 0, 1 or 2", pipe);
    if (tcap != 0 && (tcap < 32 || tcap > 255 || !nvidia_gpu(fk)))
        return scl_fail(fk->ctx, SCL_ERR_ARGUMENT, "scl_charmm_compute",
                        "tcap %d (plan or forced) is not 0 or, on NVIDIA GPUs, 32..255", tcap);
    if (fsum != 1 && fsum != 8)
        return scl_fail(fk->ctx, SCL_ERR_ARGUMENT, "scl_charmm_compute",
                        "fsum %d (plan or forced) is not 1 or 8", fsum);
    if (charmm_tpa_index(tpa) < 0)
        return scl_fail(fk->ctx, SCL_ERR_ARGUMENT, "scl_charmm_compute",
                        "threads per atom %d (plan or forced) is not 1, 2, 4, .. %d", tpa,
                        1 << (CHARMM_TPA_VARIANTS - 1));
    if (wg < 1 || (wg & (wg - 1)) || wg < tpa)
        return scl_fail(fk->ctx, SCL_ERR_ARGUMENT, "scl_charmm_compute",
                        "work-group %d must be a power of two >= threads per atom %d", wg, tpa);
    for (int tally = 0; tally < 2; tally++) {
        scl_kernel *k;
        scl_status s = lanes_kernel(fk, tpa, tally, fsum, pipe, tcap, &k);
        if (s == SCL_OK)
            s = charmm_forces_check_scratch(fk, k, wg);
        if (s != SCL_OK)
            return s;
    }
    /* the shape of the following launches */
    fk->tpa = tpa, fk->wg = wg, fk->fsum = fsum, fk->pipe = pipe, fk->tcap = tcap;
    return SCL_OK;
}

static int lanes_groups(const charmm_forces *fk, const charmm_nlist *nl)
{
    int groups = 0;
    size_t wg = (size_t)fk->wg;
    for (int c = 0; c < nl->nchunks; c++)
        groups += (int)(((size_t)nl->chunks[c].count * (size_t)fk->tpa + wg - 1) / wg);
    return groups;
}

static scl_status lanes_enqueue(charmm_forces *fk, charmm_nlist *nl, const charmm_step_io *io,
                                scl_event *events)
{
    scl_kernel *k;
    scl_status s = lanes_kernel(fk, fk->tpa, io->tally, fk->fsum, fk->pipe, fk->tcap, &k);
    if (s != SCL_OK)
        return s;
    size_t wg = (size_t)fk->wg;
    int groups = 0;
    for (int c = 0; c < nl->nchunks; c++) {
        nl->chunks[c].group_base = groups;
        groups += (int)(((size_t)nl->chunks[c].count * (size_t)fk->tpa + wg - 1) / wg);
    }
    int dbl = charmm_forces_pair_double(fk, io->tally);
    /* unused outputs get any stream of their type */
    scl_stream *const bind[][2] = {{io->pos, NULL},       {io->pos_lo, NULL},
                                   {nl->type, NULL},      {nl->ilist_dev, NULL},
                                   {nl->order_dev, NULL}, {dbl ? fk->ljc_double : fk->ljc, NULL},
                                   {io->force, NULL},     {io->error, NULL}};
    static const char *const bind_names[] = {"pos",   "pos_lo", "type",  "ilist",
                                             "order", "ljc",    "force", "error"};
    for (size_t a = 0; a < sizeof bind_names / sizeof bind_names[0] && s == SCL_OK; a++)
        s = scl_kernel_set_stream(k, bind_names[a], bind[a][0]);
    if (s == SCL_OK) /* (the engine keeps one, even before the first tallying step) */
        s = scl_kernel_set_stream(k, "partials", io->partials);
    if (s == SCL_OK)
        s = scl_kernel_set_stream(k, "eatom", io->per_atom ? io->eatom : io->force);
    if (s == SCL_OK)
        s = scl_kernel_set_stream(k, "vatom", io->per_atom ? io->vatom : io->force);
    if (s == SCL_OK)
        s = charmm_forces_bind_pair_math(fk, nl, k, dbl);
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "per_atom", io->per_atom);
    if (s == SCL_OK)
        s = scl_kernel_set_local(k, "scratch", charmm_forces_scratch_bytes(fk, wg));
    for (int ci = 0; ci < nl->nchunks && s == SCL_OK; ci++) {
        charmm_chunk *ch = &nl->chunks[ci];
        if (events)
            events[ci] = NULL;
        if (ch->count == 0)
            continue;
        scl_stream *nbr, *num, *nsf;
        int sorted;
        s = charmm_nlist_for_chunk(nl, ci, &nbr, &num, &nsf, &sorted);
        if (s == SCL_OK)
            s = scl_kernel_set_stream(k, "nbr", nbr);
        if (s == SCL_OK)
            s = scl_kernel_set_stream(k, "numnbr", num);
        if (s == SCL_OK)
            s = scl_kernel_set_stream(k, "nspecial_front", nsf);
        if (s == SCL_OK)
            s = scl_kernel_set_int(k, "sorted", sorted);
        if (s == SCL_OK)
            s = scl_kernel_set_int(k, "first", ch->first);
        if (s == SCL_OK)
            s = scl_kernel_set_int(k, "count", ch->count);
        if (s == SCL_OK)
            s = scl_kernel_set_int(k, "group_base", ch->group_base);
        size_t global = (size_t)ch->count * (size_t)fk->tpa;
        if (s == SCL_OK)
            s = scl_kernel_launch(k, 1, &global, &wg, events ? &events[ci] : NULL);
    }
    return s;
}

static void lanes_release(charmm_forces *fk)
{
    for (int t = 0; t < CHARMM_TPA_VARIANTS; t++)
        for (int v = 0; v < 2; v++)
            for (int f = 0; f < 2; f++)
                for (int q = 0; q < 3; q++)
                    for (int c = 0; c < 2; c++) {
                        scl_kernel_free(fk->kernel[t][v][f][q][c]);
                        fk->kernel[t][v][f][q][c] = NULL;
                    }
}

const charmm_force_kind charmm_lanes_kind = {
    .name = "charmm",
    .candidates = lanes_candidates,
    .prepare = lanes_prepare,
    .enqueue = lanes_enqueue,
    .groups = lanes_groups,
    .release = lanes_release,
};
