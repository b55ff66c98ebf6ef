/* The shared 3D grid pieces: indexing and sub-domains, gprMax rounding,
 * CPML coefficients, wavelets against their definitions, run-file lines,
 * output files that are complete or absent, PNG slices. */
#include "test_util.h"
#include "streamcl/grid3d.h"

#include <string.h>
#include <unistd.h>

static void test_grid(uint64_t *rng)
{
    char err[512];
    scl_grid3d g;
    int nx = 3 + (int)(test_uniform(rng) * 20), ny = 2 + (int)(test_uniform(rng) * 9),
        nz = 1 + (int)(test_uniform(rng) * 7);
    CHECK(scl_grid3d_init(&g, nx, ny, nz, 0.1, 0.2, 0.3, 2, 8, err, sizeof err) == SCL_OK, "%s",
          err);
    CHECK(g.px % 8 == 0 && g.px >= nx + 5 && g.py == ny + 5 && g.pz == nz + 5, "padding %ld", g.px);
    /* every point, halo included, maps to a distinct offset inside the array */
    long n = scl_grid3d_points(&g), seen = 0;
    char *mark = calloc((size_t)n, 1);
    int dup = 0;
    for (int k = -2; k <= nz + 2; k++)
        for (int j = -2; j <= ny + 2; j++)
            for (int i = -2; i <= nx + 2; i++) {
                long o = scl_grid3d_index(&g, i, j, k);
                if (o < 0 || o >= n || mark[o]++)
                    dup++;
                seen++;
            }
    CHECK(dup == 0 && seen == (long)(nx + 5) * (ny + 5) * (nz + 5), "index collisions %d", dup);
    free(mark);
    CHECK(scl_grid3d_index(&g, 1, 0, 0) - scl_grid3d_index(&g, 0, 0, 0) == 1, "x fastest");

    /* sub-domains tile the global cells exactly */
    int parts[3] = {3, 2, 1}, total = 0, starts_ok = 1;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++) {
            int c[3] = {a, b, 0};
            scl_grid3d s;
            if (nx < 3)
                continue;
            CHECK(scl_grid3d_subdomain(&g, parts, c, 1, 1, &s, err, sizeof err) == SCL_OK, "%s", err);
            total += s.nx * s.ny * s.nz;
            if (a == 0 && s.ox != 0)
                starts_ok = 0;
            if (s.gnx != nx)
                starts_ok = 0;
        }
    CHECK(total == nx * ny * nz && starts_ok, "tiling %d vs %d", total, nx * ny * nz);
    int badc[3] = {3, 0, 0};
    scl_grid3d s;
    CHECK(scl_grid3d_subdomain(&g, parts, badc, 1, 1, &s, err, sizeof err) == SCL_ERR_INPUT, "bad coords");

    CHECK(scl_grid3d_init(&g, 0, 4, 4, 1, 1, 1, 0, 1, err, sizeof err) == SCL_ERR_INPUT, "zero cells");
    CHECK(scl_grid3d_init(&g, 4, 4, 4, 1, -1, 1, 0, 1, err, sizeof err) == SCL_ERR_INPUT, "negative dy");
    CHECK(scl_grid3d_init(&g, 2000, 2000, 2000, 1, 1, 1, 0, 1, err, sizeof err) == SCL_ERR_TOO_LARGE,
          "too large");

    /* gprMax rounding: half down */
    CHECK(scl_round_half_down(2.5) == 2 && scl_round_half_down(2.51) == 3 &&
              scl_round_half_down(-2.5) == -3 && scl_round_half_down(3.0) == 3,
          "round half down");
    scl_grid3d_init(&g, 10, 10, 10, 0.01, 0.01, 0.01, 0, 1, err, sizeof err);
    int ijk[3];
    CHECK(scl_grid3d_locate(&g, "#rx", 0.05, 0.025, 0.1, ijk, err, sizeof err) == SCL_OK &&
              ijk[0] == 5 && ijk[1] == 2 && ijk[2] == 10,
          "locate %d %d %d", ijk[0], ijk[1], ijk[2]);
    CHECK(scl_grid3d_locate(&g, "#rx", 0.05, 0.2, 0.1, ijk, err, sizeof err) == SCL_ERR_INPUT &&
              strstr(err, "#rx") && strstr(err, "y = 0.2"),
          "outside: %s", err);

    /* slices */
    scl_grid3d_init(&g, 4, 3, 2, 1, 1, 1, 1, 4, err, sizeof err);
    float *f = calloc((size_t)scl_grid3d_points(&g), sizeof(float)), out[64];
    for (int k = 0; k <= 2; k++)
        for (int j = 0; j <= 3; j++)
            for (int i = 0; i <= 4; i++)
                f[scl_grid3d_index(&g, i, j, k)] = (float)(100 * k + 10 * j + i);
    int w, h;
    CHECK(scl_grid3d_slice_float(&g, f, 2, 1, out, &w, &h) == 20 && w == 5 && h == 4 &&
              out[0] == 100 && out[5 * 3 + 4] == 134,
          "z slice");
    CHECK(scl_grid3d_slice_float(&g, f, 0, 2, out, &w, &h) == 12 && w == 4 && h == 3 &&
              out[4 * 2 + 3] == 232,
          "x slice %g", out[11]);
    CHECK(scl_grid3d_slice_float(&g, f, 1, 4, out, &w, &h) == -1, "bad index");
    free(f);
}

