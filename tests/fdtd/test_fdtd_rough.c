/* #add_surface_roughness as gprMax 4.0.1 defines it: the surface generator
 * (2D noise filtered by |w k|^-D: spectrum slope -2D, stretched exactly
 * onto the height range, a seed repeats it), a rough upper and lower face
 * of a fractal box in a model (every column of soil contiguous, its end at
 * the surface's height: the range's ends reached exactly, the box grown to
 * the limits), and bad inputs named by file and line. */
#include "fdtd_test_input.h"

#include <math.h>

/* 50 x 40 x 30 cells of 2 mm */
#define BASE "#domain: 0.1 0.08 0.06\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 1e-9\n" \
             "#soil_peplinski: 0.5 0.5 2.0 2.66 0.001 0.25 mysoil\n"

/* power of the surface at frequency k along axis 0 (all of axis 1 summed) */
static double power_along(const double *h, const int n[2], int k)
{
    double re = 0, im = 0;
    for (int j = 0; j < n[1]; j++)
        for (int i = 0; i < n[0]; i++) {
            double ph = 2 * M_PI * k * i / n[0];
            re += h[i + n[0] * j] * cos(ph);
            im -= h[i + n[0] * j] * sin(ph);
        }
    return re * re + im * im;
}

static void generator(void)
{
    int n[2] = {128, 64};
    double w[2] = {1, 1}, D = 1.5;
    double *a = malloc(128 * 64 * sizeof *a), *b = malloc(128 * 64 * sizeof *b);
    double *c = malloc(128 * 64 * sizeof *c);
    CHECK(a && b && c && scl_fdtd_fractal_surface(n, D, w, 3, 10, 20, a) == 0 &&
              scl_fdtd_fractal_surface(n, D, w, 3, 10, 20, b) == 0 &&
              scl_fdtd_fractal_surface(n, D, w, 4, 10, 20, c) == 0,
          "fractal surfaces");
    if (!a || !b || !c)
        return;
    double lo = INFINITY, hi = -INFINITY;
    long differ = 0;
    for (long q = 0; q < 128 * 64; q++) {
        lo = fmin(lo, a[q]);
        hi = fmax(hi, a[q]);
        differ += a[q] != c[q];
    }
    CHECK(lo == 10 && fabs(hi - 20) < 1e-12, "surface range [%.15g, %.15g], want [10, 20]", lo, hi);
    CHECK(memcmp(a, b, 128 * 64 * sizeof *a) == 0 && differ > 128 * 60,
          "a seed repeats its surface, another changes %ld of %d points", differ, 128 * 64);
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int npt = 0;
    for (int k = 2; k <= 16; k *= 2) {
        double x = log(k), y = log(power_along(a, n, k));
        sx += x, sy += y, sxx += x * x, sxy += x * y, npt++;
    }
    double slope = (npt * sxy - sx * sy) / (npt * sxx - sx * sx);
    CHECK(fabs(slope + 2 * D) < 0.6, "surface spectrum slope %.2f (-2D = %.1f)", slope, -2 * D);
    free(a);
    free(b);
    free(c);
}

/* Per column (i, j) of the model: the lowest and highest soil cell (soil:
 * a material with poles) and whether the soil is contiguous between them. */
static void columns(const scl_fdtd_model *m, int *lo_min, int *lo_max, int *hi_min, int *hi_max,
                    int *gaps)
{
    const scl_grid3d *g = &m->grid;
    *lo_min = *hi_min = 1 << 30;
    *lo_max = *hi_max = -1;
    *gaps = 0;
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            int first = -1, last = -1, count = 0;
            for (int k = 0; k < g->nz; k++)
                if (m->mat[m->solid[i + g->nx * (j + g->ny * k)]].npoles) {
                    first = first < 0 ? k : first;
                    last = k;
                    count++;
                }
            *gaps += count != last - first + 1;
            *lo_min = first < *lo_min ? first : *lo_min;
            *lo_max = first > *lo_max ? first : *lo_max;
            *hi_min = last < *hi_min ? last : *hi_min;
            *hi_max = last > *hi_max ? last : *hi_max;
        }
}

