/* Blocks of local atoms and their colouring for half neighbor lists (the
 * plan of an OP2 indirect loop, seed 002 §3-4): a block is a range of
 * consecutive local slots (binned order), run by one work-item; blocks of
 * one colour never write the same atom, so each colour is one launch with
 * no atomics, and the colours run in a fixed order (deterministic sums).
 *
 * Write sets are taken conservatively in cells: a block writes its own
 * atoms and the partners of its half lists, which lie in cells at most
 * `reach` cells away in x and y and 0..reach cells up in z (the half filter
 * keeps a local pair on the atom whose cell index comes first, and cells
 * are numbered z-major). So the colouring depends on the atoms' cells only,
 * not on the lists, and holds from one set_atoms to the next.
 * Host-only; no OpenCL. */
#ifndef SCL_PAIR_CHARMM_COLOUR_H
#define SCL_PAIR_CHARMM_COLOUR_H

#define CHARMM_MAX_COLOURS 64

/* The four arrays are one allocation (block_start's): charmm_colouring_free
 * releases them. */
typedef struct {
    int nblocks, ncolours;
    int *block_start;  /* nblocks + 1: block b is local slots [block_start[b], block_start[b+1]) */
    int *block_colour; /* nblocks */
    int *order;        /* nblocks: block ids sorted by colour (stable) */
    int *colour_start; /* ncolours + 1: colour c is order[colour_start[c] .. colour_start[c+1]) */
} charmm_colouring;

/* Blocks of block_atoms consecutive local slots (the last may be shorter),
 * coloured greedily in block order. icell[ii] is the cell of local slot ii
 * in a grid of grid[0] x grid[1] x grid[2] cells numbered (z*ny + y)*nx + x.
 * Returns 0, -1 when out of memory, -2 when more than CHARMM_MAX_COLOURS
 * colours would be needed (c is then empty). */
int charmm_colour_blocks(charmm_colouring *c, int nlocal, const int *icell, const int grid[3],
                         int reach, int block_atoms);

/* Plain blocks without colours (full lists): blocks of block_atoms slots that
 * do not cross the given chunk boundaries (chunk k is slots
 * [chunk_first[k], chunk_first[k] + chunk_count[k])); chunk k's blocks are
 * order[colour_start[k] .. colour_start[k+1]) (one "colour" per chunk). */
int charmm_plain_blocks(charmm_colouring *c, int nchunks, const int *chunk_first,
                        const int *chunk_count, int block_atoms);

void charmm_colouring_free(charmm_colouring *c);

#endif
