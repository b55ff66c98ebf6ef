/* The component materials of scl_fdtd_model_finish (issue 24: built row by
 * row in parallel where the cells around a node agree, the rest in node
 * order) against the library's rule of one node (scl_fdtd_component_material:
 * its rule itself is checked against gprMax by fdtd_input and the gprMax
 * geometry tests) applied node by node in node order, as the solver once did: random models of boxes of several materials, averaged
 * and not (rigid), PEC among them, thin boxes of one cell, boxes on the
 * domain's faces; every component index equal, and the averaged materials
 * added in the same order with the same properties. Also the uniform
 * model (free space: every index 1, scl_fdtd_model_uniform) and one
 * material box in it (not uniform). */
#include "test_util.h"
#include "fdtd/fdtd_internal.h"
#include "streamcl/fdtd.h"

#include <string.h>

typedef struct {
    scl_fdtd_material mat[SCL_FDTD_MAX_MATERIALS];
    int nmat;
} table;

/* finish m and compare with the library's node rule applied to every node
 * in node order, from the table as it was before (finish does no more on
 * these models: no fixed points, TE or voltage sources) */
static void compare(scl_fdtd_model *m, const char *what)
{
    table start, t;
    memcpy(start.mat, m->mat, sizeof start.mat);
    start.nmat = m->nmat;
    const int before = m->nmat;
    char err[512];
    scl_status st = scl_fdtd_model_finish(m, err, sizeof err);
    CHECK(st == SCL_OK, "%s: finish: %s", what, err);
    if (st != SCL_OK)
        return;
    table done; /* the finished table: set back after the rule's pass */
    memcpy(done.mat, m->mat, sizeof done.mat);
    done.nmat = m->nmat;
    memcpy(m->mat, start.mat, sizeof start.mat);
    m->nmat = start.nmat;
    const scl_grid3d *g = &m->grid;
    long bad = 0, nodes = 0;
    int first_bad[5] = {-1, 0, 0, 0, 0};
    for (int c = 0; c < 6; c++)
        for (int k = 0; k <= g->nz; k++)
            for (int j = 0; j <= g->ny; j++)
                for (int i = 0; i <= g->nx; i++, nodes++) {
                    const int want = scl_fdtd_component_material(m, c, i, j, k);
                    const int got = m->id[c][scl_grid3d_index(g, i, j, k)];
                    if (want != got && bad++ == 0) {
                        const int fb[5] = {c, i, j, k, want * 1000 + got};
                        memcpy(first_bad, fb, sizeof fb);
                    }
                }
    CHECK(bad == 0, "%s: %ld of %ld component indices differ from the node rule (first: "
          "component %d at %d %d %d: want %d got %d)", what, bad, nodes, first_bad[0],
          first_bad[1], first_bad[2], first_bad[3], first_bad[4] / 1000, first_bad[4] % 1000);
    memcpy(t.mat, m->mat, sizeof t.mat);
    t.nmat = m->nmat;
    memcpy(m->mat, done.mat, sizeof done.mat);
    m->nmat = done.nmat;
    CHECK(t.nmat == m->nmat, "%s: %d materials, the node rule makes %d", what, m->nmat, t.nmat);
    for (int q = 2; q < t.nmat && q < m->nmat; q++)
        CHECK(t.mat[q].er == m->mat[q].er && t.mat[q].se == m->mat[q].se &&
                  t.mat[q].mr == m->mat[q].mr && t.mat[q].sm == m->mat[q].sm,
              "%s: material %d (%s) differs from the node rule's", what, q, m->mat[q].name);
    printf("%s: %ld nodes, %d materials (%d averaged): as the node rule\n", what, nodes, m->nmat,
           m->nmat - before);
}

static int pick(uint64_t *rng, int n) { return (int)(test_uniform(rng) * n) % n; }

static void random_model(uint64_t *rng, int round)
{
    const int nx = 13 + pick(rng, 20), ny = 9 + pick(rng, 14), nz = 7 + pick(rng, 12);
    scl_fdtd_model m;
    char err[512];
    if (scl_fdtd_model_init(&m, nx, ny, nz, 1e-3, 1e-3, 1e-3, 1.0, err, sizeof err) != SCL_OK) {
        CHECK(0, "init: %s", err);
        return;
    }
    const int nmat = 2 + pick(rng, 5);
    for (int q = 0; q < nmat; q++) {
        char name[16];
        snprintf(name, sizeof name, "m%d", q);
        scl_fdtd_add_material(&m, name, 1 + 9 * test_uniform(rng), 0.05 * pick(rng, 3), 1 + pick(rng, 2),
                              0, err, sizeof err);
    }
    const int boxes = 3 + pick(rng, 12);
    for (int b = 0; b < boxes; b++) {
        int lo[3], hi[3], n[3] = {nx, ny, nz};
        for (int a = 0; a < 3; a++) {
            lo[a] = pick(rng, n[a]);
            /* thin (one cell), to the face, or any */
            const int kind = pick(rng, 3);
            hi[a] = kind == 0 ? lo[a] + 1 : kind == 1 ? n[a] : lo[a] + 1 + pick(rng, n[a] - lo[a]);
        }
        const int mat = pick(rng, 5) == 0 ? 0 : 1 + pick(rng, m.nmat - 1); /* some PEC */
        m.objects++;
        scl_fdtd_fill_box(&m, lo, hi, mat, pick(rng, 3) != 0);
    }
    char what[128];
    snprintf(what, sizeof what, "random model %d (%d x %d x %d, %d boxes)", round, nx, ny, nz, boxes);
    compare(&m, what);
    scl_fdtd_model_free(&m);
}

static void uniform_models(void)
{
    scl_fdtd_model m;
    char err[512];
    if (scl_fdtd_model_init(&m, 70, 33, 21, 1e-3, 1e-3, 1e-3, 1.0, err, sizeof err) != SCL_OK) {
        CHECK(0, "init: %s", err);
        return;
    }
    compare(&m, "free space");
    CHECK(scl_fdtd_model_uniform(&m) == 1, "free space is not uniform");
    const int soil = scl_fdtd_add_material(&m, "soil", 4, 0.01, 1, 0, err, sizeof err);
    const int lo[3] = {30, 0, 0}, hi[3] = {31, 1, 1};
    m.objects++;
    scl_fdtd_fill_box(&m, lo, hi, soil, 1);
    compare(&m, "free space and one soil cell");
    CHECK(scl_fdtd_model_uniform(&m) == 0, "a model with a soil cell is uniform");
    scl_fdtd_model_free(&m);
}

int main(void)
{
    uint64_t rng = test_seed();
    uniform_models();
    for (int round = 0; round < 40; round++)
        random_model(&rng, round);
    return test_summary("fdtd_materials");
}