static void test_cpml(void)
{
    char err[512];
    scl_cpml_axis a;
    double d = 0.002, dt = d / (299792458.0 * sqrt(3.0));
    scl_cpml_grading gr = {4, scl_cpml_em_dmax(4, d, 1, 1), 1.0, 0.0};
    CHECK(scl_cpml_axis_build(&a, 40, d, dt, 10, 8, &gr, err, sizeof err) == SCL_OK, "%s", err);
    int ok = 1;
    for (int i = 0; i <= 40; i++) {
        int inside_node = i >= 10 && i <= 32, inside_half = i >= 10 && i < 32;
        if (inside_node && (a.c_node[i] != 0 || a.kinv_node[i] != 1))
            ok = 0;
        if (inside_half && (a.c_half[i] != 0 || a.kinv_half[i] != 1))
            ok = 0;
        if (!inside_node && !(a.b_node[i] > 0 && a.b_node[i] < 1 && a.c_node[i] < 0))
            ok = 0;
    }
    CHECK(ok, "identity inside, damping outside");
    /* grading: stronger towards the wall, symmetric per thickness */
    CHECK(a.b_node[0] < a.b_node[5] && a.b_half[9] > a.b_node[0], "monotone");
    /* b = exp(-d dt) at the wall with kappa = 1, alpha = 0 */
    CHECK(fabs(a.b_node[0] - exp(-gr.d_max * dt)) < 1e-15, "b at wall %g", a.b_node[0]);
    CHECK(fabs(a.c_node[0] - (a.b_node[0] - 1)) < 1e-15, "c at wall %g", a.c_node[0]);
    scl_cpml_axis_free(&a);
    gr.kappa_max = 0.5;
    CHECK(scl_cpml_axis_build(&a, 40, d, dt, 10, 8, &gr, err, sizeof err) == SCL_ERR_INPUT, "kappa < 1");
    gr.kappa_max = 1;
    CHECK(scl_cpml_axis_build(&a, 10, d, dt, 6, 6, &gr, err, sizeof err) == SCL_ERR_INPUT, "too thick");
}

static void test_wavelets(void)
{
    double f = 1.5e9;
    scl_wavelet g = {SCL_WAVE_GAUSSIAN, 1, f, 0, 0}, gd = g, r = g, s = g;
    gd.kind = SCL_WAVE_GAUSSIANDOT;
    r.kind = SCL_WAVE_RICKER;
    s.kind = SCL_WAVE_SINE;
    CHECK(fabs(scl_wavelet_value(&g, 1 / f) - 1) < 1e-15, "gaussian peak at 1/f");
    CHECK(fabs(scl_wavelet_value(&r, sqrt(2.0) / f) - 1) < 1e-15, "ricker peak at sqrt2/f");
    /* gaussiandot is the time derivative of gaussian */
    double worst = 0, h = 1e-15;
    for (int i = 1; i < 50; i++) {
        double t = i * 0.05 / f;
        double num = (scl_wavelet_value(&g, t + h) - scl_wavelet_value(&g, t - h)) / (2 * h);
        double ref = scl_wavelet_value(&gd, t);
        double e = fabs(num - ref) / (2 * M_PI * f);
        worst = e > worst ? e : worst;
    }
    CHECK(worst < 1e-4, "d/dt gaussian vs gaussiandot: %g", worst);
    /* gaussiandotnorm peaks at +-1 */
    scl_wavelet gn = g;
    gn.kind = SCL_WAVE_GAUSSIANDOTNORM;
    double peak = 0;
    for (int i = 0; i < 20000; i++)
        peak = test_max(peak, fabs(scl_wavelet_value(&gn, i * 1e-4 / f)));
    CHECK(fabs(peak - 1) < 1e-6, "gaussiandotnorm peak %g", peak);
    CHECK(scl_wavelet_value(&s, 1.01 / f) == 0 && fabs(scl_wavelet_value(&s, 0.25 / f) - 1) < 1e-12,
          "sine one cycle");
    r.amp = 2;
    r.delay = 1e-9;
    r.delay_set = 1;
    CHECK(fabs(scl_wavelet_value(&r, 1e-9) - 2) < 1e-15, "amp and delay");
    CHECK(scl_wavelet_kind_from_name("gaussiandotdotnorm") == SCL_WAVE_GAUSSIANDOTDOTNORM &&
              scl_wavelet_kind_from_name("ricker2") == -1,
          "names");
}

