/* On-disk cache: checked blob files keyed by a hash, written atomically.
 * A file is trusted only if its magic, full key text, length and payload hash
 * all match; anything else is treated as absent and rebuilt by the caller. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "SCLCACHE1\n"

uint64_t scl_hash64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

int scl_cache_path(const scl_context *ctx, const char *sub, uint64_t key, const char *ext,
                   char *path, size_t pathlen)
{
    if (!ctx->cache_dir[0])
        return -1;
    char dir[1200];
    int n = snprintf(dir, sizeof dir, "%s/%s", ctx->cache_dir, sub);
    if (n < 0 || (size_t)n >= sizeof dir)
        return -1;
    mkdir(dir, 0755); /* may exist; a failure shows up when the file is opened */
    n = snprintf(path, pathlen, "%s/%016llx.%s", dir, (unsigned long long)key, ext);
    return (n < 0 || (size_t)n >= pathlen) ? -1 : 0;
}

typedef struct {
    char magic[16];
    uint64_t key_len;
    uint64_t payload_len;
    uint64_t payload_hash;
} blob_header;

void *scl_cache_load(const char *path, const char *key_text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    blob_header h;
    char *key = NULL;
    unsigned char *payload = NULL;
    size_t klen = strlen(key_text);
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, CACHE_MAGIC, sizeof CACHE_MAGIC) ||
        h.key_len != klen || h.payload_len == 0 || h.payload_len > ((uint64_t)1 << 31))
        goto reject;
    key = malloc(klen + 1);
    payload = malloc((size_t)h.payload_len + 1); /* +1: NUL for text payloads */
    if (!key || !payload || fread(key, 1, klen, f) != klen || memcmp(key, key_text, klen) ||
        fread(payload, 1, (size_t)h.payload_len, f) != h.payload_len ||
        scl_hash64(SCL_HASH_SEED, payload, (size_t)h.payload_len) != h.payload_hash)
        goto reject;
    if (fgetc(f) != EOF) /* trailing bytes: not a file we wrote */
        goto reject;
    fclose(f);
    free(key);
    payload[h.payload_len] = '\0';
    *len = (size_t)h.payload_len;
    return payload;
reject:
    fclose(f);
    free(key);
    free(payload);
    return NULL;
}

int scl_cache_store(const char *path, const char *key_text, const void *data, size_t len)
{
    /* scl_outfile: an O_EXCL temporary beside path under an unpredictable
     * name, renamed atomically (concurrent ranks never see half a file) */
    scl_outfile o;
    char err[256];
    if (scl_outfile_open(&o, path, 1, err, sizeof err) != SCL_OK)
        return -1;
    blob_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CACHE_MAGIC, sizeof CACHE_MAGIC);
    h.key_len = strlen(key_text);
    h.payload_len = len;
    h.payload_hash = scl_hash64(SCL_HASH_SEED, data, len);
    int ok = fwrite(&h, sizeof h, 1, o.f) == 1 &&
             fwrite(key_text, 1, (size_t)h.key_len, o.f) == h.key_len &&
             fwrite(data, 1, len, o.f) == len;
    if (!ok) {
        scl_outfile_abort(&o);
        return -1;
    }
    return scl_outfile_commit(&o, err, sizeof err) == SCL_OK ? 0 : -1;
}
