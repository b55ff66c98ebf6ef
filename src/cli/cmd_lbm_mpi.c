/* streamcl lbm over MPI: slabs of rows, one per rank, halos swapped every
 * step, behind the interior update unless --no-overlap (see lbm_mpi.h).
 * Compiled always; without MPI only the check that we were not started on
 * several ranks remains. */
#include "commands.h"
#include "lbm_mpi.h"
#include "mpi_grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if STREAMCL_HAVE_MPI
#include <mpi.h>

struct lbm_mpi {
    MPI_Comm cart;     /* periodic 1-D: the lattice streams periodically in y */
    int rank, size, below, above;
    /* exchange state */
    void *send_below, *send_above, *recv_below, *recv_above;
    size_t halo_bytes;
    cli_halo halo;     /* the swaps' transport */
    long exchanges;    /* calls of the exchange this batch */
    int overlap;       /* exchange hidden behind the interior update (default) */
    int primed;        /* overlap: the halos hold the current state's neighbour edges */
    scl_context *ctx;  /* this rank's, for messages */
    scl_lbm_params p;
    int failed;        /* a device call of this rank failed */
};

lbm_mpi *lbm_mpi_start(int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "streamcl lbm: MPI_Init failed\n");
        return NULL;
    }
    lbm_mpi *m = calloc(1, sizeof *m);
    if (m)
        m->halo.win = MPI_WIN_NULL;
    int size = 1, dims[1] = {0}, periods[1] = {1};
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = size;
    /* no reordering: world rank r holds the r-th slab from the bottom */
    if (!m || MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &m->cart) != MPI_SUCCESS) {
        fprintf(stderr, "streamcl lbm: %s\n", m ? "MPI_Cart_create failed" : "out of memory");
        free(m);
        MPI_Abort(MPI_COMM_WORLD, 1); /* before any output exists */
        return NULL;
    }
    MPI_Comm_rank(m->cart, &m->rank);
    m->size = size;
    MPI_Cart_shift(m->cart, 0, 1, &m->below, &m->above);
    return m;
}

void lbm_mpi_end(lbm_mpi *m)
{
    if (!m)
        return;
    /* send_below..recv_above are the solver's staging (freed with it) */
    cli_halo_free(&m->halo);
    /* every rank has cleaned up (rank 0 removed its uncommitted outputs)
     * before any leaves: mpirun kills the rest when one exits non-zero */
    MPI_Barrier(m->cart);
    MPI_Comm_free(&m->cart);
    free(m);
    MPI_Finalize();
}

int lbm_mpi_rank(const lbm_mpi *m)
{
    return m ? m->rank : 0;
}

int lbm_mpi_size(const lbm_mpi *m)
{
    return m ? m->size : 1;
}

int lbm_mpi_agree(lbm_mpi *m, int ok)
{
    int mine = ok != 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, m->cart);
    return all ? 0 : -1;
}

int lbm_mpi_create(lbm_mpi *m, const char *device, const char *param_path,
                   const scl_lbm_params *p, const unsigned char *obst,
                   const scl_lbm_options *opt, int overlap, int halo_mpi, scl_context **ctx,
                   scl_lbm **lbm)
{
    *ctx = NULL;
    *lbm = NULL;
    m->p = *p;
    m->overlap = overlap != 0;
    m->primed = 0;
    if (m->size > p->ny) {
        if (m->rank == 0)
            fprintf(stderr, "streamcl lbm: %s:2: ny %d rows cannot be split over %d MPI ranks "
                            "(at most one rank per row)\n", param_path, p->ny, m->size);
        return -1;
    }
    char spec[64];
    int ok = (m->ctx = *ctx = cli_context(cli_mpi_rank_device(device, spec, sizeof spec), 0)) != NULL;
    int y0 = 0, rows = 0;
    cli_mpi_slab(p->ny, m->size, m->rank, &y0, &rows);
    if (ok) {
        scl_status s = scl_lbm_create_rows(*ctx, p, obst, y0, rows, opt, lbm);
        if (s == SCL_ERR_TOO_LARGE)
            fprintf(stderr, "streamcl lbm: rank %d: %s:1: nx %d, ny %d too large for %d ranks: %s\n",
                    m->rank, param_path, p->nx, p->ny, m->size, scl_last_error(*ctx));
        else if (s != SCL_OK)
            fprintf(stderr, "streamcl lbm: rank %d: %s\n", m->rank, scl_last_error(*ctx));
        ok = s == SCL_OK;
    }
    if (ok) {
        m->halo_bytes = scl_lbm_halo_bytes(*lbm);
        /* the solver's pinned staging: the overlapped transfers need it to
         * run alongside the interior update */
        char *buf = scl_lbm_halo_staging(*lbm);
        if (!buf) {
            fprintf(stderr, "streamcl lbm: rank %d: the slab solver has no halo staging\n",
                    m->rank);
            ok = 0;
        } else {
            m->send_below = buf;
            m->send_above = buf + m->halo_bytes;
            m->recv_below = buf + 2 * m->halo_bytes;
            m->recv_above = buf + 3 * m->halo_bytes;
        }
    }
    if (lbm_mpi_agree(m, ok))
        return -1;
    cli_halo_init(&m->halo, m->cart, m->below, m->above, m->halo_bytes, halo_mpi);
    return 0;
}

