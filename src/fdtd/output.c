/* Receiver outputs: gprMax's HDF5 layout (so its tools and h5py read them)
 * and plain text columns; both complete or absent (temporary file + rename). */
#include "streamcl/fdtd.h"
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const comp_names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};

#ifdef STREAMCL_HAVE_HDF5
#include <hdf5.h>

static int attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 ? -1 : H5Awrite(a, t, &value) < 0 ? -1 : 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    return rc;
}

static int attr_array(hid_t obj, const char *name, hid_t type, const void *v, hsize_t n)
{
    hid_t sp = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 ? -1 : H5Awrite(a, type, v) < 0 ? -1 : 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    return rc;
}

/* The group at path, its parents made as needed (h5py's require_group). */
static hid_t make_group(hid_t f, const char *path)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t grp = H5Gcreate2(f, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    return grp;
}

/* ntraces 0: one A-scan, (iterations) per component; otherwise the merged
 * B-scan of rx[0 .. ntraces), (iterations, ntraces) per component, with the
 * attributes gprMax's merge tool adds. */
static int write_file(hid_t f, const scl_fdtd_model *m, const scl_receivers *rx, int ntraces,
                      long iters, int fp64)
{
    const scl_grid3d *g = &m->grid;
    int rc = 0, it = (int)iters, nn[3] = {g->nx, g->ny, g->nz}, nsrc = m->nsrc, nrx = m->nrx;
    double dd[3] = {g->dx, g->dy, g->dz};
    rc |= attr_string(f, "gprMax", "streamcl-fdtd " STREAMCL_VERSION);
    rc |= attr_string(f, "Title", m->title);
    rc |= attr_array(f, "Iterations", H5T_NATIVE_INT, &it, 0);
    rc |= attr_array(f, "nx_ny_nz", H5T_NATIVE_INT, nn, 3);
    rc |= attr_array(f, "dx_dy_dz", H5T_NATIVE_DOUBLE, dd, 3);
    rc |= attr_array(f, "dt", H5T_NATIVE_DOUBLE, &m->dt, 0);
    rc |= attr_array(f, "nsrc", H5T_NATIVE_INT, &nsrc, 0);
    rc |= attr_array(f, "nrx", H5T_NATIVE_INT, &nrx, 0);
    rc |= attr_array(f, "srcsteps", H5T_NATIVE_INT, m->src_step, 3);
    rc |= attr_array(f, "rxsteps", H5T_NATIVE_INT, m->rx_step, 3);
    if (ntraces > 0) {
        /* MergedOutput as h5py stores a numpy bool (an enum of int8) */
        hid_t b = H5Tenum_create(H5T_NATIVE_INT8);
        signed char no = 0, yes = 1;
        H5Tenum_insert(b, "FALSE", &no);
        H5Tenum_insert(b, "TRUE", &yes);
        rc |= attr_array(f, "MergedOutput", b, &yes, 0);
        H5Tclose(b);
        rc |= attr_array(f, "ntraces", H5T_NATIVE_INT, &ntraces, 0);
    }
    char path[64];
    for (int s = 0; s < m->nsrc && !rc; s++) {
        snprintf(path, sizeof path, "/srcs/src%d", s + 1);
        hid_t grp = make_group(f, path);
        if (grp < 0)
            return -1;
        const scl_fdtd_source *src = &m->src[s];
        double pos[3] = {src->ijk[0] * g->dx, src->ijk[1] * g->dy, src->ijk[2] * g->dz};
        rc |= attr_string(grp, "Type", src->kind == SCL_FDTD_HERTZIAN    ? "HertzianDipole"
                                       : src->kind == SCL_FDTD_MAGNETIC ? "MagneticDipole"
                                                                        : "VoltageSource");
        rc |= attr_array(grp, "Position", H5T_NATIVE_DOUBLE, pos, 3);
        H5Gclose(grp);
    }
    int nt = ntraces > 0 ? ntraces : 1;
    hsize_t dims[2] = {(hsize_t)iters, (hsize_t)nt};
    void *buf = malloc((size_t)(iters > 0 ? iters : 1) * (size_t)nt * sizeof(double));
    if (!buf)
        return -1;
    for (int r = 0; r < m->nrx && !rc; r++) {
        snprintf(path, sizeof path, "/rxs/rx%d", r + 1);
        hid_t grp = make_group(f, path);
        if (grp < 0) {
            rc = -1;
            break;
        }
        char name[80];
        if (m->rx_name[r][0]) /* unnamed: gprMax's generated name */
            snprintf(name, sizeof name, "%s", m->rx_name[r]);
        else
            snprintf(name, sizeof name, "Rx(%d,%d,%d)", m->rx_ijk[r][0], m->rx_ijk[r][1], m->rx_ijk[r][2]);
        double pos[3] = {m->rx_ijk[r][0] * g->dx, m->rx_ijk[r][1] * g->dy, m->rx_ijk[r][2] * g->dz};
        rc |= attr_string(grp, "Name", name);
        rc |= attr_array(grp, "Position", H5T_NATIVE_DOUBLE, pos, 3);
        hid_t type = fp64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
        for (int c = 0; c < 6 && !rc; c++) {
            for (int t = 0; t < nt; t++) {
                const double *v = scl_receivers_series(&rx[t], r, c);
                for (long i = 0; i < iters; i++) { /* row i: time step, column t: trace */
                    double x = i < rx[t].nt ? v[i] : 0;
                    if (fp64)
                        ((double *)buf)[i * nt + t] = x;
                    else
                        ((float *)buf)[i * nt + t] = (float)x;
                }
            }
            hid_t sp = H5Screate_simple(ntraces > 0 ? 2 : 1, dims, NULL);
            hid_t ds = H5Dcreate2(grp, comp_names[c], type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            if (ds < 0 || H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
                rc = -1;
            if (ds >= 0)
                H5Dclose(ds);
            H5Sclose(sp);
        }
        H5Gclose(grp);
    }
    free(buf);
    return rc;
}

static scl_status write_hdf5(const char *path, const scl_fdtd_model *m, const scl_receivers *rx,
                             int ntraces, long iterations, int fp64, char *err, size_t errlen)
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
    int rc = write_file(f, m, rx, ntraces, iterations, fp64);
    if (H5Fclose(f) < 0)
        rc = -1;
    if (rc) {
        scl_format_error(err, errlen, "%s: HDF5 write failed", path);
        scl_outfile_abort(&o);
        return SCL_ERR_IO;
    }
    return scl_outfile_commit(&o, err, errlen);
}
scl_status scl_fdtd_write_hdf5(const char *path, const scl_fdtd_model *m, const scl_receivers *rx,
                               long iterations, int fp64, char *err, size_t errlen)
{
    return write_hdf5(path, m, rx, 0, iterations, fp64, err, errlen);
}

scl_status scl_fdtd_write_merged(const char *path, const scl_fdtd_model *m,
                                 const scl_receivers *rx, int ntraces, long iterations, int fp64,
                                 char *err, size_t errlen)
{
    if (ntraces < 1) {
        scl_format_error(err, errlen, "%s: a merged output needs at least one trace", path);
        return SCL_ERR_ARGUMENT;
    }
    return write_hdf5(path, m, rx, ntraces, iterations, fp64, err, errlen);
}
#else
scl_status scl_fdtd_write_hdf5(const char *path, const scl_fdtd_model *m, const scl_receivers *rx,
                               long iterations, int fp64, char *err, size_t errlen)
{
    (void)m;
    (void)rx;
    (void)iterations;
    (void)fp64;
    scl_format_error(err, errlen, "%s: built without HDF5 (apt-get install libhdf5-dev)", path);
    return SCL_ERR_UNSUPPORTED;
}

scl_status scl_fdtd_write_merged(const char *path, const scl_fdtd_model *m,
                                 const scl_receivers *rx, int ntraces, long iterations, int fp64,
                                 char *err, size_t errlen)
{
    (void)ntraces;
    return scl_fdtd_write_hdf5(path, m, rx, iterations, fp64, err, errlen);
}
#endif

scl_status scl_fdtd_write_text(const char *path, const scl_fdtd_model *m, const scl_receivers *rx,
                               long iterations, char *err, size_t errlen)
{
    scl_outfile o;
    scl_status s = scl_outfile_open(&o, path, 0, err, errlen);
    if (s != SCL_OK)
        return s;
    fprintf(o.f, "# streamcl fdtd receivers: %d, dt %.9e s, %ld iterations\n", m->nrx, m->dt, iterations);
    for (int r = 0; r < m->nrx; r++) {
        fprintf(o.f, "# rx%d %s at %g %g %g m\n# time Ex Ey Ez Hx Hy Hz\n", r + 1, m->rx_name[r],
                m->rx_ijk[r][0] * m->grid.dx, m->rx_ijk[r][1] * m->grid.dy, m->rx_ijk[r][2] * m->grid.dz);
        for (long n = 0; n < iterations && n < rx->nt; n++) {
            fprintf(o.f, "%.9e", n * m->dt);
            for (int c = 0; c < 6; c++)
                fprintf(o.f, " %.9e", scl_receivers_series(rx, r, c)[n]);
            fputc('\n', o.f);
        }
        fputc('\n', o.f);
    }
    return scl_outfile_commit(&o, err, errlen);
}
