/* The OpenCL D2Q9 solver: buffers, the tuned launch shape, batched steps with
 * av_vels finished per batch, and read-out of the true (natural) state. */
#include "core/fail.h"
#include "streamcl/lbm.h"
#include "layout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SUM_GROUP 256                  /* work-group of lbm_sum_partials */
#define PARTIALS_BUDGET (4u << 20)     /* floats of per-group partials per batch */
#define DEFAULT_BATCH 256

struct scl_lbm {
    scl_context *ctx;
    scl_lbm_params p;         /* the whole lattice */
    scl_lbm_params lp;        /* the device lattice: p, or a slab of rows + 2 halo rows */
    int y0, rows, halo;       /* global rows [y0, y0+rows) owned, at local rows halo.. */
    int accel_row;            /* local row of global row ny-2, or -1 when not owned */
    scl_lbm_options opt;
    unsigned char *obstacles; /* host copy of the device lattice's rows */
    long fluid;               /* fluid cells among the owned rows */
    size_t ncell;
    scl_kernel *step, *even, *odd, *sum;
    scl_plan *plan;           /* the work-group shape, tuned; runs one step */
    unsigned offset;          /* where the plan's step writes its partials */
    scl_stream *lattice[2];   /* [1] unused in place */
    int src;                  /* two lattices: which one holds the state */
    scl_stream *obst, *flags, *partials, *sums;
    size_t partial_capacity;  /* floats in partials */
    int lx, ly;
    size_t groups_x, groups_y;
    int batch;
    long steps_done;
    double *sums_host;        /* batch entries of 8 bytes (double or float pair) */
    scl_stream *staging;      /* row-split: host-mapped (pinned) edge and halo buffers */
    void *staging_ptr;        /* its mapping, held for the solver's life */
};

static const char *kernel_label(const scl_lbm *m)
{
    return m->opt.streaming == SCL_LBM_IN_PLACE ? "lbm_step_aa" : "lbm_step";
}

static size_t store_size(const scl_lbm *m)
{
    return m->opt.storage == SCL_LBM_FP16 ? 2 : 4;
}

double scl_lbm_bytes_per_cell(const scl_lbm *lbm)
{
    return lbm ? 2.0 * SCL_LBM_Q * (double)store_size(lbm) + 1.0 : 0.0;
}

long scl_lbm_steps_done(const scl_lbm *lbm)
{
    return lbm ? lbm->steps_done : 0;
}

void scl_lbm_work_group(const scl_lbm *lbm, int *lx, int *ly)
{
    if (lx)
        *lx = lbm ? lbm->lx : 0;
    if (ly)
        *ly = lbm ? lbm->ly : 0;
}

void scl_lbm_free(scl_lbm *m)
{
    if (!m)
        return;
    if (m->staging_ptr)
        scl_stream_unmap(m->staging, m->staging_ptr);
    scl_stream_free(m->staging);
    scl_plan_free(m->plan);
    scl_kernel_free(m->step);
    scl_kernel_free(m->even);
    scl_kernel_free(m->odd);
    scl_kernel_free(m->sum);
    scl_stream_free(m->lattice[0]);
    scl_stream_free(m->lattice[1]);
    scl_stream_free(m->obst);
    scl_stream_free(m->flags);
    scl_stream_free(m->partials);
    scl_stream_free(m->sums);
    free(m->obstacles);
    free(m->sums_host);
    free(m);
}

static lbm_layout current_layout(const scl_lbm *m)
{
    if (m->opt.streaming != SCL_LBM_IN_PLACE)
        return LBM_LAYOUT_NATURAL;
    /* step t (0-based) is even or odd; an even step leaves the AA_EVEN layout */
    return m->steps_done % 2 ? LBM_LAYOUT_AA_EVEN : LBM_LAYOUT_AA_ODD;
}

static scl_stream *state_stream(const scl_lbm *m)
{
    return m->lattice[m->opt.streaming == SCL_LBM_IN_PLACE ? 0 : m->src];
}

