/* LAMMPS data files (atom_style full) as `streamcl pair-bench --data` reads them. */
#include "fuzz_util.h"
#include "pair/charmm_system.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_temp_file(data, size);
    charmm_system sys;
    char err[1024] = "";
    if (charmm_read_data(path, &sys, err, sizeof err) != 0) {
        fuzz_check_message(err, sizeof err);
        return 0;
    }
    /* accepted: every field the engine uses must be in range */
    for (int i = 0; i < sys.natoms; i++)
        if (sys.type[i] < 0 || sys.type[i] >= sys.ntypes || !isfinite(sys.q[i]) ||
            sys.tag[i] < 1 || sys.nspecial[3 * i + 2] > sys.maxspecial)
            abort();
    charmm_system_free(&sys);
    return 0;
}