const char *lbm_mpi_transport(const lbm_mpi *m)
{
    return cli_halo_transport(&m->halo);
}

/* Swap the edge rows with both neighbours (host staged). */
static void swap_edges(lbm_mpi *m)
{
    const void *const send[2] = {m->send_below, m->send_above};
    void *const recv[2] = {m->recv_below, m->recv_above};
    cli_halo_swap(&m->halo, 3, send, recv, m->halo_bytes, 1);
}

static scl_status exchange(void *user, scl_lbm *lbm)
{
    lbm_mpi *m = user;
    m->exchanges++;
    scl_status s = scl_lbm_read_edges(lbm, m->send_below, m->send_above);
    swap_edges(m); /* even after a failure: the neighbours are waiting for it */
    if (s == SCL_OK)
        s = scl_lbm_write_halos(lbm, m->recv_below, m->recv_above);
    return s;
}

/* Overlapped steps: the edges are already on the host, swap them. */
static scl_status swap_only(void *user, scl_lbm *lbm)
{
    (void)lbm;
    lbm_mpi *m = user;
    m->exchanges++;
    swap_edges(m);
    return SCL_OK;
}

/* Overlapped: one exchange per step, plus one first to fill the halos of the
 * current state (only before the first batch: every overlapped step leaves
 * the next step's halos filled). Not overlapped: one before each step. */
static scl_status run_steps(lbm_mpi *m, scl_lbm *lbm, long steps, double *sums)
{
    if (!m->overlap)
        return scl_lbm_step_rows(lbm, steps, sums, exchange, m);
    if (!m->primed) {
        m->primed = 1;
        scl_status s = exchange(m, lbm);
        if (s != SCL_OK)
            return s;
    }
    return scl_lbm_step_rows_overlap(lbm, steps, sums, m->send_below, m->send_above,
                                     m->recv_below, m->recv_above, swap_only, m);
}

int lbm_mpi_steps(lbm_mpi *m, scl_lbm *lbm, long steps, float *av)
{
    double *sums = malloc(((size_t)steps + 1) * sizeof *sums), *total = NULL;
    int ok = sums != NULL;
    /* exchanges every rank makes in this call (the same on all ranks) */
    long expected = steps + (m->overlap && !m->primed);
    if (ok && !m->failed) {
        m->exchanges = 0;
        if (run_steps(m, lbm, steps, sums) != SCL_OK) {
            fprintf(stderr, "streamcl lbm: rank %d: %s\n", m->rank,
                    scl_last_error(m->ctx));
            m->failed = 1;
            /* keep the neighbours' remaining exchanges of this batch company */
            for (long i = m->exchanges; i < expected; i++)
                swap_edges(m);
        }
    } else {
        for (long i = 0; i < expected; i++)
            swap_edges(m);
        m->primed = 1;
    }
    if (lbm_mpi_agree(m, ok && !m->failed)) {
        free(sums);
        return -1;
    }
    /* the whole lattice's mean |u|: per-slab sums added in double; the sum
     * order differs from one rank's, so av_vels may differ in the last bit */
    total = malloc(((size_t)steps + 1) * sizeof *total);
    ok = total != NULL;
    if (lbm_mpi_agree(m, ok)) {
        free(sums);
        return -1;
    }
    MPI_Allreduce(sums, total, (int)steps, MPI_DOUBLE, MPI_SUM, m->cart);
    long fluid = 0, all = 0;
    scl_lbm_rows(lbm, NULL, NULL, &fluid);
    MPI_Allreduce(&fluid, &all, 1, MPI_LONG, MPI_SUM, m->cart);
    for (long t = 0; av && t < steps; t++)
        av[t] = (float)(total[t] / (double)all);
    free(sums);
    free(total);
    return 0;
}

