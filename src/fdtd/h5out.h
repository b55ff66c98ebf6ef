/* The HDF5 writing the fdtd outputs share: the receivers (output.c, gprMax's
 * layout) and the VTKHDF geometry views and snapshots (vtk.c). Each piece
 * returns 0 or -1 and closes what it opened. Only with STREAMCL_HAVE_HDF5. */
#ifndef SCL_FDTD_H5OUT_H
#define SCL_FDTD_H5OUT_H

#include "streamcl.h"

#include <hdf5.h>

/* An attribute of n elements (n 0: a scalar). */
int scl_fdtd_h5_attr(hid_t obj, const char *name, hid_t type, const void *v, hsize_t n);
/* A string attribute: variable-length UTF-8 (fixed 0), or of its own length,
 * null-padded (as h5py writes numpy bytes). */
int scl_fdtd_h5_attr_string(hid_t obj, const char *name, const char *value, int fixed);
/* A dataset of rank dims written whole. */
int scl_fdtd_h5_dataset(hid_t grp, const char *name, hid_t type, int rank, const hsize_t *dims,
                        const void *v);
/* n variable-length strings, as h5py writes a list of bytes. */
int scl_fdtd_h5_strings(hid_t grp, const char *name, const char *const *v, hsize_t n);
/* The group at path, its parents made as needed (h5py's require_group);
 * < 0 on failure. */
hid_t scl_fdtd_h5_group(hid_t f, const char *path);

/* The whole file at path, complete or absent (scl_outfile: a temporary name
 * renamed at the end): body(f, user) writes its content and returns 0 or
 * -1; what names that content in the message of a failed write. */
scl_status scl_fdtd_h5_write(const char *path, int (*body)(hid_t f, const void *user),
                             const void *user, const char *what, char *err, size_t errlen);

#endif