/* Upload the initial state with the first step's acceleration already applied. */
static scl_status upload_initial(scl_lbm *m)
{
    size_t n9 = m->ncell * SCL_LBM_Q;
    float *f = malloc(n9 * sizeof *f);
    void *raw = malloc(n9 * store_size(m));
    unsigned char *flags = malloc((size_t)m->p.nx);
    scl_status s = SCL_OK;
    if (!f || !raw || !flags) {
        s = scl_fail(m->ctx, SCL_ERR_MEMORY, "scl_lbm_create", "out of host memory (%zu cells)",
                     m->ncell);
    } else {
        scl_lbm_ref_init(&m->lp, f);
        memset(flags, 0, (size_t)m->p.nx);
        if (m->accel_row >= 0)
            lbm_accelerate_row_at(&m->lp, m->accel_row, m->obstacles, f, flags);
        m->steps_done = 0;
        m->src = 0;
        lbm_encode(&m->lp, current_layout(m), m->opt.storage == SCL_LBM_FP16, f, raw);
        s = scl_stream_write(m->lattice[0], raw, 1, NULL);
        if (s == SCL_OK)
            s = scl_stream_write(m->flags, flags, 1, NULL);
    }
    free(f);
    free(raw);
    free(flags);
    return s;
}

/* Bind the arguments every step kernel shares (they never change). */
static scl_status bind_common(scl_lbm *m, scl_kernel *k)
{
    float wk[SCL_LBM_Q];
    lbm_storage_weights(m->p.density, wk);
    const float par[4] = {m->p.omega, m->p.density * m->p.accel / 9.0f,
                          m->p.density * m->p.accel / 36.0f, 0.0f};
    const float eqw[4] = {wk[0], wk[1], wk[5], 1.0f};
    scl_status s = scl_kernel_set_stream(k, "obstacles", m->obst);
    if (s == SCL_OK)
        s = scl_kernel_set_stream(k, "partials", m->partials);
    if (s == SCL_OK)
        s = scl_kernel_set_stream(k, "accel_flags", m->flags);
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "nx", m->p.nx);
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "ny", m->lp.ny);
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "y_first", m->halo);
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "y_end", m->halo + m->rows);
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "accel_row", m->accel_row);
    if (s == SCL_OK)
        s = scl_kernel_set_value(k, "par", SCL_FLOAT4, par);
    if (s == SCL_OK)
        s = scl_kernel_set_value(k, "eqw", SCL_FLOAT4, eqw);
    return s;
}

/* Enqueue the update of local rows [first, first+count) of one timestep with
 * work-group lx x ly, writing its partials at offset (one per work-group). */
static scl_status enqueue_rows(scl_lbm *m, int first, int count, int lx, int ly, unsigned offset)
{
    scl_kernel *k;
    scl_status s;
    if (m->opt.streaming == SCL_LBM_IN_PLACE) {
        k = m->steps_done % 2 ? m->odd : m->even;
        s = scl_kernel_set_stream(k, "lat", m->lattice[0]);
    } else {
        k = m->step;
        s = scl_kernel_set_stream(k, "src", m->lattice[m->src]);
        if (s == SCL_OK)
            s = scl_kernel_set_stream(k, "dst", m->lattice[!m->src]);
    }
    if (s == SCL_OK)
        s = scl_kernel_set_uint(k, "partial_offset", offset);
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "y_first", first);
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "y_end", first + count);
    if (s == SCL_OK)
        s = scl_kernel_set_local(k, "scratch", sizeof(float) * (size_t)lx * (size_t)ly);
    size_t global[2] = {(size_t)m->p.nx, (size_t)count}, local[2] = {(size_t)lx, (size_t)ly};
    if (s == SCL_OK)
        s = scl_kernel_launch(k, 2, global, local, NULL);
    return s;
}

/* Enqueue one whole timestep (every owned row) with work-group lx x ly. */
static scl_status enqueue_step(scl_lbm *m, int lx, int ly, unsigned offset)
{
    return enqueue_rows(m, m->halo, m->rows, lx, ly, offset);
}

/* The plan's legality check of a shape: powers of two (for the tree sum),
 * within the kernel's limits, partials fit, not far wider than the grid. */
static scl_status check_shape(void *user, const int *values, void **variant)
{
    scl_lbm *m = user;
    *variant = NULL;
    int lx = values[0], ly = values[1];
    if (lx < 1 || ly < 1 || (lx & (lx - 1)) || (ly & (ly - 1)))
        return scl_fail(m->ctx, SCL_ERR_UNSUPPORTED, "scl_lbm_create",
                        "work-group %dx%d: both sides must be powers of two", lx, ly);
    size_t gx = ((size_t)m->p.nx + (size_t)lx - 1) / (size_t)lx;
    size_t gy = ((size_t)m->rows + (size_t)ly - 1) / (size_t)ly;
    if (gx * gy > m->partial_capacity || lx > 2 * m->p.nx + 16 || ly > 2 * m->rows)
        return scl_fail(m->ctx, SCL_ERR_UNSUPPORTED, "scl_lbm_create",
                        "work-group %dx%d does not suit a %dx%d lattice", lx, ly, m->p.nx,
                        m->rows);
    scl_kernel *k = m->opt.streaming == SCL_LBM_IN_PLACE ? m->even : m->step;
    scl_status s = scl_kernel_set_local(k, "scratch", sizeof(float) * (size_t)lx * (size_t)ly);
    size_t local[2] = {(size_t)lx, (size_t)ly};
    return s == SCL_OK ? scl_kernel_check_local(k, 2, local) : s;
}

