/* The gprMax input reader: a complete model is read with gprMax's numbers
 * (cells, dt at the Courant limit, iterations = ceil(window/dt) + 1, node
 * rounding, default 10 PML cells), and every bad input gives an error naming
 * the file and line and the reason. */
#include "fdtd_test_input.h"

#include <math.h>

#define BASE "#domain: 0.1 0.08 0.06\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 1e-9\n" \
             "#waveform: ricker 1 2e9 w1\n"

/* #plate #edge #triangle #cylindrical_sector as gprMax rasterises them, and
 * #excitation_file's interpolation; their bad inputs by file and line */
static void thin_objects(void)
{
    char err[1024];
    scl_fdtd_model m;
    const char *path = write_input("thin.in", BASE
        "#material: 4 0 1 0 soil\n"
        "#plate: 0.02 0.01 0.01 0.02 0.02 0.014 pec\n"   /* normal x at node 10 */
        "#edge: 0.04 0.01 0.02 0.04 0.02 0.02 pec\n"     /* Ey at i 20, k 10, j 5..9 */
        "#plate: 0.06 0.01 0.01 0.06 0.02 0.014 pec\n"
        "#box: 0.05 0 0 0.07 0.08 0.02 soil\n"            /* covers the second plate: averaged again */
        "#triangle: 0 0 0.03 0.02 0 0.03 0 0.02 0.03 0.004 soil\n"
        "#cylindrical_sector: z 0.05 0.04 0.03 0.034 0.01 0 90 soil\n");
    scl_status s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_OK, "thin objects: %s", err);
    if (s == SCL_OK) {
        const scl_grid3d *g = &m.grid;
        int soil = scl_fdtd_find_material(&m, "soil"), bad = 0;
        for (int j = 5; j <= 10; j++)
            for (int k = 5; k <= 7; k++) {
                if (j < 10) /* Ey on the plate's edges, Ez likewise */
                    bad += m.id[SCL_EY][scl_grid3d_index(g, 10, j, k)] != 0;
                if (k < 7)
                    bad += m.id[SCL_EZ][scl_grid3d_index(g, 10, j, k)] != 0;
            }
        CHECK(bad == 0, "plate: %d of its edges not PEC", bad);
        CHECK(m.id[SCL_EY][scl_grid3d_index(g, 11, 6, 6)] == 1 &&
              m.id[SCL_EX][scl_grid3d_index(g, 10, 6, 6)] == 1, "plate: neighbours untouched");
        bad = 0;
        for (int j = 5; j < 10; j++)
            bad += m.id[SCL_EY][scl_grid3d_index(g, 20, j, 10)] != 0;
        CHECK(bad == 0 && m.id[SCL_EY][scl_grid3d_index(g, 20, 10, 10)] == 1 &&
              m.id[SCL_EY][scl_grid3d_index(g, 21, 6, 10)] == 1, "edge: Ey j 5..9 PEC only");
        CHECK(m.id[SCL_EY][scl_grid3d_index(g, 30, 6, 6)] == soil,
              "a later averaged box around a plate averages its edges again (id %d)",
              m.id[SCL_EY][scl_grid3d_index(g, 30, 6, 6)]);
        long tri = 0, sec = 0, want_sec = 0;
        for (int k = 0; k < g->nz; k++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 0; i < 25; i++)
                    if (m.solid[i + g->nx * (j + (long)g->ny * k)] == soil) {
                        tri += i < 10 && j < 10 && k >= 15 && k < 17;
                        sec += i >= 25;
                    }
        /* centres strictly inside x + y < 10 cells: i + j <= 8, 45 a layer */
        CHECK(tri == 90, "triangle prism: %ld cells, expected 90", tri);
        for (int k = 15; k < 17; k++)
            for (int j = 0; j < g->ny; j++)
                for (int i = 25; i < g->nx; i++) {
                    double x = (i + 0.5) * 0.002 - 0.05, y = (j + 0.5) * 0.002 - 0.04;
                    int in = m.solid[i + g->nx * (j + (long)g->ny * k)] == soil;
                    want_sec += x > 0 && y > 0 && x * x + y * y <= 1e-4;
                    sec += in;
                }
        CHECK(sec == want_sec && want_sec == 2 * 20, "sector: %ld cells, expected %ld (a quarter disc, 2 layers)", sec, want_sec);
        scl_fdtd_model_free(&m);
    }
    /* excitation files: the simulation's axis zero-padded, a time column,
     * kinds and fill values as scipy's interp1d */
    write_input("e1.txt", "a\n0\n1\n2\n3\n");
    write_input("e2.txt", "time b\n0 0\n1e-9 2\n");
    path = write_input("exc.in", "#domain: 0.02 0.02 0.02\n#dx_dy_dz: 0.001 0.001 0.001\n"
                       "#time_window: 20\n#pml_cells: 0\n#excitation_file: e1.txt\n"
                       "#excitation_file: e2.txt linear extrapolate\n");
    s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_OK && m.nwave == 2, "excitation files: %s", err);
    if (s == SCL_OK) {
        double dt = m.dt;
        double v[5] = {scl_fdtd_wave_value(&m, 0, 0.5 * dt), scl_fdtd_wave_value(&m, 0, 3.5 * dt),
                       scl_fdtd_wave_value(&m, 0, 19.5 * dt), scl_fdtd_wave_value(&m, 1, 0.25e-9),
                       scl_fdtd_wave_value(&m, 1, 2e-9)};
        CHECK(fabs(v[0] - 0.5) < 1e-12 && fabs(v[1] - 1.5) < 1e-12 && v[2] == 0 &&
              fabs(v[3] - 0.5) < 1e-12 && fabs(v[4] - 4) < 1e-12,
              "excitation values %g %g %g %g %g (0.5 1.5 0 0.5 4)", v[0], v[1], v[2], v[3], v[4]);
        m.wave[0].interp = 'p';
        CHECK(scl_fdtd_wave_value(&m, 0, 2.5 * dt) == 2, "previous sample");
        m.wave[0].interp = 'n';
        CHECK(scl_fdtd_wave_value(&m, 0, 2.4 * dt) == 2 && scl_fdtd_wave_value(&m, 0, 2.6 * dt) == 3,
              "nearest sample");
        scl_fdtd_model_free(&m);
    }
    write_input("e3.txt", "a b\n1 2\n3\n"); /* a short row, for bad_inputs */
    expect_error("magnetic 2D TM", "#domain: 0.1 0.08 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 1e-9\n"
                 "#waveform: ricker 1 2e9 w1\n#magnetic_dipole: z 0.05 0.04 0 w1\n", "bad.in:5:", "2D TM");
    path = write_input("mag.in", BASE "#magnetic_dipole: y 0.05 0.04 0.03 w1 1e-10 5e-10\n");
    s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_OK, "magnetic dipole: %s", err);
    if (s == SCL_OK) {
        CHECK(m.nsrc == 1 && m.src[0].kind == SCL_FDTD_MAGNETIC && m.src[0].pol == 1 &&
                  m.src[0].ijk[0] == 25 && m.src[0].ijk[1] == 20 && m.src[0].ijk[2] == 15,
              "magnetic dipole: kind %d pol %d at (%d, %d, %d)", m.src[0].kind, m.src[0].pol,
              m.src[0].ijk[0], m.src[0].ijk[1], m.src[0].ijk[2]);
        /* gprMax: the wave at n dt (not n + 1/2) over the cell volume, in its window */
        double v = scl_fdtd_source_value(&m, 0, 60), t = 60 * m.dt - 1e-10;
        double want = scl_fdtd_wave_value(&m, 0, t) / (0.002 * 0.002 * 0.002);
        CHECK(fabs(v - want) <= 1e-9 * fabs(want) && scl_fdtd_source_value(&m, 0, 2) == 0,
              "magnetic dipole value %g, want %g", v, want);
        scl_fdtd_model_free(&m);
    }
}

