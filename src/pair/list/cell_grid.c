/* Uniform cell grid with a counting sort of the points by cell: the O(N)
 * spatial index of the reference, the engine's host binning, and the ghost
 * builder. */
#include "pair/pair_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sparse systems in huge boxes would need more cells than atoms; cap it. */
#define MAX_CELLS_PER_ATOM 4

void cell_grid_coords(const cell_grid *g, const double *xp, int c[3])
{
    for (int d = 0; d < 3; d++) {
        double f = floor((xp[d] - g->lo[d]) / g->width[d]);
        int v = f < 0.0 ? 0 : f >= g->n[d] ? g->n[d] - 1 : (int)f;
        c[d] = v;
    }
}

void cell_grid_layout(cell_grid *g, int n, const double *x, double cell_size)
{
    memset(g, 0, sizeof *g);
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    if (n > 0) { /* one pass over the points for all three dimensions */
        double l0 = x[0], l1 = x[1], l2 = x[2], h0 = l0, h1 = l1, h2 = l2;
#pragma omp parallel for schedule(static) reduction(min : l0, l1, l2) \
    reduction(max : h0, h1, h2) if (n > 50000)
        for (int i = 1; i < n; i++) {
            const double *p = x + 3 * i;
            /* comparisons, not fmin/fmax (library calls here): the same
             * values for finite coordinates */
            l0 = p[0] < l0 ? p[0] : l0, h0 = p[0] > h0 ? p[0] : h0;
            l1 = p[1] < l1 ? p[1] : l1, h1 = p[1] > h1 ? p[1] : h1;
            l2 = p[2] < l2 ? p[2] : l2, h2 = p[2] > h2 ? p[2] : h2;
        }
        lo[0] = l0, lo[1] = l1, lo[2] = l2;
        hi[0] = h0, hi[1] = h1, hi[2] = h2;
    }
    cell_grid_layout_box(g, n, lo, hi, cell_size);
}

void cell_grid_layout_box(cell_grid *g, int n, const double lo[3], const double hi[3],
                          double cell_size)
{
    memset(g, 0, sizeof *g);
    double size = cell_size;
    for (;;) {
        double cells = 1.0;
        for (int d = 0; d < 3; d++) {
            double span = hi[d] - lo[d];
            g->n[d] = span / size >= 1.0 ? (int)floor(span / size) : 1;
            cells *= g->n[d];
        }
        if (cells <= (double)MAX_CELLS_PER_ATOM * n + 27.0)
            break;
        size *= 1.26; /* ~ doubles the cell volume */
    }
    g->ncells = g->n[0] * g->n[1] * g->n[2];
    for (int d = 0; d < 3; d++) {
        g->lo[d] = lo[d];
        /* floor() above keeps width >= size: the 27-cell stencil stays complete */
        g->width[d] = g->n[d] > 1 ? (hi[d] - lo[d]) / g->n[d] : fmax(hi[d] - lo[d], size);
        if (g->width[d] < size)
            g->width[d] = size;
    }
}

void cell_grid_sort(cell_grid *g, int n, const double *x, int *fill)
{
    memset(g->cell_start, 0, ((size_t)g->ncells + 1) * sizeof *g->cell_start);
    /* cells (divisions dominate) and their counts in one pass, then the
     * prefix sum and the scatter of a counting sort */
#pragma omp parallel for schedule(static) if (n > 50000)
    for (int i = 0; i < n; i++) {
        int c[3];
        cell_grid_coords(g, x + 3 * i, c);
        g->cell_of[i] = (c[2] * g->n[1] + c[1]) * g->n[0] + c[0];
    }
    for (int i = 0; i < n; i++)
        g->cell_start[g->cell_of[i] + 1]++;
    for (int c = 0; c < g->ncells; c++) {
        g->cell_start[c + 1] += g->cell_start[c];
        fill[c] = g->cell_start[c];
    }
    for (int i = 0; i < n; i++)
        g->order[fill[g->cell_of[i]]++] = i;
}

int cell_grid_build(cell_grid *g, int n, const double *x, double cell_size)
{
    cell_grid_layout(g, n, x, cell_size);
    g->cell_start = malloc(((size_t)g->ncells + 1) * sizeof *g->cell_start);
    g->order = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->order);
    g->cell_of = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->cell_of);
    int *fill = malloc((size_t)g->ncells * sizeof *fill + 1);
    if (!g->cell_start || !g->order || !g->cell_of || !fill) {
        free(fill);
        cell_grid_free(g);
        return -1;
    }
    cell_grid_sort(g, n, x, fill);
    free(fill);
    return 0;
}

void cell_grid_free(cell_grid *g)
{
    if (!g)
        return;
    free(g->cell_start);
    free(g->order);
    free(g->cell_of);
    memset(g, 0, sizeof *g);
}
