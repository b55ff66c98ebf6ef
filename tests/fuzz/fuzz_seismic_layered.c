/* Layered models (`model layered FILE` in a seismic run file). The first
 * byte picks the depth in cells (1..64), the rest is the file. */
#include "fuzz_util.h"
#include "streamcl/seismic.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    scl_seis_model m = {.nx = 2, .ny = 3, .nz = 1 + data[0] % 64, .h = 2.5};
    const char *path = fuzz_temp_file(data + 1, size - 1);
    char err[1024] = "";
    if (scl_seis_read_layered(path, &m, err, sizeof err) != SCL_OK) {
        fuzz_check_message(err, sizeof err);
        return 0;
    }
    for (int q = 0; q < m.nx * m.ny * m.nz; q++)
        if (!(m.vp[q] > 0) || !(m.rho[q] > 0) || !(m.vs[q] >= 0) ||
            !(m.vs[q] < sqrt(3.0) / 2 * m.vp[q] * 1.000001) || !isfinite(m.vp[q]))
            abort();
    scl_seis_model_release(&m);
    return 0;
}