/* #soil_peplinski's Debye materials against Peplinski's formula (and
 * gprMax 4.0.1's numbers for one soil), the fractal generator's spectrum
 * and binning, and a fractal box in a model */
static void soils(void)
{
    double par[6] = {0.5, 0.5, 2.0, 2.66, 0.001, 0.25}, bin[50][4];
    scl_fdtd_peplinski(par, 50, bin);
    /* gprMax 4.0.1 names these materials |3.6725+0.0108+...| and |10.9505+0.0792+...| */
    CHECK(fabs(bin[0][0] - 3.6725) < 6e-5 && fabs(bin[0][3] - 0.0108) < 6e-5 &&
          fabs(bin[49][0] - 10.9505) < 6e-5 && fabs(bin[49][3] - 0.0792) < 6e-5,
          "Peplinski bins: %.5f %.5f .. %.5f %.5f", bin[0][0], bin[0][3], bin[49][0], bin[49][3]);
    /* the Debye material's static permittivity is Peplinski's real part
     * (water's Debye real part at 1.3 GHz, mixed with alpha 0.65, then the
     * 0.3-1.3 GHz correction 1.15 e - 0.68); delta is the water part */
    double T = 25, ew = 88.045 - 0.4147 * T + 6.295e-4 * T * T + 1.075e-5 * T * T * T;
    double tau = (1.1109e-10 - 3.824e-12 * T + 6.938e-14 * T * T - 5.096e-16 * T * T * T) / (2 * M_PI);
    double wr = 4.9 + (ew - 4.9) / (1 + pow(2 * M_PI * 1.3e9 * tau, 2)), worst = 0;
    for (int q = 0; q < 50; q++) {
        double mv = 0.001 + (0.25 - 0.001) * (q + 0.5) / 50;
        double es = pow(1.01 + 0.44 * 2.66, 2) - 0.062, b1 = 1.2748 - 0.519 * 0.5 - 0.152 * 0.5;
        double b2 = 1.33797 - 0.603 * 0.5 - 0.166 * 0.5;
        double e = 1.15 * pow(1 + (2.0 / 2.66) * (pow(es, 0.65) - 1) + pow(mv, b1) * pow(wr, 0.65) - mv, 1 / 0.65) - 0.68;
        worst = fmax(worst, fabs(bin[q][0] + bin[q][1] - e) / e);
        worst = fmax(worst, fabs(bin[q][1] - pow(mv, b2 / 0.65) * (ew - 4.9)) / bin[q][1]);
        worst = fmax(worst, fabs(bin[q][2] - tau) / tau);
    }
    CHECK(worst < 1e-12, "Peplinski Debye parameters against the formula: worst %.2e", worst);
    /* the spectrum of a 64^3 fractal: power ~ k^-2D along a line of k */
    int n[3] = {64, 64, 64};
    double w[3] = {1, 1, 1}, D = 1.5, *f = malloc(64 * 64 * 64 * sizeof *f), *g = malloc(64 * 64 * 64 * sizeof *g);
    CHECK(f && g && scl_fdtd_fractal(n, D, w, 3, f) == 0 && scl_fdtd_fractal(n, D, w, 3, g) == 0, "fractal");
    if (f && g) {
        CHECK(memcmp(f, g, 64 * 64 * 64 * sizeof *f) == 0, "a seed repeats its volume");
        /* slope from the mean power of shells k in [2, 16] (a naive DFT of the shells' points) */
        double sx = 0, sy = 0, sxx = 0, sxy = 0, mean = 0;
        int npt = 0;
        for (long q = 0; q < 64 * 64 * 64; q++)
            mean += f[q] / (64.0 * 64 * 64);
        for (int k = 2; k <= 16; k *= 2) {
            double p = 0;
            int cnt = 0;
            for (int a = 0; a < 3; a++) { /* along each axis: |F(k e_a)|^2 */
                double re = 0, im = 0;
                for (long q = 0; q < 64 * 64 * 64; q++) {
                    int c[3] = {(int)(q % 64), (int)(q / 64 % 64), (int)(q / 4096)};
                    double ph = 2 * M_PI * k * c[a] / 64.0;
                    re += f[q] * cos(ph);
                    im -= f[q] * sin(ph);
                }
                p += re * re + im * im;
                cnt++;
            }
            double x = log(k), y = log(p / cnt);
            sx += x, sy += y, sxx += x * x, sxy += x * y, npt++;
        }
        double slope = (npt * sxy - sx * sy) / (npt * sxx - sx * sx);
        CHECK(fabs(mean) < 1e-9 && fabs(slope + 2 * D) < 0.6, "fractal: mean %.2e, spectrum slope %.2f (-2D = %.1f)", mean, slope, -2 * D);
        scl_fdtd_fractal_bins(f, 64 * 64 * 64, 50);
        long first = 0, last = 0, bad = 0;
        for (long q = 0; q < 64 * 64 * 64; q++) {
            first += f[q] == 0;
            last += f[q] == 49;
            bad += f[q] != floor(f[q]) || f[q] < 0 || f[q] > 49;
        }
        CHECK(first == 1 && last >= 1 && bad == 0, "bins: the minimum alone in bin 0 (%ld), maximum in 49 (%ld)", first, last);
    }
    free(f);
    free(g);
    char err[1024];
    scl_fdtd_model m;
    const char *path = write_input("soil.in", BASE
        "#soil_peplinski: 0.5 0.5 2.0 2.66 0.001 0.25 mysoil\n"
        "#fractal_box: 0 0 0 0.1 0.08 0.02 1.5 1 1 1 20 mysoil fbox 5\n");
    scl_status s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_OK && m.nmat >= 22 && m.mat[2].npoles == 1 && strncmp(m.mat[2].name, "|", 1) == 0,
          "fractal box model: %s (%d materials)", err, s == SCL_OK ? m.nmat : 0);
    if (s == SCL_OK) {
        int used[SCL_FDTD_MAX_MATERIALS] = {0}, kinds = 0;
        for (long q = 0; q < (long)m.grid.nx * m.grid.ny * m.grid.nz; q++)
            used[m.solid[q]]++;
        for (int q = 0; q < m.nmat; q++)
            kinds += used[q] > 0;
        CHECK(used[1] == 50 * 40 * 20 && kinds == 21, "soil below z 0.02 m: %d materials in use", kinds);
        scl_fdtd_model_free(&m);
    }
}

