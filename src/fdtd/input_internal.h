/* The gprMax input reader's shared insides: one command line, the file's
 * commands, the helpers every command's parser uses (input_common.c) and each
 * concern's parsers (input_*.c), which input.c's table of commands calls. */
#ifndef STREAMCL_FDTD_INPUT_INTERNAL_H
#define STREAMCL_FDTD_INPUT_INTERNAL_H

#include "streamcl/fdtd.h"
#include "core/internal.h"

#include <stddef.h>

#define MAX_TOKENS 16

typedef struct {
    char cmd[32];
    char *tok[MAX_TOKENS];
    int ntok;
    const char *file; /* the input file or the #include_file it came from */
    long line;
    char text[512];
    char fix[6][40]; /* coordinates given as inf, resolved (2D models) */
} command;

#define MAX_INCLUDE_DEPTH 100 /* gprMax's limit */

/* An object a #study may move: its study ID (gprMax's), a receiver's own ID
 * as alias, and where it is in the model (input_study.c). */
typedef struct {
    char id[48], alias[64];
    int rx, index; /* receiver (1) or source (0), its index in the model */
    const command *cmd;
} fdtd_study_object;

typedef struct {
    scl_linereader r;
    command *cmds;
    int n, cap;
    char **files; /* paths of included files, for the commands' messages */
    int nfiles;
    char *chain[MAX_INCLUDE_DEPTH + 1]; /* real paths of the files being read: cycles */
    fdtd_study_object *study;           /* objects a #study may move, in file order */
    int nstudy;
    const command *study_unmanaged;     /* an object a study cannot manage (a line) */
} input;

/* input_common.c */
int fdtd_in_reals(const input *in, const command *c, int first, int count, double *out, char *err,
                  size_t errlen);
scl_status fdtd_in_fail(const input *in, const command *c, char *err, size_t errlen,
                        const char *why);
int fdtd_in_nparams(const input *in, const command *c, int lo, int hi, char *err, size_t errlen);
int fdtd_in_material_of(const input *in, const command *c, const scl_fdtd_model *m, const char *name,
                        char *err, size_t errlen);
int fdtd_in_averaging_flag(const input *in, const command *c, int idx, char *err, size_t errlen);
scl_status fdtd_in_box_cells(const input *in, const command *c, const scl_grid3d *g,
                             const double *p, int lo[3], int hi[3], char *err, size_t errlen);
int fdtd_in_is_inf(const char *tok, int *sign);
scl_status fdtd_in_range_cells(const input *in, const command *c, const scl_fdtd_model *m,
                               int first, int lo[3], int hi[3], char *err, size_t errlen);
scl_status fdtd_in_push(void *arrp, int *n, const void *item, size_t size);

/* input_sources.c */
scl_status fdtd_in_parse_excitation(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                    size_t errlen);
scl_status fdtd_in_parse_waveform(input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen);
scl_status fdtd_in_parse_source(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen);
scl_status fdtd_in_parse_rx(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen);
scl_status fdtd_in_sampled_box(const input *in, const command *c, const scl_fdtd_model *m, int array,
                               int lo[3], int hi[3], int step[3], char *err, size_t errlen);
scl_status fdtd_in_parse_rx_array(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen);

/* input_geometry.c */
void fdtd_in_beside_input(const input *in, const char *name, char *path, size_t size);
int fdtd_in_axes_where(const int lo[3], const int hi[3], int zero, int *axis);
scl_status fdtd_in_parse_plate(const input *in, const command *c, scl_fdtd_model *m, char *err,
                               size_t errlen);
scl_status fdtd_in_parse_edge(const input *in, const command *c, scl_fdtd_model *m, char *err,
                              size_t errlen);
scl_status fdtd_in_parse_triangle(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                  size_t errlen);
scl_status fdtd_in_parse_sector(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                size_t errlen);
scl_status fdtd_in_parse_solid(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen);
scl_status fdtd_in_parse_geometry_read(const input *in, const command *c, scl_fdtd_model *m,
                                       char *err, size_t errlen);

/* input_soil.c */
scl_status fdtd_in_check_soil(const input *in, const command *c, char *err, size_t errlen);
scl_status fdtd_in_check_rough(const input *in, const command *c, scl_fdtd_model *m, char *err,
                               size_t errlen);
scl_status fdtd_in_parse_fractal_box(const input *in, const command *c, scl_fdtd_model *m,
                                     char *err, size_t errlen);

/* input_materials.c */
scl_status fdtd_in_parse_defs(input *in, scl_fdtd_model *m, char *err, size_t errlen);
scl_status fdtd_in_parse_poles(input *in, scl_fdtd_model *m, char *err, size_t errlen);
scl_status fdtd_in_parse_material_db(const input *in, const command *c, scl_fdtd_model *m,
                                      char *err, size_t errlen);
scl_status fdtd_in_parse_magavg(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                size_t errlen);

/* input_outputs.c */
scl_status fdtd_in_parse_snapshot(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen);
scl_status fdtd_in_parse_gview(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen);
scl_status fdtd_in_parse_messages(const input *in, const command *c, scl_fdtd_model *m, char *err, size_t errlen);
scl_status fdtd_in_parse_omp_threads(const input *in, const command *c, scl_fdtd_model *m, char *err,
                                     size_t errlen);

/* input_study.c */
scl_status fdtd_in_study_note(input *in, const command *c, int nsrc_before, int nrx_before);
scl_status fdtd_in_parse_study(const input *in, const command *c, scl_fdtd_model *m, char *err,
                               size_t errlen);

#endif
