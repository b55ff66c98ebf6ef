/* Which GPU of a node a rank uses: node-local rank round robin (as LAMMPS's
 * GPU package does with -pk gpu N). */
#include "pair/pair_internal.h"

#include <stdlib.h>

int scl_charmm_rank_gpu(int local_rank, int ngpus_wanted, int ngpus_present)
{
    if (local_rank < 0 || ngpus_wanted < 0 || ngpus_present <= 0)
        return -1;
    int n = ngpus_wanted > 0 && ngpus_wanted < ngpus_present ? ngpus_wanted : ngpus_present;
    return local_rank % n;
}

scl_status scl_charmm_rank_device(int local_rank, int ngpus_wanted, char *spec, size_t len,
                                  int *ngpus_used, char *err, size_t errlen)
{
    scl_device_info *list = NULL;
    size_t count = 0;
    scl_status s = scl_devices_list(&list, &count, err, errlen);
    if (s != SCL_OK)
        return s;
    int present = 0;
    for (size_t k = 0; k < count; k++)
        present += list[k].is_gpu != 0;
    int pick = scl_charmm_rank_gpu(local_rank, ngpus_wanted, present);
    if (pick < 0) {
        free(list);
        scl_format_error(err, errlen, "no GPU for node-local rank %d (%d GPUs present, %d wanted)",
                         local_rank, present, ngpus_wanted);
        return present > 0 ? SCL_ERR_ARGUMENT : SCL_ERR_NO_DEVICE;
    }
    for (size_t k = 0, g = 0; k < count; k++) {
        if (!list[k].is_gpu)
            continue;
        if ((int)g++ == pick) {
            snprintf(spec, len, "%d:%d", list[k].platform_index, list[k].device_index);
            break;
        }
    }
    if (ngpus_used)
        *ngpus_used = ngpus_wanted > 0 && ngpus_wanted < present ? ngpus_wanted : present;
    free(list);
    return SCL_OK;
}
