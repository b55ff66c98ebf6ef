/* Output files written under a temporary name and renamed when complete, so
 * that a failure never leaves half a file under the final name. */
#include "streamcl/grid3d.h"
#include "core/internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

scl_status scl_output_path_check(const char *path, char *err, size_t errlen)
{
    if (!path || !*path) {
        scl_format_error(err, errlen, "empty output path");
        return SCL_ERR_IO;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        scl_format_error(err, errlen, "%s: is a directory", path);
        return SCL_ERR_IO;
    }
    char dir[1024];
    const char *slash = strrchr(path, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == path)
        strcpy(dir, "/");
    else if ((size_t)(slash - path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else {
        scl_format_error(err, errlen, "%s: path too long", path);
        return SCL_ERR_IO;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        scl_format_error(err, errlen, "%s: directory %s does not exist", path, dir);
        return SCL_ERR_IO;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        scl_format_error(err, errlen, "%s: directory %s is not writable: %s", path, dir,
                         strerror(errno));
        return SCL_ERR_IO;
    }
    return SCL_OK;
}

scl_status scl_outfile_begin(scl_outfile *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (!path || strlen(path) >= sizeof o->path) {
        scl_format_error(err, errlen, "output path missing or too long");
        return SCL_ERR_IO;
    }
    scl_status s = scl_output_path_check(path, err, errlen);
    if (s != SCL_OK)
        return s;
    strcpy(o->path, path);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
    o->active = 1;
    return SCL_OK;
}

scl_status scl_outfile_open(scl_outfile *o, const char *path, int binary, char *err,
                            size_t errlen)
{
    scl_status s = scl_outfile_begin(o, path, err, errlen);
    if (s != SCL_OK)
        return s;
    o->f = fopen(o->tmp, binary ? "wb" : "w");
    if (!o->f) {
        scl_format_error(err, errlen, "%s: cannot write: %s", o->tmp, strerror(errno));
        o->active = 0;
        return SCL_ERR_IO;
    }
    return SCL_OK;
}

void scl_outfile_abort(scl_outfile *o)
{
    if (!o || !o->active)
        return;
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    remove(o->tmp);
    o->active = 0;
}

scl_status scl_outfile_commit(scl_outfile *o, char *err, size_t errlen)
{
    if (!o || !o->active) {
        scl_format_error(err, errlen, "scl_outfile_commit: no file open");
        return SCL_ERR_ARGUMENT;
    }
    if (o->f) {
        int bad = ferror(o->f);
        if (fclose(o->f) != 0)
            bad = 1;
        o->f = NULL;
        if (bad) {
            scl_format_error(err, errlen, "%s: write failed: %s", o->tmp, strerror(errno));
            scl_outfile_abort(o);
            return SCL_ERR_IO;
        }
    }
    if (rename(o->tmp, o->path) != 0) {
        scl_format_error(err, errlen, "%s: cannot rename to %s: %s", o->tmp, o->path,
                         strerror(errno));
        scl_outfile_abort(o);
        return SCL_ERR_IO;
    }
    o->active = 0;
    return SCL_OK;
}