/* One step with shape values[] (tuning steps the lattice; it is re-uploaded after). */
static scl_status run_shape(void *user, void *variant, const int *values)
{
    (void)variant;
    scl_lbm *m = user;
    return enqueue_step(m, values[0], values[1], m->offset);
}

static scl_status choose_shape(scl_lbm *m, const char *force)
{
    /* lx along rows (coalesced), both powers of two for the tree sum */
    static const scl_tune_param params[2] = {
        {"lx", 6, {64, 32, 128, 256, 16, 512}},
        {"ly", 4, {4, 1, 2, 8}},
    };
    char shape[96];
    snprintf(shape, sizeof shape, "%dx%d %s %s", m->p.nx, m->rows,
             m->opt.storage == SCL_LBM_FP16 ? "fp16" : "fp32",
             m->opt.streaming == SCL_LBM_IN_PLACE ? "aa" : "two");
    static const scl_param_rule rules[2] = {
        {.min = 1, .max = 1024, .pow2 = 1, .why = "the work-group tree sum of cl/lbm.cl"},
        {.min = 1, .max = 1024, .pow2 = 1, .why = "the work-group tree sum of cl/lbm.cl"},
    };
    scl_plan_desc desc = {.name = kernel_label(m),
                          .shape = shape,
                          .params = params,
                          .nparams = 2,
                          .prepare = check_shape,
                          .run_variant = run_shape,
                          .user = m,
                          .rules = rules};
    scl_tune_options topt = {.no_tune = !m->opt.tune, .repeats = 3, .force = force};
    scl_status s = scl_plan_create(m->ctx, &desc, &topt, &m->plan);
    if (s == SCL_ERR_UNSUPPORTED) {
        char why[512];
        snprintf(why, sizeof why, "%s", scl_last_error(m->ctx));
        return scl_fail(m->ctx, SCL_ERR_UNSUPPORTED, "scl_lbm_create",
                        "no legal work-group for %s on %s: %s", kernel_label(m),
                        scl_device(m->ctx)->name, why);
    }
    if (s != SCL_OK)
        return s;
    m->lx = scl_plan_value(m->plan, "lx", 64);
    m->ly = scl_plan_value(m->plan, "ly", 4);
    m->groups_x = ((size_t)m->p.nx + (size_t)m->lx - 1) / (size_t)m->lx;
    m->groups_y = ((size_t)m->rows + (size_t)m->ly - 1) / (size_t)m->ly;
    size_t groups = m->groups_x * m->groups_y;
    size_t fit = m->partial_capacity / groups;
    m->batch = m->opt.batch > 0 ? m->opt.batch : DEFAULT_BATCH;
    if ((size_t)m->batch > fit)
        m->batch = (int)fit;
    return SCL_OK;
}

static scl_status check_fits(scl_lbm *m)
{
    const scl_device_info *dev = scl_device(m->ctx);
    double lattice = (double)m->ncell * SCL_LBM_Q * (double)store_size(m);
    double total = lattice * (m->opt.streaming == SCL_LBM_IN_PLACE ? 1 : 2) +
                   (double)m->ncell + 4.0 * PARTIALS_BUDGET;
    if (lattice > (double)dev->max_alloc || total > 0.9 * (double)dev->global_mem)
        return scl_fail(m->ctx, SCL_ERR_TOO_LARGE, "scl_lbm_create",
                        "a %dx%d lattice needs %.0f MiB per buffer and %.0f MiB in all; %s allows "
                        "%.0f MiB per buffer and has %.0f MiB",
                        m->p.nx, m->lp.ny, lattice / 1048576.0, total / 1048576.0, dev->name,
                        (double)dev->max_alloc / 1048576.0, (double)dev->global_mem / 1048576.0);
    return SCL_OK;
}

