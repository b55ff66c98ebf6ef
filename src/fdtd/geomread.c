/* gprMax's geometry files (#geometry_objects_read): an HDF5 file whose
 * dataset /data holds a material index per cell (C order: x slowest, as h5py
 * and numpy write an (nx, ny, nz) array; -1 builds nothing there) and whose
 * attribute dx_dy_dz gives the cell size it was made at. The indices refer
 * to the #material lines of a text file, read by the input reader. */
#include "streamcl/fdtd.h"
#include "core/fail.h"

#include <stdlib.h>
#include <string.h>

#ifdef STREAMCL_HAVE_HDF5
#include <hdf5.h>

/* dx_dy_dz: three numbers; 0 or -1 */
static int read_spacing(hid_t f, double d[3])
{
    if (H5Aexists(f, "dx_dy_dz") <= 0)
        return -1;
    hid_t a = H5Aopen(f, "dx_dy_dz", H5P_DEFAULT);
    if (a < 0)
        return -1;
    hid_t sp = H5Aget_space(a);
    int rc = H5Sget_simple_extent_npoints(sp) == 3 &&
                     H5Aread(a, H5T_NATIVE_DOUBLE, d) >= 0 ? 0 : -1;
    H5Sclose(sp);
    H5Aclose(a);
    return rc;
}

/* /data: a 3D integer dataset, into cells x fastest; 0, or -1 with why */
static int read_indices(hid_t f, int n[3], int **out, const char **why)
{
    hid_t ds = H5Dopen2(f, "/data", H5P_DEFAULT);
    if (ds < 0) {
        *why = "has no dataset /data";
        return -1;
    }
    hid_t sp = H5Dget_space(ds), ty = H5Dget_type(ds);
    hsize_t dims[3] = {0, 0, 0};
    int rank = H5Sget_simple_extent_ndims(sp), rc = -1;
    int *c = NULL;
    if (rank != 3 || H5Tget_class(ty) != H5T_INTEGER) {
        *why = "/data is not a 3D integer array";
    } else if (H5Sget_simple_extent_dims(sp, dims, NULL) < 0 || dims[0] * dims[1] * dims[2] == 0 ||
               dims[0] > 100000 || dims[1] > 100000 || dims[2] > 100000 ||
               dims[0] * dims[1] * dims[2] > ((hsize_t)1 << 34)) {
        *why = "/data's shape is empty or too large";
    } else if (!(c = malloc((size_t)(dims[0] * dims[1] * dims[2]) * sizeof *c))) {
        *why = "out of memory";
    } else if (H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, c) < 0) {
        *why = "/data cannot be read as integers";
    } else
        rc = 0;
    H5Tclose(ty);
    H5Sclose(sp);
    H5Dclose(ds);
    if (rc) {
        free(c);
        return rc;
    }
    for (int a = 0; a < 3; a++)
        n[a] = (int)dims[a];
    int *x = malloc((size_t)n[0] * n[1] * n[2] * sizeof *x);
    if (!x) {
        free(c);
        *why = "out of memory";
        return -1;
    }
    /* C order (i slowest) to the model's cell order (i fastest) */
    for (long i = 0; i < n[0]; i++)
        for (long j = 0; j < n[1]; j++)
            for (long k = 0; k < n[2]; k++)
                x[i + n[0] * (j + n[1] * k)] = c[(i * n[1] + j) * n[2] + k];
    free(c);
    *out = x;
    return 0;
}

scl_status scl_fdtd_read_geometry(const char *path, int n[3], double d[3], int **cells,
                                  int *components, char *err, size_t errlen)
{
    *cells = NULL;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        scl_format_error(err, errlen, "%s: cannot open as HDF5", path);
        return SCL_ERR_IO;
    }
    const char *why = NULL;
    if (read_spacing(f, d))
        why = "has no dx_dy_dz attribute of three numbers";
    else
        read_indices(f, n, cells, &why);
    *components = H5Lexists(f, "/ID", H5P_DEFAULT) > 0;
    H5Fclose(f);
    if (why) {
        scl_format_error(err, errlen, "%s: %s", path, why);
        return SCL_ERR_INPUT;
    }
    return SCL_OK;
}

#else

scl_status scl_fdtd_read_geometry(const char *path, int n[3], double d[3], int **cells,
                                  int *components, char *err, size_t errlen)
{
    (void)n;
    (void)d;
    *cells = NULL;
    *components = 0;
    scl_format_error(err, errlen, "%s: this build has no HDF5", path);
    return SCL_ERR_UNSUPPORTED;
}

#endif