static void model(void)
{
    char err[1024];
    scl_fdtd_model m, again;
    /* box z 0..10 cells; the upper face's height from 7 to 15 cells (0.015
     * to 0.030 m): soil where k < height, so the top soil cell is 6 .. 14 */
    const char *up = BASE "#fractal_box: 0 0 0 0.1 0.08 0.02 1.5 1 1 1 10 mysoil fbox 5\n"
                          "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 1.5 1 1 0.015 0.03 fbox 4\n";
    const char *path = write_input("up.in", up);
    scl_status s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_OK, "rough upper face: %s", err);
    if (s == SCL_OK) {
        int lo_min, lo_max, hi_min, hi_max, gaps;
        columns(&m, &lo_min, &lo_max, &hi_min, &hi_max, &gaps);
        CHECK(gaps == 0 && lo_min == 0 && lo_max == 0 && hi_min == 6 && hi_max == 14,
              "upper face: soil from cell %d..%d to %d..%d, %d columns with gaps (want 0, 6..14, 0)",
              lo_min, lo_max, hi_min, hi_max, gaps);
        CHECK(scl_fdtd_read_input(path, &again, err, sizeof err) == SCL_OK &&
                  memcmp(m.solid, again.solid, (size_t)50 * 40 * 30) == 0,
              "the seeds repeat the soil and its surface");
        scl_fdtd_model_free(&again);
        scl_fdtd_model_free(&m);
    }
    /* another seed for the surface: another surface */
    char up2[256];
    snprintf(up2, sizeof up2, "%s",
             write_input("up2.in", BASE "#fractal_box: 0 0 0 0.1 0.08 0.02 1.5 1 1 1 10 mysoil fbox 5\n"
                                        "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 1.5 1 1 0.015 0.03 fbox 9\n"));
    if (scl_fdtd_read_input(write_input("up.in", up), &m, err, sizeof err) == SCL_OK) {
        s = scl_fdtd_read_input(up2, &again, err, sizeof err);
        long differ = 0;
        for (long q = 0; s == SCL_OK && q < 50 * 40 * 30; q++)
            differ += m.mat[m.solid[q]].npoles != again.mat[again.solid[q]].npoles;
        CHECK(s == SCL_OK && differ > 500, "another surface seed moves %ld cells", differ);
        if (s == SCL_OK)
            scl_fdtd_model_free(&again);
        scl_fdtd_model_free(&m);
    }
    /* box z 10..20 cells, its lower face rough from 5 to 12 cells: soil
     * where k > height, so the lowest soil cell is 6 .. 12 */
    path = write_input("down.in", BASE "#fractal_box: 0 0 0.02 0.1 0.08 0.04 1.5 1 1 1 10 mysoil fbox 5\n"
                                       "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 2.0 1 2 0.01 0.024 fbox 2\n");
    s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_OK, "rough lower face: %s", err);
    if (s == SCL_OK) {
        int lo_min, lo_max, hi_min, hi_max, gaps;
        columns(&m, &lo_min, &lo_max, &hi_min, &hi_max, &gaps);
        CHECK(gaps == 0 && lo_min == 6 && lo_max == 12 && hi_min == 19 && hi_max == 19,
              "lower face: soil from cell %d..%d to %d..%d, %d columns with gaps (want 6..12, 19, 0)",
              lo_min, lo_max, hi_min, hi_max, gaps);
        scl_fdtd_model_free(&m);
    }
}

/* #add_grass on the rough upper face: gprMax's grass material, blades up
 * to the upper limit and roots below the face, repeated by its seed */
