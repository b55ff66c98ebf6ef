/* The one list of force kinds (charmm_kinds.h). */
#include "pair/kinds/charmm_kinds.h"

#include <stdio.h>
#include <string.h>

const charmm_force_kind *const charmm_force_kinds[] = {&charmm_lanes_kind, &charmm_cpu_kind,
                                                       &charmm_cluster_kind};
const int charmm_force_nkinds = (int)(sizeof charmm_force_kinds / sizeof charmm_force_kinds[0]);

void charmm_kinds_release(charmm_forces *fk)
{
    for (int k = 0; k < charmm_force_nkinds; k++)
        if (charmm_force_kinds[k]->release)
            charmm_force_kinds[k]->release(fk);
}

const charmm_force_kind *charmm_kinds_find(const char *name)
{
    for (int k = 0; k < charmm_force_nkinds; k++)
        if (!strcmp(charmm_force_kinds[k]->name, name))
            return charmm_force_kinds[k];
    return NULL;
}

const char *charmm_kinds_names(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < charmm_force_nkinds && n < len; k++) {
        const char *sep = k == 0 ? "" : k == charmm_force_nkinds - 1 ? " or " : ", ";
        n += (size_t)snprintf(buf + n, len - n, "%s%s", sep, charmm_force_kinds[k]->name);
    }
    return buf;
}
