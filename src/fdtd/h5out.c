/* HDF5 pieces of the fdtd writers (h5out.h). */
#ifdef STREAMCL_HAVE_HDF5
#include "fdtd/h5out.h"
#include "core/fail.h"

#include <string.h>

/* An attribute on the dataspace sp (closed here), written from v. */
static int attr_write(hid_t obj, const char *name, hid_t type, hid_t sp, const void *v)
{
    hid_t a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, type, v) < 0 ? -1 : 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    return rc;
}

int scl_fdtd_h5_attr(hid_t obj, const char *name, hid_t type, const void *v, hsize_t n)
{
    hid_t sp = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    return attr_write(obj, name, type, sp, v);
}

int scl_fdtd_h5_attr_string(hid_t obj, const char *name, const char *value, int fixed)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (fixed) {
        H5Tset_size(t, strlen(value) ? strlen(value) : 1);
        H5Tset_strpad(t, H5T_STR_NULLPAD);
    } else {
        H5Tset_size(t, H5T_VARIABLE);
        H5Tset_cset(t, H5T_CSET_UTF8);
    }
    /* a variable-length string is written through a pointer to it */
    int rc = attr_write(obj, name, t, H5Screate(H5S_SCALAR), fixed ? (const void *)value
                                                                    : (const void *)&value);
    H5Tclose(t);
    return rc;
}

int scl_fdtd_h5_dataset(hid_t grp, const char *name, hid_t type, int rank, const hsize_t *dims,
                        const void *v)
{
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t ds = H5Dcreate2(grp, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = ds < 0 || H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0 ? -1 : 0;
    if (ds >= 0)
        H5Dclose(ds);
    H5Sclose(sp);
    return rc;
}

int scl_fdtd_h5_strings(hid_t grp, const char *name, const char *const *v, hsize_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    int rc = scl_fdtd_h5_dataset(grp, name, t, 1, &n, v);
    H5Tclose(t);
    return rc;
}

hid_t scl_fdtd_h5_group(hid_t f, const char *path)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t grp = H5Gcreate2(f, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    return grp;
}

scl_status scl_fdtd_h5_write(const char *path, int (*body)(hid_t f, const void *user),
                             const void *user, const char *what, char *err, size_t errlen)
{
    scl_outfile o;
    scl_status s = scl_outfile_begin(&o, path, err, errlen);
    if (s != SCL_OK)
        return s;
    if (o.direct) { /* HDF5 seeks and rewrites its header: a stream cannot hold it */
        scl_format_error(err, errlen, "%s: HDF5 output needs a regular file, not a device or FIFO",
                         path);
        scl_outfile_abort(&o);
        return SCL_ERR_IO;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
    hid_t f = H5Fcreate(o.tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) {
        scl_format_error(err, errlen, "%s: HDF5 cannot create the file", o.tmp);
        scl_outfile_abort(&o);
        return SCL_ERR_IO;
    }
    int rc = body(f, user);
    if (H5Fclose(f) < 0)
        rc = -1;
    if (rc) {
        scl_format_error(err, errlen, "%s: HDF5 write of %s failed", path, what);
        scl_outfile_abort(&o);
        return SCL_ERR_IO;
    }
    return scl_outfile_commit(&o, err, errlen);
}
#else
typedef int scl_fdtd_h5out_unused; /* ISO C: a translation unit is not empty */
#endif
