/* n-body body files (`streamcl nbody --init FILE`). */
#include "fuzz_util.h"
#include "streamcl/nbody.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_temp_file(data, size);
    size_t n = 0;
    double *pos = NULL, *vel = NULL, *mass = NULL;
    char err[1024] = "";
    if (scl_nbody_load(path, &n, &pos, &vel, &mass, err, sizeof err) != SCL_OK) {
        fuzz_check_message(err, sizeof err);
        if (pos || vel || mass) /* nothing is handed out on failure */
            abort();
        return 0;
    }
    if (n == 0)
        abort();
    for (size_t i = 0; i < n; i++)
        if (!isfinite(pos[3 * i]) || !isfinite(vel[3 * i + 2]) || !(mass[i] >= 0))
            abort();
    free(pos);
    free(vel);
    free(mass);
    return 0;
}