static void test_files(const char *dir)
{
    char err[1024], path[1200], *line;
    snprintf(path, sizeof path, "%s/run.in", dir);
    FILE *f = fopen(path, "w");
    fputs("# comment\r\n\n#domain: 1 2  3\nlast", f);
    fclose(f);
    scl_linereader r;
    CHECK(scl_linereader_open(&r, path, err, sizeof err) == SCL_OK, "%s", err);
    int n = 0, got3 = 0;
    while (scl_linereader_next(&r, &line, err, sizeof err) == 1) {
        n++;
        if (r.line == 1)
            CHECK(strcmp(line, "# comment") == 0, "CR stripped: '%s'", line);
        if (r.line == 3) {
            char *tok[8];
            got3 = scl_split_tokens(line, tok, 8) == 4 && strcmp(tok[3], "3") == 0;
            scl_linereader_fail(&r, err, sizeof err, "bad %s", "thing");
        }
    }
    CHECK(n == 4 && got3, "lines %d", n);
    CHECK(strstr(err, "run.in:3: bad thing") != NULL, "message '%s'", err);
    scl_linereader_close(&r);
    CHECK(scl_linereader_open(&r, "/nonexistent/x.in", err, sizeof err) == SCL_ERR_IO, "missing file");
    char *tok[2];
    char many[] = "a b c";
    CHECK(scl_split_tokens(many, tok, 2) == 3, "too many tokens");
    double v;
    long iv;
    CHECK(scl_parse_real("1e-3", &v) == 0 && v == 1e-3 && scl_parse_real("1e-3x", &v) == -1 &&
              scl_parse_real("nan", &v) == -1 && scl_parse_int("12", &iv) == 0 && iv == 12 &&
              scl_parse_int("1.5", &iv) == -1,
          "parse");

    /* output files: complete under the name, or absent */
    scl_outfile o;
    snprintf(path, sizeof path, "%s/out.txt", dir);
    CHECK(scl_outfile_open(&o, path, 0, err, sizeof err) == SCL_OK, "%s", err);
    fputs("hello\n", o.f);
    CHECK(access(path, F_OK) != 0, "not visible before commit");
    CHECK(scl_outfile_commit(&o, err, sizeof err) == SCL_OK && access(path, F_OK) == 0, "committed");
    snprintf(path, sizeof path, "%s/aborted.txt", dir);
    CHECK(scl_outfile_open(&o, path, 0, err, sizeof err) == SCL_OK, "%s", err);
    char tmp[sizeof o.tmp];
    strcpy(tmp, o.tmp);
    scl_outfile_abort(&o);
    CHECK(access(path, F_OK) != 0 && access(tmp, F_OK) != 0, "abort leaves nothing");
    CHECK(scl_output_path_check("/nonexistent-dir/x.h5", err, sizeof err) == SCL_ERR_IO &&
              strstr(err, "does not exist"),
          "%s", err);
    CHECK(scl_output_path_check(dir, err, sizeof err) == SCL_ERR_IO, "directory as output");

    /* PNG slice */
    float plane[6 * 4];
    for (int i = 0; i < 24; i++)
        plane[i] = (float)sin(i);
    plane[3] = NAN;
    snprintf(path, sizeof path, "%s/slice.png", dir);
    scl_status s = scl_png_slice(path, plane, 6, 4, 0, 1, err, sizeof err);
    if (s == SCL_ERR_UNSUPPORTED) {
        CHECK(access(path, F_OK) != 0, "no file without libpng");
    } else {
        unsigned char sig[8] = {0};
        FILE *p = fopen(path, "rb");
        size_t got = p ? fread(sig, 1, 8, p) : 0;
        if (p)
            fclose(p);
        CHECK(s == SCL_OK && got == 8 && sig[1] == 'P' && sig[2] == 'N' && sig[3] == 'G', "png: %s", err);
    }
    snprintf(path, sizeof path, "/nonexistent-dir/slice.png");
    CHECK(scl_png_slice(path, plane, 6, 4, 0, 1, err, sizeof err) != SCL_OK, "png bad dir");
}

int main(void)
{
    uint64_t seed = test_seed(), rng = seed;
    char dir[] = "/tmp/grid3d_testXXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_grid(&rng);
    test_cpml();
    test_wavelets();
    test_files(dir);
    nftw(dir, test_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return test_summary("grid3d_unit");
}
