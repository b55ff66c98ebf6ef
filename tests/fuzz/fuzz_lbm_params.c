/* D2Q9 parameter files (`streamcl lbm PARAMFILE ...`). */
#include "fuzz_util.h"
#include "streamcl/lbm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_temp_file(data, size);
    scl_lbm_params p;
    char err[1024] = "";
    if (scl_lbm_read_params(path, &p, err, sizeof err) != SCL_OK) {
        fuzz_check_message(err, sizeof err);
        return 0;
    }
    /* accepted parameters must pass the library's own check */
    if (scl_lbm_check_params(&p, err, sizeof err) != SCL_OK)
        abort();
    return 0;
}
