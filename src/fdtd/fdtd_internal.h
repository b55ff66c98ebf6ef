/* What the fdtd module's files share beyond include/streamcl/fdtd.h. */
#ifndef SCL_FDTD_INTERNAL_H
#define SCL_FDTD_INTERNAL_H

#include "streamcl/fdtd.h"

/* The CPML profile of every axis with PML cells (host.c; the reference and
 * the OpenCL solver both use it). */
scl_status scl_fdtd_cpml_axes(const scl_fdtd_model *m, scl_cpml_axis ax[3], int T[3], char *err,
                              size_t errlen);
/* The er mr that grades PML face f (0-5: x0 y0 z0 x1 y1 z1): the model's
 * pml_ermr, else the mean er times the mean mr of the face's entrance plane
 * (gprMax's; host.c). */
double scl_fdtd_pml_ermr(const scl_fdtd_model *m, int f);
/* One axis a's gprMax CPML profile over N cells along it (host.c). */
scl_status scl_fdtd_cpml_profile(const scl_fdtd_model *m, int a, int N, scl_cpml_axis *ax, char *err,
                                 size_t errlen);
/* The same for the model's grid, which may be a sub-domain (its offsets
 * and global sizes in the grid): the global profile read from the offset,
 * and the slab cells lo/hi of the global CPML inside it (subdomain.c). */
scl_status scl_fdtd_cpml_local(const scl_fdtd_model *m, scl_cpml_axis ax[3], int T[3], int lo[3],
                               int hi[3], char *err, size_t errlen);
/* The material of component c at node (i, j, k) from the cells around it,
 * an averaged one added to the table when new; -1 when the table is full
 * (model.c; scl_fdtd_model_finish applies it in node order). */
int scl_fdtd_component_material(scl_fdtd_model *m, int c, int i, int j, int k);
/* cells of dispersive materials: offsets and component masks (model.c) */
long scl_fdtd_dispersive_points(const scl_fdtd_model *m, int **off, unsigned char **comp);

#endif
