/* The file readers and the solver's input checks at the C API: a good file
 * reads back exactly; each bad input gives SCL_ERR_INPUT/IO with a message
 * naming the file and the line; a lattice over the device's allocation limit
 * is SCL_ERR_TOO_LARGE before anything is allocated. (The command's handling
 * of the same inputs, end to end, is cli_bad_input.sh.) */
#include "streamcl/lbm.h"
#include "test_util.h"

#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/scl_lbm_input_XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    return test_write_text(dir, name, text);
}

static void bad_params(const char *name, const char *text, scl_status want, const char *where)
{
    const char *path = write_file(name, text);
    char err[1024] = "", expect[512];
    scl_lbm_params p;
    scl_status s = scl_lbm_read_params(path, &p, err, sizeof err);
    snprintf(expect, sizeof expect, "%s%s", path, where);
    CHECK(s == want, "%s: status %s, want %s (%s)", name, scl_status_name(s), scl_status_name(want),
          err);
    CHECK(strstr(err, expect) != NULL, "%s: message '%s' lacks '%s'", name, err, expect);
}

static void bad_obstacles(const char *name, const char *text, const char *where)
{
    const char *path = write_file(name, text);
    scl_lbm_params p = {16, 8, 10, 16, 0.1f, 0.005f, 1.85f};
    unsigned char mask[16 * 8];
    char err[1024] = "", expect[512];
    scl_status s = scl_lbm_read_obstacles(path, &p, mask, err, sizeof err);
    snprintf(expect, sizeof expect, "%s%s", path, where);
    CHECK(s == SCL_ERR_INPUT, "%s: status %s (%s)", name, scl_status_name(s), err);
    CHECK(strstr(err, expect) != NULL, "%s: message '%s' lacks '%s'", name, err, expect);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char err[1024];
    scl_lbm_params p;
    const char *good = write_file("good.params", "128\n256\n20000\n128\n0.1\n0.005\n1.85\n");
    CHECK(scl_lbm_read_params(good, &p, err, sizeof err) == SCL_OK, "good file: %s", err);
    CHECK(p.nx == 128 && p.ny == 256 && p.max_iters == 20000 && p.reynolds_dim == 128 &&
              p.density == 0.1f && p.accel == 0.005f && p.omega == 1.85f,
          "good file read as %d %d %d %d %g %g %g", p.nx, p.ny, p.max_iters, p.reynolds_dim,
          (double)p.density, (double)p.accel, (double)p.omega);
    unsigned char mask[16 * 8];
    const char *obst = write_file("good.obst", "0 0 1\n\n  15 7 1  \n");
    scl_lbm_params small = {16, 8, 10, 16, 0.1f, 0.005f, 1.85f};
    CHECK(scl_lbm_read_obstacles(obst, &small, mask, err, sizeof err) == SCL_OK, "%s", err);
    CHECK(mask[0] == 1 && mask[15 + 7 * 16] == 1 && scl_lbm_fluid_cells(&small, mask) == 126,
          "obstacle mask wrong");

    char missing[300];
    snprintf(missing, sizeof missing, "%s/none.params", dir);
    CHECK(scl_lbm_read_params(missing, &p, err, sizeof err) == SCL_ERR_IO && strstr(err, missing),
          "missing file: %s", err);
    bad_params("short.params", "16\n8\n40\n", SCL_ERR_INPUT, ":4: file ends before reynolds_dim");
    bad_params("text.params", "16\n8\n40\n16\nthick\n0.005\n1.85\n", SCL_ERR_INPUT,
               ":5: density must be a finite number");
    bad_params("nx0.params", "0\n8\n40\n16\n0.1\n0.005\n1.85\n", SCL_ERR_INPUT, ":1: ");
    bad_params("ny1.params", "16\n1\n40\n16\n0.1\n0.005\n1.85\n", SCL_ERR_INPUT, ":2: ");
    bad_params("iters.params", "16\n8\n-1\n16\n0.1\n0.005\n1.85\n", SCL_ERR_INPUT, ":3: ");
    bad_params("omega.params", "16\n8\n40\n16\n0.1\n0.005\n2.5\n", SCL_ERR_INPUT, ":7: ");
    bad_params("overflow.params", "99999999999\n8\n40\n16\n0.1\n0.005\n1.85\n", SCL_ERR_INPUT,
               ":1: nx must be an integer");
    bad_obstacles("arity.obst", "1 1 1\n1 2\n", ":2: expected 'x y 1', got 2 values");
    bad_obstacles("range.obst", "1 1 1\n\n1 9 1\n", ":3: cell (1, 9) outside");
    bad_obstacles("value.obst", "1 1 -1\n", ":1: blocked value must be 1, got -1");

    /* a lattice over the device's per-buffer limit that 32-bit indexing still
     * allows: refused up front (PoCL here: 2 GiB per buffer) */
    scl_context *ctx = test_context();
    const scl_device_info *dev = scl_device(ctx);
    double cells = (double)dev->max_alloc / (SCL_LBM_Q * sizeof(float)) * 1.05;
    int ny = (int)(cells / 65536.0) + 1;
    if ((double)ny * 65536.0 * SCL_LBM_Q <= 4294967295.0) {
        scl_lbm_params big = {65536, ny, 10, 16, 0.1f, 0.005f, 1.85f};
        unsigned char *m = calloc((size_t)65536 * (size_t)ny, 1);
        scl_lbm *lbm = NULL;
        scl_status s = m ? scl_lbm_create(ctx, &big, m, NULL, &lbm) : SCL_ERR_MEMORY;
        CHECK(s == SCL_ERR_TOO_LARGE && lbm == NULL, "65536x%d on %s: %s (%s)", ny, dev->name,
              scl_status_name(s), scl_last_error(ctx));
        printf("65536x%d: %s: %s\n", ny, scl_status_name(s), scl_last_error(ctx));
        scl_lbm_free(lbm);
        free(m);
    } else {
        SKIP("the too-large case: %s allows %.1f GiB per buffer, more than any lattice "
             "32-bit indexing allows",
             dev->name, (double)dev->max_alloc / 1073741824.0);
    }
    scl_context_free(ctx);
    const char *names[] = {"good.params", "good.obst", "short.params", "text.params",
                           "nx0.params",  "ny1.params", "iters.params", "omega.params",
                           "overflow.params", "arity.obst", "range.obst", "value.obst"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[300];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    rmdir(dir);
    return test_summary("lbm_input");
}
