/* NWChem-format basis files (`streamcl eri --basis FILE`). */
#include "fuzz_util.h"
#include "streamcl/eri.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_temp_file(data, size);
    scl_eri_basis b;
    char err[1024] = "";
    if (scl_eri_basis_read(path, &b, err, sizeof err) != SCL_OK) {
        fuzz_check_message(err, sizeof err);
        if (b.shell || b.nshell) /* nothing is handed out on failure */
            abort();
        return 0;
    }
    if (b.nshell == 0)
        abort();
    for (size_t s = 0; s < b.nshell; s++) {
        const scl_eri_shell *sh = &b.shell[s];
        if (sh->l != 0 || sh->nprim < 1 || sh->nprim > SCL_ERI_MAX_PRIM || sh->element < 1 ||
            !scl_eri_element_symbol(sh->element)[0])
            abort();
        for (int a = 0; a < sh->nprim; a++)
            if (!(sh->exponent[a] > 0) || !isfinite(sh->exponent[a]) || !isfinite(sh->coef[a]))
                abort();
    }
    /* place it on one atom: normalised or refused with a message */
    scl_eri_atom atom = {b.shell[0].element, {0, 0, 0}};
    scl_eri_system sys;
    if (scl_eri_system_build(&b, &atom, 1, &sys, err, sizeof err) == SCL_OK) {
        for (size_t f = 0; f < sys.nfunc; f++)
            for (int a = 0; a < sys.func[f].nprim; a++)
                if (!isfinite(sys.func[f].coef[a]))
                    abort();
        scl_eri_system_free(&sys);
    } else {
        fuzz_check_message(err, sizeof err);
    }
    scl_eri_basis_free(&b);
    return 0;
}