/* The options (not NULL) and the slab [y0, y0 + rows) of the lattice. */
static scl_status check_create(scl_context *ctx, const scl_lbm_params *p,
                               const unsigned char *obstacles, const scl_lbm_options *opt, int y0,
                               int rows, int halo, const char *fn)
{
    if ((unsigned)opt->storage > SCL_LBM_FP16 || (unsigned)opt->streaming > SCL_LBM_IN_PLACE ||
        opt->batch < 0)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "unknown storage %d, streaming %d or batch %d",
                        (int)opt->storage, (int)opt->streaming, opt->batch);
    if (halo && opt->streaming == SCL_LBM_IN_PLACE)
        /* the AA pattern's odd steps store into neighbours: a slab would need
         * the halo rows sent back as well; not done */
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, fn,
                        "in-place (AA) streaming is not supported on a row-split lattice");
    if (y0 < 0 || rows < 1 || y0 > p->ny - rows)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "rows [%d, %d) outside the %d rows of the "
                        "lattice", y0, y0 + rows, p->ny);
    if (scl_lbm_fluid_cells(p, obstacles) == 0)
        return scl_fail(ctx, SCL_ERR_INPUT, fn, "every cell is an obstacle");
    return SCL_OK;
}

/* The slab's obstacles with its halo rows, and its fluid cell count; -1
 * when out of memory. */
static int slab_obstacles(scl_lbm *m, const unsigned char *obstacles)
{
    const scl_lbm_params *p = &m->p;
    m->obstacles = malloc(m->ncell);
    if (!m->obstacles)
        return -1;
    /* the halo rows wrap round the lattice: the streaming is periodic in y */
    for (int ly = 0; ly < m->lp.ny; ly++) {
        int gy = ((m->y0 - m->halo + ly) % p->ny + p->ny) % p->ny;
        for (int x = 0; x < p->nx; x++)
            m->obstacles[(size_t)ly * (size_t)p->nx + (size_t)x] =
                obstacles[(size_t)gy * (size_t)p->nx + (size_t)x] != 0;
    }
    scl_lbm_params owned = *p;
    owned.ny = m->rows;
    m->fluid = scl_lbm_fluid_cells(&owned, m->obstacles + (size_t)m->halo * (size_t)p->nx);
    return 0;
}

/* The step kernels and the lattice streams, initialised and bound. */
static scl_status create_device(scl_lbm *m)
{
    scl_context *ctx = m->ctx;
    const scl_lbm_options *opt = &m->opt;
    char options[64];
    snprintf(options, sizeof options, "-DLBM_FP16=%d", opt->storage == SCL_LBM_FP16);
    scl_status s = scl_kernel_create(ctx, "lbm", "lbm_sum_partials", options, &m->sum);
    if (s == SCL_OK && opt->streaming == SCL_LBM_IN_PLACE) {
        s = scl_kernel_create(ctx, "lbm", "lbm_step_even", options, &m->even);
        if (s == SCL_OK)
            s = scl_kernel_create(ctx, "lbm", "lbm_step_odd", options, &m->odd);
        if (s == SCL_OK)
            scl_kernel_set_label(m->even, kernel_label(m)), scl_kernel_set_label(m->odd, kernel_label(m));
    } else if (s == SCL_OK) {
        s = scl_kernel_create(ctx, "lbm", "lbm_step", options, &m->step);
    }
    scl_type st = opt->storage == SCL_LBM_FP16 ? SCL_HALF : SCL_FLOAT;
    int nlat = opt->streaming == SCL_LBM_IN_PLACE ? 1 : 2;
    for (int i = 0; i < nlat && s == SCL_OK; i++)
        s = scl_stream_create(ctx, i ? "lbm lattice B" : "lbm lattice A", st, m->ncell, SCL_LBM_Q,
                              1, 0, &m->lattice[i]);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "lbm obstacles", SCL_UCHAR, m->ncell, 1, 1,
                              SCL_STREAM_READ_ONLY, &m->obst);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "lbm accel flags", SCL_UCHAR, (size_t)m->p.nx, 1, 1, 0,
                              &m->flags);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "lbm partials", SCL_FLOAT, m->partial_capacity, 1, 1, 0,
                              &m->partials);
    if (s == SCL_OK)
        s = scl_stream_write(m->obst, m->obstacles, 1, NULL);
    if (s == SCL_OK)
        s = upload_initial(m);
    for (int i = 0; i < 3 && s == SCL_OK; i++) {
        scl_kernel *k = i == 0 ? m->step : i == 1 ? m->even : m->odd;
        if (k)
            s = bind_common(m, k);
    }
    return s;
}

