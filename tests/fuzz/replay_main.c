/* Without libFuzzer (gcc builds, the ASan CI build): runs a target once on
 * every file of the given corpus folders, so that each seed and each crash
 * reproducer kept in tests/fuzz/corpus/ is a regression test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = b;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    long files = 0;
    for (int a = 1; a < argc; a++) {
        DIR *d = opendir(argv[a]);
        if (!d) {
            perror(argv[a]);
            return 1;
        }
        for (struct dirent *e; (e = readdir(d));) {
            char path[4096];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
                continue;
            if (run_file(path) != 0) {
                closedir(d);
                return 1;
            }
            files++;
        }
        closedir(d);
    }
    if (files == 0) {
        fprintf(stderr, "no corpus files in the given folders\n");
        return 1;
    }
    printf("replayed %ld corpus files\n", files);
    return 0;
}
