/* The bits of the pair module's answers, for comparing two builds (e.g. the
 * force kernels before and after a refactoring that must not change their
 * arithmetic): for each force kind, launch shape and precision, one
 * force-only step and one tallying step (per-atom terms included) of a
 * fixed water box with non-trivial special factors and Coulomb beyond LJ,
 * and one line "name hash" of every output bit (forces, energies, virial,
 * per-atom energy and virial, list size; the tallying step's forces through
 * their difference from the force-only step's).
 *   test_charmm_bits            prints the lines (a build's fingerprint)
 *   test_charmm_bits FILE       compares them with FILE (an earlier run's
 *                               output): fails on any line that differs
 * The hashes depend on the device and its compiler, so FILE must come from
 * the same device (bench/house-gpu.sh runs both builds side by side). */
#include "charmm_test_util.h"

#include <stdint.h>

typedef struct {
    const char *kind, *force;
    int lists;
} shape;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* One engine: a force-only step, then a tallying one (test_engine_step);
 * the hash of it all (0 with *why set when the device refused the shape).
 * The tallying step's forces enter through their difference from the
 * force-only step's. */
static uint64_t run(scl_context *ctx, const scl_charmm_params *p, const test_atoms *a,
                    const char **why)
{
    size_t n = (size_t)a->nlocal;
    double *f = calloc(3 * n, sizeof *f), *e = calloc(n, sizeof *e), *v = calloc(6 * n, sizeof *v);
    scl_charmm_result r;
    scl_charmm_stats st;
    double diff = 0;
    memset(&r, 0, sizeof r);
    memset(&st, 0, sizeof st);
    scl_status s = f && e && v ? test_engine_step_diff(ctx, p, a, f, &r, e, v, &st, &diff)
                               : SCL_ERR_MEMORY;
    uint64_t h = 0xcbf29ce484222325ULL;
    if (s == SCL_OK) {
        const struct {
            const void *p;
            size_t bytes;
        } parts[] = {{f, 3 * n * sizeof *f},      {e, n * sizeof *e},
                     {v, 6 * n * sizeof *v},      {&r.evdwl, sizeof r.evdwl},
                     {&r.ecoul, sizeof r.ecoul},  {r.virial, sizeof r.virial},
                     {&diff, sizeof diff},        {&st.neighbors, sizeof st.neighbors}};
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
            h = fnv(h, parts[k].p, parts[k].bytes);
    } else {
        *why = s == SCL_ERR_UNSUPPORTED ? "unsupported" : scl_last_error(ctx);
        h = 0;
    }
    free(f), free(e), free(v);
    return h;
}

int main(int argc, char **argv)
{
    /* every force kernel path: the lanes kind with each loop (pipe 0, 1, 2),
     * float partial sums (fsum) and both list paths (tpa >= 8: pointer,
     * tpa < 8: index); the cpu kind with full and half lists; the cluster
     * kind; each also in a second launch shape */
    static const shape shapes[] = {
        {"charmm", "pipe=0,tpa=8,wg=64", 0},   {"charmm", "pipe=1,tpa=8,wg=64", 0},
        {"charmm", "pipe=2,tpa=2,wg=64,fsum=8", 0}, {"charmm", "pipe=1,tpa=4,wg=128,fsum=8", 0},
        {"charmm", "pipe=0,tpa=1,wg=32", 0},   {"cpu", "", 1},
        {"cpu", "", 2},                        {"cluster", "", 0},
        {"cluster", "tpa=4", 0},
    };
    static const scl_precision precs[] = {SCL_PREC_SINGLE, SCL_PREC_MIXED, SCL_PREC_DOUBLE};
    static const char *prec_names[] = {"single", "mixed", "double"};
    FILE *want = argc > 1 ? fopen(argv[1], "r") : NULL;
    CHECK(argc < 2 || want, "cannot open %s", argc > 1 ? argv[1] : "");

    test_atoms water = {0};
    CHECK(charmm_water_box(400, 12345, &water.sys) == 0, "water box");
    CHECK(test_add_ghosts(&water, 12.0) == 0, "water ghosts");
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        /* (scl_env_options, not scl_context_create_env: bench/house-gpu.sh
         * builds this test against older libraries too) */
        static scl_env_options env;
        memset(&env, 0, sizeof env);
        test_reset_cache();
        env.context.force = *shapes[k].force ? shapes[k].force : NULL;
        scl_env_options_read(&env);
        char err[1024];
        scl_context *ctx = NULL;
        if (scl_context_create(&env.context, &ctx, err, sizeof err) != SCL_OK) {
            CHECK(0, "%s %s: cannot create context: %s", shapes[k].kind, shapes[k].force, err);
            continue;
        }
        for (int pr = 0; pr < 3; pr++) {
            scl_charmm_params p = test_params(&water.sys, precs[pr]);
            const double slj[4] = {1.0, 0.25, 0.5, 0.8}, scoul[4] = {1.0, 0.1, 0.4, 0.7};
            memcpy(p.special_lj, slj, sizeof slj);
            memcpy(p.special_coul, scoul, sizeof scoul);
            p.cut_lj_inner = 7.0;
            p.cut_lj = 9.5;
            p.cut_coul = 10.5;
            p.kernel = shapes[k].kind;
            p.lists = shapes[k].lists ? shapes[k].lists : p.lists;
            const char *why = NULL;
            uint64_t h = run(ctx, &p, &water, &why);
            char line[256], name[128];
            snprintf(name, sizeof name, "%s/%s/lists%d/%s", shapes[k].kind,
                     *shapes[k].force ? shapes[k].force : "default", shapes[k].lists,
                     prec_names[pr]);
            CHECK(!why || !strcmp(why, "unsupported"), "%s: %s", name, why ? why : "");
            if (why)
                snprintf(line, sizeof line, "%s refused (%s)\n", name, why);
            else
                snprintf(line, sizeof line, "%s %016llx\n", name, (unsigned long long)h);
            fputs(line, stdout);
            fflush(stdout); /* (a run cut short keeps its lines) */
            if (want) {
                char old[256];
                CHECK(fgets(old, sizeof old, want) && !strcmp(old, line),
                      "%s: bits differ from %s", name, argv[1]);
            }
        }
        scl_context_free(ctx);
    }
    if (want)
        fclose(want);
    test_atoms_free(&water);
    return test_summary("test_charmm_bits");
}
