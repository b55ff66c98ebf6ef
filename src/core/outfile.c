/* Output files, the one place every writer of the library and the command
 * goes through (see streamcl.h, "output files"):
 *  - a regular file (or a new name) is written to a temporary beside it,
 *    created with O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name, and
 *    renamed onto the target only when complete, so a failure never leaves
 *    half a file and a planted symlink is never followed for the temporary;
 *  - a symlinked target is written through: the temporary is made beside the
 *    file the link points to and renamed onto that file, the link stays
 *    (refused, as the kernel's protected_symlinks does, for a link owned by
 *    another user in a sticky world-writable directory such as /tmp);
 *  - a character device or FIFO (/dev/null, /dev/stdout, a pipe) is written
 *    straight and never replaced by a rename (renaming a regular file onto
 *    /dev/full as root turns the device into a file); so are /dev/stdout,
 *    /dev/stderr, /dev/fd/N and /proc/self/fd/N whatever they lead to (a
 *    redirected log file is appended to, not replaced);
 *  - directories, block devices, sockets and dangling symlinks are refused. */
#include "streamcl.h"
#include "core/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Split path into its directory ("." for a bare name) and base name. */
static int split_path(const char *path, char *dir, size_t dirlen, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dirlen, ".");
        *base = path;
        return 0;
    }
    *base = slash + 1;
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= dirlen)
        return -1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return 0;
}

scl_status scl_output_resolve(const char *path, char *target, size_t targetlen, int *direct,
                              char *err, size_t errlen)
{
    *direct = 0;
    if (!path || !*path) {
        scl_format_error(err, errlen, "empty output path");
        return SCL_ERR_IO;
    }
    if (strlen(path) >= targetlen) {
        scl_format_error(err, errlen, "%s: path too long", path);
        return SCL_ERR_IO;
    }
    if (path[strlen(path) - 1] == '/') {
        scl_format_error(err, errlen, "%s: is a directory name, not a file", path);
        return SCL_ERR_IO;
    }
    struct stat st;
    const char *t = path;
    char resolved[PATH_MAX];
    /* the process's own descriptors (stdout redirected to a log file): the
     * open file is written straight, appended to, never renamed over */
    if (!strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/stderr") ||
        !strncmp(path, "/dev/fd/", 8) || !strncmp(path, "/proc/self/fd/", 14)) {
        if (access(path, W_OK) != 0) {
            scl_format_error(err, errlen, "%s: not writable: %s", path, strerror(errno));
            return SCL_ERR_IO;
        }
        snprintf(target, targetlen, "%s", path);
        *direct = 1;
        return SCL_OK;
    }
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* as the kernel's protected_symlinks: in a sticky world-writable
         * directory (/tmp) a link that neither we nor the directory's owner
         * own is someone else's trap, not followed */
        char dir[PATH_MAX];
        const char *base;
        struct stat ds;
        if (split_path(path, dir, sizeof dir, &base) == 0 && stat(dir, &ds) == 0 &&
            (ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH) && st.st_uid != geteuid() &&
            st.st_uid != ds.st_uid) {
            scl_format_error(err, errlen,
                             "%s: a symbolic link owned by another user in the sticky directory "
                             "%s; not followed",
                             path, dir);
            return SCL_ERR_IO;
        }
        /* written through to the file the link names; a dangling link is
         * refused rather than guessed at */
        if (!realpath(path, resolved)) {
            scl_format_error(err, errlen, "%s: a symbolic link to a missing file (%s); not followed",
                             path, strerror(errno));
            return SCL_ERR_IO;
        }
        if (strlen(resolved) >= targetlen) {
            scl_format_error(err, errlen, "%s: resolved path too long", path);
            return SCL_ERR_IO;
        }
        t = resolved;
    }
    if (stat(t, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            scl_format_error(err, errlen, "%s: is a directory", path);
            return SCL_ERR_IO;
        }
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
            *direct = 1;
        else if (!S_ISREG(st.st_mode)) {
            scl_format_error(err, errlen,
                             "%s: not a regular file, character device or FIFO; refused", path);
            return SCL_ERR_IO;
        }
    } else if (errno != ENOENT) {
        scl_format_error(err, errlen, "%s: %s", path, strerror(errno));
        return SCL_ERR_IO;
    }
    snprintf(target, targetlen, "%s", t);
    if (*direct) {
        if (access(target, W_OK) != 0) {
            scl_format_error(err, errlen, "%s: not writable: %s", path, strerror(errno));
            return SCL_ERR_IO;
        }
        return SCL_OK;
    }
    char dir[PATH_MAX];
    const char *base;
    if (split_path(target, dir, sizeof dir, &base) != 0) {
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

scl_status scl_output_path_check(const char *path, char *err, size_t errlen)
{
    char target[PATH_MAX];
    int direct;
    return scl_output_resolve(path, target, sizeof target, &direct, err, errlen);
}

/* 64 unpredictable bits: the kernel's random source, else the clock, the pid
 * and a counter (O_EXCL keeps even a guessed name safe; this only makes a
 * planted name unlikely to collide). */
static uint64_t random_bits(void)
{
    static unsigned counter;
    uint64_t r = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &r, sizeof r) != (ssize_t)sizeof r)
            r = 0;
        close(fd);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    r ^= ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^
         (uint64_t)(++counter) * 0x9E3779B97F4A7C15ull;
    return r;
}

