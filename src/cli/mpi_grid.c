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

#if STREAMCL_HAVE_MPI
#include <mpi.h>
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
