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

int cell_grid_build(cell_grid *g, int n, const double *x, double cell_size)
{
    memset(g, 0, sizeof *g);
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < 3 && n > 0; d++) {
        double l = x[d], h = x[d];
#pragma omp parallel for schedule(static) reduction(min : l) reduction(max : h) if (n > 50000)
        for (int i = 1; i < n; i++) {
            l = fmin(l, x[3 * i + d]);
            h = fmax(h, x[3 * i + d]);
        }
        lo[d] = l, hi[d] = h;
    }
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
    g->cell_start = calloc((size_t)g->ncells + 1, sizeof *g->cell_start);
    g->order = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->order);
    g->cell_of = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->cell_of);
    if (!g->cell_start || !g->order || !g->cell_of) {
        cell_grid_free(g);
        return -1;
    }
    /* cells in parallel (divisions dominate), then a serial counting sort */
#pragma omp parallel for schedule(static) if (n > 50000)
    for (int i = 0; i < n; i++) {
        int c[3];
        cell_grid_coords(g, x + 3 * i, c);
        g->cell_of[i] = (c[2] * g->n[1] + c[1]) * g->n[0] + c[0];
    }
    for (int i = 0; i < n; i++)
        g->cell_start[g->cell_of[i] + 1]++;
    for (int c = 0; c < g->ncells; c++)
        g->cell_start[c + 1] += g->cell_start[c];
    int *fill = malloc((size_t)g->ncells * sizeof *fill + 1);
    if (!fill) {
        cell_grid_free(g);
        return -1;
    }
    memcpy(fill, g->cell_start, (size_t)g->ncells * sizeof *fill);
    for (int i = 0; i < n; i++)
        g->order[fill[g->cell_of[i]]++] = i;
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
