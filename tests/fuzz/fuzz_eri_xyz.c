/* XYZ geometries (`streamcl eri --xyz FILE`); the first byte picks the units. */
#include "fuzz_util.h"
#include "streamcl/eri.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int angstrom = data[0] & 1;
    const char *path = fuzz_temp_file(data + 1, size - 1);
    scl_eri_atom *atoms = NULL;
    size_t n = 0;
    char err[1024] = "";
    if (scl_eri_xyz_read(path, angstrom, &atoms, &n, err, sizeof err) != SCL_OK) {
        fuzz_check_message(err, sizeof err);
        if (atoms || n)
            abort();
        return 0;
    }
    if (n == 0)
        abort();
    for (size_t i = 0; i < n; i++) {
        if (atoms[i].Z < 1 || !scl_eri_element_symbol(atoms[i].Z)[0])
            abort();
        for (int d = 0; d < 3; d++)
            if (!isfinite(atoms[i].xyz[d]))
                abort();
        for (size_t j = 0; j < i; j++) { /* overlapping nuclei are refused */
            double r2 = 0;
            for (int d = 0; d < 3; d++)
                r2 += (atoms[i].xyz[d] - atoms[j].xyz[d]) * (atoms[i].xyz[d] - atoms[j].xyz[d]);
            if (!(r2 >= 1e-12))
                abort();
        }
    }
    free(atoms);
    return 0;
}