static void grass(void)
{
    char err[1024];
    scl_fdtd_model m, again;
    const char *text = BASE "#fractal_box: 0 0 0 0.1 0.08 0.02 1.5 1 1 1 10 mysoil fbox 5\n"
                            "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 1.5 1 1 0.015 0.03 fbox 4\n"
                            "#add_grass: 0 0 0.02 0.1 0.08 0.02 1.5 0.03 0.05 60 fbox 3\n";
    const char *path = write_input("grass.in", text);
    scl_status s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_OK, "grass: %s", err);
    if (s != SCL_OK)
        return;
    int g = scl_fdtd_find_material(&m, "grass");
    CHECK(g >= 0 && m.mat[g].npoles == 1 && m.mat[g].er == 12.7174,
          "gprMax's grass material (er at infinity 12.7174, one Debye pole)");
    long above = 0, below = 0, top = -1, cols = 0;
    for (int j = 0; j < 40; j++)
        for (int i = 0; i < 50; i++) {
            int has = 0;
            for (int k = 0; k < 30; k++)
                if (m.solid[i + 50 * (j + 40 * k)] == g) {
                    above += k >= 15;
                    below += k < 10;
                    top = k > top ? k : top;
                    has |= k >= 15;
                }
            cols += has;
        }
    CHECK(above > 60 && below > 10 && top <= 24 && top >= 20 && cols >= 20 && cols <= 60 * 3,
          "grass: %ld cells above the rough range, %ld roots below the face, top cell %ld (<= 24), "
          "%ld columns of blades",
          above, below, top, cols);
    CHECK(scl_fdtd_read_input(path, &again, err, sizeof err) == SCL_OK &&
              memcmp(m.solid, again.solid, (size_t)50 * 40 * 30) == 0,
          "the seed repeats the grass");
    scl_fdtd_model_free(&again);
    scl_fdtd_model_free(&m);
}

/* bad inputs after a fractal box fbox: the line each adds, where the
 * message must point and what it must say */
static void bad_inputs(void)
{
    static const bad_line bad[] = {
        {"unknown box", "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 1.5 1 1 0.015 0.03 nobox\n", "bad.in:6:",
         "fractal box 'nobox' is not defined"},
        {"parameters", "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 1.5 1 1 0.015 fbox\n", "bad.in:6:",
         "needs 12 to 13 parameters"},
        {"not a face", "#add_surface_roughness: 0 0 0.01 0.1 0.08 0.01 1.5 1 1 0.005 0.03 fbox\n", "bad.in:6:",
         "outer face"},
        {"not flat", "#add_surface_roughness: 0 0 0.01 0.1 0.08 0.02 1.5 1 1 0.015 0.03 fbox\n", "bad.in:6:",
         "zero size on exactly one axis"},
        {"upper limit", "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 1.5 1 1 0.015 0.07 fbox\n", "bad.in:6:",
         "inside the domain"},
        {"lower limit", "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 1.5 1 1 0.04 0.03 fbox\n", "bad.in:6:",
         "lower <= upper"},
        {"lower face, upper limit", "#add_surface_roughness: 0 0 0 0.1 0.08 0 1.5 1 1 0 0.03 fbox\n", "bad.in:6:",
         "upper limit must be inside the fractal box"},
        {"dimension", "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 -1 1 1 0.015 0.03 fbox\n", "bad.in:6:",
         "must be >= 0"},
        {"seed", "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 1.5 1 1 0.015 0.03 fbox x\n", "bad.in:6:", "seed"},
        {"a face twice",
         "#add_surface_roughness: 0 0 0.02 0.1 0.08 0.02 1.5 1 1 0.015 0.03 fbox\n"
         "#add_surface_roughness: 0 0 0.02 0.05 0.08 0.02 1.5 1 1 0.015 0.03 fbox\n",
         "bad.in:7:", "already has a rough surface"},
        {"grass below", "#add_grass: 0 0 0 0.1 0.08 0 1.5 0.03 0.05 60 fbox\n", "bad.in:6:", "upper face"},
        {"grass blades", "#add_grass: 0 0 0.02 0.1 0.08 0.02 1.5 0.03 0.05 2001 fbox\n", "bad.in:6:",
         "number of blades"},
        {"grass heights", "#add_grass: 0 0 0.02 0.1 0.08 0.02 1.5 0.05 0.03 60 fbox\n", "bad.in:6:",
         "lower < upper"},
        {"grass box", "#add_grass: 0 0 0.02 0.1 0.08 0.02 1.5 0.03 0.05 60 nobox\n", "bad.in:6:",
         "fractal box 'nobox' is not defined"},
    };
    EXPECT_ERRORS(BASE "#fractal_box: 0 0 0 0.1 0.08 0.02 1.5 1 1 1 10 mysoil fbox 5\n", bad);
}

int main(void)
{
    if (input_dir_make() != 0)
        return 1;
    generator();
    model();
    grass();
    bad_inputs();
    if (input_dir_remove() != 0)
        fprintf(stderr, "could not remove %s\n", fdtd_test_dir);
    return test_summary("fdtd_rough");
}