/* The tuned shape, then what its batch size and the halo exchange need. */
static scl_status create_plan_and_buffers(scl_lbm *m, const char *force, const char *fn)
{
    scl_context *ctx = m->ctx;
    scl_status s = choose_shape(m, force);
    if (s == SCL_OK) /* tuning stepped the lattice: start again */
        s = upload_initial(m);
    if (s == SCL_OK)
        s = scl_stream_create(ctx, "lbm av_vel sums",
                              scl_device(ctx)->fp64 ? SCL_DOUBLE : SCL_FLOAT2, (size_t)m->batch,
                              1, 1, 0, &m->sums);
    if (s == SCL_OK && !(m->sums_host = malloc((size_t)m->batch * sizeof(double))))
        s = scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    /* pinned host memory for the edges and halos: a copy from pageable memory
     * is staged by the driver, which may hold the host until the queue gets to it */
    if (s == SCL_OK && m->halo)
        s = scl_stream_create(ctx, "lbm halo staging", SCL_UCHAR, 4 * scl_lbm_halo_bytes(m), 1,
                              1, SCL_STREAM_HOST_MAPPED, &m->staging);
    if (s == SCL_OK && m->halo)
        s = scl_stream_map(m->staging, SCL_MAP_READ | SCL_MAP_WRITE, &m->staging_ptr);
    return s;
}

static scl_status create(scl_context *ctx, const scl_lbm_params *p,
                         const unsigned char *obstacles, const scl_lbm_options *opt, int y0,
                         int rows, int halo, const char *fn, scl_lbm **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !p || !obstacles || !out)
        return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "NULL argument");
    char why[512];
    scl_status s = scl_lbm_check_params(p, why, sizeof why);
    if (s != SCL_OK)
        return scl_fail(ctx, s, fn, "%s", why);
    scl_lbm_options dflt = {.storage = SCL_LBM_FP32, .streaming = SCL_LBM_TWO_LATTICES, .tune = 1};
    if (!opt)
        opt = &dflt;
    s = check_create(ctx, p, obstacles, opt, y0, rows, halo, fn);
    if (s != SCL_OK)
        return s;

    scl_lbm *m = calloc(1, sizeof *m);
    if (!m)
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    m->ctx = ctx;
    m->p = *p;
    m->y0 = y0;
    m->rows = rows;
    m->halo = halo;
    m->lp = *p;
    m->lp.ny = rows + 2 * halo;
    m->accel_row = p->ny - 2 >= y0 && p->ny - 2 < y0 + rows ? p->ny - 2 - y0 + halo : -1;
    m->opt = *opt;
    m->opt.force = NULL; /* used only while creating; the caller's string may not outlive us */
    m->ncell = (size_t)p->nx * (size_t)m->lp.ny;
    if (slab_obstacles(m, obstacles) != 0) {
        free(m);
        return scl_fail(ctx, SCL_ERR_MEMORY, fn, "out of host memory");
    }

    /* every candidate shape's group count must fit one step of partials */
    size_t min_groups_cap = (((size_t)p->nx + 15) / 16) * (size_t)rows;
    m->partial_capacity = min_groups_cap > PARTIALS_BUDGET ? min_groups_cap : PARTIALS_BUDGET;
    s = check_fits(m);
    if (s == SCL_OK)
        s = create_device(m);
    if (s == SCL_OK)
        s = create_plan_and_buffers(m, opt->force, fn);
    if (s != SCL_OK) {
        scl_lbm_free(m);
        return s;
    }
    *out = m;
    return SCL_OK;
}

scl_status scl_lbm_create(scl_context *ctx, const scl_lbm_params *p,
                          const unsigned char *obstacles, const scl_lbm_options *opt,
                          scl_lbm **out)
{
    return create(ctx, p, obstacles, opt, 0, p ? p->ny : 0, 0, "scl_lbm_create", out);
}

scl_status scl_lbm_create_rows(scl_context *ctx, const scl_lbm_params *p,
                               const unsigned char *obstacles, int y0, int rows,
                               const scl_lbm_options *opt, scl_lbm **out)
{
    return create(ctx, p, obstacles, opt, y0, rows, 1, "scl_lbm_create_rows", out);
}

