/* The streamcl command's sub-commands and shared helpers. */
#ifndef STREAMCL_CLI_COMMANDS_H
#define STREAMCL_CLI_COMMANDS_H

#include "streamcl.h"

#include <sys/types.h>

/* Each sub-command: argv[0] is the sub-command name; returns the exit status. */
int cmd_devices(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_lbm(int argc, char **argv);
int cmd_nbody(int argc, char **argv);
int cmd_pair_bench(int argc, char **argv);
int cmd_eri(int argc, char **argv);
int cmd_fdtd(int argc, char **argv);
int cmd_seismic(int argc, char **argv);
/* The grid solvers' runs over MPI ranks (cmd_<module>_mpi.c), which main
 * chooses under a launcher: the whole command, MPI_Init .. MPI_Finalize. */
int cmd_fdtd_mpi(int argc, char **argv);
int cmd_seismic_mpi(int argc, char **argv);
int cmd_nbody_mpi(int argc, char **argv); /* the blocks of bodies round a ring of ranks */

/* Progress line on stderr, only when stderr is a terminal. */
typedef struct {
    const char *what;
    long total;
    double start, last;
    int active;
} cli_progress;
void cli_progress_start(cli_progress *p, const char *what, long total);
void cli_progress_update(cli_progress *p, long done);
void cli_progress_end(cli_progress *p);

/* Wall-clock seconds (monotonic). */
/* Median of v[0..n) (sorts v in place); 0 when n is 0. */
double cli_median(double *v, long n);
double cli_now(void);

/* Create a context from --device (or $STREAMCL_DEVICE); prints the error and
 * returns NULL on failure. */
scl_context *cli_context(const char *device, int profiling);

/* Parse helpers: print "streamcl CMD: bad value for OPT: 'x'" and return -1 on error. */
int cli_parse_long(const char *cmd, const char *opt, const char *text, long min, long max,
                   long *out);
int cli_parse_double(const char *cmd, const char *opt, const char *text, double *out);

/* A command's input and output files, the one place every command's outputs
 * go through. Each output is registered before any computing: the path is
 * resolved as scl_outfile does (a symlink written through, a dangling one,
 * a directory, a block device or a socket refused), refused when it is the
 * same file (device and inode, or canonical path for a new name) as an
 * input or another output of the run, and a temporary is created beside it
 * with O_EXCL under an unpredictable name. A character device or FIFO
 * (/dev/null, a pipe) is written straight instead and never renamed over or
 * removed. The command writes the returned path; cli_outputs_commit renames
 * every temporary into place at the end (all or nothing), and
 * cli_outputs_free removes whatever was not committed. SIGINT, SIGTERM and
 * SIGHUP remove the temporaries too, so a failed or interrupted run leaves no
 * files. */
typedef struct {
    char *name;      /* as given, for messages */
    char *canon;     /* canonical path, or NULL */
    dev_t dev;
    ino_t ino;
    int exists, input;
    scl_outfile *of; /* outputs only */
} cli_file;
typedef struct {
    const char *cmd;
    int n, cap;
    cli_file *f;
} cli_outputs;
void cli_outputs_init(cli_outputs *o, const char *cmd);
/* Registers an input that no output may be (a path that does not exist is
 * left to its reader to report). */
void cli_input(cli_outputs *o, const char *path);
/* The path to write for path (a temporary, or path itself for a device or
 * FIFO), or NULL after printing why path cannot be written. */
const char *cli_output(cli_outputs *o, const char *path);
/* Renames every temporary file to its final name; 0, or -1 after printing
 * (and removing what was renamed already). */
int cli_outputs_commit(cli_outputs *o);
void cli_outputs_free(cli_outputs *o);
/* Counts a chunk of steps; 1 after chunks 1, 2, 4, 8 ...: when a long run
 * checks its fields for non-finite values, so that a blow-up stops it within
 * twice its step count for a logarithmic number of full-field reads. */
int cli_check_due(long *chunks);
/* An existing directory for output files; 0, or -1 after printing why not. */
int cli_output_dir(const char *cmd, const char *dir);

/* Write an 8-bit RGB image (w*h*3 bytes, row 0 at the top) as PNG. Returns 0,
 * or -1 with a message on stderr (also when built without libpng). */
int cli_write_png(const char *path, int w, int h, const unsigned char *rgb);
/* Map t in [0,1] to a perceptual colour (viridis-like), 3 bytes into rgb. */
void cli_colormap(double t, unsigned char rgb[3]);

#endif
