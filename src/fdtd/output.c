/* Receiver outputs: gprMax's HDF5 layout (so its tools and h5py read them)
 * and plain text columns; both complete or absent (temporary file + rename). */
#include "streamcl/fdtd.h"
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const comp_names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};

#ifdef STREAMCL_HAVE_HDF5
#include "fdtd/h5out.h"

/* One series of iterations + 1 values (gprMax's line arrays): v's first nv,
 * then zeros. */
static int line_dataset(hid_t grp, const char *name, const double *v, long nv, long iters, int fp64,
                        void *buf)
{
    for (long i = 0; i <= iters; i++) {
        double x = v && i < nv ? v[i] : 0;
        if (fp64)
            ((double *)buf)[i] = x;
        else
            ((float *)buf)[i] = (float)x;
    }
    hsize_t n = (hsize_t)iters + 1;
    return scl_fdtd_h5_dataset(grp, name, fp64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, 1, &n, buf);
}

/* /tls/tlN per transmission line, as gprMax: Position, Resistance, dl; the
 * incident Vinc, Iinc and the total Vtotal, Itotal (receivers nrx + t). */
static int write_tlines(hid_t f, const scl_fdtd_model *m, const scl_receivers *rx, long iters, int fp64)
{
    const scl_grid3d *g = &m->grid;
    int ntl = scl_fdtd_model_tlines(m), rc = 0, have = rx->n >= m->nrx + ntl && rx->ncomp >= 2;
    double dl = scl_fdtd_tline_dl(m), *inc = malloc(2 * sizeof(double) * (size_t)(iters + 1));
    void *buf = malloc(sizeof(double) * (size_t)(iters + 1));
    char path[64], err[256];
    if (!inc || !buf)
        rc = -1;
    for (int q = 0, t = 0; q < m->nsrc && !rc; q++) {
        const scl_fdtd_source *src = &m->src[q];
        if (src->kind != SCL_FDTD_TLINE)
            continue;
        snprintf(path, sizeof path, "/tls/tl%d", ++t);
        hid_t grp = scl_fdtd_h5_group(f, path);
        if (grp < 0 || scl_fdtd_tline_incident(m, q, inc, inc + iters + 1, err, sizeof err) != SCL_OK) {
            rc = -1;
            break;
        }
        double pos[3] = {src->ijk[0] * g->dx, src->ijk[1] * g->dy, src->ijk[2] * g->dz};
        rc |= scl_fdtd_h5_attr(grp, "Position", H5T_NATIVE_DOUBLE, pos, 3);
        rc |= scl_fdtd_h5_attr(grp, "Resistance", H5T_NATIVE_DOUBLE, &src->resistance, 0);
        rc |= scl_fdtd_h5_attr(grp, "dl", H5T_NATIVE_DOUBLE, &dl, 0);
        long nv = rx->nt < iters ? rx->nt : iters;
        rc |= line_dataset(grp, "Vinc", inc, iters, iters, fp64, buf);
        rc |= line_dataset(grp, "Iinc", inc + iters + 1, iters, iters, fp64, buf);
        rc |= line_dataset(grp, "Vtotal", have ? scl_receivers_series(rx, m->nrx + t - 1, 0) : NULL,
                           nv, iters, fp64, buf);
        rc |= line_dataset(grp, "Itotal", have ? scl_receivers_series(rx, m->nrx + t - 1, 1) : NULL,
                           nv, iters, fp64, buf);
        H5Gclose(grp);
    }
    free(inc);
    free(buf);
    return rc;
}

/* A study's case in a trace's file, as gprMax's /study group holds it (its
 * attributes; gprMax's JSON datasets of the table are left out). */