/* Sum each step's partials on the device and finish av_vels on the host. */
static scl_status finish_batch(scl_lbm *m, int count, unsigned groups, float *av_vels,
                               double *sums)
{
    scl_context *ctx = m->ctx;
    scl_status s = scl_kernel_set_stream(m->sum, "partials", m->partials);
    if (s == SCL_OK)
        s = scl_kernel_set_uint(m->sum, "groups", groups);
    if (s == SCL_OK)
        s = scl_kernel_set_stream(m->sum, "sums", m->sums);
    if (s == SCL_OK)
        s = scl_kernel_set_local(m->sum, "scratch", 8 * SUM_GROUP);
    size_t global = (size_t)count * SUM_GROUP, local = SUM_GROUP;
    if (s == SCL_OK)
        s = scl_kernel_launch(m->sum, 1, &global, &local, NULL);
    if (s == SCL_OK)
        s = scl_stream_read_range(m->sums, 0, (size_t)count, m->sums_host, 1, NULL);
    if (s != SCL_OK || (!av_vels && !sums))
        return s;
    int pairs = !scl_device(ctx)->fp64;
    for (int i = 0; i < count; i++) {
        double total = m->sums_host[i];
        if (pairs) {
            const float *pair = (const float *)&m->sums_host[i];
            total = (double)pair[0] + (double)pair[1];
        }
        if (sums)
            sums[i] = total;
        else
            av_vels[i] = (float)(total / (double)m->fluid);
    }
    return SCL_OK;
}

static scl_status step(scl_lbm *m, long steps, float *av_vels, double *sums,
                       scl_lbm_exchange_fn exchange, void *user)
{
    unsigned groups = (unsigned)(m->groups_x * m->groups_y);
    for (long done = 0; done < steps;) {
        int count = steps - done < m->batch ? (int)(steps - done) : m->batch;
        for (int i = 0; i < count; i++) {
            m->offset = (unsigned)i * groups;
            scl_status s = exchange ? exchange(user, m) : SCL_OK;
            if (s == SCL_OK)
                s = scl_plan_execute(m->plan);
            if (s != SCL_OK)
                return s;
            m->steps_done++;
            m->src = !m->src;
        }
        scl_status s = finish_batch(m, count, groups, av_vels ? av_vels + done : NULL,
                                    sums ? sums + done : NULL);
        if (s != SCL_OK)
            return s;
        done += count;
    }
    return SCL_OK;
}

scl_status scl_lbm_step(scl_lbm *m, long steps, float *av_vels)
{
    if (!m)
        return SCL_ERR_ARGUMENT;
    if (steps < 0)
        return scl_fail(m->ctx, SCL_ERR_ARGUMENT, "scl_lbm_step", "negative step count %ld",
                        steps);
    if (m->halo)
        return scl_fail(m->ctx, SCL_ERR_ARGUMENT, "scl_lbm_step",
                        "a row-split solver steps with scl_lbm_step_rows (its halos need filling)");
    return step(m, steps, av_vels, NULL, NULL, NULL);
}

scl_status scl_lbm_step_rows(scl_lbm *m, long steps, double *sums, scl_lbm_exchange_fn exchange,
                             void *user)
{
    if (!m)
        return SCL_ERR_ARGUMENT;
    if (steps < 0 || (m->halo && !exchange))
        return scl_fail(m->ctx, SCL_ERR_ARGUMENT, "scl_lbm_step_rows",
                        "%s", steps < 0 ? "negative step count" : "NULL halo exchange");
    return step(m, steps, NULL, sums, exchange, user);
}

void scl_lbm_rows(const scl_lbm *m, int *y0, int *rows, long *fluid)
{
    if (y0)
        *y0 = m ? m->y0 : 0;
    if (rows)
        *rows = m ? m->rows : 0;
    if (fluid)
        *fluid = m ? m->fluid : 0;
}

size_t scl_lbm_halo_bytes(const scl_lbm *m)
{
    return m ? 3 * (size_t)m->p.nx * store_size(m) : 0;
}

void *scl_lbm_halo_staging(scl_lbm *m)
{
    return m ? m->staging_ptr : NULL;
}

/* Three directions of local row y, in raw storage, to or from host (3*nx
 * elements); a read with last set blocks (the in-order queue: for all before
 * it), unless ev is given: then nothing blocks and ev receives the event of
 * the third transfer (in order: done means all three done). */
static scl_status halo_transfer(scl_lbm *m, int write, int y, const int dirs[3], void *host,
                                int last, scl_event *ev)
{
    scl_stream *lat = m->lattice[m->src];
    size_t nx = (size_t)m->p.nx, es = store_size(m);
    scl_status s = SCL_OK;
    for (int j = 0; j < 3 && s == SCL_OK; j++) {
        size_t first = (size_t)dirs[j] * m->ncell + (size_t)y * nx;
        char *h = (char *)host + (size_t)j * nx * es;
        /* in-order queue: the last read blocks for all; writes complete before the next launch */
        scl_event *e = ev && j == 2 ? ev : NULL;
        s = write ? scl_stream_write_range(lat, first, nx, h, 0, e)
                  : scl_stream_read_range(lat, first, nx, h, last && j == 2 && !ev, e);
    }
    return s;
}