/* 2D TE: two cells on the invariant axis, the live plane at node 1, the
 * components across it held (E_a pec, H_b and H_d frozen) */
static void te_mode(void)
{
    char err[1024];
    scl_fdtd_model m;
    const char *path = write_input("te.in",
        "#domain_mode: TE\n#domain: 0.1 0.08 inf\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 1e-9\n"
        "#waveform: ricker 1 2e9 w1\n#hertzian_dipole: x 0.05 0.04 inf w1\n#rx: 0.06 0.04 inf\n"
        "#edge: 0.02 0.02 inf 0.04 0.02 inf pec\n");
    scl_status s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_OK, "TE model: %s", err);
    if (s == SCL_OK) {
        const scl_grid3d *g = &m.grid;
        int fr = scl_fdtd_find_material(&m, "te-frozen");
        CHECK(m.te2d && m.mode2d == 3 && g->nz == 2 && m.pml[2] == 0 && m.pml[5] == 0, "TEz: 2 cells, no z PML");
        CHECK(m.src[0].ijk[2] == 1 && m.rx_ijk[0][2] == 1, "live plane at node 1");
        CHECK(fr > 1 && m.mat[fr].frozen && m.id[SCL_HX][scl_grid3d_index(g, 20, 20, 1)] == fr &&
              m.id[SCL_HY][scl_grid3d_index(g, 20, 20, 1)] == fr && m.id[SCL_EZ][scl_grid3d_index(g, 20, 20, 1)] == 0 &&
              m.id[SCL_EX][scl_grid3d_index(g, 20, 20, 1)] == 1, "held components");
        CHECK(m.id[SCL_EX][scl_grid3d_index(g, 12, 10, 1)] == 0 && m.id[SCL_EX][scl_grid3d_index(g, 12, 10, 0)] == 1,
              "a TE edge's inf is the live plane");
        double ca[SCL_FDTD_MAX_MATERIALS], cb[SCL_FDTD_MAX_MATERIALS], da[SCL_FDTD_MAX_MATERIALS], db[SCL_FDTD_MAX_MATERIALS];
        scl_fdtd_coefficients(&m, ca, cb, da, db);
        CHECK(da[fr] == 1 && db[fr] == 0, "frozen: da 1, db 0");
        CHECK(fabs(m.dt - 0.002 / (SCL_FDTD_C0 * sqrt(2.0))) < 1e-25, "2D Courant step");
        scl_fdtd_model_free(&m);
    }
    expect_error("TE edge along z", "#domain_mode: TE\n#domain: 0.1 0.08 inf\n#dx_dy_dz: 0.002 0.002 0.002\n"
                 "#time_window: 1e-9\n#edge: 0.02 0.02 0 0.02 0.02 0.004 pec\n", "bad.in:5:", "across the invariant");
    expect_error("TE without inf", "#domain_mode: TE\n#domain: 0.1 0.08 0.004\n#dx_dy_dz: 0.002 0.002 0.002\n"
                 "#time_window: 1e-9\n", "bad.in:2:", "needs 'inf'");
}

