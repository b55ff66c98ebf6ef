/* The grid solvers' shared MPI command pieces (see mpi_grid.h). */
#include "commands.h"
#include "mpi_grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Launchers say so in the environment (the command may read it; the
 * library does not). */
int cli_mpi_launcher_size(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v) > 0 ? atoi(v) : 1;
    }
    return getenv("PMIX_RANK") ? 1 : 0;
}

int cli_mpi_launched(const char *cmd)
{
    int n = cli_mpi_launcher_size();
#if STREAMCL_HAVE_MPI
    (void)cmd;
    return n > 0;
#else
    if (n > 1) {
        fprintf(stderr, "streamcl %s: started on %d MPI ranks, but this streamcl was built "
                        "without MPI (none found at configure time, or -DSTREAMCL_MPI=OFF: install "
                        "libopenmpi-dev and reconfigure); run it without mpirun\n", cmd, n);
        return -1;
    }
    return 0;
#endif
}

int cli_mpi_parse_decomp(const char *cmd, const char *v, int dims[3])
{
    char tail;
    if (sscanf(v, "%dx%dx%d%c", &dims[0], &dims[1], &dims[2], &tail) != 3 || dims[0] < 1 ||
        dims[1] < 1 || dims[2] < 1) {
        fprintf(stderr, "streamcl %s: --decomp is PxQxR (ranks along x, y, z), got '%s'\n", cmd, v);
        return -1;
    }
    return 0;
}

int cli_mpi_choose_axis(const char *cmd, int size, const int *dims, const int n[3], int min_cells)
{
    int axis = 2;
    if (dims) {
        int cut = 0;
        for (int q = 0; q < 3; q++)
            if (dims[q] > 1) {
                axis = q;
                cut++;
            }
        if (dims[0] * dims[1] * dims[2] != size) {
            fprintf(stderr, "streamcl %s: --decomp %dx%dx%d is %d ranks, mpirun started %d\n", cmd,
                    dims[0], dims[1], dims[2], dims[0] * dims[1] * dims[2], size);
            return -1;
        }
        if (cut > 1) {
            fprintf(stderr, "streamcl %s: --decomp %dx%dx%d cuts more than one axis; this version "
                            "splits along one axis only (e.g. 1x1x%d)\n",
                    cmd, dims[0], dims[1], dims[2], size);
            return -1;
        }
    } else {
        for (int q = 1; q >= 0; q--)
            if (n[q] > n[axis])
                axis = q;
    }
    if (n[axis] < size * min_cells) {
        fprintf(stderr, "streamcl %s: the %c axis has %d cells: it cannot be split over %d MPI "
                        "ranks (at least %d cell%s per rank)\n", cmd, "xyz"[axis], n[axis], size,
                min_cells, min_cells > 1 ? "s" : "");
        return -1;
    }
    return axis;
}

void cli_mpi_slab(int n, int p, int c, int *lo, int *cells)
{
    int base = n / p, extra = n % p;
    *cells = base + (c < extra);
    *lo = c * base + (c < extra ? c : extra);
}

int cli_mpi_parse_halo(const char *cmd, const char *v, int *mpi)
{
    if (strcmp(v, "shm") && strcmp(v, "mpi")) {
        fprintf(stderr, "streamcl %s: --halo is shm or mpi, got '%s'\n", cmd, v);
        return -1;
    }
    *mpi = !strcmp(v, "mpi");
    return 0;
}

#if STREAMCL_HAVE_MPI
#include <mpi.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if STREAMCL_HAVE_PAIR
#include "streamcl/charmm.h"
#endif

int cli_mpi_main(const char *cmd, int argc, char **argv,
                 int (*body)(int argc, char **argv, int rank, int size))
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "streamcl %s: MPI_Init failed\n", cmd);
        return 1;
    }
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int rc = body(argc, argv, rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}

int cli_mpi_agree(int ok)
{
    int mine = ok != 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all ? 0 : -1;
}

const char *cli_mpi_rank_device(const char *device, char *spec, size_t len)
{
    MPI_Comm node; /* collective: before any rank may return */
    int local = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    if (device && strcmp(device, "gpu"))
        return device;
#if STREAMCL_HAVE_PAIR
    char err[512];
    if (scl_charmm_rank_device(local, 0, spec, len, NULL, err, sizeof err) == SCL_OK)
        return spec;
#else
    (void)spec, (void)len, (void)local;
#endif
    return device;
}

