/* The readers and writers: layered and raw models, the run file (good, and
 * bad lines named by file and line), SEG-Y rev 1 byte layout and CSV. The
 * SEG-Y file is kept for obspy_read.py. */
#include "seis_test.h"

#include <string.h>

static const char *dir;

static const char *path_of(const char *name)
{
    static char buf[4][1024];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, 1024, "%s/%s", dir, name);
    return p;
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    fputs(text, f);
    fclose(f);
}

static void expect_run_error(const char *name, const char *text, const char *msg)
{
    write_text(name, text);
    scl_seis_run run;
    char err[2048] = "", want[1200];
    snprintf(want, sizeof want, "%s%s", path_of(name), msg);
    const scl_status st = scl_seis_read_run(path_of(name), &run, NULL, 0, err, sizeof err);
    CHECK(st != SCL_OK && strstr(err, want), "%s: got '%s', wanted '%s'", name, err, want);
    printf("%s -> %s\n", name, err);
}

static int be16(const unsigned char *p) { return (int16_t)(p[0] << 8 | p[1]); }
static long be32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : ".";
    uint64_t rng = test_seed();
    char err[2048];

    /* layered: layer boundaries fall between cell centres */
    write_text("l.txt", "# d vp vs rho\n0 1500 0 1000\n\n10 3000 1700 2500 # rock\n");
    scl_seis_model m = {.nx = 3, .ny = 2, .nz = 8, .h = 2};
    CHECK(scl_seis_read_layered(path_of("l.txt"), &m, err, sizeof err) == SCL_OK, "%s", err);
    if (m.vp)
        CHECK(m.vp[4 * 6] == 1500 && m.vp[5 * 6] == 3000 && m.vs[5 * 6 + 5] == 1700 &&
                  m.rho[0] == 1000,
              "layered values %g %g", m.vp[4 * 6], m.vp[5 * 6]);
    scl_seis_model_release(&m);
    write_text("l2.txt", "0 1500 0 1000\n5 3000 2700 2500\n");
    m = (scl_seis_model){.nx = 3, .ny = 2, .nz = 8, .h = 2};
    CHECK(scl_seis_read_layered(path_of("l2.txt"), &m, err, sizeof err) == SCL_ERR_INPUT &&
              strstr(err, "l2.txt:2: vs 2700 >= (sqrt(3)/2) vp"),
          "layered bulk modulus: '%s'", err);

    /* raw: random values read back exactly */
    const int nx = 5, ny = 4, nz = 3, n = nx * ny * nz;
    float vals[3][60];
    const char *names[3] = {"vp.bin", "vs.bin", "rho.bin"};
    for (int q = 0; q < 3; q++) {
        FILE *f = fopen(path_of(names[q]), "wb");
        for (int c = 0; c < n; c++) {
            vals[q][c] = (float)(1000 + 1000 * test_uniform(&rng)) * (q == 1 ? 0.5f : 1.0f);
            unsigned char b[4];
            uint32_t u;
            memcpy(&u, &vals[q][c], 4);
            for (int k = 0; k < 4; k++)
                b[k] = (unsigned char)(u >> (8 * k));
            fwrite(b, 1, 4, f);
        }
        fclose(f);
    }
    write_text("raw.hdr", "nx 5\nny 4\nnz 3\nh 1.5\nvp vp.bin\nvs vs.bin\nrho rho.bin\n");
    CHECK(scl_seis_read_raw(path_of("raw.hdr"), &m, err, sizeof err) == SCL_OK, "%s", err);
    if (m.vp)
        CHECK(m.nx == 5 && m.h == 1.5 && !memcmp(m.vp, vals[0], sizeof vals[0]) &&
                  !memcmp(m.vs, vals[1], sizeof vals[1]) && !memcmp(m.rho, vals[2], sizeof vals[2]),
              "raw model differs");
    scl_seis_model_release(&m);
    write_text("raw2.hdr", "nx 5\nny 4\nnz 4\nh 1.5\nvp vp.bin\nvs vs.bin\nrho rho.bin\n");
    CHECK(scl_seis_read_raw(path_of("raw2.hdr"), &m, err, sizeof err) != SCL_OK &&
              strstr(err, "raw2.hdr:5:") && strstr(err, "only 60 float32 values"),
          "short raw file: '%s'", err);

    /* run file: good */
    write_text("good.run", "grid 30 20 20 5\nmodel homogeneous 3000 1700 2400\nsteps 40\n"
                           "source explosive 75 50 50 ricker 15 1e9\nreceiver 10 10 0\n"
                           "receivers 20 50 0 120 50 0 6\npml 5\n"
                           "receiver_grid 10 20 30 60 5 3 2\n");
    scl_seis_run run;
    char warn[512];
    CHECK(scl_seis_read_run(path_of("good.run"), &run, warn, sizeof warn, err, sizeof err) == SCL_OK,
          "good run: %s", err);
    CHECK(run.config.nreceivers == 13 && run.receivers && run.receivers[6].i == 24 &&
              run.receivers[12].i == 6 && run.receivers[12].j == 12 && run.receivers[12].k == 1 &&
              run.receivers[8].i == 4 && run.receivers[8].j == 4 &&
              run.config.sources[0].i == 15 && run.config.order == 4 && run.config.free_surface &&
              run.config.steps == 40 && fabs(run.config.dt * 1e6 - round(run.config.dt * 1e6)) < 1e-6,
          "run contents (dt %g)", run.config.dt);

    /* SEG-Y of random traces for the first 7 receivers: headers and
     * big-endian IEEE samples */
    scl_seis_config c7 = run.config;
    c7.nreceivers = 7;
    if (run.receivers) {
        const size_t nt = 7 * SCL_SEIS_NCOMP * 40;
        float *tr = malloc(nt * sizeof(float));
        for (size_t q = 0; q < nt; q++)
            tr[q] = (float)(test_uniform(&rng) - 0.5);
        CHECK(scl_seis_write_segy(path_of("shot_vz.sgy"), &run.model, &c7, tr,
                                  SCL_SEIS_VZ, 1, err, sizeof err) == SCL_OK, "%s", err);
        FILE *f = fopen(path_of("shot_vz.sgy"), "rb");
        unsigned char *b = calloc(1, 3600 + 7 * (240 + 160));
        const size_t got = f ? fread(b, 1, 3600 + 7 * (240 + 160) + 1, f) : 0;
        if (f)
            fclose(f);
        CHECK(got == 3600 + 7 * (240 + 160), "SEG-Y size %zu", got);
        CHECK(b[0] == 0xC3 && be16(b + 3224) == 5 && be16(b + 3220) == 40 &&
                  be16(b + 3216) == lround(run.config.dt * 1e6) && be16(b + 3500) == 0x0100,
              "binary header");
        const unsigned char *t6 = b + 3600 + 6 * 400;
        uint32_t u = (uint32_t)be32(t6 + 240 + 4 * 7);
        float v;
        memcpy(&v, &u, 4);
        CHECK(be32(t6) == 7 && be32(t6 + 80) == 12000 && be16(t6 + 70) == -100 &&
                  be16(t6 + 114) == 40 && v == tr[(6 * SCL_SEIS_NCOMP + SCL_SEIS_VZ) * 40 + 7],
              "trace 7 header/sample (%ld, %g)", be32(t6 + 80), v);
        free(b);
        CHECK(scl_seis_write_csv(path_of("shot.csv"), &c7, tr, 4, err, sizeof err) == SCL_OK,
              "%s", err);
        f = fopen(path_of("shot.csv"), "r");
        int lines = 0, ch;
        while (f && (ch = fgetc(f)) != EOF)
            lines += ch == '\n';
        if (f)
            fclose(f);
        CHECK(lines == 11, "CSV lines %d (header + 40/4)", lines);
        CHECK(scl_seis_write_segy(path_of("x.sgy"), &run.model, &c7, tr, 0, 1000, err,
                                  sizeof err) != SCL_OK && strstr(err, "microseconds"),
              "SEG-Y interval check: %s", err);
        free(tr);
    }
    scl_seis_run_release(&run);

    /* run file: bad lines; most are a good file's first lines and one more
     * (after_base), the others a whole file */
    static const struct {
        const char *name, *text, *msg;
        int after_base;
    } bad[] = {
        {"r1.run", "receiver 10 10 200\n", ":4: receiver 1: z = 200 m is outside", 1},
        {"r2.run", "dt 0.01\n", ":4: dt = 0.01 s violates the CFL condition", 1},
        {"r3.run", "grid 30 20 20 5\nmodel homogeneous 3000 2700 2400\n", ":2: vs 2700 >= (sqrt(3)/2) vp", 0},
        {"r4.run", "grid 30 20 20 5\nmodel homogeneous 3000 1700 -1\n", ":2: vp 3000 and density -1 must be positive", 0},
        {"r5.run", "frobnicate 3\n", ":4: unknown command 'frobnicate'", 1},
        {"r6.run", "source force 1 1 1 0 0 0 ricker 10 1\n", ":4: force direction is zero", 1},
        {"r7.run", "source explosive 1 1 1 wiggle 10 1\n", ":4: unknown wavelet 'wiggle'", 1},
        {"r8.run", "grid 30 20 20 5\nmodel layered nothere.txt\nsteps 3\n", ":2: ", 0},
        {"r9.run", "pml 10\n", ": pml = 10 cells does not fit", 1},
    };
    const char *base = "grid 30 20 20 5\nmodel homogeneous 3000 1700 2400\nsteps 40\n";
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "%s%s", bad[i].after_base ? base : "", bad[i].text);
        expect_run_error(bad[i].name, text, bad[i].msg);
    }
    return test_summary("seismic_files");
}