/* Averaged H faces as gprMax 4.0.1 builds them (its #geometry_objects_write
 * IDs): the harmonic mean of mu_r and sigma* of the two cells (arithmetic
 * with #magnetic_averaging: arithmetic), a PEC cell leaves a face to the
 * other cell, a PEC object leaves H where an earlier rigid object set it */
static void h_faces(const char *extra, double mr, double sm)
{
    char err[1024], text[1024];
    scl_fdtd_model m;
    snprintf(text, sizeof text, "%s#domain: 0.02 0.02 0.02\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 3\n#pml_cells: 0\n"
             "#material: 3 0.01 2 0.5 aa\n#material: 5 0 4 0.2 bb\n"
             "#box: 0.004 0.004 0.004 0.010 0.016 0.016 aa y\n#box: 0.010 0.004 0.004 0.016 0.016 0.016 bb y\n"
             "#box: 0.004 0.016 0.004 0.016 0.018 0.016 pec y\n"
             "#box: 0.004 0.004 0.016 0.008 0.008 0.018 bb n\n#box: 0.004 0.004 0.016 0.006 0.006 0.018 pec n\n",
             extra);
    scl_status s = scl_fdtd_read_input(write_input("hfaces.in", text), &m, err, sizeof err);
    CHECK(s == SCL_OK, "H faces (%s): %s", extra, err);
    if (s != SCL_OK)
        return;
    const scl_grid3d *g = &m.grid;
    const scl_fdtd_material *x = &m.mat[m.id[SCL_HX][scl_grid3d_index(g, 5, 4, 4)]];
    CHECK(fabs(x->mr - mr) < 1e-12 && fabs(x->sm - sm) < 1e-12, "aa|bb face (%s): mr %g sm %g, want %g %g",
          extra, x->mr, x->sm, mr, sm);
    x = &m.mat[m.id[SCL_HY][scl_grid3d_index(g, 3, 8, 4)]]; /* aa cell (3, 7, 4) | pec cell (3, 8, 4) */
    CHECK(x->mr == 2 && x->sm == 0.5, "aa|pec face: aa's, got mr %g", x->mr);
    x = &m.mat[m.id[SCL_HZ][scl_grid3d_index(g, 2, 2, 8)]]; /* under the pec box built over bb */
    CHECK(x->mr == 4 && x->sm == 0.2, "pec over rigid bb: bb's H, got mr %g", x->mr);
    CHECK(m.id[SCL_EX][scl_grid3d_index(g, 2, 2, 8)] == 0, "pec over rigid bb: E is PEC");
    scl_fdtd_model_free(&m);
}