/* Halo swaps through a shared memory window. The window is MPI-3's unified
 * model (checked): the ranks' stores and loads hit the same memory, and
 * what orders them is a memory barrier plus a message. Writer: store the
 * plane into the neighbour's area, MPI_Win_sync, send a zero-byte note;
 * reader: receive the note, MPI_Win_sync, load (copy the area out). Then
 * the same the other way round, so that the next swap's stores cannot
 * overwrite an area before its reader copied it out: reader MPI_Win_sync,
 * zero-byte ack; writer receives the ack, MPI_Win_sync. MPI_Win_sync needs
 * a passive-target epoch: one MPI_Win_lock_all (no conflicting locks:
 * MPI_MODE_NOCHECK) from set-up to MPI_Win_free. Only the two ranks of a
 * pair synchronise, never the node. */
#define HALO_ACK 2000 /* tags of the acks: above the notes' 2 * tag + 1 */

/* This rank's area pair on the node's ranks; 0 when made (unified model). */
static int halo_window(cli_halo *h, MPI_Comm node)
{
    MPI_Info info;
    char *base = NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true"); /* each area in its owner's pages */
    MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    int rc = MPI_Win_allocate_shared((MPI_Aint)(2 * h->cap), 1, info, node, &base, &h->win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        h->win = MPI_WIN_NULL;
        return -1;
    }
    int *model = NULL, flag = 0;
    MPI_Win_get_attr(h->win, MPI_WIN_MODEL, &model, &flag);
    h->mine[0] = base;
    h->mine[1] = base + h->cap;
    return flag && model && *model == MPI_WIN_UNIFIED ? 0 : -1;
}

/* The neighbours on this node: their areas this rank writes. */
static void halo_peers(cli_halo *h, MPI_Comm node)
{
    MPI_Group all, here;
    MPI_Comm_group(h->comm, &all);
    MPI_Comm_group(node, &here);
    for (int d = 0; d < 2; d++) {
        int r = h->nb[d], local = MPI_UNDEFINED, unit = 1;
        MPI_Aint size = 0;
        char *base = NULL;
        if (r != MPI_PROC_NULL)
            MPI_Group_translate_ranks(all, 1, &r, here, &local);
        if (local == MPI_UNDEFINED || local == MPI_PROC_NULL)
            continue; /* another node's rank: messages (it decides the same of us) */
        MPI_Win_shared_query(h->win, local, &size, &unit, &base);
        h->peer[d] = base + (d == 0 ? h->cap : 0);
        h->shm[d] = base != NULL;
    }
    MPI_Group_free(&all);
    MPI_Group_free(&here);
}

void cli_halo_init(cli_halo *h, MPI_Comm comm, int below, int above, size_t cap, int mpi)
{
    *h = (cli_halo){.comm = comm, .win = MPI_WIN_NULL, .nb = {below, above}, .threads = 1,
                    .pieces = 1};
    unsigned long want = (unsigned long)cap, most = 0;
    MPI_Allreduce(&want, &most, 1, MPI_UNSIGNED_LONG, MPI_MAX, comm);
    h->cap = (size_t)most;
    if (mpi || most == 0) /* the same on every rank */
        return;
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int ok = halo_window(h, node) == 0, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all) {
        MPI_Win_lock_all(MPI_MODE_NOCHECK, h->win);
        halo_peers(h, node);
    } else if (h->win != MPI_WIN_NULL) {
        MPI_Win_free(&h->win);
    }
    MPI_Comm_free(&node);
    int kinds[2] = {0, 0}, seen[2]; /* [0] a window pair somewhere, [1] a message pair */
    for (int d = 0; d < 2; d++) {
        kinds[0] |= h->shm[d];
        kinds[1] |= h->nb[d] != MPI_PROC_NULL && !h->shm[d];
    }
    MPI_Allreduce(kinds, seen, 2, MPI_INT, MPI_MAX, comm);
    h->kind = seen[0] ? (seen[1] ? 2 : 1) : 0;
}

