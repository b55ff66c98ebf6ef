/* Launch plan of the charmm force kernel: threads per atom, work-group size
 * and number of chunks, chosen by the core tuner (timed on the real atoms of
 * the first step, cached per device and problem shape). Values the caller
 * fixed in the parameters are forced. */
#include "pair/charmm_engine.h"

#include <stdlib.h>
#include <string.h>

/* One candidate: new chunk layout when it changes (lists rebuilt: not part of
 * the step), then the force kernels of every chunk, queued. */
static scl_status prepare_candidate(void *user, const int *values, void **variant)
{
    scl_charmm *eng = user;
    *variant = NULL;
    if (values[2] != eng->nchunks)
        return charmm_setup_chunks(eng, values[2], "charmm tuner");
    return SCL_OK;
}

static scl_status run_candidate(void *user, void *variant, const int *values)
{
    (void)variant;
    scl_charmm *eng = user;
    eng->tpa = values[0];
    eng->wg = values[1];
    return charmm_enqueue_forces(eng, 0, 0, NULL);
}

static int log2_bucket(long n)
{
    int b = 0;
    while (n > 1) {
        n >>= 1;
        b++;
    }
    return b;
}

scl_status charmm_plan(scl_charmm *eng)
{
    const scl_charmm_params *p = &eng->params;
    const scl_device_info *dev = scl_device(eng->ctx);
    int m = eng->min_chunks > 0 ? eng->min_chunks : 1;
    /* GPUs want several lanes per atom to fill warps with short lists (and at
     * 32k atoms, 8 lanes per atom are barely one wave on an H200: 16 lanes
     * were 18% faster there, 0.176 -> 0.144 ms); a CPU work-item is a loop
     * iteration, so one lane per atom first there */
    scl_tune_param params[3] = {
        dev->is_gpu ? (scl_tune_param){"tpa", 4, {8, 16, 32, 4}}
                    : (scl_tune_param){"tpa", 4, {1, 2, 4, 8}},
        dev->is_gpu ? (scl_tune_param){"wg", 3, {128, 64, 256}}
                    : (scl_tune_param){"wg", 3, {64, 128, 256}},
        {"chunks", 3, {m, 2 * m, 4 * m}},
    };
    char force[96] = "";
    size_t n = 0;
    if (p->threads_per_atom)
        n += (size_t)snprintf(force + n, sizeof force - n, "tpa=%d,", p->threads_per_atom);
    if (p->work_group)
        n += (size_t)snprintf(force + n, sizeof force - n, "wg=%d,", p->work_group);
    if (p->chunks)
        n += (size_t)snprintf(force + n, sizeof force - n, "chunks=%d,",
                              p->chunks > m ? p->chunks : m);
    if (n > 0)
        force[n - 1] = '\0';
    char shape[96];
    long avg = eng->nlocal > 0 ? eng->neighbors / eng->nlocal : 0;
    snprintf(shape, sizeof shape, "atoms~2^%d,neighbors~2^%d,prec=%d,streaming=%d",
             log2_bucket(eng->natoms), log2_bucket(avg), (int)p->precision, eng->streaming);
    /* median of 7: candidates 10% apart swapped places run to run with 3
     * (0.144 vs 0.156 ms plans on the H200 at 32k atoms) */
    scl_tune_options opt = {.no_tune = !p->tune, .repeats = 7, .force = n > 0 ? force : NULL};
    scl_plan_desc desc = {"charmm_force", shape, params, 3, prepare_candidate, run_candidate,
                          NULL, eng, NULL};
    scl_plan *plan = NULL;
    scl_status s = scl_plan_create(eng->ctx, &desc, &opt, &plan);
    if (s != SCL_OK)
        return s;
    eng->tpa = scl_plan_value(plan, "tpa", 1);
    eng->wg = scl_plan_value(plan, "wg", 64);
    int chunks = scl_plan_value(plan, "chunks", m);
    scl_plan_free(plan);
    if (eng->tpa != 1 && eng->tpa != 2 && eng->tpa != 4 && eng->tpa != 8 && eng->tpa != 16 &&
        eng->tpa != 32)
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, "scl_charmm_compute",
                        "threads per atom %d (plan or STREAMCL_FORCE) is not 1, 2, 4, 8, 16 "
                        "or 32",
                        eng->tpa);
    if (eng->wg < 1 || (eng->wg & (eng->wg - 1)) || eng->wg < eng->tpa)
        return scl_fail(eng->ctx, SCL_ERR_ARGUMENT, "scl_charmm_compute",
                        "work-group %d must be a power of two >= threads per atom %d", eng->wg,
                        eng->tpa);
    if (chunks != eng->nchunks) {
        s = charmm_setup_chunks(eng, chunks, "scl_charmm_compute");
        if (s != SCL_OK)
            return s;
    }
    eng->plan_ready = 1;
    return SCL_OK;
}
