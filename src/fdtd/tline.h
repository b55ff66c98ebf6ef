/* The transmission line's pieces the reference and OpenCL solvers share
 * (tline.c; the model in include/streamcl/fdtd.h, "Transmission lines"). */
#ifndef SCL_FDTD_TLINE_H
#define SCL_FDTD_TLINE_H

#include "streamcl/fdtd.h"

/* Cells of the line joined to the grid (the injector, the absorbing end and
 * the cell at the grid: gprMax shortens its line to these). */
#define FDTD_TLINE_NL (SCL_FDTD_TLINE_ANT + 1)

/* The injector's values for step n of source s: w(n dt) and w((n + 1/2) dt)
 * from its start, 0 outside its window. */
void fdtd_tline_drive(const scl_fdtd_model *m, int s, long n, double *whole, double *half);
/* 1 while n dt is in the line's window (joined to the grid, advanced). */
int fdtd_tline_active(const scl_fdtd_model *m, int s, long n);
/* One step of a line of nl cells (V at 0..nl-1, I between them), R r: the
 * currents (after the H update), then the voltages (abc: the absorbing
 * end's memory). */
void fdtd_tline_currents(double *v, double *i, long nl, double r, double half);
void fdtd_tline_voltages(double *v, const double *i, long nl, double r, double whole, double abc[2]);
/* The current around the E edge of source s from the H loop (gprMax's
 * Ix/Iy/Iz), h(user, component 0-2, padded offset) reading H. */
double fdtd_tline_current(const scl_fdtd_model *m, int s, double (*h)(void *, int, long),
                          void *user);

/* The OpenCL solver's lines (tline_dev.c; NULL when the model has none):
 * kernels on the fields step q wrote (fld[1 - q]), drive values and
 * Vtotal/Itotal travelling per chunk of steps. */
typedef struct fdtd_tline_dev fdtd_tline_dev;
scl_status fdtd_tline_dev_create(scl_context *ctx, const scl_fdtd_model *m, int fp64,
                                 const char *options, scl_stream *fld[2][6], int fused,
                                 int chunk, fdtd_tline_dev **out);
void fdtd_tline_dev_free(fdtd_tline_dev *d);
/* Back to step 0 at the model's positions now: the lines at rest. */
scl_status fdtd_tline_dev_reset(fdtd_tline_dev *d);
/* The drive of steps first .. first + chunk - 1 to the device. */
scl_status fdtd_tline_dev_stage(fdtd_tline_dev *d, long first, int chunk);
/* Step slot of the chunk, after the E sources, on parity q's outputs. */
scl_status fdtd_tline_dev_launch(fdtd_tline_dev *d, int q, int slot);
/* The chunk's Vtotal, Itotal into the host history from step first. */
scl_status fdtd_tline_dev_collect(fdtd_tline_dev *d, long first, int chunk);
/* The history into receivers nrx + t (components 0 V, 1 I), if rx has them. */
void fdtd_tline_dev_read(const fdtd_tline_dev *d, scl_receivers *rx, long steps);

#endif
