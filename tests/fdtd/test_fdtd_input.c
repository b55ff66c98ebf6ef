/* The gprMax input reader: a complete model is read with gprMax's numbers
 * (cells, dt at the Courant limit, iterations = ceil(window/dt) + 1, node
 * rounding, default 10 PML cells), and every bad input gives an error naming
 * the file and line and the reason. */
#include "test_util.h"
#include "streamcl/fdtd.h"

#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/fdtd_inputXXXXXX";

static const char *write_input(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

#define BASE "#domain: 0.1 0.08 0.06\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 1e-9\n" \
             "#waveform: ricker 1 2e9 w1\n"

static void expect_error(const char *what, const char *text, const char *line_tag, const char *phrase)
{
    char err[1024] = "";
    scl_fdtd_model m;
    const char *path = write_input("bad.in", text);
    scl_status s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_ERR_INPUT, "%s: status %d (%s)", what, s, err);
    CHECK(strstr(err, line_tag) != NULL && strstr(err, phrase) != NULL,
          "%s: message '%s' lacks '%s' / '%s'", what, err, line_tag, phrase);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    char err[1024];
    scl_fdtd_model m;
    const char *path = write_input("good.in",
        "a comment line\n"
        "#title: two boxes\n"
        BASE
        "#material: 4 0.01 1 0 soil\n"
        "#hertzian_dipole: z 0.05 0.04 0.03 w1\n"
        "#rx: 0.061 0.040 0.030\n"
        "#rx: 0.02 0.02 0.02 deep Ez Hx\n"
        "#box: 0 0 0 0.1 0.08 0.02 soil\n"
        "#box: 0.01 0.01 0.01 0.02 0.02 0.02 pec\n"
        "#sphere: 0.07 0.04 0.03 0.006 soil n\n");
    scl_status s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_OK, "good input: %s", err);
    if (s == SCL_OK) {
        double dt = 0.002 / (SCL_FDTD_C0 * sqrt(3.0));
        CHECK(m.grid.nx == 50 && m.grid.ny == 40 && m.grid.nz == 30, "cells %d %d %d", m.grid.nx, m.grid.ny, m.grid.nz);
        CHECK(fabs(m.dt - dt) < 1e-25, "dt %.17g vs %.17g", m.dt, dt);
        CHECK(m.iterations == (long)ceil(1e-9 / dt) + 1, "iterations %ld", m.iterations);
        CHECK(m.pml[0] == 10 && m.pml[5] == 10, "default PML 10");
        CHECK(m.nsrc == 1 && m.src[0].pol == 2 && m.src[0].ijk[0] == 25 && m.src[0].ijk[2] == 15, "source");
        /* 0.061/0.002 = 30.5 rounds half down to 30 (gprMax's round_value) */
        CHECK(m.nrx == 2 && m.rx_ijk[0][0] == 30 && strcmp(m.rx_name[1], "deep") == 0, "rx %d", m.rx_ijk[0][0]);
        int soil = scl_fdtd_find_material(&m, "soil");
        CHECK(soil == 2 && m.solid[0] == soil && m.solid[5 + 50 * (5 + 40 * 5)] == 0, "boxes in order");
        CHECK(strcmp(m.title, "two boxes") == 0, "title '%s'", m.title);
        /* an Ez edge on the soil/air interface (z = 10 cells) is averaged: er 2.5 */
        const scl_grid3d *g = &m.grid;
        int q = m.id[SCL_EX][scl_grid3d_index(g, 30, 20, 10)];
        CHECK(fabs(m.mat[q].er - 2.5) < 1e-12 && fabs(m.mat[q].se - 0.005) < 1e-15, "averaged edge er %g", m.mat[q].er);
        CHECK(m.id[SCL_EX][scl_grid3d_index(g, 30, 20, 5)] == soil, "inside soil");
        CHECK(m.id[SCL_EX][scl_grid3d_index(g, 5, 6, 6)] == 0, "PEC box edge");
        scl_fdtd_model_free(&m);
    }
    /* integer time window: iterations */
    path = write_input("iters.in", "#domain: 0.02 0.02 0.02\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 250\n#pml_cells: 2 3 4 2 3 4\n");
    CHECK(scl_fdtd_read_input(path, &m, err, sizeof err) == SCL_OK && m.iterations == 250 && m.pml[1] == 3 && m.pml[5] == 4,
          "integer window / six PML counts: %s", err);
    scl_fdtd_model_free(&m);

    expect_error("unknown command", BASE "#foo: 1 2\n", "bad.in:5:", "unknown or unsupported command '#foo'");
    expect_error("box outside", BASE "#material: 4 0 1 0 s\n#box: 0 0 0 0.2 0.08 0.02 s\n", "bad.in:6:", "not inside the domain");
    expect_error("dt above Courant", BASE "#time_step_stability_factor: 1.5\n", "bad.in:5:", "Courant limit");
    expect_error("negative permittivity", BASE "#material: -2 0 1 0 m\n", "bad.in:5:", "permittivity");
    expect_error("missing waveform", BASE "#hertzian_dipole: z 0.05 0.04 0.03 nowave\n", "bad.in:5:",
                 "waveform 'nowave' is not defined");
    expect_error("rx outside", BASE "#hertzian_dipole: z 0.05 0.04 0.03 w1\n#rx: 0.05 0.09 0.03\n", "bad.in:6:", "outside the domain");
    expect_error("bad number", BASE "#material: 4 0.01x 1 0 soil\n", "bad.in:5:", "not a finite number");
    expect_error("unknown material", BASE "#box: 0 0 0 0.01 0.01 0.01 rock\n", "bad.in:5:", "material 'rock' is not defined");
    expect_error("unknown waveform type", BASE "#waveform: square 1 2e9 w\n", "bad.in:5:", "waveform type");
    expect_error("bad polarisation", BASE "#hertzian_dipole: q 0.05 0.04 0.03 w1\n", "bad.in:5:", "polarisation");
    expect_error("python", BASE "#python:\n", "bad.in:5:", "Python");
    expect_error("no domain", "#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 1e-9\n", "bad.in", "#domain is required");
    expect_error("pml fills", BASE "#pml_cells: 20\n", "bad.in:5:", "PML");
    expect_error("twice", BASE "#domain: 0.1 0.1 0.1\n", "bad.in:5:", "more than once");
    CHECK(scl_fdtd_read_input("/nonexistent/x.in", &m, err, sizeof err) == SCL_ERR_IO && strstr(err, "/nonexistent/x.in"), "missing file");
    /* the API refuses a dt above the limit, naming the limit */
    CHECK(scl_fdtd_model_init(&m, 4, 4, 4, 1e-3, 1e-3, 1e-3, 1, err, sizeof err) == SCL_OK, "%s", err);
    m.dt *= 1.001;
    CHECK(scl_fdtd_model_finish(&m, err, sizeof err) == SCL_ERR_INPUT && strstr(err, "Courant limit 1.9"), "%s", err);
    scl_fdtd_model_free(&m);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return test_summary("fdtd_input");
}
