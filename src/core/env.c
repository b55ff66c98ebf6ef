/* The one place the STREAMCL_* environment variables are read: programs that
 * want them (the streamcl command, the LAMMPS plugin) call this explicitly,
 * and the library itself sees only the options it is given. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* 1 for "1/yes/on/true", 0 for "0/no/off/false", else dflt. */
static int env_flag(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") ||
        !strcasecmp(v, "true"))
        return 1;
    if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "off") ||
        !strcasecmp(v, "false"))
        return 0;
    return dflt;
}

static void copy_env(const char *name, char *dst, size_t len, const char **field)
{
    const char *v = getenv(name);
    if (*field || !v || !*v || strlen(v) >= len)
        return;
    memcpy(dst, v, strlen(v) + 1);
    *field = dst;
}

void scl_env_options_read(scl_env_options *env)
{
    if (!env)
        return;
    scl_context_options *o = &env->context;
    copy_env("STREAMCL_DEVICE", env->device, sizeof env->device, &o->device);
    copy_env("STREAMCL_FORCE", env->force, sizeof env->force, &o->force);
    if (!o->profiling)
        o->profiling = env_flag("STREAMCL_PROFILE", 0);
    if (!o->no_tune)
        o->no_tune = !env_flag("STREAMCL_TUNE", 1);
    if (!o->cache_dir && !env_flag("STREAMCL_NO_CACHE", 0)) {
        const char *dir = getenv("STREAMCL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
                   *home = getenv("HOME");
        int n = -1;
        if (dir && *dir)
            n = snprintf(env->cache_dir, sizeof env->cache_dir, "%s", dir);
        else if (xdg && *xdg)
            n = snprintf(env->cache_dir, sizeof env->cache_dir, "%s/streamcl", xdg);
        else if (home && *home)
            n = snprintf(env->cache_dir, sizeof env->cache_dir, "%s/.cache/streamcl", home);
        if (n > 0 && (size_t)n < sizeof env->cache_dir)
            o->cache_dir = env->cache_dir;
    }
}

scl_status scl_context_create_env(const scl_context_options *opt, scl_context **out, char *err,
                                  size_t errlen)
{
    scl_env_options env; /* (the context copies the strings it keeps) */
    memset(&env, 0, sizeof env);
    if (opt)
        env.context = *opt;
    scl_env_options_read(&env);
    return scl_context_create(&env.context, out, err, errlen);
}