/* #transmission_line read as gprMax 4's: a source of its own kind, the
 * line's constants, its incident wave (the one-way injector's wave of
 * amplitude w travelling at impedance R: V = w, I = w/R), refused in 2D and
 * for runs too short for the line */
static void tline(void)
{
    char err[1024];
    scl_fdtd_model m;
    const char *path = write_input("tl.in", BASE "#transmission_line: y 0.05 0.04 0.03 50 w1 1e-10 8e-10\n");
    scl_status s = scl_fdtd_read_input(path, &m, err, sizeof err);
    CHECK(s == SCL_OK, "tline: %s", err);
    if (s != SCL_OK)
        return;
    const scl_fdtd_source *t = &m.src[0];
    CHECK(m.nsrc == 1 && t->kind == SCL_FDTD_TLINE && t->pol == 1 && t->ijk[1] == 20 && t->resistance == 50 &&
          t->start == 1e-10 && t->stop == 8e-10 && scl_fdtd_model_tlines(&m) == 1,
          "tline source: kind %d pol %d R %g", t->kind, t->pol, t->resistance);
    CHECK(fabs(scl_fdtd_tline_dl(&m) - 0.002) < 1e-15, "dl %.17g (sqrt(3) c dt = dx)", scl_fdtd_tline_dl(&m));
    CHECK(scl_fdtd_tline_cells(&m) == scl_round_half_down(0.667 * (double)m.iterations), "cells %ld",
          scl_fdtd_tline_cells(&m));
    double *vi = calloc(2 * (size_t)(m.iterations + 1), sizeof *vi);
    CHECK(vi && scl_fdtd_tline_incident(&m, 0, vi, vi + m.iterations + 1, err, sizeof err) == SCL_OK, "incident: %s", err);
    double vmax = 0, imax = 0;
    for (long n = 0; vi && n <= m.iterations; n++) {
        vmax = fmax(vmax, fabs(vi[n]));
        imax = fmax(imax, fabs(vi[m.iterations + 1 + n]));
    }
    /* the Ricker's peak is 1 (the line's dispersion at 1/sqrt(3) of its
     * magic step takes a few %), and V = R I on a matched line */
    CHECK(vmax > 0.9 && vmax < 1.01 && fabs(vmax / (imax * 50) - 1) < 0.01 && vi[m.iterations] == 0,
          "incident peaks V %g, I R %g", vmax, imax * 50);
    free(vi);
    CHECK(scl_fdtd_tline_incident(&m, 1, NULL, NULL, err, sizeof err) == SCL_ERR_ARGUMENT, "source 1 is no line");
    scl_fdtd_model_free(&m);
    expect_error("tline 2D", "#domain: 0.1 0.08 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 1e-9\n"
                 "#waveform: ricker 1 2e9 w1\n#transmission_line: z 0.05 0.04 0 50 w1\n", "bad.in:5:", "2D");
    expect_error("tline short run", "#domain: 0.1 0.08 0.06\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 12\n"
                 "#waveform: ricker 1 2e9 w1\n#transmission_line: z 0.05 0.04 0.03 50 w1\n", "bad.in", "16 iterations");
}

