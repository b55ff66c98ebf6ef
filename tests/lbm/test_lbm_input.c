/* Every bad input the benchmark can be given is refused with a message that
 * names the file and the line; good files read back exactly. The solver
 * refuses grids that do not fit the device. */
#include "streamcl/lbm.h"
#include "test_util.h"

#include <string.h>
#include <unistd.h>

static char dir[256];

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
    return path;
}

/* The parameter file `text` must fail with status and a message holding
 * "PATH:LINE:" (line 0: just the path). */
static void bad_params(const char *text, scl_status want, int line, const char *why)
{
    const char *path = write_file("params.txt", text);
    scl_lbm_params p;
    char err[1024] = "";
    scl_status s = scl_lbm_read_params(path, &p, err, sizeof err);
    char where[600];
    if (line)
        snprintf(where, sizeof where, "%s:%d:", path, line);
    else
        snprintf(where, sizeof where, "%s", path);
    CHECK(s == want, "%s: status %s, want %s (%s)", why, scl_status_name(s), scl_status_name(want),
          err);
    CHECK(strstr(err, where) != NULL, "%s: message '%s' does not name '%s'", why, err, where);
    printf("  %-34s -> %s\n", why, err);
}

static void bad_obstacles(const char *text, int line, const char *why)
{
    const char *path = write_file("obstacles.txt", text);
    scl_lbm_params p = {10, 8, 100, 10, 0.1f, 0.005f, 1.85f};
    unsigned char mask[80];
    char err[1024] = "";
    scl_status s = scl_lbm_read_obstacles(path, &p, mask, err, sizeof err);
    char where[600];
    if (line)
        snprintf(where, sizeof where, "%s:%d:", path, line);
    else
        snprintf(where, sizeof where, "%s", path);
    CHECK(s == SCL_ERR_INPUT, "%s: status %s (%s)", why, scl_status_name(s), err);
    CHECK(strstr(err, where) != NULL, "%s: message '%s' does not name '%s'", why, err, where);
    printf("  %-34s -> %s\n", why, err);
}