/* Directions that cross a row boundary: the pull of row y reads row y-1 for
 * N, NE, NW and row y+1 for S, SW, SE; nothing else of a neighbour's row. */
static const int up_dirs[3] = {2, 5, 6}, down_dirs[3] = {4, 7, 8};

scl_status scl_lbm_read_edges(scl_lbm *m, void *to_below, void *to_above)
{
    if (!m || !m->halo || !to_below || !to_above)
        return m ? scl_fail(m->ctx, SCL_ERR_ARGUMENT, "scl_lbm_read_edges",
                            "not a row-split solver, or NULL buffer")
                 : SCL_ERR_ARGUMENT;
    scl_status s = halo_transfer(m, 0, m->halo, down_dirs, to_below, 0, NULL);
    if (s == SCL_OK)
        s = halo_transfer(m, 0, m->halo + m->rows - 1, up_dirs, to_above, 1, NULL);
    return s;
}

scl_status scl_lbm_write_halos(scl_lbm *m, const void *from_below, const void *from_above)
{
    if (!m || !m->halo || !from_below || !from_above)
        return m ? scl_fail(m->ctx, SCL_ERR_ARGUMENT, "scl_lbm_write_halos",
                            "not a row-split solver, or NULL buffer")
                 : SCL_ERR_ARGUMENT;
    scl_status s = halo_transfer(m, 1, 0, up_dirs, (void *)from_below, 0, NULL);
    if (s == SCL_OK)
        s = halo_transfer(m, 1, m->halo + m->rows, down_dirs, (void *)from_above, 0, NULL);
    return s;
}

/* One overlapped step (see lbm.h). The neighbours' halos need only the
 * post-collision values of our first row (S, SW, SE) and last row (N, NE,
 * NW): the pull of their edge row reads exactly those from their halo. So the
 * two edge rows are updated first, their reads queued, then the interior;
 * the host waits for the reads alone (one in-order queue: the interior is
 * behind them and keeps running), swaps, and queues the halo writes into the
 * new state, behind the interior and before the next step's launches.
 * Partials: bottom edge at offset, top edge at +groups_x, interior after. */
static scl_status overlap_step(scl_lbm *m, unsigned offset, void *to_below, void *to_above,
                               const void *from_below, const void *from_above,
                               scl_lbm_exchange_fn swap, void *user)
{
    int first = m->halo, last = m->halo + m->rows - 1, gx = (int)m->groups_x;
    scl_event ev = NULL;
    /* edge rows with work-groups one row high: a ly-row group would idle ly-1 rows */
    scl_status s = enqueue_rows(m, first, 1, m->lx, 1, offset);
    if (s == SCL_OK && last != first)
        s = enqueue_rows(m, last, 1, m->lx, 1, offset + (unsigned)gx);
    /* the reads see the new state: dst of this step, src once swapped */
    m->src = !m->src;
    if (s == SCL_OK)
        s = halo_transfer(m, 0, first, down_dirs, to_below, 0, NULL);
    if (s == SCL_OK)
        s = halo_transfer(m, 0, last, up_dirs, to_above, 0, &ev);
    m->src = !m->src;
    if (s == SCL_OK && m->rows > 2)
        s = enqueue_rows(m, first + 1, m->rows - 2, m->lx, m->ly, offset + 2u * (unsigned)gx);
    if (s == SCL_OK) /* start the reads and the interior now, not at the next wait */
        s = scl_flush(m->ctx);
    if (s == SCL_OK)
        s = scl_event_wait(m->ctx, ev);
    if (ev)
        scl_event_release(ev);
    /* the swap even after a failure: the caller's neighbours wait for it */
    scl_status x = swap(user, m);
    if (s == SCL_OK)
        s = x;
    m->src = !m->src;
    m->steps_done++;
    if (s == SCL_OK)
        s = scl_lbm_write_halos(m, from_below, from_above);
    return s;
}

/* Partials one overlapped step writes: both edges' groups, then the interior's. */
static unsigned overlap_groups(const scl_lbm *m)
{
    size_t gx = m->groups_x, ly = (size_t)m->ly, inner = m->rows > 2 ? (size_t)m->rows - 2 : 0;
    return (unsigned)(gx * (m->rows > 1 ? 2 : 1) + gx * ((inner + ly - 1) / ly));
}