/* #transmission_line: pol x y z R wave [start stop], gprMax 4's checks:
 * the parameters after the command name and the phrase its line 5 error holds */
static const struct {
    const char *params, *phrase;
} bad_tlines[] = {
    {"z 0.05 0.04 0.03 50", "needs 6 to 8 parameters, got 5"},
    {"z 0.05 0.04 0.03 50 w1 0 1e-9 2", "got 9"},
    {"z 0.05 0.04 0.03 50 w1 0", "start and stop"},
    {"z 0.05 0.04 0.03 50 nowave", "waveform 'nowave' is not defined"},
    {"z 0.05 0.04 0.03 0 w1", "greater than 0"},
    {"x 0.05 0.04 0.03 377 w1", "376.73"},
    {"r 0.05 0.04 0.03 50 w1", "polarisation"},
    {"y 0.05 0.09 0.03 50 w1", "outside"},
};

static void check_bad_tlines(void)
{
    for (size_t i = 0; i < sizeof bad_tlines / sizeof bad_tlines[0]; i++) {
        char text[1024];
        int len = snprintf(text, sizeof text, "%s#transmission_line: %s\n", BASE, bad_tlines[i].params);
        CHECK(len > 0 && (size_t)len < sizeof text, "%s: input text too long", bad_tlines[i].params);
        expect_error(bad_tlines[i].params, text, "bad.in:5:", bad_tlines[i].phrase);
    }
}

