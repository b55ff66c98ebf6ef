/* streamcl devices: every platform and device with the facts solvers use. */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_devices(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: streamcl devices\nLists OpenCL devices; use P:D with --device.\n");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "streamcl devices: unexpected argument '%s'\n", argv[1]);
        return 2;
    }
    scl_device_info *list = NULL;
    size_t n = 0;
    char err[1024];
    if (scl_devices_list(&list, &n, err, sizeof err) != SCL_OK) {
        fprintf(stderr, "streamcl devices: %s\n", err);
        return 1;
    }
    if (n == 0) {
        fprintf(stderr, "streamcl devices: no OpenCL device found\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        const scl_device_info *d = &list[i];
        printf("%d:%d  %s  [%s]\n", d->platform_index, d->device_index, d->name, d->platform);
        printf("      type %s, %s, driver %s\n", d->is_gpu ? "GPU" : "CPU", d->version, d->driver);
        printf("      compute units %u @ %u MHz, max work-group %zu, local mem %llu KiB\n",
               d->compute_units, d->clock_mhz, d->max_work_group,
               (unsigned long long)(d->local_mem / 1024));
        printf("      global mem %.2f GiB, max allocation %.2f GiB, host-unified %s\n",
               (double)d->global_mem / 1073741824.0, (double)d->max_alloc / 1073741824.0,
               d->host_unified ? "yes" : "no");
        printf("      fp64 %s, preferred vector width float %u double %u\n",
               d->fp64 ? "yes" : "no", d->vec_float, d->vec_double);
    }
    free(list);
    return 0;
}