const char *cli_halo_transport(const cli_halo *h)
{
    static const char *names[] = {"MPI messages", "shared memory",
                                  "shared memory within nodes, MPI messages across"};
    return names[h->kind];
}

/* A failed neighbour's message of unknown size, taken and dropped. */
static void halo_discard(cli_halo *h, int from, int tag)
{
    MPI_Status st;
    int count = 0;
    MPI_Probe(from, tag, h->comm, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    char *buf = malloc(count > 0 ? (size_t)count : 1);
    MPI_Recv(buf, buf ? count : 0, MPI_BYTE, from, tag, h->comm, MPI_STATUS_IGNORE);
    free(buf);
}

int cli_halo_node_threads(MPI_Comm comm)
{
    MPI_Comm node;
    int local = 1;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
#ifdef _OPENMP
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    int t = omp_get_num_procs(); /* the cores this rank may run on (its binding) */
    const int share = online > 0 ? (int)(online / local) : 1;
    t = t < share ? t : share;
    /* 8: more copy threads per rank contend for the host's memory (16 per
     * rank at 4 ranks lost to messages; RESULTS, issue 24) */
    return t < 1 ? 1 : t > 8 ? 8 : t;
#else
    return 1;
#endif
}

/* n copies as one: their bytes cut into h->threads pieces of whole cache
 * lines (at least 256 bytes each), one thread each. One core's memcpy
 * streams a few GB/s; a halo of tens of MiB a step needs the node's
 * memory bandwidth, which takes many cores. */
static void halo_copies(const cli_halo *h, int n, char *const dst[], const char *const src[],
                        const size_t bytes[])
{
    size_t total = 0;
    for (int q = 0; q < n; q++)
        total += bytes[q];
    int t = h->threads;
    if ((size_t)t > total / 256)
        t = (int)(total / 256);
#ifdef _OPENMP
    if (t > 1) {
#pragma omp parallel num_threads(t)
        {
            const size_t nt = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
            const size_t per = ((total + nt - 1) / nt + 63) / 64 * 64;
            const size_t lo = me * per, hi = lo + per < total ? lo + per : total;
            size_t at = 0; /* where copy q starts in the bytes of all n */
            for (int q = 0; q < n && lo < hi; at += bytes[q++]) {
                const size_t a = lo > at ? lo : at, b = hi < at + bytes[q] ? hi : at + bytes[q];
                if (a < b)
                    memcpy(dst[q] + (a - at), src[q] + (a - at), b - a);
            }
        }
        return;
    }
#endif
    for (int q = 0; q < n; q++)
        memcpy(dst[q], src[q], bytes[q]);
}

/* Direction d's part of a swap (d 0 sends down, 1 up), its requests into
 * q: the window's note, or the planes as h->pieces messages (the same
 * count on every rank, empty ones from a failed rank; MPI matches one
 * pair's messages of a tag in order, so the pieces land in place: several
 * in flight keep a shared-memory transport's pipeline full). *discard:
 * the messages to take and drop (no receive area here). */
static int halo_dir(cli_halo *h, int d, const char *send, char *recv, size_t bytes, int t,
                    MPI_Request *q, int *discard)
{
    const int to = h->nb[d], from = h->nb[1 - d];
    const int st = h->shm[d] && bytes <= h->cap, sf = h->shm[1 - d] && bytes <= h->cap;
    const int ks = st ? 1 : h->pieces, kr = sf ? 1 : h->pieces, k = h->pieces;
    const size_t per = (bytes + (size_t)k - 1) / (size_t)k;
    int n = 0;
    for (int p = 0; from != MPI_PROC_NULL && (sf || recv) && p < kr; p++) {
        const size_t a = (size_t)p * per < bytes ? (size_t)p * per : bytes;
        const size_t b = a + per < bytes ? a + per : bytes;
        MPI_Irecv(sf ? NULL : recv + a, sf ? 0 : (int)(b - a), MPI_BYTE, from, t, h->comm, &q[n++]);
    }
    *discard = from != MPI_PROC_NULL && !sf && !recv ? kr : 0;
    for (int p = 0; to != MPI_PROC_NULL && p < ks; p++) {
        const size_t a = (size_t)p * per < bytes ? (size_t)p * per : bytes;
        const size_t b = a + per < bytes ? a + per : bytes;
        MPI_Isend(st || !send ? NULL : send + a, st || !send ? 0 : (int)(b - a), MPI_BYTE, to, t,
                  h->comm, &q[n++]);
    }
    return n;
}

/* The notes (or the planes, as messages). The window's planes are stored
 * first, all in one threaded copy. */
static void halo_post(cli_halo *h, int dirs, const void *const send[2], void *const recv[2],
                      const size_t size[2], int tag)
{
    MPI_Request q[4 * CLI_HALO_MAX_PIECES];
    int n = 0, discard[2] = {0, 0}, nc = 0, stored = 0;
    char *dst[2] = {NULL, NULL};
    const char *src[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    for (int d = 0; d < 2; d++)
        if ((dirs & (1 << d)) && h->nb[d] != MPI_PROC_NULL && h->shm[d] && size[d] <= h->cap &&
            send[d]) {
            stored = 1;
            if (send[d] != h->peer[d]) { /* else the solver read the planes in place */
                dst[nc] = h->peer[d];
                src[nc] = send[d];
                len[nc++] = size[d];
            }
        }
    halo_copies(h, nc, dst, src, len);
    if (stored)
        MPI_Win_sync(h->win);
    for (int d = 0; d < 2; d++)
        if (dirs & (1 << d))
            n += halo_dir(h, d, send[d], recv[1 - d], size[d], 2 * tag + d, q + n, &discard[d]);
    for (int d = 0; d < 2; d++) /* our sends are posted: no deadlock */
        for (int p = 0; p < discard[d]; p++)
            halo_discard(h, h->nb[1 - d], 2 * tag + d);
    MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
}

void cli_halo_swap(cli_halo *h, int dirs, const void *const send[2], void *const recv[2],
                   size_t bytes, int tag)
{
    const size_t size[2] = {bytes, bytes};
    cli_halo_swap_sizes(h, dirs, send, recv, size, tag);
}

void cli_halo_swap_sizes(cli_halo *h, int dirs, const void *const send[2], void *const recv[2],
                         const size_t size[2], int tag)
{
    halo_post(h, dirs, send, recv, size, tag);
    if (h->win == MPI_WIN_NULL || size[0] > h->cap || size[1] > h->cap)
        return;
    MPI_Request q[4];
    int n = 0, nc = 0;
    char *dst[2] = {NULL, NULL};
    const char *src[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    MPI_Win_sync(h->win); /* the writers' stores before our loads */
    for (int d = 0; d < 2; d++)
        if ((dirs & (1 << d)) && h->shm[1 - d] && h->nb[1 - d] != MPI_PROC_NULL && recv[1 - d]) {
            dst[nc] = recv[1 - d];
            src[nc] = h->mine[1 - d];
            len[nc++] = size[d];
        }
    halo_copies(h, nc, dst, src, len);
    MPI_Win_sync(h->win); /* our loads before the acks */
    for (int d = 0; d < 2; d++) {
        if (!(dirs & (1 << d)))
            continue;
        if (h->shm[1 - d] && h->nb[1 - d] != MPI_PROC_NULL)
            MPI_Isend(NULL, 0, MPI_BYTE, h->nb[1 - d], HALO_ACK + 2 * tag + d, h->comm, &q[n++]);
        if (h->shm[d] && h->nb[d] != MPI_PROC_NULL)
            MPI_Irecv(NULL, 0, MPI_BYTE, h->nb[d], HALO_ACK + 2 * tag + d, h->comm, &q[n++]);
    }
    MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
    MPI_Win_sync(h->win); /* the readers' loads before our next stores */
}

void cli_halo_free(cli_halo *h)
{
    if (h->win == MPI_WIN_NULL)
        return;
    MPI_Win_unlock_all(h->win);
    MPI_Win_free(&h->win); /* collective over the node's ranks: each frees its own */
}
#endif

#if !STREAMCL_HAVE_MPI
int cli_mpi_main(const char *cmd, int argc, char **argv,
                 int (*body)(int argc, char **argv, int rank, int size))
{
    (void)argc, (void)argv, (void)body; /* cli_mpi_launched sent no run here */
    fprintf(stderr, "streamcl %s: built without MPI\n", cmd);
    return 1;
}
#endif