/* Bad inputs that are BASE and a line or two more, walked once the
 * excitation files e1.txt and e3.txt (thin_objects) exist */
static const bad_line bad_inputs[] = {
    /* commands, numbers, the domain and the time step */
    {"unknown command", "#foo: 1 2\n", "bad.in:5:", "unknown or unsupported command '#foo'"},
    {"box outside", "#material: 4 0 1 0 s\n#box: 0 0 0 0.2 0.08 0.02 s\n", "bad.in:6:", "not inside the domain"},
    {"dt above Courant", "#time_step_stability_factor: 1.5\n", "bad.in:5:", "Courant limit"},
    {"negative permittivity", "#material: -2 0 1 0 m\n", "bad.in:5:", "permittivity"},
    {"missing waveform", "#hertzian_dipole: z 0.05 0.04 0.03 nowave\n", "bad.in:5:",
     "waveform 'nowave' is not defined"},
    {"rx outside", "#hertzian_dipole: z 0.05 0.04 0.03 w1\n#rx: 0.05 0.09 0.03\n", "bad.in:6:", "outside the domain"},
    {"bad number", "#material: 4 0.01x 1 0 soil\n", "bad.in:5:", "not a finite number"},
    {"unknown material", "#box: 0 0 0 0.01 0.01 0.01 rock\n", "bad.in:5:", "material 'rock' is not defined"},
    {"unknown waveform type", "#waveform: square 1 2e9 w\n", "bad.in:5:", "waveform type"},
    {"bad polarisation", "#hertzian_dipole: q 0.05 0.04 0.03 w1\n", "bad.in:5:", "polarisation"},
    {"python", "#python:\n", "bad.in:5:", "Python"},
    {"pml fills", "#pml_cells: 20\n", "bad.in:5:", "PML"},
    {"twice", "#domain: 0.1 0.1 0.1\n", "bad.in:5:", "more than once"},
    /* #plate #edge #triangle #cylindrical_sector, #excitation_file, #pml_cfs */
    {"plate not flat", "#plate: 0.01 0.01 0.01 0.02 0.02 0.02 pec\n", "bad.in:5:", "exactly one axis"},
    {"edge diagonal", "#edge: 0.01 0.01 0.01 0.02 0.02 0.01 pec\n", "bad.in:5:", "exactly one axis"},
    {"edge material", "#edge: 0.01 0.01 0.01 0.02 0.01 0.01 gold\n", "bad.in:5:", "material 'gold'"},
    {"triangle tilted", "#triangle: 0 0 0 0.02 0 0.01 0 0.02 0.02 0 pec\n", "bad.in:5:", "plane normal"},
    {"triangle line", "#triangle: 0 0 0 0.02 0 0 0.04 0 0 0 pec\n", "bad.in:5:", "make a triangle"},
    {"triangle thickness", "#triangle: 0 0 0 0.02 0 0 0 0.02 0 -1 pec\n", "bad.in:5:", "thickness"},
    {"sector normal", "#cylindrical_sector: w 0.05 0.04 0 0.01 0.01 0 90 pec\n", "bad.in:5:", "normal"},
    {"sector angle", "#cylindrical_sector: z 0.05 0.04 0 0.01 0.01 0 400 pec\n", "bad.in:5:", "angle"},
    {"sector radius", "#cylindrical_sector: z 0.05 0.04 0 0.01 0 0 90 pec\n", "bad.in:5:", "radius"},
    {"excitation missing", "#excitation_file: nofile.txt\n", "bad.in:5:", "nofile.txt"},
    {"excitation kind", "#excitation_file: e1.txt cubic 0\n", "bad.in:5:", "interpolation"},
    {"excitation row", "#excitation_file: e3.txt\n", "e3.txt:3:", "header names 2"},
    {"cfs twice", "#pml_cfs: constant forward 0 0 constant forward 1 1 quartic forward 0 None\n"
     "#pml_cfs: constant forward 0 0 constant forward 1 1 quartic forward 0 None\n", "bad.in:6:", "second-order"},
    {"cfs profile", "#pml_cfs: cosine forward 0 0 constant forward 1 1 quartic forward 0 None\n", "bad.in:5:", "profile"},
    {"cfs kappa", "#pml_cfs: constant forward 0 0 constant forward 0 0 quartic forward 0 None\n", "bad.in:5:", "kappa"},
    {"cfs negative", "#pml_cfs: constant forward 0 -1 constant forward 1 1 quartic forward 0 None\n", "bad.in:5:", "zero or greater"},
    {"cfs id", "#pml_cfs: constant forward 0 0 constant forward 1 1 quartic forward 0 None p1\n", "bad.in:5:", "identifiers"},
    /* #magnetic_dipole: an H source, gprMax's 2D rules for its polarisation */
    {"magnetic wave", "#magnetic_dipole: x 0.05 0.04 0.03 w2\n", "bad.in:5:", "'w2'"},
    /* #soil_peplinski and #fractal_box */
    {"soil fractions", "#soil_peplinski: 0.8 0.5 2.0 2.66 0.001 0.25 s\n", "bad.in:5:", "fractions"},
    {"soil water", "#soil_peplinski: 0.5 0.5 2.0 2.66 0 0.25 s\n", "bad.in:5:", "water"},
    {"fractal mixing model", "#fractal_box: 0 0 0 0.1 0.08 0.02 1.5 1 1 1 20 nosoil f\n", "bad.in:5:", "'nosoil' is not defined"},
    {"fractal bins", "#soil_peplinski: 0.5 0.5 2.0 2.66 0.001 0.25 s\n#fractal_box: 0 0 0 0.1 0.08 0.02 1.5 1 1 1 0 s f\n", "bad.in:6:", "number of materials"},
    {"surface water", "#add_surface_water: 0 0 0.02 0.1 0.08 0.02 0.01 f\n", "bad.in:5:", "'#add_surface_water'"},
};

