/* Rank -> GPU assignment of the LAMMPS style (scl_charmm_rank_gpu): node-local
 * round robin over the wanted number of GPUs, all of them by default; every
 * GPU in use gets ranks, and the counts differ by at most one. */
#include "streamcl/charmm.h"
#include "test_util.h"

int main(void)
{
    /* the cases of issue 11: 8 ranks on 2 GPUs, 8 ranks with "gpus 1" */
    CHECK(scl_charmm_rank_gpu(0, 0, 2) == 0 && scl_charmm_rank_gpu(1, 0, 2) == 1 &&
              scl_charmm_rank_gpu(7, 0, 2) == 1 && scl_charmm_rank_gpu(6, 0, 2) == 0,
          "8 ranks on 2 GPUs are not alternating");
    for (int r = 0; r < 8; r++)
        CHECK(scl_charmm_rank_gpu(r, 1, 2) == 0, "gpus 1: rank %d not on GPU 0", r);
    /* no GPU, negative arguments */
    CHECK(scl_charmm_rank_gpu(0, 0, 0) == -1 && scl_charmm_rank_gpu(-1, 0, 2) == -1 &&
              scl_charmm_rank_gpu(0, -2, 2) == -1,
          "invalid cases not refused");
    /* balance over many shapes: more wanted than present clamps */
    for (int present = 1; present <= 8; present++)
        for (int wanted = 0; wanted <= 10; wanted++)
            for (int ranks = 1; ranks <= 17; ranks++) {
                int used = wanted > 0 && wanted < present ? wanted : present;
                int counts[8] = {0};
                for (int r = 0; r < ranks; r++) {
                    int g = scl_charmm_rank_gpu(r, wanted, present);
                    if (g < 0 || g >= used) {
                        CHECK(0, "rank %d of %d -> GPU %d (present %d, wanted %d)", r, ranks,
                              g, present, wanted);
                        return test_summary("test_charmm_rank_device");
                    }
                    counts[g]++;
                }
                int lo = ranks, hi = 0;
                for (int g = 0; g < used; g++) {
                    lo = counts[g] < lo ? counts[g] : lo;
                    hi = counts[g] > hi ? counts[g] : hi;
                }
                if (hi - lo > 1 || (ranks >= used && lo == 0))
                    CHECK(0, "unbalanced: %d ranks, %d GPUs used: %d..%d each", ranks, used, lo,
                          hi);
            }
    CHECK(1, "balance");
    return test_summary("test_charmm_rank_device");
}