int lbm_mpi_gather_speeds(lbm_mpi *m, scl_lbm *lbm, float *f)
{
    int y0, rows;
    scl_lbm_rows(lbm, &y0, &rows, NULL);
    const scl_lbm_params *p = &m->p;
    size_t nx = (size_t)p->nx, mine = nx * (size_t)rows;
    float *slab = malloc(SCL_LBM_Q * mine * sizeof *slab);
    int *counts = malloc(2 * (size_t)m->size * sizeof *counts);
    int ok = slab && counts;
    if (!ok)
        fprintf(stderr, "streamcl lbm: rank %d: out of host memory\n", m->rank);
    else if (scl_lbm_read_speeds(lbm, slab) != SCL_OK) {
        fprintf(stderr, "streamcl lbm: rank %d: %s\n", m->rank,
                scl_last_error(m->ctx));
        ok = 0;
    }
    if (lbm_mpi_agree(m, ok)) {
        free(slab);
        free(counts);
        return -1;
    }
    /* one Gatherv per direction: rank r's rows land at y0_r of plane k
     * (counts in floats; a plane of SCL_LBM_MAX_DIM^2 would overflow int,
     * so a row is sent as one MPI type of nx floats) */
    MPI_Datatype row;
    MPI_Type_contiguous((int)nx, MPI_FLOAT, &row);
    MPI_Type_commit(&row);
    int *displs = counts + m->size;
    for (int r = 0; r < m->size; r++)
        cli_mpi_slab(p->ny, m->size, r, &displs[r], &counts[r]);
    for (int k = 0; k < SCL_LBM_Q; k++)
        MPI_Gatherv(slab + (size_t)k * mine, rows, row,
                    m->rank == 0 ? f + (size_t)k * nx * (size_t)p->ny : NULL, counts, displs,
                    row, 0, m->cart);
    MPI_Type_free(&row);
    free(slab);
    free(counts);
    return 0;
}

#else /* no MPI: lbm_mpi_launched refuses several ranks */

struct lbm_mpi {
    int unused;
};

lbm_mpi *lbm_mpi_start(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return NULL;
}

void lbm_mpi_end(lbm_mpi *m)
{
    (void)m;
}

int lbm_mpi_rank(const lbm_mpi *m)
{
    (void)m;
    return 0;
}

int lbm_mpi_size(const lbm_mpi *m)
{
    (void)m;
    return 1;
}

int lbm_mpi_agree(lbm_mpi *m, int ok)
{
    (void)m;
    return ok ? 0 : -1;
}

int lbm_mpi_create(lbm_mpi *m, const char *device, const char *param_path,
                   const scl_lbm_params *p, const unsigned char *obst,
                   const scl_lbm_options *opt, int overlap, int halo_mpi, scl_context **ctx,
                   scl_lbm **lbm)
{
    (void)m, (void)device, (void)param_path, (void)p, (void)obst, (void)opt, (void)overlap;
    (void)halo_mpi;
    *ctx = NULL;
    *lbm = NULL;
    return -1;
}

int lbm_mpi_steps(lbm_mpi *m, scl_lbm *lbm, long steps, float *av)
{
    (void)m, (void)lbm, (void)steps, (void)av;
    return -1;
}

int lbm_mpi_gather_speeds(lbm_mpi *m, scl_lbm *lbm, float *f)
{
    (void)m, (void)lbm, (void)f;
    return -1;
}

const char *lbm_mpi_transport(const lbm_mpi *m)
{
    (void)m;
    return "none";
}
#endif

int lbm_mpi_launched(void)
{
    return cli_mpi_launched("lbm");
}
