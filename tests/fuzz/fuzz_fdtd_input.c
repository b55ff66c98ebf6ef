/* Fuzz the gprMax input reader of streamcl fdtd: any bytes either give a
 * finished model whose every index the solver uses is in range, or an error
 * with a message. Domains are capped at 64^3 cells so a run stays small. */
#include "fuzz_util.h"
#include "streamcl/fdtd.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_temp_file(data, size);
    char err[1024] = "";
    scl_fdtd_model m;
    if (scl_fdtd_read_input_limit(path, 64 * 64 * 64, &m, err, sizeof err) != SCL_OK) {
        fuzz_check_message(err, sizeof err);
        return 0;
    }
    const scl_grid3d *g = &m.grid;
    int n[3] = {g->nx, g->ny, g->nz};
    double limit = scl_fdtd_model_courant(&m); /* 3D, or the 2D limit of a 2D model */
    if (!(m.dt > 0 && m.dt <= limit) || m.iterations < 1 || m.nmat < 2 || m.nmat > SCL_FDTD_MAX_MATERIALS)
        abort();
    for (int s = 0; s < m.nsrc; s++) {
        if (m.src[s].pol < 0 || m.src[s].pol > 2 || m.src[s].wave < 0 || m.src[s].wave >= m.nwave)
            abort();
        for (int a = 0; a < 3; a++)
            if (m.src[s].ijk[a] < 0 || m.src[s].ijk[a] > n[a])
                abort();
        if (!isfinite(scl_fdtd_source_value(&m, s, 0)))
            abort();
    }
    for (int r = 0; r < m.nrx; r++)
        for (int a = 0; a < 3; a++)
            if (m.rx_ijk[r][a] < 0 || m.rx_ijk[r][a] > n[a])
                abort();
    for (int a = 0; a < 3; a++)
        if (m.pml[a] < 0 || m.pml[a + 3] < 0 || m.pml[a] + m.pml[a + 3] > n[a])
            abort();
    long pts = scl_grid3d_points(g);
    for (int c = 0; c < 6; c++)
        for (long i = 0; i < pts; i++)
            if (m.id[c][i] >= m.nmat)
                abort();
    double *co = malloc(4 * sizeof(double) * (size_t)m.nmat);
    scl_fdtd_coefficients(&m, co, co + m.nmat, co + 2 * m.nmat, co + 3 * m.nmat);
    for (int q = 0; q < 4 * m.nmat; q++)
        if (!isfinite(co[q]))
            abort();
    free(co);
    scl_fdtd_model_free(&m);
    return 0;
}