int main(void)
{
    if (input_dir_make() != 0)
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

    h_faces("", 2 * 2 * 4 / 6.0, 2 * 0.5 * 0.2 / 0.7);
    h_faces("#magnetic_averaging: harmonic\n", 2 * 2 * 4 / 6.0, 2 * 0.5 * 0.2 / 0.7);
    h_faces("#magnetic_averaging: Arithmetic\n", 3, 0.35);
    expect_error("magnetic averaging", BASE "#magnetic_averaging: geometric\n", "bad.in:5:", "harmonic or arithmetic");
    expect_error("magnetic averaging twice", BASE "#magnetic_averaging: harmonic\n#magnetic_averaging: harmonic\n",
                 "bad.in:", "#magnetic_averaging");
    expect_error("no domain", "#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 1e-9\n", "bad.in", "#domain is required");
    CHECK(scl_fdtd_read_input("/nonexistent/x.in", &m, err, sizeof err) == SCL_ERR_IO && strstr(err, "/nonexistent/x.in"), "missing file");
    /* the API refuses a dt above the limit, naming the limit */
    CHECK(scl_fdtd_model_init(&m, 4, 4, 4, 1e-3, 1e-3, 1e-3, 1, err, sizeof err) == SCL_OK, "%s", err);
    m.dt *= 1.001;
    CHECK(scl_fdtd_model_finish(&m, err, sizeof err) == SCL_ERR_INPUT && strstr(err, "Courant limit 1.9"), "%s", err);
    scl_fdtd_model_free(&m);
    thin_objects();
    tline();
    soils();
    te_mode();
    EXPECT_ERRORS(BASE, bad_inputs);
    check_bad_tlines();
    if (input_dir_remove() != 0)
        return 1;
    return test_summary("fdtd_input");
}
