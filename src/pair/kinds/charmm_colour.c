/* Block colouring of half neighbor lists (see charmm_colour.h). */
#include "pair/kinds/charmm_colour.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void charmm_colouring_free(charmm_colouring *c)
{
    free(c->block_start); /* all four arrays: alloc_blocks makes them one allocation */
    memset(c, 0, sizeof *c);
}

/* The four int arrays in one zeroed allocation: one failure to handle, one
 * free. */
static int alloc_blocks(charmm_colouring *c, int nblocks, int ncolours_max)
{
    memset(c, 0, sizeof *c);
    size_t nb = (size_t)(nblocks > 0 ? nblocks : 1);
    int *all = calloc(3 * nb + (size_t)ncolours_max + 2, sizeof *all);
    if (!all)
        return -1;
    c->block_start = all;                /* nb + 1 */
    c->block_colour = all + nb + 1;      /* nb */
    c->order = c->block_colour + nb;     /* nb */
    c->colour_start = c->order + nb;     /* ncolours_max + 1 */
    c->nblocks = nblocks;
    return 0;
}

/* order[] = blocks sorted by colour, keeping block order within a colour. */
static void sort_by_colour(charmm_colouring *c)
{
    memset(c->colour_start, 0, ((size_t)c->ncolours + 1) * sizeof *c->colour_start);
    for (int b = 0; b < c->nblocks; b++)
        c->colour_start[c->block_colour[b] + 1]++;
    for (int k = 0; k < c->ncolours; k++)
        c->colour_start[k + 1] += c->colour_start[k];
    int fill[CHARMM_MAX_COLOURS];
    memcpy(fill, c->colour_start, (size_t)c->ncolours * sizeof *fill);
    for (int b = 0; b < c->nblocks; b++)
        c->order[fill[c->block_colour[b]]++] = b;
}

int charmm_colour_blocks(charmm_colouring *c, int nlocal, const int *icell, const int grid[3],
                         int reach, int block_atoms)
{
    if (block_atoms < 1)
        block_atoms = 1;
    int nblocks = (nlocal + block_atoms - 1) / block_atoms;
    if (alloc_blocks(c, nblocks, CHARMM_MAX_COLOURS) != 0)
        return -1;
    const int nx = grid[0], ny = grid[1], nz = grid[2];
    size_t ncells = (size_t)nx * (size_t)ny * (size_t)nz;
    uint64_t *used = calloc(ncells ? ncells : 1, sizeof *used); /* colours writing a cell */
    int *stamp = malloc((ncells ? ncells : 1) * sizeof *stamp);  /* last block listing it */
    int *cells = malloc((ncells ? ncells : 1) * sizeof *cells);  /* one block's write set */
    if (!used || !stamp || !cells) {
        free(used), free(stamp), free(cells);
        charmm_colouring_free(c);
        return -1;
    }
    for (size_t k = 0; k < ncells; k++)
        stamp[k] = -1;
    int rc = 0;
    for (int b = 0; b < nblocks && rc == 0; b++) {
        int first = b * block_atoms, end = first + block_atoms < nlocal ? first + block_atoms
                                                                         : nlocal;
        c->block_start[b] = first;
        int ncell = 0, last = -1;
        for (int ii = first; ii < end; ii++) {
            int cell = icell[ii];
            if (cell == last) /* binned order: runs of one cell */
                continue;
            last = cell;
            int cx = cell % nx, cy = (cell / nx) % ny, cz = cell / (nx * ny);
            for (int z = cz; z <= cz + reach && z < nz; z++)
                for (int y = cy - reach > 0 ? cy - reach : 0; y <= cy + reach && y < ny; y++)
                    for (int x = cx - reach > 0 ? cx - reach : 0; x <= cx + reach && x < nx;
                         x++) {
                        int w = (z * ny + y) * nx + x;
                        if (stamp[w] != b) {
                            stamp[w] = b;
                            cells[ncell++] = w;
                        }
                    }
        }
        uint64_t taken = 0;
        for (int k = 0; k < ncell; k++)
            taken |= used[cells[k]];
        if (taken == UINT64_MAX) {
            rc = -2;
            break;
        }
        int colour = __builtin_ctzll(~taken);
        c->block_colour[b] = colour;
        if (colour + 1 > c->ncolours)
            c->ncolours = colour + 1;
        for (int k = 0; k < ncell; k++)
            used[cells[k]] |= (uint64_t)1 << colour;
    }
    free(used), free(stamp), free(cells);
    if (rc != 0) {
        charmm_colouring_free(c);
        return rc;
    }
    c->block_start[nblocks] = nlocal;
    sort_by_colour(c);
    return 0;
}

int charmm_plain_blocks(charmm_colouring *c, int nchunks, const int *chunk_first,
                        const int *chunk_count, int block_atoms)
{
    if (block_atoms < 1)
        block_atoms = 1;
    int nblocks = 0;
    for (int k = 0; k < nchunks; k++)
        nblocks += (chunk_count[k] + block_atoms - 1) / block_atoms;
    if (alloc_blocks(c, nblocks, nchunks) != 0)
        return -1;
    c->ncolours = nchunks;
    int b = 0;
    for (int k = 0; k < nchunks; k++) {
        c->colour_start[k] = b;
        for (int s = 0; s < chunk_count[k]; s += block_atoms) {
            c->block_start[b] = chunk_first[k] + s;
            c->block_colour[b] = k;
            c->order[b] = b;
            b++;
        }
    }
    c->colour_start[nchunks] = b;
    /* blocks end where the next begins, or at their chunk's end */
    c->block_start[nblocks] = nchunks > 0 ? chunk_first[nchunks - 1] + chunk_count[nchunks - 1]
                                          : 0;
    return 0;
}
