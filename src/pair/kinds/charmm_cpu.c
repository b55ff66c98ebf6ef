/* The "cpu" kind of force kernels (see charmm_cpu.h and src/pair/kinds/charmm_cpu.cl):
 * blocks, colours and half lists kept up to date with the neighbor list
 * object, then one launch per colour (half lists) or per chunk (full). */
#include "pair/kinds/charmm_cpu.h"
#include "pair/kinds/charmm_kinds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct charmm_cpu {
    int list, block; /* the prepared plan values */
    scl_kernel *force[2][2]; /* [half][tally] */
    scl_kernel *slot_map, *filter, *prune, *finish;
    /* blocks (and colours) of an atom set (nl->rebuilds), list kind and block size */
    charmm_colouring col;
    int col_list, col_block, col_nlocal, col_nchunks, col_ok;
    long col_rebuilds;
    scl_stream *block_start, *block_ids, *slot_of;
    /* outer half lists (cutoff + skin) of atom set half_rebuilds; inner ones
     * (cutoff + inner skin) pruned from them, in use when inner is set;
     * prune_pending: the engine has just kept this step's positions as its
     * pruning positions (cpu_prune) */
    scl_stream *outer, *outer_num, *outer_nsf, *half, *half_num, *half_nsf;
    int half_valid, half_capacity, prune_pending, inner;
    long half_rebuilds;
    /* half lists: sums by local slot (+ spare rows per block), in double
     * precision (integer, fraction) pairs */
    scl_stream *facc, *eacc, *vacc;
    int *icell_host;
    size_t icell_cap;
    int launches, nev; /* force-step launches, events recorded */
};

void charmm_cpu_free(charmm_cpu *cpu)
{
    if (!cpu)
        return;
    for (int h = 0; h < 2; h++)
        for (int t = 0; t < 2; t++)
            scl_kernel_free(cpu->force[h][t]);
    scl_kernel_free(cpu->slot_map);
    scl_kernel_free(cpu->filter);
    scl_kernel_free(cpu->prune);
    scl_kernel_free(cpu->finish);
    charmm_colouring_free(&cpu->col);
    scl_stream *all[] = {cpu->block_start, cpu->block_ids, cpu->slot_of, cpu->outer,
                         cpu->outer_num,   cpu->outer_nsf, cpu->half,    cpu->half_num,
                         cpu->half_nsf,    cpu->facc,      cpu->eacc,    cpu->vacc};
    scl_streams_free(all, sizeof all / sizeof all[0]);
    free(cpu->icell_host);
    free(cpu);
}

static const char *const fn = "scl_charmm_compute";

/* Options of the program for half (0/1) and tally (0/1). */
static void program_options(const charmm_forces *fk, int half, int tally, char *opts, size_t n)
{
    snprintf(opts, n, "-DPREC=%d -DTALLY=%d -DTALLY_DOUBLE=%d -DHALF=%d",
             (int)fk->params->precision, tally, fk->params->mixed_tally_double != 0, half);
}

static scl_status force_kernel(charmm_forces *fk, int half, int tally, scl_kernel **out)
{
    scl_kernel **k = &fk->cpu->force[half][tally];
    if (!*k) {
        char opts[128];
        program_options(fk, half, tally, opts, sizeof opts);
        scl_status s = scl_kernel_create(fk->ctx, "charmm_cpu", "charmm_cpu_force", opts, k);
        if (s != SCL_OK)
            return s;
        scl_kernel_set_label(*k, half ? (tally ? "charmm force+energy (cpu, half lists)"
                                               : "charmm force (cpu, half lists)")
                                      : (tally ? "charmm force+energy (cpu, full lists)"
                                               : "charmm force (cpu, full lists)"));
    }
    *out = *k;
    return SCL_OK;
}