int main(void)
{
    uint64_t rng = test_seed();
    snprintf(dir, sizeof dir, "/tmp/streamcl_lbm_input_%ld", (long)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0)
        return 2;

    /* a good file with random values reads back exactly */
    int nx = 1 + (int)(test_uniform(&rng) * 500), ny = 2 + (int)(test_uniform(&rng) * 500);
    double omega = 0.05 + 1.9 * test_uniform(&rng);
    char good[256];
    snprintf(good, sizeof good, "%d\n%d\n%d\n%d\n0.1\n0.005\n%.9g\n", nx, ny, 17, nx, omega);
    scl_lbm_params p;
    char err[1024] = "";
    scl_status s = scl_lbm_read_params(write_file("params.txt", good), &p, err, sizeof err);
    CHECK(s == SCL_OK, "good parameter file refused: %s", err);
    CHECK(p.nx == nx && p.ny == ny && p.max_iters == 17 && p.omega == (float)omega &&
              p.density == 0.1f && p.accel == 0.005f,
          "good parameter file misread");

    printf("parameter files:\n");
    bad_params("", SCL_ERR_INPUT, 1, "empty file");
    bad_params("128\n128\n100\n", SCL_ERR_INPUT, 4, "short file");
    bad_params("128\n12x8\n100\n128\n0.1\n0.005\n1.85\n", SCL_ERR_INPUT, 2, "non-numeric ny");
    bad_params("128\n128\n100\n128\n0.1\nabc\n1.85\n", SCL_ERR_INPUT, 6, "non-numeric accel");
    bad_params("128\n128\n1.5\n128\n0.1\n0.005\n1.85\n", SCL_ERR_INPUT, 3, "fractional maxIters");
    bad_params("0\n128\n100\n128\n0.1\n0.005\n1.85\n", SCL_ERR_INPUT, 1, "nx = 0");
    bad_params("128\n-4\n100\n128\n0.1\n0.005\n1.85\n", SCL_ERR_INPUT, 2, "ny < 0");
    bad_params("128\n999999\n100\n128\n0.1\n0.005\n1.85\n", SCL_ERR_INPUT, 2, "ny too large");
    bad_params("128\n128\n100\n128\n0.1\n0.005\n2.0\n", SCL_ERR_INPUT, 7, "omega = 2");
    bad_params("128\n128\n100\n128\n0.1\n0.005\n0\n", SCL_ERR_INPUT, 7, "omega = 0");
    bad_params("128\n128\n100\n128\n0.1\n0.005\nnan\n", SCL_ERR_INPUT, 7, "omega NaN");
    bad_params("128\n128\n100\n128\n-0.1\n0.005\n1.85\n", SCL_ERR_INPUT, 5, "negative density");
    scl_lbm_params dummy;
    s = scl_lbm_read_params("/nonexistent/params.txt", &dummy, err, sizeof err);
    CHECK(s == SCL_ERR_IO && strstr(err, "/nonexistent/params.txt"), "missing file: %s", err);
    printf("  %-34s -> %s\n", "missing file", err);

    printf("obstacle files:\n");
    unsigned char mask[80];
    scl_lbm_params q = {10, 8, 100, 10, 0.1f, 0.005f, 1.85f};
    s = scl_lbm_read_obstacles(write_file("obstacles.txt", "0 0 1\n\n9 7 1\n3 4 1\n"), &q, mask,
                               err, sizeof err);
    CHECK(s == SCL_OK && mask[0] && mask[79] && mask[3 + 4 * 10] && mask[1] == 0,
          "good obstacle file misread: %s", err);
    bad_obstacles("0 0 1\n1 2\n", 2, "two values");
    bad_obstacles("0 0 1\n1 2 1 4\n", 2, "four values");
    bad_obstacles("0 0 1\n1 2 x\n", 2, "non-numeric");
    bad_obstacles("0 0 1\n3 3 1\n10 0 1\n", 3, "x out of range");
    bad_obstacles("0 -1 1\n", 1, "y negative");
    bad_obstacles("0 8 1\n", 1, "y out of range");
    bad_obstacles("2 2 0\n", 1, "blocked value 0");
    bad_obstacles("2 2 2\n", 1, "blocked value 2");
    char all[2048] = "";
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 10; x++)
            snprintf(all + strlen(all), sizeof all - strlen(all), "%d %d 1\n", x, y);
    bad_obstacles(all, 0, "every cell blocked");
    s = scl_lbm_read_obstacles("/nonexistent/obstacles.txt", &q, mask, err, sizeof err);
    CHECK(s == SCL_ERR_IO && strstr(err, "/nonexistent/obstacles.txt"), "missing file: %s", err);

    /* the solver: a lattice larger than the device allows is refused cleanly */
    scl_context *ctx = test_context();
    scl_lbm_params huge = {65536, 65536, 1, 1, 0.1f, 0.005f, 1.85f};
    /* 2^32 * 9 exceeds 32-bit indexing: refused before any allocation */
    unsigned char one = 0;
    scl_lbm *lbm = NULL;
    s = scl_lbm_create(ctx, &huge, &one, NULL, &lbm);
    CHECK(s == SCL_ERR_INPUT && lbm == NULL, "huge grid: %s", scl_status_name(s));
    huge.nx = 21000;
    huge.ny = 21000; /* 4e9 floats: indexable, but more than PoCL here allows */
    const scl_device_info *dev = scl_device(ctx);
    size_t ncell = (size_t)huge.nx * huge.ny;
    unsigned char *hmask = (double)ncell * 36 > (double)dev->max_alloc ? calloc(ncell, 1) : NULL;
    if (hmask) {
        s = scl_lbm_create(ctx, &huge, hmask, NULL, &lbm);
        CHECK(s == SCL_ERR_TOO_LARGE && lbm == NULL, "too large for the device: %s (%s)",
              scl_status_name(s), scl_last_error(ctx));
        printf("  %-34s -> %s\n", "grid too large for the device", scl_last_error(ctx));
        free(hmask);
    }
    scl_context_free(ctx);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return test_summary("lbm_input");
}
