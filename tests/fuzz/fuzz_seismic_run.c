/* Run files of `streamcl seismic RUNFILE` (scl_seis_read_run). Inputs whose
 * 'grid' lines ask for more than 2^18 cells are skipped: the reader would
 * rightly try to allocate the model, which is not what this target tests. */
#include "fuzz_util.h"
#include "streamcl/seismic.h"

static int too_big(const uint8_t *data, size_t size)
{
    char line[256];
    size_t q = 0;
    while (q < size) {
        size_t n = 0;
        while (q < size && data[q] != '\n' && n + 1 < sizeof line)
            line[n++] = (char)data[q++];
        while (q < size && data[q++] != '\n')
            ;
        line[n] = '\0';
        double a, b, c;
        if (sscanf(line, " grid %lf %lf %lf", &a, &b, &c) == 3 && !(a * b * c <= 262144.0))
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (too_big(data, size))
        return 0;
    const char *path = fuzz_temp_file(data, size);
    scl_seis_run run;
    char err[2048] = "", warn[512] = "";
    if (scl_seis_read_run(path, &run, warn, sizeof warn, err, sizeof err) != SCL_OK) {
        fuzz_check_message(err, sizeof err);
        return 0;
    }
    /* accepted: everything the solver relies on holds */
    const scl_seis_config *c = &run.config;
    const scl_seis_model *m = &run.model;
    if (!(c->dt > 0) || c->steps < 1 || (c->order != 2 && c->order != 4) || !(m->h > 0) ||
        scl_seis_cfl(m, c) > 1)
        abort();
    for (int q = 0; q < c->nreceivers; q++)
        if (c->receivers[q].i < 0 || c->receivers[q].i >= m->nx || c->receivers[q].k < 0 ||
            c->receivers[q].k >= m->nz)
            abort();
    for (size_t q = 0; q < (size_t)m->nx * m->ny * m->nz; q++)
        if (!(m->rho[q] > 0) || !(m->vs[q] < 0.8661 * m->vp[q]))
            abort();
    scl_seis_run_release(&run);
    return 0;
}