/* The kernels of half lists: slot maps, the filter, the prune, the finish. */
static scl_status half_kernels(charmm_forces *fk)
{
    charmm_cpu *cpu = fk->cpu;
    char opts[128];
    program_options(fk, 1, 0, opts, sizeof opts);
    scl_status s = SCL_OK;
    if (!cpu->slot_map)
        s = scl_kernel_create(fk->ctx, "charmm_cpu", "charmm_slot_map", opts, &cpu->slot_map);
    if (s == SCL_OK && !cpu->filter) {
        s = scl_kernel_create(fk->ctx, "charmm_cpu", "charmm_half_filter", opts, &cpu->filter);
        if (s == SCL_OK)
            scl_kernel_set_label(cpu->filter, "charmm half lists");
    }
    if (s == SCL_OK && !cpu->prune) {
        s = scl_kernel_create(fk->ctx, "charmm_cpu", "charmm_half_prune", opts, &cpu->prune);
        if (s == SCL_OK)
            scl_kernel_set_label(cpu->prune, "charmm half-list prune");
    }
    if (s == SCL_OK && !cpu->finish) {
        s = scl_kernel_create(fk->ctx, "charmm_cpu", "charmm_half_finish", opts, &cpu->finish);
        if (s == SCL_OK)
            scl_kernel_set_label(cpu->finish, "charmm half-list finish");
    }
    return s;
}

static int cpu_candidates(const charmm_forces *fk, scl_tune_param *params)
{
    /* blocks of a hundred atoms or so: rhodo's half lists took 56 colours
     * with 64 atoms per block, 31 with 128, 18 with 256 (7-9 blocks per
     * colour each: larger blocks, fewer launches, as many per launch; rhodo's
     * Pair in LAMMPS 2.36x the CPU style's with 256, 3.8x with 64); on
     * GPUs (a work-item per block, badly shaped for them) one block size,
     * so that timing this kind there stays short */
    params[0] = (scl_tune_param){"list", 2, {CHARMM_CPU_HALF, CHARMM_CPU_FULL}};
    if (scl_device(fk->ctx)->is_gpu)
        params[1] = (scl_tune_param){"block", 1, {32}};
    else
        params[1] = (scl_tune_param){"block", 3, {256, 128, 64}};
    return 2;
}

