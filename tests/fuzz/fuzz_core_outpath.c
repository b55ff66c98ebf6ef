/* Output-path handling (scl_output_resolve, scl_outfile_open/commit/abort):
 * the input is a path relative to a private sandbox holding a regular file
 * "f", a symlink "l -> f", a dangling symlink "d -> nowhere" and a directory
 * "dir" (paths with a leading "/" or a component starting with "." are
 * skipped: the target stays inside the sandbox, and a dot file left behind
 * is how a stray temporary is recognised). The first byte chooses commit or
 * abort. Invariants:
 * refusals carry a message; no temporary (a dot file) is ever left; "l"
 * stays a symlink; a commit leaves a regular file with exactly the bytes
 * written at the resolved target; an abort leaves the target as it was. */
#include "fuzz_util.h"
#include "streamcl.h"

#include <dirent.h>
#include <sys/stat.h>

static char box_[256];

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[600];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(p);
            else
                unlink(p);
        }
    closedir(d);
    rmdir(dir);
}

static void cleanup(void) { remove_tree(box_); }

static void make_box(void)
{
    if (!box_[0]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(box_, sizeof box_, "%s/streamcl-fuzz-out-%ld", dir, (long)getpid());
        atexit(cleanup);
    }
    remove_tree(box_);
    char p[600];
    if (mkdir(box_, 0700) != 0)
        abort();
    snprintf(p, sizeof p, "%s/f", box_);
    FILE *f = fopen(p, "w");
    if (!f || fputs("original\n", f) < 0 || fclose(f) != 0)
        abort();
    snprintf(p, sizeof p, "%s/l", box_);
    if (symlink("f", p) != 0)
        abort();
    snprintf(p, sizeof p, "%s/d", box_);
    if (symlink("nowhere", p) != 0)
        abort();
    snprintf(p, sizeof p, "%s/dir", box_);
    if (mkdir(p, 0700) != 0)
        abort();
}

/* Aborts when a directory of the sandbox holds a dot file (a temporary). */
static void no_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            abort();
    closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)fuzz_temp_file; /* the sandbox replaces it here */
    if (size < 1 || size > 200)
        return 0;
    char rel[256];
    memcpy(rel, data + 1, size - 1);
    rel[size - 1] = '\0';
    /* no way out of the sandbox, and no dot-file targets (a dot file left
     * behind is how a stray temporary is recognised) */
    if (strlen(rel) != size - 1 || rel[0] == '/' || rel[0] == '.' || strstr(rel, "/."))
        return 0;
    make_box();
    char path[600], err[4400] = "";
    snprintf(path, sizeof path, "%s/%s", box_, rel);
    const int commit = data[0] & 1;
    scl_outfile o;
    if (scl_outfile_open(&o, path, 0, err, sizeof err) != SCL_OK) {
        fuzz_check_message(err, sizeof err);
    } else {
        if (o.direct) /* no devices or FIFOs in the sandbox */
            abort();
        struct stat before;
        const int existed = stat(o.path, &before) == 0;
        char old[64] = "";
        if (existed) {
            FILE *g = fopen(o.path, "r");
            if (!g || !fgets(old, sizeof old, g))
                old[0] = '\0';
            if (g)
                fclose(g);
        }
        fputs("written\n", o.f);
        if (commit) {
            if (scl_outfile_commit(&o, err, sizeof err) != SCL_OK)
                fuzz_check_message(err, sizeof err);
            else {
                struct stat st;
                if (stat(o.path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 8)
                    abort();
            }
        } else {
            scl_outfile_abort(&o);
            FILE *g = fopen(o.path, "r");
            char now[64] = "";
            if (g && !fgets(now, sizeof now, g))
                now[0] = '\0';
            if (g)
                fclose(g);
            if ((g != NULL) != existed || strcmp(now, old))
                abort();
        }
    }
    struct stat l;
    char p[600];
    snprintf(p, sizeof p, "%s/l", box_);
    if (lstat(p, &l) != 0 || !S_ISLNK(l.st_mode))
        abort();
    no_temporaries(box_);
    snprintf(p, sizeof p, "%s/dir", box_);
    no_temporaries(p);
    return 0;
}
