/* The component materials of scl_fdtd_model_finish (issue 24: built row by
 * row in parallel where the cells around a node agree, the rest in node
 * order) against the rule applied node by node in node order, as the
 * solver once did: random models of boxes of several materials, averaged
 * and not (rigid), PEC among them, thin boxes of one cell, boxes on the
 * domain's faces; every component index equal, and the averaged materials
 * added in the same order with the same properties. Also the uniform
 * model (free space: every index 1, scl_fdtd_model_uniform) and one
 * material box in it (not uniform). */
#include "test_util.h"
#include "streamcl/fdtd.h"

#include <string.h>

typedef struct {
    scl_fdtd_material mat[SCL_FDTD_MAX_MATERIALS];
    int nmat;
} table;

static size_t cell_at(const scl_fdtd_model *m, int i, int j, int k)
{
    return (size_t)i + (size_t)m->grid.nx * ((size_t)j + (size_t)m->grid.ny * (size_t)k);
}

/* the rule of one node: cells around component c (E: 4 across, H: 2 along) */
static int rule(const scl_fdtd_model *m, table *t, int c, int i, int j, int k)
{
    const int a = c % 3, b = (a + 1) % 3, d = (a + 2) % 3, nn[3] = {m->grid.nx, m->grid.ny, m->grid.nz};
    int ids[4], n = 0, rigid_id = -1;
    unsigned rigid_last = 0;
    for (int q = 0; q < (c < 3 ? 4 : 2); q++) {
        int p[3] = {i, j, k};
        if (c < 3) {
            p[b] -= q & 1;
            p[d] -= q >> 1;
        } else {
            p[a] -= q;
        }
        if (p[0] < 0 || p[1] < 0 || p[2] < 0 || p[0] >= nn[0] || p[1] >= nn[1] || p[2] >= nn[2])
            continue;
        const size_t ci = cell_at(m, p[0], p[1], p[2]);
        if (m->rigid[ci] > rigid_last && (c < 3 || !t->mat[m->solid[ci]].pec)) {
            rigid_id = m->solid[ci];
            rigid_last = m->rigid[ci];
        }
        ids[n++] = m->solid[ci];
    }
    if (n == 0)
        return 1;
    for (int q = 0; q < n && c < 3; q++)
        if (t->mat[ids[q]].pec)
            return 0;
    if (rigid_id >= 0)
        return rigid_id;
    int same = 1;
    for (int q = 1; q < n; q++)
        same &= ids[q] == ids[0];
    if (same)
        return ids[0];
    if (c >= 3) {
        for (int q = 0; q < n; q++)
            if (t->mat[ids[q]].pec)
                ids[q] = 1;
        if (ids[0] == ids[n - 1])
            return ids[0];
    }
    double er = 0, se = 0, mr = 0, sm = 0;
    for (int q = 0; q < n; q++) {
        er += t->mat[ids[q]].er / n;
        se += t->mat[ids[q]].se / n;
        mr += t->mat[ids[q]].mr / n;
        sm += t->mat[ids[q]].sm / n;
    }
    for (int q = 2; q < t->nmat; q++) {
        const scl_fdtd_material *x = &t->mat[q];
        if (x->er == er && x->se == se && x->mr == mr && x->sm == sm && !x->pec && !x->npoles)
            return q;
    }
    if (t->nmat >= SCL_FDTD_MAX_MATERIALS)
        return -1;
    scl_fdtd_material *x = &t->mat[t->nmat];
    memset(x, 0, sizeof *x);
    x->er = er;
    x->se = se;
    x->mr = mr;
    x->sm = sm;
    return t->nmat++;
}

/* finish m and compare with the rule over the table as it was before */
static void compare(scl_fdtd_model *m, const char *what)
{
    table t;
    memcpy(t.mat, m->mat, sizeof t.mat);
    t.nmat = m->nmat;
    const int before = m->nmat;
    char err[512];
    scl_status st = scl_fdtd_model_finish(m, err, sizeof err);
    CHECK(st == SCL_OK, "%s: finish: %s", what, err);
    if (st != SCL_OK)
        return;
    const scl_grid3d *g = &m->grid;
    long bad = 0, nodes = 0;
    int first_bad[5] = {-1, 0, 0, 0, 0};
    for (int c = 0; c < 6; c++)
        for (int k = 0; k <= g->nz; k++)
            for (int j = 0; j <= g->ny; j++)
                for (int i = 0; i <= g->nx; i++, nodes++) {
                    const int want = rule(m, &t, c, i, j, k);
                    const int got = m->id[c][scl_grid3d_index(g, i, j, k)];
                    if (want != got && bad++ == 0) {
                        const int fb[5] = {c, i, j, k, want * 1000 + got};
                        memcpy(first_bad, fb, sizeof fb);
                    }
                }
    CHECK(bad == 0, "%s: %ld of %ld component indices differ from the node rule (first: "
          "component %d at %d %d %d: want %d got %d)", what, bad, nodes, first_bad[0],
          first_bad[1], first_bad[2], first_bad[3], first_bad[4] / 1000, first_bad[4] % 1000);
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
    char what[64];
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
