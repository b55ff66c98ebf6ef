/* D2Q9 obstacle files (`streamcl lbm ... OBSTACLEFILE`). The first two bytes
 * choose a small grid (1..64 x 2..65), the rest is the file. */
#include "fuzz_util.h"
#include "streamcl/lbm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    scl_lbm_params p = {.nx = 1 + data[0] % 64, .ny = 2 + data[1] % 64, .max_iters = 1,
                        .reynolds_dim = 1, .density = 0.1f, .accel = 0.005f, .omega = 1.7f};
    const char *path = fuzz_temp_file(data + 2, size - 2);
    unsigned char *mask = malloc((size_t)p.nx * (size_t)p.ny);
    if (!mask)
        abort();
    char err[1024] = "";
    if (scl_lbm_read_obstacles(path, &p, mask, err, sizeof err) != SCL_OK)
        fuzz_check_message(err, sizeof err);
    else
        for (int i = 0; i < p.nx * p.ny; i++)
            if (mask[i] > 1)
                abort();
    free(mask);
    return 0;
}