static scl_status cpu_prepare(charmm_forces *fk, const int *values)
{
    int list = values[0], block = values[1];
    if (list != CHARMM_CPU_FULL && list != CHARMM_CPU_HALF)
        return scl_fail(fk->ctx, SCL_ERR_ARGUMENT, fn,
                        "list %d (plan or forced) is not 1 (full) or 2 (half)", list);
    if (block < 1 || block > 1 << 16)
        return scl_fail(fk->ctx, SCL_ERR_ARGUMENT, fn,
                        "block of %d atoms (plan or forced) is not in 1..65536", block);
    if (!fk->cpu) {
        fk->cpu = calloc(1, sizeof *fk->cpu);
        if (!fk->cpu)
            return scl_fail(fk->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    }
    int half = list == CHARMM_CPU_HALF;
    scl_kernel *k;
    scl_status s = SCL_OK;
    for (int tally = 0; tally < 2 && s == SCL_OK; tally++)
        s = force_kernel(fk, half, tally, &k);
    if (s == SCL_OK && half)
        s = half_kernels(fk);
    if (s == SCL_OK) {
        fk->cpu->list = list;
        fk->cpu->block = block;
    }
    return s;
}

/* Half lists need every chunk's list resident. */
static int uses_half(const charmm_forces *fk, const charmm_nlist *nl)
{
    return fk->cpu && fk->cpu->list == CHARMM_CPU_HALF && !nl->streaming;
}

static int nominal_groups(const charmm_forces *fk, const charmm_nlist *nl)
{
    int bs = fk->cpu ? fk->cpu->block : 256, n = 0;
    if (uses_half(fk, nl))
        return (nl->nlocal + bs - 1) / bs;
    for (int c = 0; c < nl->nchunks; c++)
        n += (nl->chunks[c].count + bs - 1) / bs;
    return n;
}

static scl_status make_blocks(charmm_forces *fk, const charmm_nlist *nl, int half);

static int cpu_groups(const charmm_forces *fk, const charmm_nlist *nl)
{
    /* The engine asks before it queues the step's prune: a new atom set's
     * blocks are made here, so that reading its cells back does not wait for
     * the prune (the kind's own state; a failure shows again in enqueue). */
    if (fk->cpu)
        make_blocks((charmm_forces *)fk, nl, uses_half(fk, nl));
    return nominal_groups(fk, nl);
}

/* Blocks (and colours, for half lists) of the current atom set; a block
 * size that needs more than CHARMM_MAX_COLOURS colours is doubled. */
static scl_status make_blocks(charmm_forces *fk, const charmm_nlist *nl, int half)
{
    charmm_cpu *cpu = fk->cpu;
    if (cpu->col_ok && cpu->col_list == (half ? CHARMM_CPU_HALF : CHARMM_CPU_FULL) && cpu->col_block == cpu->block &&
        cpu->col_rebuilds == nl->rebuilds && cpu->col_nlocal == nl->nlocal &&
        cpu->col_nchunks == nl->nchunks)
        return SCL_OK;
    charmm_colouring_free(&cpu->col);
    cpu->col_ok = 0;
    scl_status s = SCL_OK;
    int rc = -1;
    if (half) {
        size_t nloc = (size_t)nl->nlocal;
        if (cpu->icell_cap < nloc + 1) {
            free(cpu->icell_host);
            cpu->icell_host = malloc((nloc + 1) * sizeof *cpu->icell_host);
            cpu->icell_cap = cpu->icell_host ? nloc + 1 : 0;
            if (!cpu->icell_host)
                return scl_fail(fk->ctx, SCL_ERR_MEMORY, fn, "out of host memory");
        }
        /* the cells of the local atoms as the list build saw them */
        if (nloc > 0)
            s = scl_stream_read_range(nl->icell, 0, nloc, cpu->icell_host, 1, NULL);
        if (s != SCL_OK)
            return s;
        for (int bs = cpu->block; rc != 0; bs *= 2) {
            rc = charmm_colour_blocks(&cpu->col, nl->nlocal, cpu->icell_host, nl->grid,
                                      CHARMM_CELL_REACH, bs);
            if (rc == -1 || bs > nl->nlocal)
                break;
        }
    } else {
        int *first = malloc((size_t)(nl->nchunks + 1) * sizeof *first);
        int *count = malloc((size_t)(nl->nchunks + 1) * sizeof *count);
        if (first && count) {
            for (int c = 0; c < nl->nchunks; c++)
                first[c] = nl->chunks[c].first, count[c] = nl->chunks[c].count;
            rc = charmm_plain_blocks(&cpu->col, nl->nchunks, first, count, cpu->block);
        }
        free(first);
        free(count);
    }
    if (rc != 0)
        return scl_fail(fk->ctx, rc == -1 ? SCL_ERR_MEMORY : SCL_ERR_UNSUPPORTED, fn,
                        rc == -1 ? "out of host memory"
                                 : "no block size colours these atoms in %d colours",
                        CHARMM_MAX_COLOURS);
    size_t nb = (size_t)cpu->col.nblocks;
    s = charmm_stream_reserve(fk->ctx, &cpu->block_start, "charmm blocks", SCL_INT, nb + 1, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(fk->ctx, &cpu->block_ids, "charmm blocks by colour", SCL_INT,
                                  nb + 1, 0);
    if (s == SCL_OK)
        s = scl_stream_write_range(cpu->block_start, 0, nb + 1, cpu->col.block_start, 1, NULL);
    if (s == SCL_OK && nb > 0)
        s = scl_stream_write_range(cpu->block_ids, 0, nb, cpu->col.order, 1, NULL);
    if (s != SCL_OK)
        return s;
    cpu->col_ok = 1;
    cpu->col_list = half ? CHARMM_CPU_HALF : CHARMM_CPU_FULL;
    cpu->col_block = cpu->block;
    cpu->col_rebuilds = nl->rebuilds;
    cpu->col_nlocal = nl->nlocal;
    cpu->col_nchunks = nl->nchunks;
    cpu->half_valid = 0; /* a new atom set: new slot maps and half lists */
    return SCL_OK;
}

/* The list of chunk c the kernels read: the inner (pruned) lists while they
 * hold, else the full ones (a tuning step after a new chunk layout runs
 * before the engine's next prune); streamed lists are built here. *fresh is
 * 0 when the pruned lists were passed over. */
static scl_status chunk_list(charmm_nlist *nl, int c, scl_stream **nbr, scl_stream **num,
                             scl_stream **nsf, int *sorted, int *fresh)
{
    *fresh = 1;
    if (nl->streaming || !nl->prune || nl->prune_valid)
        return charmm_nlist_for_chunk(nl, c, nbr, num, nsf, sorted);
    *nbr = nl->chunks[c].nbr;
    *num = *nsf = nl->numnbr;
    *sorted = 0;
    *fresh = 0;
    return SCL_OK;
}

/* Next event slot of a step (NULL when the caller keeps none or all are used). */
static scl_event *next_event(charmm_cpu *cpu, scl_event *events, int nevents)
{
    return events && cpu->nev < nevents ? &events[cpu->nev] : NULL;
}

/* A launch queued with next_event's slot. */
static void count_launch(charmm_cpu *cpu, scl_event *events, int nevents)
{
    cpu->launches++;
    if (events && cpu->nev < nevents)
        cpu->nev++;
}

/* The outer half lists from the full lists (every pair of the full lists,
 * once), and the slot maps they need: once per atom set. */
static scl_status make_outer(charmm_forces *fk, charmm_nlist *nl, scl_event *events, int nevents)
{
    charmm_cpu *cpu = fk->cpu;
    scl_context *ctx = fk->ctx;
    size_t na = (size_t)nl->natoms + 1, nloc = (size_t)(nl->nlocal > 0 ? nl->nlocal : 1);
    scl_status s = charmm_stream_reserve(ctx, &cpu->slot_of, "charmm local slots", SCL_INT, na, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &cpu->outer, "charmm outer half lists", SCL_INT,
                                  nloc * (size_t)nl->capacity, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &cpu->outer_num, "charmm outer half list counts",
                                  SCL_INT, nloc, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &cpu->outer_nsf, "charmm outer half list specials",
                                  SCL_INT, nloc, 0);
    int minus1 = -1;
    if (s == SCL_OK)
        s = scl_stream_fill_range(cpu->slot_of, 0, na, &minus1, NULL);
    size_t local = 64, global = (size_t)nl->nlocal;
    if (s == SCL_OK && global > 0) {
        const scl_arg_stream streams[] = {{"ilist", nl->ilist_dev}, {"slot_of", cpu->slot_of}};
        const scl_arg_int ints[] = {{"nlocal", nl->nlocal}};
        s = scl_kernel_bind(cpu->slot_map, streams, 2, ints, 1);
        if (s == SCL_OK)
            s = scl_kernel_launch(cpu->slot_map, 1, &global, &local, NULL);
    }
    for (int c = 0; c < nl->nchunks && s == SCL_OK; c++) {
        const charmm_chunk *ch = &nl->chunks[c];
        if (ch->count == 0)
            continue;
        const scl_arg_stream streams[] = {
            {"nbr", ch->nbr},        {"numnbr", nl->numnbr},  {"slot_of", cpu->slot_of},
            {"icell", nl->icell},    {"hlist", cpu->outer},   {"half_num", cpu->outer_num},
            {"half_nsf", cpu->outer_nsf}};
        const scl_arg_int ints[] = {{"first", ch->first},
                                       {"count", ch->count},
                                       {"capacity", nl->capacity},
                                       {"sentinel", nl->natoms}};
        s = scl_kernel_bind(cpu->filter, streams, 7, ints, 4);
        global = (size_t)ch->count;
        if (s == SCL_OK)
            s = scl_kernel_launch(cpu->filter, 1, &global, &local,
                                  next_event(cpu, events, nevents));
        if (s == SCL_OK)
            count_launch(cpu, events, nevents);
    }
    if (s == SCL_OK) {
        cpu->half_valid = 1;
        cpu->half_rebuilds = nl->rebuilds;
        cpu->half_capacity = nl->capacity;
    }
    return s;
}

/* The inner half lists: the outer ones pruned at the engine's prune cutoff
 * (charmm_nlist_prune) for this step's positions. */
static scl_status make_inner(charmm_forces *fk, charmm_nlist *nl, const charmm_step_io *io,
                             scl_event *events, int nevents)
{
    charmm_cpu *cpu = fk->cpu;
    scl_context *ctx = fk->ctx;
    size_t nloc = (size_t)(nl->nlocal > 0 ? nl->nlocal : 1);
    scl_status s = charmm_stream_reserve(ctx, &cpu->half, "charmm half lists", SCL_INT,
                                         nloc * (size_t)nl->capacity, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &cpu->half_num, "charmm half list counts", SCL_INT, nloc,
                                  0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(ctx, &cpu->half_nsf, "charmm half list specials", SCL_INT,
                                  nloc, 0);
    double cut = sqrt(fk->coeffs->cut_forcesq) + nl->inner_skin;
    const scl_arg_stream streams[] = {
        {"outer", cpu->outer},   {"outer_num", cpu->outer_num}, {"outer_nsf", cpu->outer_nsf},
        {"ilist", nl->ilist_dev}, {"pos", io->pos},             {"hlist", cpu->half},
        {"half_num", cpu->half_num}, {"half_nsf", cpu->half_nsf}};
    const scl_arg_int ints[] = {
        {"nlocal", nl->nlocal}, {"capacity", nl->capacity}, {"sentinel", nl->natoms}};
    if (s == SCL_OK)
        s = scl_kernel_bind(cpu->prune, streams, 8, ints, 3);
    if (s == SCL_OK)
        s = scl_kernel_set_real(cpu->prune, "unit", nl->unit);
    if (s == SCL_OK)
        s = scl_kernel_set_real(cpu->prune, "cutsq", cut * cut);
    size_t local = 64, global = (size_t)nl->nlocal;
    if (s == SCL_OK && global > 0) {
        s = scl_kernel_launch(cpu->prune, 1, &global, &local, next_event(cpu, events, nevents));
        if (s == SCL_OK)
            count_launch(cpu, events, nevents);
    }
    cpu->inner = s == SCL_OK;
    return s;
}

/* The half lists of this step. A new atom set gets new outer lists, which
 * keep every pair until the engine prunes: the inner lists are pruned from
 * the outer ones (two passes, where one from the full lists cost more than
 * a force step and ran every few MD steps) only on the step whose positions
 * the engine keeps as its pruning positions: its displacement checks hold
 * the lists valid relative to those. */
static scl_status make_half_lists(charmm_forces *fk, charmm_nlist *nl, const charmm_step_io *io,
                                  scl_event *events, int nevents)
{
    charmm_cpu *cpu = fk->cpu;
    int prune = nl->prune && cpu->prune_pending;
    cpu->prune_pending = 0;
    scl_status s = SCL_OK;
    if (!cpu->half_valid || cpu->half_rebuilds != nl->rebuilds ||
        cpu->half_capacity != nl->capacity) {
        cpu->inner = 0;
        s = make_outer(fk, nl, events, nevents);
    }
    if (s == SCL_OK && prune)
        s = make_inner(fk, nl, io, events, nevents);
    return s;
}

/* The engine's prune of a step: half lists prune themselves when they are
 * remade (make_half_lists), so only the pruning positions are kept; full
 * lists are pruned as usual. */
static scl_status cpu_prune(charmm_forces *fk, charmm_nlist *nl, scl_stream *pos,
                            const void *pos_host)
{
    if (!uses_half(fk, nl))
        return charmm_nlist_prune(nl, pos, pos_host);
    fk->cpu->prune_pending = 1;
    return charmm_nlist_prune_mark(nl, pos, pos_host);
}

/* Arguments every launch of a step shares. */
static scl_status bind_common(charmm_forces *fk, charmm_nlist *nl, const charmm_step_io *io,
                              scl_kernel *k, int half)
{
    charmm_cpu *cpu = fk->cpu;
    int dbl = charmm_forces_pair_double(fk, io->tally);
    /* unused outputs get any stream of their type */
    scl_stream *force = io->force;
    const scl_arg_stream streams[] = {
        {"pos", io->pos},
        {"pos_lo", io->pos_lo},
        {"type", nl->type},
        {"ilist", nl->ilist_dev},
        {"order", nl->order_dev},
        {"row_of", half ? cpu->slot_of : nl->ilist_dev},
        {"block_start", cpu->block_start},
        {"block_ids", cpu->block_ids},
        {"ljc", dbl ? fk->ljc_double : fk->ljc},
        {"force", force},
        {"eatom", io->per_atom ? io->eatom : force},
        {"vatom", io->per_atom ? io->vatom : force},
        {"facc", cpu->facc},
        {"eacc", cpu->eacc},
        {"vacc", cpu->vacc},
        {"partials", io->partials},
        {"error", io->error}};
    const scl_arg_int ints[] = {{"per_atom", io->per_atom}, {"spare_first", nl->nlocal}};
    scl_status s = scl_kernel_bind(k, streams, sizeof streams / sizeof streams[0], ints, 2);
    if (s == SCL_OK)
        s = charmm_forces_bind_pair_math(fk, nl, k, dbl);
    return s;
}

static scl_status launch(charmm_forces *fk, scl_kernel *k, int block_first, int nblocks,
                         scl_event *events, int nevents)
{
    if (nblocks == 0)
        return SCL_OK;
    scl_status s = scl_kernel_set_int(k, "block_first", block_first);
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "nblocks", nblocks);
    /* a CPU work-item is a block: one per work-group lets the threads take
     * them one by one; GPUs need fuller groups */
    size_t local = scl_device(fk->ctx)->is_gpu ? 32 : 1, global = (size_t)nblocks;
    if (s == SCL_OK)
        s = scl_kernel_launch(k, 1, &global, &local, next_event(fk->cpu, events, nevents));
    if (s == SCL_OK)
        count_launch(fk->cpu, events, nevents);
    return s;
}

/* Half lists' sums: a row per local slot and 8 spare rows per block (bound
 * in every mode; only half lists use them). Type and values per sum as the
 * kernel's accs. */
static scl_type acc_type(const charmm_forces *fk, size_t *width)
{
    int dbl = fk->params->precision == SCL_PREC_DOUBLE;
    *width = dbl ? 2 : 1;
    return dbl ? SCL_LONG : fk->out_type;
}

static scl_status reserve_acc(charmm_forces *fk, size_t rows)
{
    charmm_cpu *cpu = fk->cpu;
    size_t w;
    scl_type t = acc_type(fk, &w);
    scl_status s = charmm_stream_reserve(fk->ctx, &cpu->facc, "charmm half-list force sums", t,
                                         4 * w * rows, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(fk->ctx, &cpu->eacc, "charmm half-list energy sums", t,
                                  w * rows, 0);
    if (s == SCL_OK)
        s = charmm_stream_reserve(fk->ctx, &cpu->vacc, "charmm half-list virial sums", t,
                                  6 * w * rows, 0);
    return s;
}

/* Zero the rows the colours accumulate into. */
static scl_status zero_outputs(charmm_forces *fk, size_t rows, const charmm_step_io *io)
{
    charmm_cpu *cpu = fk->cpu;
    const char zero[16] = {0};
    size_t w;
    acc_type(fk, &w);
    scl_status s = scl_stream_fill_range(cpu->facc, 0, 4 * w * rows, zero, NULL);
    if (s == SCL_OK && io->per_atom)
        s = scl_stream_fill_range(cpu->eacc, 0, w * rows, zero, NULL);
    if (s == SCL_OK && io->per_atom)
        s = scl_stream_fill_range(cpu->vacc, 0, 6 * w * rows, zero, NULL);
    return s;
}

static scl_status cpu_enqueue(charmm_forces *fk, charmm_nlist *nl, const charmm_step_io *io,
                              scl_event *events)
{
    charmm_cpu *cpu = fk->cpu;
    int half = uses_half(fk, nl);
    int nevents = nl->nchunks + CHARMM_FORCE_EXTRA_EVENTS;
    cpu->launches = cpu->nev = 0;
    scl_status s = make_blocks(fk, nl, half);
    if (s == SCL_OK && half)
        s = make_half_lists(fk, nl, io, events, nevents);
    scl_kernel *k = NULL;
    if (s == SCL_OK)
        s = force_kernel(fk, half, io->tally, &k);
    size_t rows = (size_t)nl->nlocal + 8 * (size_t)cpu->col.nblocks; /* + spare rows */
    if (s == SCL_OK)
        s = reserve_acc(fk, rows);
    if (s == SCL_OK && half)
        s = zero_outputs(fk, rows, io);
    /* partials of blocks a coarser colouring left out */
    int groups = nominal_groups(fk, nl);
    if (s == SCL_OK && io->tally && groups > cpu->col.nblocks) {
        size_t w = (size_t)fk->partial_width, first = 8 * w * (size_t)cpu->col.nblocks;
        const char zero[8] = {0};
        s = scl_stream_fill_range(io->partials, first, 8 * w * (size_t)groups - first, zero,
                                  NULL);
    }
    if (s == SCL_OK)
        s = bind_common(fk, nl, io, k, half);
    if (s != SCL_OK)
        return s;
    if (half) {
        const scl_arg_stream streams[] = {
            {"nbr", cpu->inner ? cpu->half : cpu->outer},
            {"numnbr", cpu->inner ? cpu->half_num : cpu->outer_num},
            {"nspecial_front", cpu->inner ? cpu->half_nsf : cpu->outer_nsf}};
        const scl_arg_int ints[] = {
            {"sorted", 1}, {"list_first", 0}, {"gstride", CHARMM_PAD}, {"astride", nl->capacity}};
        s = scl_kernel_bind(k, streams, 3, ints, 4);
        for (int c = 0; c < cpu->col.ncolours && s == SCL_OK; c++)
            s = launch(fk, k, cpu->col.colour_start[c],
                       cpu->col.colour_start[c + 1] - cpu->col.colour_start[c], events, nevents);
        if (s == SCL_OK && nl->nlocal > 0) {
            const scl_arg_stream fs[] = {{"facc", cpu->facc},
                                            {"eacc", cpu->eacc},
                                            {"vacc", cpu->vacc},
                                            {"ilist", nl->ilist_dev},
                                            {"order", nl->order_dev},
                                            {"force", io->force},
                                            {"eatom", io->per_atom ? io->eatom : io->force},
                                            {"vatom", io->per_atom ? io->vatom : io->force}};
            const scl_arg_int fi[] = {{"nlocal", nl->nlocal}, {"per_atom", io->per_atom}};
            size_t local = 64, global = (size_t)nl->nlocal;
            s = scl_kernel_bind(cpu->finish, fs, 8, fi, 2);
            if (s == SCL_OK)
                s = scl_kernel_launch(cpu->finish, 1, &global, &local,
                                      next_event(cpu, events, nevents));
            if (s == SCL_OK)
                count_launch(cpu, events, nevents);
        }
        return s;
    }
    s = scl_kernel_set_int(k, "astride", CHARMM_PAD);
    for (int c = 0; c < nl->nchunks && s == SCL_OK; c++) {
        const charmm_chunk *ch = &nl->chunks[c];
        if (ch->count == 0)
            continue;
        scl_stream *nbr, *num, *nsf;
        int sorted, fresh;
        s = chunk_list(nl, c, &nbr, &num, &nsf, &sorted, &fresh);
        const scl_arg_stream streams[] = {
            {"nbr", nbr}, {"numnbr", num}, {"nspecial_front", nsf}};
        const scl_arg_int ints[] = {
            {"sorted", sorted}, {"list_first", ch->first}, {"gstride", ch->count * CHARMM_PAD}};
        if (s == SCL_OK)
            s = scl_kernel_bind(k, streams, 3, ints, 3);
        if (s == SCL_OK)
            s = launch(fk, k, cpu->col.colour_start[c],
                       cpu->col.colour_start[c + 1] - cpu->col.colour_start[c], events, nevents);
    }
    return s;
}

static void cpu_release(charmm_forces *fk)
{
    charmm_cpu_free(fk->cpu);
    fk->cpu = NULL;
}

const charmm_force_kind charmm_cpu_kind = {
    .name = "cpu",
    .candidates = cpu_candidates,
    .prepare = cpu_prepare,
    .enqueue = cpu_enqueue,
    .groups = cpu_groups,
    .prune = cpu_prune,
    .release = cpu_release,
};

scl_status charmm_cpu_half_lists(charmm_forces *fk, const charmm_nlist *nl, int **counts,
                                 int **rows, int *capacity, int **slot_of,
                                 const charmm_colouring **colouring)
{
    static const char *name = "charmm_cpu_half_lists";
    charmm_cpu *cpu = fk->cpu;
    *counts = *rows = *slot_of = NULL;
    if (!cpu || !cpu->half_valid || !uses_half(fk, nl))
        return scl_fail(fk->ctx, SCL_ERR_ARGUMENT, name, "no half lists: run a step with them");
    size_t nloc = (size_t)nl->nlocal, cap = (size_t)nl->capacity, na = (size_t)nl->natoms + 1;
    *counts = malloc((nloc + 1) * sizeof **counts);
    *rows = malloc((nloc * cap + 1) * sizeof **rows);
    *slot_of = malloc(na * sizeof **slot_of);
    scl_status s = SCL_OK;
    if (!*counts || !*rows || !*slot_of)
        s = scl_fail(fk->ctx, SCL_ERR_MEMORY, name, "out of host memory");
    if (s == SCL_OK && nloc > 0)
        s = scl_stream_read_range(cpu->inner ? cpu->half_num : cpu->outer_num, 0, nloc, *counts,
                                  1, NULL);
    if (s == SCL_OK && nloc > 0)
        s = scl_stream_read_range(cpu->inner ? cpu->half : cpu->outer, 0, nloc * cap, *rows, 1,
                                  NULL);
    if (s == SCL_OK)
        s = scl_stream_read_range(cpu->slot_of, 0, na, *slot_of, 1, NULL);
    if (s != SCL_OK) {
        free(*counts), free(*rows), free(*slot_of);
        *counts = *rows = *slot_of = NULL;
        return s;
    }
    *capacity = nl->capacity;
    *colouring = &cpu->col;
    return SCL_OK;
}

void charmm_cpu_describe(const charmm_forces *fk, int *list, int *launches, int *colours,
                         int *blocks)
{
    const charmm_cpu *cpu = fk->kind == &charmm_cpu_kind ? fk->cpu : NULL;
    *list = cpu ? cpu->list : 0;
    *launches = cpu ? cpu->launches : 0;
    *colours = cpu && cpu->list == CHARMM_CPU_HALF ? cpu->col.ncolours : 0;
    *blocks = cpu ? cpu->col.nblocks : 0;
}