/* Creates ".BASE.XXXXXXXXXX" beside target; the open descriptor or -1. */
static int create_temporary(const char *target, char *tmp, size_t tmplen, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    const char *base;
    if (split_path(target, dir, sizeof dir, &base) != 0) {
        scl_format_error(err, errlen, "%s: path too long", target);
        return -1;
    }
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 64; attempt++) {
        uint64_t r = random_bits();
        char suffix[11];
        for (int i = 0; i < 10; i++, r /= 62)
            suffix[i] = alphabet[r % 62];
        suffix[10] = '\0';
        int n = strchr(target, '/') ? snprintf(tmp, tmplen, "%s/.%s.%s", strcmp(dir, "/") ? dir : "", base, suffix)
                                    : snprintf(tmp, tmplen, ".%s.%s", base, suffix);
        if (n < 0 || (size_t)n >= tmplen) {
            scl_format_error(err, errlen, "%s: path too long", target);
            return -1;
        }
        /* O_EXCL fails on any existing name, a symlink included */
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST) {
            scl_format_error(err, errlen, "%s: cannot create a temporary beside it: %s", target,
                             strerror(errno));
            return -1;
        }
    }
    scl_format_error(err, errlen, "%s: no free temporary name beside it", target);
    return -1;
}

/* The descriptor a path names as one of the process's own (/dev/stdout,
 * /dev/stderr, /dev/fd/N, /proc/self/fd/N), or -1. Written through a
 * duplicate, output shares the descriptor's offset with what the process
 * prints there (a log file opened by the shell is not overwritten). */
static int own_descriptor(const char *path)
{
    if (!strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    const char *n = !strncmp(path, "/dev/fd/", 8) ? path + 8
                    : !strncmp(path, "/proc/self/fd/", 14) ? path + 14
                                                             : NULL;
    if (!n || !*n || strspn(n, "0123456789") != strlen(n) || strlen(n) > 6)
        return -1;
    return atoi(n);
}

static scl_status outfile_start(scl_outfile *o, const char *path, int keep_open, int binary,
                                char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    int direct;
    scl_status s = scl_output_resolve(path, o->path, sizeof o->path, &direct, err, errlen);
    if (s != SCL_OK)
        return s;
    (void)binary; /* POSIX streams make no text/binary difference */
    int fd;
    if (direct && !keep_open) { /* opened by whoever writes it: a FIFO opened and
                                 * closed here would end its reader's input */
        snprintf(o->tmp, sizeof o->tmp, "%s", o->path);
        o->direct = 1;
        o->active = 1;
        return SCL_OK;
    }
    int own = own_descriptor(o->path);
    if (direct && own >= 0) { /* the same open file: its offset is shared */
        fd = fcntl(own, F_DUPFD_CLOEXEC, 3);
        if (fd < 0) {
            scl_format_error(err, errlen, "%s: cannot write: %s", path, strerror(errno));
            return SCL_ERR_IO;
        }
    } else if (direct) {
        fd = open(o->path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
            scl_format_error(err, errlen, "%s: cannot write: %s", path, strerror(errno));
            return SCL_ERR_IO;
        }
        snprintf(o->tmp, sizeof o->tmp, "%s", o->path);
    } else {
        fd = create_temporary(o->path, o->tmp, sizeof o->tmp, err, errlen);
        if (fd < 0)
            return SCL_ERR_IO;
        struct stat st; /* a replaced file keeps its permissions */
        if (stat(o->path, &st) == 0 && S_ISREG(st.st_mode))
            (void)fchmod(fd, st.st_mode & 07777);
    }
    o->direct = direct;
    o->active = 1;
    if (!keep_open) {
        close(fd);
        return SCL_OK;
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        scl_format_error(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        scl_outfile_abort(o);
        return SCL_ERR_IO;
    }
    return SCL_OK;
}

scl_status scl_outfile_begin(scl_outfile *o, const char *path, char *err, size_t errlen)
{
    return outfile_start(o, path, 0, 1, err, errlen);
}

scl_status scl_outfile_open(scl_outfile *o, const char *path, int binary, char *err,
                            size_t errlen)
{
    return outfile_start(o, path, 1, binary, err, errlen);
}

void scl_outfile_abort(scl_outfile *o)
{
    if (!o || !o->active)
        return;
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (!o->direct) /* never unlink the device or pipe written straight */
        unlink(o->tmp);
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
        if (fflush(o->f) != 0)
            bad = 1;
        int e = errno;
        if (fclose(o->f) != 0) {
            bad = 1;
            e = errno;
        }
        o->f = NULL;
        if (bad) {
            scl_format_error(err, errlen, "%s: write failed: %s", o->path, strerror(e));
            scl_outfile_abort(o);
            return SCL_ERR_IO;
        }
    }
    if (!o->direct && rename(o->tmp, o->path) != 0) {
        scl_format_error(err, errlen, "%s: cannot rename to %s: %s", o->tmp, o->path,
                         strerror(errno));
        scl_outfile_abort(o);
        return SCL_ERR_IO;
    }
    o->active = 0;
    return SCL_OK;
}

scl_status scl_outfile_write(const char *path, int binary, int (*write)(FILE *f, const void *user),
                             const void *user, char *err, size_t errlen)
{
    scl_outfile o;
    scl_status st = scl_outfile_open(&o, path, binary, err, errlen);
    if (st != SCL_OK)
        return st;
    if (write(o.f, user) != 0) {
        scl_format_error(err, errlen, "%s: write failed: %s", path, strerror(errno));
        scl_outfile_abort(&o);
        return SCL_ERR_IO;
    }
    return scl_outfile_commit(&o, err, errlen);
}