static int write_study(hid_t f, const scl_fdtd_model *m)
{
    hid_t grp = scl_fdtd_h5_group(f, "/study");
    if (grp < 0)
        return -1;
    long long index = m->trace + 1, count = m->ncases;
    int rc = scl_fdtd_h5_attr_string(grp, "Type", "gpr", 0);
    rc |= scl_fdtd_h5_attr_string(grp, "CaseID", m->case_id[m->trace], 0);
    rc |= scl_fdtd_h5_attr(grp, "CaseIndex", H5T_NATIVE_LLONG, &index, 0);
    rc |= scl_fdtd_h5_attr(grp, "CaseCount", H5T_NATIVE_LLONG, &count, 0);
    rc |= scl_fdtd_h5_attr_string(grp, "SourcePath", m->study_csv, 0);
    H5Gclose(grp);
    return rc;
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
    rc |= scl_fdtd_h5_attr_string(f, "gprMax", "streamcl-fdtd " STREAMCL_VERSION, 0);
    rc |= scl_fdtd_h5_attr_string(f, "Title", m->title, 0);
    rc |= scl_fdtd_h5_attr(f, "Iterations", H5T_NATIVE_INT, &it, 0);
    rc |= scl_fdtd_h5_attr(f, "nx_ny_nz", H5T_NATIVE_INT, nn, 3);
    rc |= scl_fdtd_h5_attr(f, "dx_dy_dz", H5T_NATIVE_DOUBLE, dd, 3);
    rc |= scl_fdtd_h5_attr(f, "dt", H5T_NATIVE_DOUBLE, &m->dt, 0);
    rc |= scl_fdtd_h5_attr(f, "nsrc", H5T_NATIVE_INT, &nsrc, 0);
    rc |= scl_fdtd_h5_attr(f, "nrx", H5T_NATIVE_INT, &nrx, 0);
    rc |= scl_fdtd_h5_attr(f, "srcsteps", H5T_NATIVE_INT, m->src_step, 3);
    rc |= scl_fdtd_h5_attr(f, "rxsteps", H5T_NATIVE_INT, m->rx_step, 3);
    if (ntraces > 0) {
        /* MergedOutput as h5py stores a numpy bool (an enum of int8) */
        hid_t b = H5Tenum_create(H5T_NATIVE_INT8);
        signed char no = 0, yes = 1;
        H5Tenum_insert(b, "FALSE", &no);
        H5Tenum_insert(b, "TRUE", &yes);
        rc |= scl_fdtd_h5_attr(f, "MergedOutput", b, &yes, 0);
        H5Tclose(b);
        rc |= scl_fdtd_h5_attr(f, "ntraces", H5T_NATIVE_INT, &ntraces, 0);
    } else if (m->ncases > 0 && m->case_id && m->study_csv && m->trace >= 0 && m->trace < m->ncases)
        rc |= write_study(f, m);
    char path[64];
    for (int s = 0, k = 0; s < m->nsrc && !rc; s++) {
        if (m->src[s].kind == SCL_FDTD_TLINE)
            continue; /* gprMax: lines in /tls, counted in nsrc */
        snprintf(path, sizeof path, "/srcs/src%d", ++k);
        hid_t grp = scl_fdtd_h5_group(f, path);
        if (grp < 0)
            return -1;
        const scl_fdtd_source *src = &m->src[s];
        double pos[3] = {src->ijk[0] * g->dx, src->ijk[1] * g->dy, src->ijk[2] * g->dz};
        const char *type = src->kind == SCL_FDTD_HERTZIAN    ? "HertzianDipole"
                           : src->kind == SCL_FDTD_MAGNETIC ? "MagneticDipole"
                                                            : "VoltageSource";
        rc |= scl_fdtd_h5_attr_string(grp, "Type", type, 0);
        rc |= scl_fdtd_h5_attr(grp, "Position", H5T_NATIVE_DOUBLE, pos, 3);
        H5Gclose(grp);
    }
    int nt = ntraces > 0 ? ntraces : 1;
    hsize_t dims[2] = {(hsize_t)iters, (hsize_t)nt};
    void *buf = malloc((size_t)(iters > 0 ? iters : 1) * (size_t)nt * sizeof(double));
    if (!buf)
        return -1;
    for (int r = 0; r < m->nrx && !rc; r++) {
        snprintf(path, sizeof path, "/rxs/rx%d", r + 1);
        hid_t grp = scl_fdtd_h5_group(f, path);
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
        rc |= scl_fdtd_h5_attr_string(grp, "Name", name, 0);
        rc |= scl_fdtd_h5_attr(grp, "Position", H5T_NATIVE_DOUBLE, pos, 3);
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
            rc |= scl_fdtd_h5_dataset(grp, comp_names[c], type, ntraces > 0 ? 2 : 1, dims, buf);
        }
        H5Gclose(grp);
    }
    free(buf);
    if (!rc && ntraces == 0 && scl_fdtd_model_tlines(m) > 0)
        rc = write_tlines(f, m, rx, iters, fp64);
    return rc;
}

typedef struct {
    const scl_fdtd_model *m;
    const scl_receivers *rx;
    int ntraces, fp64;
    long iterations;
} receivers_file;

static int write_receivers(hid_t f, const void *user)
{
    const receivers_file *r = user;
    return write_file(f, r->m, r->rx, r->ntraces, r->iterations, r->fp64);
}

static scl_status write_hdf5(const char *path, const scl_fdtd_model *m, const scl_receivers *rx,
                             int ntraces, long iterations, int fp64, char *err, size_t errlen)
{
    receivers_file r = {.m = m, .rx = rx, .ntraces = ntraces, .fp64 = fp64, .iterations = iterations};
    return scl_fdtd_h5_write(path, write_receivers, &r, "the receivers", err, errlen);
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
