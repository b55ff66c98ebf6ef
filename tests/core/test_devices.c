/* Device listing and selection by spec, including bad specs. */
#include "test_util.h"

#include <string.h>

static scl_status try_spec(const char *spec, char *err, size_t errlen)
{
    scl_context_options opt = {.device = spec};
    scl_context *ctx = NULL;
    scl_status s = scl_context_create(&opt, &ctx, err, errlen);
    if (s == SCL_OK) {
        const scl_device_info *d = scl_device(ctx);
        CHECK(d->compute_units > 0 && d->max_alloc > 0 && d->local_mem > 0 &&
                  d->max_work_group > 0 && d->name[0],
              "device facts of '%s' look wrong", spec);
        scl_context_free(ctx);
    }
    return s;
}

int main(void)
{
    scl_device_info *list = NULL;
    size_t n = 0;
    char err[1024] = "";
    CHECK(scl_devices_list(&list, &n, err, sizeof err) == SCL_OK, "%s", err);
    CHECK(n >= 1, "no device listed");
    int cpu_found = 0;
    for (size_t i = 0; i < n; i++)
        cpu_found |= !list[i].is_gpu;
    CHECK(cpu_found, "no CPU device (PoCL) listed");

    /* by type, by index, by name substring */
    CHECK(try_spec("cpu", err, sizeof err) == SCL_OK, "cpu: %s", err);
    if (n > 0) {
        char spec[32], name[16];
        snprintf(spec, sizeof spec, "%d:%d", list[0].platform_index, list[0].device_index);
        CHECK(try_spec(spec, err, sizeof err) == SCL_OK, "%s: %s", spec, err);
        snprintf(name, sizeof name, "%.6s", list[0].name);
        CHECK(try_spec(name, err, sizeof err) == SCL_OK, "name '%s': %s", name, err);
    }

    /* bad specs give a clear error naming the spec, and no context */
    const char *bad[] = {"no-such-device-xyz", "99:0", "0:99"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        scl_status s = try_spec(bad[i], err, sizeof err);
        CHECK(s == SCL_ERR_NO_DEVICE, "spec '%s' gave %s", bad[i], scl_status_name(s));
        CHECK(strstr(err, bad[i]) != NULL, "message does not name '%s': %s", bad[i], err);
    }
    CHECK(scl_context_create(NULL, NULL, err, sizeof err) == SCL_ERR_ARGUMENT, "NULL out accepted");
    free(list);
    return test_summary("core_devices");
}