scl_status scl_lbm_step_rows_overlap(scl_lbm *m, long steps, double *sums, void *to_below,
                                     void *to_above, const void *from_below,
                                     const void *from_above, scl_lbm_exchange_fn swap,
                                     void *user)
{
    if (!m)
        return SCL_ERR_ARGUMENT;
    if (steps < 0 || !m->halo || !swap || !to_below || !to_above || !from_below || !from_above)
        return scl_fail(m->ctx, SCL_ERR_ARGUMENT, "scl_lbm_step_rows_overlap", "%s",
                        steps < 0 ? "negative step count"
                        : !m->halo ? "not a row-split solver"
                                   : "NULL swap function or buffer");
    unsigned groups = overlap_groups(m);
    long fit = (long)(m->partial_capacity / groups);
    if (fit < 1)
        return scl_fail(m->ctx, SCL_ERR_UNSUPPORTED, "scl_lbm_step_rows_overlap",
                        "one split step's %u work-group partials exceed the %zu reserved "
                        "(a narrower work-group than the plan's limits?)", groups,
                        m->partial_capacity);
    long per_batch = fit < m->batch ? fit : m->batch;
    for (long done = 0; done < steps;) {
        int count = (int)(steps - done < per_batch ? steps - done : per_batch);
        for (int i = 0; i < count; i++) {
            scl_status s = overlap_step(m, (unsigned)i * groups, to_below, to_above, from_below,
                                        from_above, swap, user);
            if (s != SCL_OK) {
                /* queued halo writes read the caller's buffers: let them finish */
                scl_finish(m->ctx);
                return s;
            }
        }
        scl_status s = finish_batch(m, count, groups, NULL, sums ? sums + done : NULL);
        if (s != SCL_OK)
            return s;
        done += count;
    }
    return SCL_OK;
}

scl_status scl_lbm_read_speeds(scl_lbm *m, float *f)
{
    if (!m || !f)
        return m ? scl_fail(m->ctx, SCL_ERR_ARGUMENT, "scl_lbm_read_speeds", "NULL output")
                 : SCL_ERR_ARGUMENT;
    void *raw = malloc(m->ncell * SCL_LBM_Q * store_size(m));
    unsigned char *flags = malloc((size_t)m->p.nx);
    /* a slab is decoded with its halo rows, then its owned rows handed out */
    float *nat = m->halo ? malloc(m->ncell * SCL_LBM_Q * sizeof *nat) : f;
    scl_status s = SCL_OK;
    if (!raw || !flags || !nat)
        s = scl_fail(m->ctx, SCL_ERR_MEMORY, "scl_lbm_read_speeds", "out of host memory");
    if (s == SCL_OK)
        s = scl_stream_read(state_stream(m), raw, 1, NULL);
    if (s == SCL_OK)
        s = scl_stream_read(m->flags, flags, 1, NULL);
    if (s == SCL_OK) {
        lbm_decode(&m->lp, current_layout(m), m->opt.storage == SCL_LBM_FP16, raw, nat);
        if (m->accel_row >= 0)
            lbm_undo_acceleration_at(&m->lp, m->accel_row, flags, nat);
        size_t owned = (size_t)m->p.nx * (size_t)m->rows;
        for (int k = 0; m->halo && k < SCL_LBM_Q; k++)
            memcpy(f + (size_t)k * owned, nat + (size_t)k * m->ncell + (size_t)m->p.nx,
                   owned * sizeof *f);
    }
    if (nat != f)
        free(nat);
    free(raw);
    free(flags);
    return s;
}

scl_status scl_lbm_read_fields(scl_lbm *m, float *ux, float *uy, float *speed, float *pressure)
{
    if (!m)
        return SCL_ERR_ARGUMENT;
    float *f = malloc(m->ncell * SCL_LBM_Q * sizeof *f);
    if (!f)
        return scl_fail(m->ctx, SCL_ERR_MEMORY, "scl_lbm_read_fields", "out of host memory");
    scl_status s = scl_lbm_read_speeds(m, f);
    scl_lbm_params owned = m->p;
    owned.ny = m->rows;
    if (s == SCL_OK)
        scl_lbm_fields(&owned, m->obstacles + (size_t)m->halo * (size_t)m->p.nx, f, ux, uy, speed,
                       pressure);
    free(f);
    return s;
}
