/* The OpenCL driver: the tables of setup.c on the device, a tuned work-group
 * shape and update scheme, sources and receivers as small kernels in the
 * same queue.
 *
 * Two schemes (three kernels), each tuned per device and shape over the
 * work-group and the z walk kz; the fastest runs:
 *   separate  velocity then stress kernel over the whole grid, in place
 *             (one buffer set; 120 B per cell update in fp32): the cells
 *             outside the CPML slabs and surface rows by the interior
 *             kernels (one cell per work-item, no boundary code: a quarter
 *             of the general kernels' registers), the boxes around them by
 *             the general ones
 *   fused     the interior box (no CPML, no surface rows, no force source)
 *             in one kernel from buffer set p into set 1-p (84 B per cell),
 *             the boundary boxes around it by the two kernels between the
 *             same sets; p flips every step. Needs a second buffer set.
 *             fused = 1: neighbours' new velocities recomputed by each
 *             work-item (seis_fused); 2: shared in local memory
 *             (seis_fused_lds; its stress loads issued before the
 *             velocity phase or after the barrier: early = 1 / 0).
 * The separate scheme's CPML (plan value cpml): 0 the general kernels over
 * the boxes around the interior; 1 the shell: the interior kernels over
 * every cell below the surface rows, then after each of them one 1D
 * launch over exactly the CPML slab cells that adds the CPML terms
 * (seis_velocity_shell / seis_stress_shell); the surface rows (free
 * surface: images, one-sided stencils) stay with the general kernels. */
#include "core/internal.h"
#include "core/upload.h"
#include "seismic/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { M_RHO, M_LAM, M_MU, M_COUNT };

/* A slab's device-time accounting (the queues always profile): the events of the
 * launches and copies queued, each with its category (SCL_SEIS_T_*),
 * resolved once the queue has passed them. */
#define SEIS_PEND 1024
typedef struct {
    int cat;   /* category of what is being queued; -1: not counted */
    int n;     /* events held */
    int mark;  /* events queued before the send planes' reads */
    scl_event ev[SEIS_PEND];
    int evcat[SEIS_PEND];
} seis_acct;

/* A slab's halo transport while scl_seis_step_slab runs. */
typedef struct {
    scl_seis_transport_fn fn;
    void *user;
} seis_transport;

struct scl_seis {
    scl_context *ctx;
    seis_setup s;
    int fp64;
    size_t real_size;
    scl_stream *f[2][F_COUNT], *mat[M_COUNT], *prof[3], *psi[3];
    scl_stream *inj_field, *inj_index, *inj_source, *inj_coeff, *wavelet;
    scl_stream *rec_index, *traces;
    /* kernels per binding: 0 in place on set 0, 1 set 0 -> 1, 2 set 1 -> 0 */
    scl_kernel *vel[3], *str[3], *fused[3], *lds[3], *lds_late[3], *inj_s[3], *rec[3], *inj_v;
    scl_kernel *vel_in, *str_in; /* interior kernels, in place on set 0 */
    scl_kernel *vsh, *ssh;       /* cpml=1: the shell kernels (made on first use) */
    int shell_top[6], shell_in[6]; /* cpml=1: the surface rows' box, the box below them */
    int shell_total;             /* cpml=1: the shell's work-items (slab cells below zs) */
    char options[96], late_options[128];
    int ninj_v, ninj_s;
    int can_fuse;         /* an interior box exists and no force source */
    int inner[6];         /* interior box x0 y0 z0 x1 y1 z1 */
    int outer[6][6];      /* boundary boxes around it */
    int nouter;
    int sep_inner[6];     /* the separate scheme's interior box (no slab, no surface row) */
    int sep_outer[6][6];  /* and the boxes around it */
    int cur;              /* buffer set holding the state */
    scl_plan *plan;
    double scheme_s[4];   /* tuned step seconds per scheme, 3 the CPML shell (0: not timed) */
    int tuning;       /* 1 while the tuner times steps: no sources, no receivers */
    int launch_planes; /* z planes per update launch at most (32-bit indices within one) */
    int base64;        /* kernels built to address each launch from a 64-bit base (zb) */
    long done;
    /* a slab (s.cut >= 0): the halo kernels (the velocities; the three
     * stresses differentiated along the cut, the only ones read across it),
     * the device buffer of the planes (send low, high, receive low, high)
     * and its pinned host copy; neighbours below and above */
    scl_kernel *halo[2];
    scl_stream *hbuf, *pinned;
    char *pinned_ptr;
    char *stage[2];     /* the send planes' host memory per face (NULL: pinned) */
    size_t plane_elems; /* one field's R planes */
    int has_lo, has_hi, reach;
    seis_transport tx;
    int overlap;
    size_t one_plane;   /* elements of one field's plane */
    scl_seis_slab_stats stats;
    seis_acct *acct;    /* while slab steps run */
};

static double seis_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Where a counted launch's event goes (NULL: not counted). */
static scl_event *acct_slot(const scl_seis *sv)
{
    seis_acct *a = sv->acct;
    if (!a || a->cat < 0 || a->n >= SEIS_PEND)
        return NULL;
    a->ev[a->n] = NULL;
    a->evcat[a->n] = a->cat;
    return &a->ev[a->n];
}

/* The slot's event was made: keep it. */
static void acct_commit(const scl_seis *sv, scl_event *e)
{
    if (e && *e)
        sv->acct->n++;
}

/* The device seconds of the first `upto` events (complete) added, those
 * events released and the rest moved to the front. */
static void acct_resolve(scl_seis *sv, int upto)
{
    seis_acct *a = sv->acct;
    if (!a)
        return;
    upto = upto < a->n ? upto : a->n;
    for (int q = 0; q < upto; q++) {
        double t = 0;
        if (scl_event_seconds(sv->ctx, a->ev[q], &t) == SCL_OK)
            sv->stats.device[a->evcat[q]] += t;
        scl_event_release(a->ev[q]);
    }
    memmove(a->ev, a->ev + upto, (size_t)(a->n - upto) * sizeof *a->ev);
    memmove(a->evcat, a->evcat + upto, (size_t)(a->n - upto) * sizeof *a->evcat);
    a->n -= upto;
    a->mark = 0;
}

static void acct_category(const scl_seis *sv, int cat)
{
    if (sv->acct)
        sv->acct->cat = cat;
}

/* An event of category cat the caller made: kept for its device time, or
 * released. */
static void acct_keep(const scl_seis *sv, int cat, scl_event ev)
{
    if (!ev)
        return;
    seis_acct *a = sv->acct;
    if (!a || a->n >= SEIS_PEND) {
        scl_event_release(ev);
        return;
    }
    a->ev[a->n] = ev;
    a->evcat[a->n++] = cat;
}

static const char *field_label[F_COUNT] = {"seis vx",  "seis vy",  "seis vz",
                                           "seis sxx", "seis syy", "seis szz",
                                           "seis sxy", "seis sxz", "seis syz"};
static const char *field_arg[F_COUNT] = {"vx", "vy", "vz", "sxx", "syy", "szz", "sxy", "sxz", "syz"};

static scl_status zero_stream(scl_seis *sv, const char *label, size_t n, scl_stream **out)
{
    const scl_type t = sv->fp64 ? SCL_DOUBLE : SCL_FLOAT;
    scl_status st = scl_stream_create(sv->ctx, label, t, n ? n : 1, 1, 1, 0, out);
    if (st != SCL_OK)
        return st;
    const double zd = 0;
    const float zf = 0;
    return scl_stream_fill(*out, sv->fp64 ? (const void *)&zd : (const void *)&zf);
}

/* Arguments shared by the velocity and stress kernels. */
static scl_status bind_update(scl_seis *sv, scl_kernel *k)
{
    const seis_setup *s = &sv->s;
    static const char *prof_arg[3] = {"profx", "profy", "profz"};
    static const char *psi_arg[3] = {"psix", "psiy", "psiz"};
    scl_status st = SCL_OK;
    for (int d = 0; d < 3 && st == SCL_OK; d++) {
        st = scl_kernel_set_stream(k, prof_arg[d], sv->prof[d]);
        if (st == SCL_OK)
            st = scl_kernel_set_stream(k, psi_arg[d], sv->psi[d]);
    }
    if (st == SCL_OK) st = scl_kernel_set_int(k, "nx", s->g.nx);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "ny", s->g.ny);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "nz", s->g.nz);
    static const char *off_arg[3] = {"gx0", "gy0", "gz0"}, *gn_arg[3] = {"gnx", "gny", "gnz"};
    for (int d = 0; d < 3 && st == SCL_OK; d++) {
        st = scl_kernel_set_int(k, off_arg[d], s->off[d]);
        if (st == SCL_OK)
            st = scl_kernel_set_int(k, gn_arg[d], s->gn[d]);
    }
    if (st == SCL_OK) st = scl_kernel_set_int(k, "sy", (int)s->g.sy);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "sz", (int)s->g.sz);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "origin", (int)s->g.origin);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "pml", s->pml);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "free_surface", s->free_surface);
    if (st == SCL_OK) st = scl_kernel_set_real(k, "c1", s->c1);
    if (st == SCL_OK) st = scl_kernel_set_real(k, "c2", s->c2);
    if (st == SCL_OK) st = scl_kernel_set_real(k, "dt", s->dt);
    return st;
}

static const char *out_arg[F_COUNT] = {"ox", "oy", "oz", "qxx", "qyy", "qzz", "qxy", "qxz", "qyz"};

/* Buffer sets of a binding: 0 in place on set 0, 1 set 0 -> 1, 2 set 1 -> 0. */
static int set_in(int var) { return var == 2 ? 1 : 0; }
static int set_out(int var) { return var == 1 ? 1 : 0; }

/* Injection kernel: fields of the output set; [first, end) of the table. */
static scl_status make_inject(scl_seis *sv, int var, int first, int end, scl_kernel **out)
{
    scl_status st = scl_kernel_create(sv->ctx, "seismic", "seis_inject", sv->options, out);
    scl_kernel *k = *out;
    for (int f = 0; f < F_COUNT && st == SCL_OK; f++)
        st = scl_kernel_set_stream(k, field_arg[f], sv->f[set_out(var)][f]);
    if (st == SCL_OK) st = scl_kernel_set_stream(k, "field", sv->inj_field);
    if (st == SCL_OK) st = scl_kernel_set_stream(k, "index", sv->inj_index);
    if (st == SCL_OK) st = scl_kernel_set_stream(k, "source", sv->inj_source);
    if (st == SCL_OK) st = scl_kernel_set_stream(k, "coeff", sv->inj_coeff);
    if (st == SCL_OK) st = scl_kernel_set_stream(k, "wavelet", sv->wavelet);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "first", first);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "end", end);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "nsamples", (int)(sv->s.steps + 1));
    return st;
}

/* The interior kernels (in place on set 0). */
static scl_status make_interior(scl_seis *sv)
{
    const seis_setup *s = &sv->s;
    scl_stream *const *f = sv->f[0];
    scl_status st = scl_kernel_create(sv->ctx, "seismic", "seis_velocity_in", sv->options, &sv->vel_in);
    if (st == SCL_OK)
        st = scl_kernel_create(sv->ctx, "seismic", "seis_stress_in", sv->options, &sv->str_in);
    scl_kernel *ks[2] = {sv->vel_in, sv->str_in};
    for (int q = 0; q < 2 && st == SCL_OK; q++) {
        scl_kernel *k = ks[q];
        for (int a = 0; a < F_COUNT && st == SCL_OK; a++) {
            st = scl_kernel_set_stream(k, field_arg[a], f[a]);
            /* velocity writes vx..vz, stress sxx..syz */
            if (st == SCL_OK && (a < 3) == (q == 0))
                st = scl_kernel_set_stream(k, out_arg[a], f[a]);
        }
        if (st == SCL_OK && q == 0) st = scl_kernel_set_stream(k, "rho", sv->mat[M_RHO]);
        if (st == SCL_OK && q == 1) st = scl_kernel_set_stream(k, "lam", sv->mat[M_LAM]);
        if (st == SCL_OK && q == 1) st = scl_kernel_set_stream(k, "mu", sv->mat[M_MU]);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "sy", (int)s->g.sy);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "sz", (int)s->g.sz);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "origin", (int)s->g.origin);
        if (st == SCL_OK) st = scl_kernel_set_real(k, "c1", s->c1);
        if (st == SCL_OK) st = scl_kernel_set_real(k, "c2", s->c2);
        if (st == SCL_OK) st = scl_kernel_set_real(k, "dt", s->dt);
    }
    return st;
}

/* A fused kernel of binding var (1 or 2), built with options. */
static scl_status make_fused(scl_seis *sv, int var, const char *name, const char *options,
                             scl_kernel **pk)
{
    const seis_setup *s = &sv->s;
    scl_stream *const *in = sv->f[set_in(var)], *const *out = sv->f[set_out(var)];
    scl_status st = scl_kernel_create(sv->ctx, "seismic", name, options, pk);
    scl_kernel *u = *pk;
    for (int f = 0; f < F_COUNT && st == SCL_OK; f++) {
        st = scl_kernel_set_stream(u, field_arg[f], in[f]);
        if (st == SCL_OK)
            st = scl_kernel_set_stream(u, out_arg[f], out[f]);
    }
    if (st == SCL_OK) st = scl_kernel_set_stream(u, "rho", sv->mat[M_RHO]);
    if (st == SCL_OK) st = scl_kernel_set_stream(u, "lam", sv->mat[M_LAM]);
    if (st == SCL_OK) st = scl_kernel_set_stream(u, "mu", sv->mat[M_MU]);
    if (st == SCL_OK) st = scl_kernel_set_int(u, "sy", (int)s->g.sy);
    if (st == SCL_OK) st = scl_kernel_set_int(u, "sz", (int)s->g.sz);
    if (st == SCL_OK) st = scl_kernel_set_int(u, "origin", (int)s->g.origin);
    if (st == SCL_OK) st = scl_kernel_set_real(u, "c1", s->c1);
    if (st == SCL_OK) st = scl_kernel_set_real(u, "c2", s->c2);
    if (st == SCL_OK) st = scl_kernel_set_real(u, "dt", s->dt);
    return st;
}

/* Every kernel of one binding. */
static scl_status make_binding(scl_seis *sv, int var)
{
    scl_context *ctx = sv->ctx;
    const seis_setup *s = &sv->s;
    scl_stream *const *in = sv->f[set_in(var)], *const *out = sv->f[set_out(var)];
    scl_status st = scl_kernel_create(ctx, "seismic", "seis_velocity", sv->options, &sv->vel[var]);
    scl_kernel *v = sv->vel[var];
    if (st == SCL_OK) st = bind_update(sv, v);
    for (int f = 0; f < F_COUNT && st == SCL_OK; f++) {
        st = scl_kernel_set_stream(v, field_arg[f], in[f]);
        if (st == SCL_OK && f < 3)
            st = scl_kernel_set_stream(v, out_arg[f], out[f]);
    }
    if (st == SCL_OK) st = scl_kernel_set_stream(v, "rho", sv->mat[M_RHO]);
    if (st == SCL_OK) st = scl_kernel_create(ctx, "seismic", "seis_stress", sv->options, &sv->str[var]);
    scl_kernel *t = sv->str[var];
    if (st == SCL_OK) st = bind_update(sv, t);
    for (int f = 0; f < F_COUNT && st == SCL_OK; f++) {
        /* the stress kernel reads the new velocities */
        st = scl_kernel_set_stream(t, field_arg[f], f < 3 ? out[f] : in[f]);
        if (st == SCL_OK && f >= 3)
            st = scl_kernel_set_stream(t, out_arg[f], out[f]);
    }
    if (st == SCL_OK) st = scl_kernel_set_stream(t, "lam", sv->mat[M_LAM]);
    if (st == SCL_OK) st = scl_kernel_set_stream(t, "mu", sv->mat[M_MU]);
    if (st == SCL_OK && var > 0)
        st = make_fused(sv, var, "seis_fused", sv->options, &sv->fused[var]);
    if (st == SCL_OK && var > 0)
        st = make_fused(sv, var, "seis_fused_lds", sv->options, &sv->lds[var]);
    /* the stress injections follow the velocity ones in the table */
    if (st == SCL_OK) st = make_inject(sv, var, sv->ninj_v, sv->ninj_v + sv->ninj_s, &sv->inj_s[var]);
    if (st == SCL_OK && var == 0) st = make_inject(sv, 0, 0, sv->ninj_v, &sv->inj_v);
    if (st == SCL_OK) st = scl_kernel_create(ctx, "seismic", "seis_record", sv->options, &sv->rec[var]);
    for (int f = 0; f < 6 && st == SCL_OK; f++)
        st = scl_kernel_set_stream(sv->rec[var], field_arg[f], out[f]);
    if (st == SCL_OK) st = scl_kernel_set_stream(sv->rec[var], "index", sv->rec_index);
    if (st == SCL_OK) st = scl_kernel_set_stream(sv->rec[var], "traces", sv->traces);
    if (st == SCL_OK) st = scl_kernel_set_int(sv->rec[var], "nrec", s->nrec);
    if (st == SCL_OK) st = scl_kernel_set_int(sv->rec[var], "steps", (int)s->steps);
    return st;
}

/* Launch k over box b[6] (x0 y0 z0 x1 y1 z1) with work-group lx by ly,
 * kz planes per work-item (values: lx, ly, kz). The launch's x starts at
 * xs <= x0 such that cell xs sits on an aligned element: with rows padded
 * to SEIS_ALIGN elements, every work-group's row then starts on a cache
 * line (work-items left of x0 return at once). walk 0: a kernel of one
 * cell per work-item (no kz). The box's z range goes in launches of at
 * most launch_planes planes, fewer if the plan's `planes` (values[5]) says
 * so (whole walks where they fit), each addressing
 * the fields from its first plane zb, so that a grid above 2^31 points
 * keeps 32-bit indices within a launch; every cell is updated by the same
 * operations whatever the split. */
static scl_status launch_box(const scl_seis *sv, scl_kernel *k, const int *b, const int *values,
                             int walk)
{
    if (b[3] <= b[0] || b[4] <= b[1] || b[5] <= b[2])
        return SCL_OK;
    static const char *names[4] = {"x0", "y0", "x1", "y1"};
    const int at[4] = {b[0], b[1], b[3], b[4]};
    scl_status st = SCL_OK;
    for (int q = 0; q < 4 && st == SCL_OK; q++)
        st = scl_kernel_set_int(k, names[q], at[q]);
    const int xs = b[0] - (int)((sv->s.g.origin + b[0]) % SEIS_ALIGN), kz = walk ? values[2] : 1;
    if (st == SCL_OK) st = scl_kernel_set_int(k, "xs", xs);
    if (st == SCL_OK && walk) st = scl_kernel_set_int(k, "kz", kz);
    const int most = values[5] > 0 && values[5] < sv->launch_planes ? values[5] : sv->launch_planes;
    const int chunk = most >= kz ? most / kz * kz : most;
    const size_t local[3] = {(size_t)values[0], (size_t)values[1], 1};
    for (int z0 = b[2]; z0 < b[5] && st == SCL_OK; z0 += chunk) {
        const int z1 = b[5] - z0 > chunk ? z0 + chunk : b[5];
        st = scl_kernel_set_int(k, "z0", z0);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "z1", z1);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "zb", sv->base64 ? z0 : 0);
        const size_t global[3] = {(size_t)(b[3] - xs), (size_t)(b[4] - b[1]),
                                  (size_t)((z1 - z0 + kz - 1) / kz)};
        scl_event *e = acct_slot(sv);
        if (st == SCL_OK)
            st = scl_kernel_launch(k, 3, global, local, e);
        if (st == SCL_OK)
            acct_commit(sv, e);
    }
    return st;
}

static scl_status launch_small(scl_kernel *k, int count, int n)
{
    if (count == 0)
        return SCL_OK;
    const size_t g1 = (size_t)count;
    scl_status st = scl_kernel_set_int(k, "n", n);
    return st == SCL_OK ? scl_kernel_launch(k, 1, &g1, NULL, NULL) : st;
}

/* The separate scheme's update of one phase (0 velocities, 1 stresses)
 * over the planes [a0, a1) of a slab's cut axis (a1 < 0: every cell): the
 * interior kernel over its box, the general one over the boxes around,
 * each clipped to the planes. */
static scl_status update_planes(const scl_seis *sv, int phase, int a0, int a1, const int *values)
{
    const int cut = sv->s.cut;
    int b[6];
    scl_status st = SCL_OK;
    for (int q = -1; q < 6 && st == SCL_OK; q++) {
        memcpy(b, q < 0 ? sv->sep_inner : sv->sep_outer[q], sizeof b);
        if (cut >= 0 && a1 >= 0) {
            b[cut] = b[cut] > a0 ? b[cut] : a0;
            b[3 + cut] = b[3 + cut] < a1 ? b[3 + cut] : a1;
        }
        scl_kernel *k = q < 0 ? (phase ? sv->str_in : sv->vel_in) : phase ? sv->str[0] : sv->vel[0];
        st = launch_box(sv, k, b, values, q >= 0);
    }
    return st;
}

/* Planes of field f (0..2 of the group's three) that a neighbour's stencil
 * reads across the cut: below the low face (*lo) and above the high face
 * (*hi). A backward difference along the cut (DM in cl/seismic.cl: the
 * velocity along the cut axis, the stresses off the diagonal) reads R
 * planes below a cell and R - 1 above it, a forward one (DP: the other
 * velocities, the diagonal stress) R - 1 below and R above; the three
 * stresses of a group come in the order of trio (make_halo), the diagonal
 * one at the cut axis' index, as the velocities. */
static void halo_need(const scl_seis *sv, int group, int f, int *lo, int *hi)
{
    const int R = sv->reach, dm = group == 0 ? f == sv->s.cut : f != sv->s.cut;
    *lo = dm ? R : R - 1;
    *hi = dm ? R - 1 : R;
}

/* Field planes of group in the message going down (dir 0: the lower
 * neighbour's high halo) or up (1: the upper one's low halo). */
static int halo_count(const scl_seis *sv, int group, int dir)
{
    int total = 0, lo, hi;
    for (int f = 0; f < 3; f++) {
        halo_need(sv, group, f, &lo, &hi);
        total += dir ? lo : hi;
    }
    return total;
}

/* Pack (unpack 0) group's (0 velocities, 1 stresses) planes at face (0
 * low, 1 high) that the neighbour reads into the send region, or unpack
 * (1) the receive region into the halo planes beyond that face. */
static scl_status halo_planes(scl_seis *sv, int group, int face, int unpack, scl_event *ev)
{
    *ev = NULL;
    const seis_layout *g = &sv->s.g;
    const int a = sv->s.cut, b = a == 0 ? 1 : 0, d = a == 2 ? 1 : 2;
    const long stride[3] = {1, g->sy, g->sz}, ext[3] = {g->px, g->py, g->pz};
    const int n = a == 0 ? g->nx : a == 1 ? g->ny : g->nz;
    int cnt[3], first[3], total = 0, lo, hi;
    for (int f = 0; f < 3; f++) {
        halo_need(sv, group, f, &lo, &hi);
        cnt[f] = face ? (unpack ? hi : lo) : (unpack ? lo : hi);
        first[f] = face ? (unpack ? n : n - lo) : (unpack ? -lo : 0);
        total += cnt[f];
    }
    if (total == 0)
        return SCL_OK;
    const size_t at = (size_t)(2 * unpack + face) * 3 * sv->plane_elems; /* regions of 3 fields */
    scl_kernel *k = sv->halo[group];
    static const char *pn[3] = {"p0", "p1", "p2"};
    scl_status st = scl_kernel_set_long(k, "start", SCL_SEIS_HALO * stride[a]);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "at", (int)at);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "unpack", unpack);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "n0", cnt[0]);
    if (st == SCL_OK) st = scl_kernel_set_int(k, "n1", cnt[1]);
    for (int f = 0; f < 3 && st == SCL_OK; f++)
        st = scl_kernel_set_int(k, pn[f], first[f]);
    const size_t global[3] = {((size_t)ext[b] + 31) / 32 * 32, (size_t)ext[d], (size_t)total};
    const size_t local[3] = {32, 1, 1};
    return st == SCL_OK ? scl_kernel_launch(k, 3, global, local, ev) : st;
}

/* The host memory of face d's send planes: the caller's staging, or the
 * pinned send region. */
static char *send_area(const scl_seis *sv, int d)
{
    return sv->stage[d] ? sv->stage[d] : sv->pinned_ptr + (size_t)d * 3 * sv->plane_elems * sv->real_size;
}

/* Pack group's planes at the faces with a neighbour and queue their reads
 * into the send areas on the copy queue, each after its pack (ev: the
 * reads' events): the copies run beside the interior's kernels. */
static scl_status post_halo(scl_seis *sv, int group, scl_event ev[2])
{
    ev[0] = ev[1] = NULL;
    scl_status st = SCL_OK;
    const int has[2] = {sv->has_lo, sv->has_hi};
    scl_event pack[2] = {NULL, NULL};
    for (int d = 0; d < 2 && st == SCL_OK; d++)
        if (has[d])
            st = halo_planes(sv, group, d, 0, &pack[d]);
    if (st == SCL_OK && (has[0] || has[1]))
        st = scl_flush(sv->ctx); /* the packs start now: the reads wait for them */
    for (int d = 0; d < 2 && st == SCL_OK; d++)
        if (has[d])
            st = scl_copy_read(sv->hbuf, (size_t)d * 3 * sv->plane_elems,
                               (size_t)halo_count(sv, group, d) * sv->one_plane, send_area(sv, d),
                               pack[d], &ev[d]);
    for (int d = 0; d < 2; d++)
        acct_keep(sv, SCL_SEIS_T_PACK, pack[d]);
    if (sv->acct)
        sv->acct->mark = sv->acct->n;
    return st;
}

/* The received planes written to the device on the copy queue (from
 * below: region 2, from above: region 3), the main queue's later work
 * after them, and unpacked. */
static scl_status take_halo(scl_seis *sv, int group, void *const recv[2])
{
    const int has[2] = {sv->has_lo, sv->has_hi};
    scl_status st = SCL_OK;
    for (int d = 0; d < 2 && st == SCL_OK; d++) {
        if (!has[d])
            continue;
        scl_event w = NULL, u = NULL;
        /* from below: what it sent up; from above: what it sent down */
        st = scl_copy_write(sv->hbuf, (size_t)(2 + d) * 3 * sv->plane_elems,
                            (size_t)halo_count(sv, group, !d) * sv->one_plane, recv[d], NULL, &w);
        if (st == SCL_OK)
            st = scl_queue_after(sv->ctx, w);
        acct_keep(sv, SCL_SEIS_T_WRITE, w);
        if (st == SCL_OK)
            st = halo_planes(sv, group, d, 1, &u);
        acct_keep(sv, SCL_SEIS_T_UNPACK, u);
    }
    return st;
}

/* Wait for the send planes (the queued updates run meanwhile), let the
 * caller's transport swap them, queue the received planes' unpacking. */
static scl_status swap_halo(scl_seis *sv, int group, scl_event ev[2])
{
    const double t0 = seis_now();
    scl_status st = scl_flush(sv->ctx);
    for (int d = 0; d < 2; d++)
        if (ev[d]) {
            if (st == SCL_OK)
                st = scl_event_wait(sv->ctx, ev[d]);
            double t = 0;
            if (st == SCL_OK && sv->acct && scl_event_seconds(sv->ctx, ev[d], &t) == SCL_OK)
                sv->stats.device[SCL_SEIS_T_READ] += t;
            scl_event_release(ev[d]);
        }
    const double t1 = seis_now();
    if (st == SCL_OK && sv->acct) /* what was queued before the reads has run */
        acct_resolve(sv, sv->acct->mark);
    const size_t cap = 3 * sv->plane_elems * sv->real_size; /* a region: 3 fields' planes */
    const size_t bytes[2] = {(size_t)halo_count(sv, group, 0) * sv->one_plane * sv->real_size,
                             (size_t)halo_count(sv, group, 1) * sv->one_plane * sv->real_size};
    void *const send[2] = {send_area(sv, 0), send_area(sv, 1)};
    void *const recv[2] = {sv->pinned_ptr + 2 * cap, sv->pinned_ptr + 3 * cap};
    const double t2 = seis_now();
    scl_status t = sv->tx.fn(sv->tx.user, group, send, recv, bytes); /* always: the neighbours wait */
    sv->stats.wait += t1 - t0;
    sv->stats.transport += seis_now() - t2;
    sv->stats.bytes += (double)(sv->has_lo ? bytes[0] : 0) + (double)(sv->has_hi ? bytes[1] : 0);
    st = st == SCL_OK ? t : st;
    return st == SCL_OK ? take_halo(sv, group, recv) : st;
}

/* One phase of a slab's step: group's halo (the other phase's fields)
 * swapped, then this phase's update; overlapped: the planes that read no
 * halo are updated while the swap runs, the R planes at each face after. */
static scl_status phase_slab(scl_seis *sv, int phase, const int *values)
{
    const seis_layout *g = &sv->s.g;
    const int cut = sv->s.cut, R = sv->reach, N = cut == 0 ? g->nx : cut == 1 ? g->ny : g->nz;
    const int group = !phase; /* velocities need stresses, stresses velocities */
    scl_event ev[2] = {NULL, NULL};
    scl_status st = post_halo(sv, group, ev);
    acct_category(sv, SCL_SEIS_T_INTERIOR);
    if (st == SCL_OK && sv->overlap)
        st = update_planes(sv, phase, R, N - R, values);
    if (st == SCL_OK)
        st = swap_halo(sv, group, ev);
    else /* failed: the caller keeps the neighbours' swaps company */
        for (int d = 0; d < 2; d++)
            if (ev[d])
                scl_event_release(ev[d]);
    if (st != SCL_OK)
        return st;
    acct_category(sv, sv->overlap ? SCL_SEIS_T_EDGE : SCL_SEIS_T_INTERIOR);
    if (!sv->overlap)
        st = update_planes(sv, phase, 0, N, values);
    else
        st = update_planes(sv, phase, 0, R < N ? R : N, values);
    if (st == SCL_OK && sv->overlap)
        st = update_planes(sv, phase, R > N - R ? R : N - R, N, values);
    acct_category(sv, -1); /* sources and receivers: not counted */
    return st;
}

/* A slab's step (separate scheme): the stress planes travel first, then
 * the velocities after their update and sources. */
static scl_status step_slab(scl_seis *sv, const int *values)
{
    scl_status st = phase_slab(sv, 0, values);
    if (st == SCL_OK)
        st = launch_small(sv->inj_v, sv->ninj_v, (int)sv->done);
    return st == SCL_OK ? phase_slab(sv, 1, values) : st;
}

#define SHELL_LOCAL 128 /* the shell kernels' work-group (1D) */

/* cpml=1: the shell kernels, in place on set 0. The shell's cells: z from
 * zs (below the surface rows), the low z slab [zs, kl), the planes [kl, kh)
 * with the x and y slabs only, the high z slab [kh, nz). */
static scl_status make_shell(scl_seis *sv)
{
    const seis_setup *s = &sv->s;
    const int nx = s->g.nx, ny = s->g.ny, nz = s->g.nz, pml = s->pml;
    const int zs = s->free_surface ? (nz < 3 ? nz : 3) : 0;
    const int kl = s->free_surface ? zs : pml < nz ? pml : nz;
    const int kh = nz - pml > kl ? nz - pml : kl;
    const int top[6] = {0, 0, 0, nx, ny, zs}, in[6] = {0, 0, zs, nx, ny, nz};
    memcpy(sv->shell_top, top, sizeof top);
    memcpy(sv->shell_in, in, sizeof in);
    const long total = (long)(kl - zs + nz - kh) * nx * ny + (long)(kh - kl) * 2 * pml * (nx + ny - 2 * pml);
    if (total > 2147483647L - SHELL_LOCAL) /* the kernels count work-items in 32 bits */
        return scl_fail(sv->ctx, SCL_ERR_TOO_LARGE, "scl_seis_create",
                        "cpml=1: %ld CPML slab cells exceed the shell's 32-bit work-item count", total);
    sv->shell_total = (int)total;
    scl_status st = scl_kernel_create(sv->ctx, "seismic", "seis_velocity_shell", sv->options, &sv->vsh);
    if (st == SCL_OK)
        st = scl_kernel_create(sv->ctx, "seismic", "seis_stress_shell", sv->options, &sv->ssh);
    scl_kernel *ks[2] = {sv->vsh, sv->ssh};
    static const char *prof_arg[3] = {"profx", "profy", "profz"}, *psi_arg[3] = {"psix", "psiy", "psiz"};
    static const char *ints[10] = {"nx", "ny", "nz", "sy", "sz", "origin", "pml", "free_surface", "zs", "kl"};
    const int iv[10] = {nx, ny, nz, (int)s->g.sy, (int)s->g.sz, (int)s->g.origin, pml, s->free_surface, zs, kl};
    for (int q = 0; q < 2 && st == SCL_OK; q++) {
        scl_kernel *k = ks[q];
        for (int a = 0; a < F_COUNT && st == SCL_OK; a++)
            st = scl_kernel_set_stream(k, field_arg[a], sv->f[0][a]);
        for (int d = 0; d < 3 && st == SCL_OK; d++) {
            st = scl_kernel_set_stream(k, prof_arg[d], sv->prof[d]);
            if (st == SCL_OK)
                st = scl_kernel_set_stream(k, psi_arg[d], sv->psi[d]);
        }
        for (int a = 0; a < 10 && st == SCL_OK; a++)
            st = scl_kernel_set_int(k, ints[a], iv[a]);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "kh", kh);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "total", sv->shell_total);
        if (st == SCL_OK) st = scl_kernel_set_real(k, "c1", s->c1);
        if (st == SCL_OK) st = scl_kernel_set_real(k, "c2", s->c2);
        if (st == SCL_OK) st = scl_kernel_set_real(k, "dt", s->dt);
    }
    if (st == SCL_OK) st = scl_kernel_set_stream(sv->vsh, "rho", sv->mat[M_RHO]);
    if (st == SCL_OK) st = scl_kernel_set_stream(sv->ssh, "lam", sv->mat[M_LAM]);
    if (st == SCL_OK) st = scl_kernel_set_stream(sv->ssh, "mu", sv->mat[M_MU]);
    return st;
}

/* cpml=1, one phase (0 velocities, 1 stresses): the surface rows by the
 * general kernel, the cells below by the interior one, then the shell's
 * CPML terms. */
static scl_status shell_phase(const scl_seis *sv, int phase, const int *values)
{
    scl_status st = launch_box(sv, phase ? sv->str[0] : sv->vel[0], sv->shell_top, values, 1);
    if (st == SCL_OK)
        st = launch_box(sv, phase ? sv->str_in : sv->vel_in, sv->shell_in, values, 0);
    const size_t local = SHELL_LOCAL;
    const size_t global = ((size_t)sv->shell_total + local - 1) / local * local;
    if (st == SCL_OK && sv->shell_total > 0)
        st = scl_kernel_launch(phase ? sv->ssh : sv->vsh, 1, &global, &local, NULL);
    return st;
}

/* One step (values: lx, ly, kz, fused, early, planes, cpml); sources and
 * receivers unless tuning. */
static scl_status step_run(void *user, void *variant, const int *values)
{
    (void)variant;
    scl_seis *sv = user;
    const seis_setup *s = &sv->s;
    const int n = (int)sv->done;
    scl_status st;
    int var = 0;
    if (!values[3] && values[6]) {
        st = shell_phase(sv, 0, values);
        if (st == SCL_OK && !sv->tuning)
            st = launch_small(sv->inj_v, sv->ninj_v, n);
        if (st == SCL_OK)
            st = shell_phase(sv, 1, values);
    } else if (!values[3] && sv->tx.fn && !sv->tuning) {
        st = step_slab(sv, values);
    } else if (!values[3]) {
        st = update_planes(sv, 0, 0, -1, values);
        if (st == SCL_OK && !sv->tuning)
            st = launch_small(sv->inj_v, sv->ninj_v, n);
        if (st == SCL_OK)
            st = update_planes(sv, 1, 0, -1, values);
    } else {
        var = sv->cur == 0 ? 1 : 2;
        scl_kernel *k = values[3] != 2 ? sv->fused[var] : values[4] ? sv->lds[var] : sv->lds_late[var];
        if (values[3] == 2) { /* the velocity tile: 3 components, halo R */
            const int r = s->order / 2;
            st = scl_kernel_set_local(k, "lv", 3 * (size_t)(values[0] + 2 * r) *
                                                   (size_t)(values[1] + 2 * r) * sv->real_size);
        } else {
            st = SCL_OK;
        }
        if (st == SCL_OK)
            st = launch_box(sv, k, sv->inner, values, 1);
        for (int q = 0; q < sv->nouter && st == SCL_OK; q++)
            st = launch_box(sv, sv->vel[var], sv->outer[q], values, 1);
        for (int q = 0; q < sv->nouter && st == SCL_OK; q++)
            st = launch_box(sv, sv->str[var], sv->outer[q], values, 1);
        sv->cur = set_out(var);
    }
    if (st == SCL_OK && !sv->tuning)
        st = launch_small(sv->inj_s[var], sv->ninj_s, n);
    if (st == SCL_OK && !sv->tuning)
        st = launch_small(sv->rec[var], s->nrec, n);
    return st;
}

/* The value of NAME in a plan string "a=1,b=2" (1), or 0 when not there. */
static int forced_value(const char *spec, const char *name, int *value)
{
    size_t n = strlen(name);
    for (const char *p = spec; p && *p;) {
        if (!strncmp(p, name, n) && p[n] == '=') {
            char *end;
            long v = strtol(p + n + 1, &end, 10);
            *value = v < -1000000 ? -1000000 : v > 1000000 ? 1000000 : (int)v;
            return 1;
        }
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

/* What a combination cannot run (why), else 0: the CPML shell (cpml=1)
 * is a variant of the separate scheme of a whole model with CPML. */
static int step_check(void *user, const int *values, char *why, size_t len)
{
    const scl_seis *sv = user;
    if (!values[6])
        return 0;
    const char *no = values[3] ? "it is a variant of the separate scheme (fused=0)"
                     : sv->s.cut >= 0 ? "a slab of a split model runs the general kernels"
                     : sv->s.pml == 0 ? "this run has no CPML"
                                      : NULL;
    return no ? snprintf(why, len, "cpml=1 (the CPML shell): %s", no) > 0 : 0;
}

static scl_status step_prepare(void *user, const int *values, void **variant)
{
    scl_seis *sv = user;
    *variant = NULL;
    char why[160];
    if (step_check(sv, values, why, sizeof why))
        return SCL_ERR_UNSUPPORTED;
    if (values[3] && !sv->can_fuse)
        return SCL_ERR_UNSUPPORTED;
    if (values[2] < 1 || values[3] < 0 || values[3] > 2)
        return SCL_ERR_UNSUPPORTED;
    if (!values[4] && values[3] != 2) /* early: only fused local has the choice */
        return SCL_ERR_UNSUPPORTED;
    const size_t local[3] = {(size_t)values[0], (size_t)values[1], 1};
    const int var = values[3] ? 1 : 0;
    scl_status st = SCL_OK;
    /* the late-load build only once some candidate asks for it */
    for (int b = 1; b < 3 && !values[4] && !sv->lds_late[b] && st == SCL_OK; b++)
        st = make_fused(sv, b, "seis_fused_lds", sv->late_options, &sv->lds_late[b]);
    if (st != SCL_OK)
        return st;
    st = scl_kernel_check_local(sv->vel[var], 3, local);
    if (st == SCL_OK)
        st = scl_kernel_check_local(sv->str[var], 3, local);
    if (st == SCL_OK && values[3])
        st = scl_kernel_check_local(values[3] != 2 ? sv->fused[1] : values[4] ? sv->lds[1] : sv->lds_late[1],
                                    3, local);
    if (st == SCL_OK && !values[3])
        st = scl_kernel_check_local(sv->vel_in, 3, local);
    if (st == SCL_OK && !values[3])
        st = scl_kernel_check_local(sv->str_in, 3, local);
    if (st == SCL_OK && values[6] && !sv->vsh)
        st = make_shell(sv);
    const size_t shell_local[3] = {SHELL_LOCAL, 1, 1};
    for (int q = 0; q < 2 && st == SCL_OK && values[6]; q++)
        st = scl_kernel_check_local(q ? sv->ssh : sv->vsh, 1, shell_local);
    if (st != SCL_OK) {
        scl_clear_error(sv->ctx);
        return SCL_ERR_UNSUPPORTED;
    }
    return SCL_OK;
}

/* Boxes that tile the grid n[3] around box b (b clamped into it): z slabs
 * over the whole plane, y slabs between them, x slabs inside. */
static void around_box(int *b, const int *n, int out[6][6])
{
    for (int a = 0; a < 3; a++) {
        b[a] = b[a] < 0 ? 0 : b[a] > n[a] ? n[a] : b[a];
        b[3 + a] = b[3 + a] < b[a] ? b[a] : b[3 + a] > n[a] ? n[a] : b[3 + a];
    }
    const int boxes[6][6] = {{0, 0, 0, n[0], n[1], b[2]},          {0, 0, b[5], n[0], n[1], n[2]},
                             {0, 0, b[2], n[0], b[1], b[5]},       {0, b[4], b[2], n[0], n[1], b[5]},
                             {0, b[1], b[2], b[0], b[4], b[5]},    {b[3], b[1], b[2], n[0], b[4], b[5]}};
    memcpy(out, boxes, sizeof boxes);
}

/* The separate scheme's interior: cells with no CPML memory variable and
 * no surface row (the stress kernel's k < 3 special cases); their stencils
 * may reach into the slabs (they only read fields there). */
static void separate_boxes(scl_seis *sv)
{
    const seis_setup *s = &sv->s;
    const int n[3] = {s->g.nx, s->g.ny, s->g.nz};
    int *b = sv->sep_inner;
    for (int a = 0; a < 3; a++) { /* a slab's local cells: the whole model's less off */
        b[a] = s->pml - s->off[a];
        b[3 + a] = s->gn[a] - s->pml - s->off[a];
    }
    if (s->free_surface)
        b[2] = 3 - s->off[2];
    around_box(b, n, sv->sep_outer);
}

/* The interior box where the fused kernel's recomputed velocities stay
 * clear of the CPML, the surface rows and the grid's walls, and the
 * boundary boxes that tile the rest of the grid. */
static void fuse_boxes(scl_seis *sv)
{
    const seis_setup *s = &sv->s;
    const int reach = s->order == 4 ? 2 : 1, n[3] = {s->g.nx, s->g.ny, s->g.nz};
    int *b = sv->inner;
    for (int a = 0; a < 3; a++) {
        b[a] = s->pml + reach;
        b[3 + a] = n[a] - s->pml - reach;
    }
    if (s->free_surface)
        b[2] = 3 > reach ? 3 : reach;
    /* a slab: separate only (the fused pass would read 2R halo planes) */
    sv->can_fuse = b[3] > b[0] && b[4] > b[1] && b[5] > b[2] && sv->ninj_v == 0 && s->cut < 0;
    if (sv->can_fuse)
        around_box(b, n, sv->outer);
    sv->nouter = 6;
}

static void drop_second_set(scl_seis *sv)
{
    for (int var = 1; var < 3; var++) {
        scl_kernel *ks[7] = {sv->vel[var], sv->str[var],   sv->fused[var], sv->lds[var],
                             sv->lds_late[var], sv->inj_s[var], sv->rec[var]};
        for (int q = 0; q < 7; q++)
            scl_kernel_free(ks[q]);
        sv->vel[var] = sv->str[var] = sv->fused[var] = sv->lds[var] = sv->lds_late[var] = NULL;
        sv->inj_s[var] = sv->rec[var] = NULL;
    }
    for (int f = 0; f < F_COUNT; f++) {
        scl_stream_free(sv->f[1][f]);
        sv->f[1][f] = NULL;
    }
}

/* The fields (first buffer set, zero), the materials and the CPML profiles
 * and memory variables. */
static scl_status upload_model(scl_seis *sv)
{
    const seis_setup *s = &sv->s;
    const size_t n = (size_t)s->g.n;
    scl_status st = SCL_OK;
    for (int f = 0; f < F_COUNT && st == SCL_OK; f++)
        st = zero_stream(sv, field_label[f], n, &sv->f[0][f]);
    const double *mat[M_COUNT] = {s->rho, s->lam, s->mu};
    static const char *mat_label[M_COUNT] = {"seis rho", "seis lambda", "seis mu"};
    for (int q = 0; q < M_COUNT && st == SCL_OK; q++)
        st = scl_stream_upload_reals(sv->ctx, mat_label[q], sv->fp64, mat[q], n, &sv->mat[q]);
    static const char *prof_label[3] = {"seis cpml x", "seis cpml y", "seis cpml z"};
    static const char *psi_label[3] = {"seis psi x", "seis psi y", "seis psi z"};
    for (int d = 0; d < 3 && st == SCL_OK; d++) {
        const seis_cpml_dir *p = &s->dir[d];
        const size_t len = (size_t)p->n;
        double *prof = malloc(6 * len * sizeof(double));
        if (!prof)
            return SCL_ERR_MEMORY;
        const double *parts[6] = {p->a_c, p->b_c, p->ik_c, p->a_h, p->b_h, p->ik_h};
        for (int q = 0; q < 6; q++)
            memcpy(prof + q * len, parts[q], len * sizeof(double));
        st = scl_stream_upload_reals(sv->ctx, prof_label[d], sv->fp64, prof, 6 * len, &sv->prof[d]);
        free(prof);
        if (st == SCL_OK)
            st = zero_stream(sv, psi_label[d], 6 * (size_t)seis_cpml_slab(s, d), &sv->psi[d]);
    }
    return st;
}

/* The source injections (velocity ones first, then stress ones: ninj_v and
 * ninj_s count them), the wavelets, the receiver cells and the traces. */
static scl_status upload_sources(scl_seis *sv)
{
    const seis_setup *s = &sv->s;
    scl_status st = SCL_OK;
    const int ninj = s->ninj;
    int *ifield = malloc(((size_t)ninj + 1) * sizeof(int));
    long long *iindex = malloc(((size_t)ninj + 1) * sizeof *iindex);
    int *isrc = malloc(((size_t)ninj + 1) * sizeof(int));
    double *icoeff = malloc(((size_t)ninj + 1) * sizeof(double));
    long long *rindex = malloc(((size_t)s->nrec + 1) * sizeof *rindex);
    if (!ifield || !iindex || !isrc || !icoeff || !rindex)
        st = SCL_ERR_MEMORY;
    int q2 = 0;
    for (int pass = 0; pass < 2 && st == SCL_OK; pass++)
        for (int q = 0; q < ninj; q++) {
            const seis_injection *in = &s->inj[q];
            if ((in->field >= F_SXX) != pass)
                continue;
            ifield[q2] = in->field;
            iindex[q2] = in->index;
            isrc[q2] = in->source;
            icoeff[q2] = in->coeff;
            q2++;
            if (pass == 0)
                sv->ninj_v++;
            else
                sv->ninj_s++;
        }
    for (int r = 0; r < s->nrec && st == SCL_OK; r++)
        rindex[r] = s->rec_index[r];
    /* cell indices 64-bit: a grid may pass 2^31 points */
    const struct {
        const char *label;
        scl_type type;
        const void *v;
        size_t n;
        scl_stream **out;
    } ints[4] = {{"seis inj field", SCL_INT, ifield, (size_t)ninj, &sv->inj_field},
                 {"seis inj index", SCL_LONG, iindex, (size_t)ninj, &sv->inj_index},
                 {"seis inj source", SCL_INT, isrc, (size_t)ninj, &sv->inj_source},
                 {"seis rec index", SCL_LONG, rindex, (size_t)s->nrec, &sv->rec_index}};
    for (int q = 0; q < 4 && st == SCL_OK; q++)
        st = scl_stream_upload(sv->ctx, ints[q].label, ints[q].type, ints[q].v, ints[q].n, ints[q].out);
    if (st == SCL_OK)
        st = scl_stream_upload_reals(sv->ctx, "seis inj coeff", sv->fp64, icoeff, (size_t)ninj,
                                     &sv->inj_coeff);
    if (st == SCL_OK)
        st = scl_stream_upload_reals(sv->ctx, "seis wavelet", sv->fp64, s->wavelet,
                                     (size_t)s->nsources * (size_t)(s->steps + 1), &sv->wavelet);
    free(ifield);
    free(iindex);
    free(isrc);
    free(icoeff);
    free(rindex);
    if (st == SCL_OK) {
        const size_t nt = (size_t)s->nrec * SCL_SEIS_NCOMP * (size_t)s->steps;
        const float zero = 0;
        st = scl_stream_create(sv->ctx, "seis traces", SCL_FLOAT, nt ? nt : 1, 1, 1, 0, &sv->traces);
        if (st == SCL_OK)
            st = scl_stream_fill(sv->traces, &zero);
    }
    return st;
}

/* The kernels' boxes and bindings; with a fused interior, the second
 * buffer set and its bindings (freed again if the plan does not use it). */
static scl_status make_kernels(scl_seis *sv)
{
    const seis_setup *s = &sv->s;
    snprintf(sv->options, sizeof sv->options, "-DORDER=%d -DSCL_SEIS_FP64=%d -DSEIS_BASE64=%d",
             s->order, sv->fp64, sv->base64);
    snprintf(sv->late_options, sizeof sv->late_options, "%s -DLDS_EARLY=0", sv->options);
    fuse_boxes(sv);
    separate_boxes(sv);
    scl_status st = make_binding(sv, 0);
    if (st == SCL_OK)
        st = make_interior(sv);
    for (int f = 0; f < F_COUNT && st == SCL_OK && sv->can_fuse; f++)
        st = zero_stream(sv, field_label[f], (size_t)s->g.n, &sv->f[1][f]);
    for (int var = 1; var < 3 && st == SCL_OK && sv->can_fuse; var++)
        st = make_binding(sv, var);
    return st;
}

/* One tuned plan with the plan values `force`; sv->plan becomes the faster
 * of it and the one before, and the scheme's step time is kept. */
static scl_status tune_scheme(scl_seis *sv, const scl_plan_desc *desc, const char *force, int tune)
{
    const scl_tune_options topt = {.no_tune = !tune, .force = force[0] ? force : NULL};
    scl_plan *plan = NULL;
    sv->tuning = 1;
    const scl_status st = scl_plan_create(sv->ctx, desc, &topt, &plan);
    sv->tuning = 0;
    if (st != SCL_OK)
        return st;
    const int f = scl_plan_value(plan, "cpml", 0) ? 3 : scl_plan_value(plan, "fused", 0);
    if (f >= 0 && f < 4)
        sv->scheme_s[f] = scl_plan_seconds(plan);
    if (!sv->plan || scl_plan_seconds(plan) < scl_plan_seconds(sv->plan)) {
        scl_plan_free(sv->plan);
        sv->plan = plan;
    } else {
        scl_plan_free(plan);
    }
    return SCL_OK;
}

/* A forced CPML shell (cpml=1) this run cannot take: the plan's fault,
 * said by name before any candidate is tried. */
static scl_status refuse_forced_shell(scl_seis *sv, const char *user)
{
    int shell = 0, fused = 0;
    if (!forced_value(user, "cpml", &shell) || shell != 1)
        return SCL_OK;
    forced_value(user, "fused", &fused);
    const int values[7] = {0, 0, 1, fused, 1, 0, 1};
    char why[160];
    if (step_check(sv, values, why, sizeof why))
        return scl_fail(sv->ctx, SCL_ERR_ARGUMENT, "scl_seis_create", "plan %s: %s", user, why);
    return SCL_OK;
}

/* One plan per scheme (fused forced; on GPUs with CPML also the separate
 * scheme's shell, cpml=1), each tuned over the work-group and kz; the
 * fastest is kept and the step times of all are reported. A plan that
 * fixes the scheme (fused or cpml) makes one plan; no fused box, one plan
 * and the shell's. */
static scl_status tune_step(scl_seis *sv, const scl_seis_options *opt)
{
    const seis_setup *s = &sv->s;
    /* work-group shape: x along rows (coalesced / vectorised), y rows stacked */
    const int gpu = scl_device(sv->ctx)->is_gpu;
    const int fuse_first = gpu && sv->can_fuse;
    /* PoCL compiles a kernel per work-group shape: fewer shapes on CPUs.
     * kz: planes walked per work-item (1 is one cell per work-item); a
     * deep walk keeps fewer work-items in flight, so it is tuned. */
    /* planes: z planes per launch at most (0: as many as 32-bit indices
     * within a launch allow); not tuned, forced by tests */
    /* cpml: the separate scheme's CPML (0 general kernels, 1 the shell),
     * timed as a scheme of its own below (GPUs), else forced */
    const scl_tune_param gpu_params[7] = {{"lx", 3, {32, 64, 128}},
                                          {"ly", 3, {4, 2, 8}},
                                          {"kz", 4, {8, 1, 4, 16}},
                                          {"fused", 3, {fuse_first, !fuse_first, 2}},
                                          {"early", 2, {1, 0}},
                                          {"planes", 1, {0}},
                                          {"cpml", 1, {0}}};
    const scl_tune_param cpu_params[7] = {{"lx", 3, {64, 16, 256}},
                                          {"ly", 2, {1, 4}},
                                          {"kz", 2, {1, 8}}, /* PoCL: 1 vectorises best */
                                          {"fused", 2, {fuse_first, !fuse_first}},
                                          {"early", 1, {1}},
                                          {"planes", 1, {0}},
                                          {"cpml", 1, {0}}};
    char shape[96];
    snprintf(shape, sizeof shape, "%dx%dx%d order %d %s pml %d", s->g.nx, s->g.ny, s->g.nz,
             s->order, sv->fp64 ? "fp64" : "fp32", s->pml);
    static const scl_param_rule rules[7] = {
        {.min = 1, .max = 1024, .why = "the work-group width"},
        {.min = 1, .max = 1024, .why = "the work-group height"},
        {.min = 1, .max = 4096, .why = "the z planes a work-item walks"},
        {.min = 0, .max = 2, .why = "the scheme (0 separate, 1 fused, 2 fused in one pass)"},
        {.min = 0, .max = 1, .why = "the early receiver record (0 or 1)"},
        {.min = 0, .max = 1 << 30, .why = "the z planes of a launch (0: no cap)"},
        {.min = 0, .max = 1, .why = "the separate scheme's CPML (0 general kernels, 1 shell)"},
    };
    const scl_plan_desc desc = {.name = "seismic.step",
                                .shape = shape,
                                .params = gpu ? gpu_params : cpu_params,
                                .nparams = 7,
                                .prepare = step_prepare,
                                .check = step_check,
                                .run_variant = step_run,
                                .user = sv,
                                .rules = rules};
    const char *user = opt ? opt->force : NULL;
    const int tune = opt ? opt->tune : 1;
    /* a fused scheme this run cannot take is the plan's fault, not the
     * device's: said before any candidate is tried (value ranges are the
     * core's rules above) */
    scl_status st0;
    int fused_forced;
    if (forced_value(user, "fused", &fused_forced) && (fused_forced == 1 || fused_forced == 2) &&
        !sv->can_fuse)
        return scl_fail(sv->ctx, SCL_ERR_ARGUMENT, "scl_seis_create",
                        "plan fused=%d: this run has no fused interior (%s); use fused=0",
                        fused_forced, sv->ninj_v ? "a force source injects into the velocities"
                                                 : "CPML and surface rows leave no interior box");
    if ((st0 = refuse_forced_shell(sv, user)) != SCL_OK)
        return st0;
    /* the schemes timed apart: fused, separate, fused local where there
     * is a fused interior, and on GPUs the CPML shell where it can run */
    const int fixed = (user && (strstr(user, "fused") || strstr(user, "cpml"))) || !tune;
    const int shell = gpu && s->pml > 0 && s->cut < 0;
    const char *scheme[4] = {"", NULL, NULL, NULL};
    int nschemes = 1;
    if (!fixed && sv->can_fuse) {
        static const char *order[2][3] = {{"fused=0", "fused=1", "fused=2"},
                                          {"fused=1", "fused=0", "fused=2"}};
        memcpy(scheme, order[fuse_first], sizeof order[0]);
        nschemes = 3;
    }
    if (!fixed && shell)
        scheme[nschemes++] = "fused=0,cpml=1";
    for (int q = 0; q < nschemes; q++) {
        char force[320];
        snprintf(force, sizeof force, "%s%s%s", user ? user : "",
                 user && *user && *scheme[q] ? "," : "", scheme[q]);
        const scl_status st = tune_scheme(sv, &desc, force, tune);
        if (st != SCL_OK && nschemes == 1)
            return st;
        /* no legal shape for this scheme, or it failed on this device:
         * the others still run (its step time stays unreported) */
        if (st != SCL_OK)
            scl_clear_error(sv->ctx);
    }
    if (!sv->plan)
        return scl_fail(sv->ctx, SCL_ERR_UNSUPPORTED, "scl_seis_create",
                        "no scheme of the seismic step runs on %s", scl_device(sv->ctx)->name);
    return SCL_OK;
}

static scl_status create_device(scl_seis *sv, const scl_seis_options *opt)
{
    scl_status st = upload_model(sv);
    if (st == SCL_OK)
        st = upload_sources(sv);
    if (st == SCL_OK)
        st = make_kernels(sv);
    if (st == SCL_OK)
        st = tune_step(sv, opt);
    if (st != SCL_OK)
        return st;
    /* the timed steps ran on the zero state (no sources), which stays zero
     * in both buffer sets and in the CPML memory variables */
    sv->cur = 0;
    if (sv->can_fuse && !scl_plan_value(sv->plan, "fused", 0))
        drop_second_set(sv);
    return scl_finish(sv->ctx);
}

/* The device-memory budget, checked before anything is allocated (on the
 * host or the device): one buffer set of the fields, the materials and the
 * CPML memory variables, against the device's per-buffer limit and 90% of
 * its memory. The grid is padded by at most the CPML width on each face. */
static scl_status check_fits(scl_context *ctx, const scl_seis_model *m, const scl_seis_config *c)
{
    const scl_device_info *dev = scl_device(ctx);
    const double w = c->pml > 0 ? c->pml : 0, rs = c->fp64 ? 8.0 : 4.0;
    const double n[3] = {m->nx + 2 * w + 4, m->ny + 2 * w + 4, m->nz + 2 * w + 4};
    const double cells = n[0] * n[1] * n[2], field = cells * rs;
    double psi = 0;
    for (int d = 0; d < 3; d++)
        psi += 6.0 * 2.0 * w * (cells / n[d]) * rs;
    const double total = (F_COUNT + M_COUNT) * field + psi;
    if (field > (double)dev->max_alloc || total > 0.9 * (double)dev->global_mem)
        return scl_fail(ctx, SCL_ERR_TOO_LARGE, "scl_seis_create",
                        "a %d x %d x %d grid (%s, CPML %d) needs %.0f MiB per field buffer and "
                        "%.0f MiB in all; %s allows %.0f MiB per buffer and has %.0f MiB",
                        m->nx, m->ny, m->nz, c->fp64 ? "fp64" : "fp32", c->pml, field / 1048576.0,
                        total / 1048576.0, dev->name, (double)dev->max_alloc / 1048576.0,
                        (double)dev->global_mem / 1048576.0);
    return SCL_OK;
}

/* A slab's halo: the pack/unpack kernels, R planes of three fields per
 * region (send low, high, receive low, high) on the device and pinned. */
static scl_status make_halo(scl_seis *sv)
{
    const seis_layout *g = &sv->s.g;
    const int a = sv->s.cut;
    const long ext[3] = {g->px, g->py, g->pz}, stride[3] = {1, g->sy, g->sz};
    const int b = a == 0 ? 1 : 0, d = a == 2 ? 1 : 2;
    sv->reach = sv->s.order / 2;
    sv->one_plane = (size_t)ext[b] * (size_t)ext[d];
    sv->plane_elems = (size_t)sv->reach * sv->one_plane;
    const int n = a == 0 ? g->nx : a == 1 ? g->ny : g->nz;
    sv->has_lo = sv->s.off[a] > 0;
    sv->has_hi = sv->s.off[a] + n < sv->s.gn[a];
    const scl_type t = sv->fp64 ? SCL_DOUBLE : SCL_FLOAT;
    scl_status st = scl_stream_create(sv->ctx, "seis halo", t, 12 * sv->plane_elems, 1, 1, 0, &sv->hbuf);
    if (st == SCL_OK)
        st = scl_stream_create(sv->ctx, "seis halo host", SCL_UCHAR, 12 * sv->plane_elems * sv->real_size,
                               1, 1, SCL_STREAM_HOST_MAPPED, &sv->pinned);
    void *ptr = NULL;
    if (st == SCL_OK)
        st = scl_stream_map(sv->pinned, SCL_MAP_READ | SCL_MAP_WRITE, &ptr);
    sv->pinned_ptr = ptr;
    /* the velocity update reads across the cut only the stresses it
     * differentiates along it (e.g. sxz, syz, szz for a z cut) */
    static const int trio[3][3] = {{F_SXX, F_SXY, F_SXZ}, {F_SXY, F_SYY, F_SYZ}, {F_SXZ, F_SYZ, F_SZZ}};
    for (int q = 0; q < 2 && st == SCL_OK; q++) {
        st = scl_kernel_create(sv->ctx, "seismic", "seis_halo", sv->options, &sv->halo[q]);
        scl_kernel *k = sv->halo[q];
        static const char *abc[3] = {"a", "b", "c"};
        for (int f = 0; f < 3 && st == SCL_OK; f++)
            st = scl_kernel_set_stream(k, abc[f], sv->f[0][q ? trio[a][f] : f]);
        if (st == SCL_OK) st = scl_kernel_set_stream(k, "buf", sv->hbuf);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "s0", (int)stride[a]);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "s1", (int)stride[b]);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "s2", (int)stride[d]);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "e1", (int)ext[b]);
        if (st == SCL_OK) st = scl_kernel_set_int(k, "e2", (int)ext[d]);
    }
    return st;
}

/* The launches' z planes (sv->launch_planes). Grids above 2^31 points are
 * split into launches of 32-bit indices; what stays 32-bit whatever the
 * split is refused here: a plane's section (the launches need a few
 * planes), the CPML memory variables of a direction (6 per slab cell).
 * The plan's `planes` lowers the cap (tests split small grids with it). */
static scl_status check_indexing(scl_context *ctx, scl_seis *sv, const scl_seis_options *opt)
{
    const seis_layout *g = &sv->s.g;
    const int most = seis_launch_planes(g);
    if (most < 1)
        return scl_fail(ctx, SCL_ERR_TOO_LARGE, "scl_seis_create",
                        "a %d x %d section (%ld x %ld padded) exceeds the 32-bit indexing of a "
                        "kernel launch", g->nx, g->ny, g->px, g->py);
    for (int d = 0; d < 3; d++)
        if (6 * seis_cpml_slab(&sv->s, d) > 2147483647L)
            return scl_fail(ctx, SCL_ERR_TOO_LARGE, "scl_seis_create",
                            "the CPML memory variables along %c (%ld values) exceed 32-bit indexing",
                            "xyz"[d], 6 * seis_cpml_slab(&sv->s, d));
    sv->launch_planes = most;
    /* the 64-bit bases cost registers in every update kernel: only grids
     * that need them (or a plan that splits the launches, for the tests)
     * get them; the others address the whole grid from plane 0 */
    sv->base64 = g->n / g->sz > (long)most || (opt && opt->force && strstr(opt->force, "planes="));
    return SCL_OK;
}

/* The solver of a whole model (slab NULL, m checked) or of a slab (m its window). */
static scl_status create_solver(scl_context *ctx, const scl_seis_model *m, const scl_seis_config *c,
                                const scl_seis_slab *slab, const scl_seis_options *opt,
                                scl_seis **out)
{
    char err[1024];
    scl_status st;
    if (c->fp64 && !scl_device(ctx)->fp64) {
        scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_seis_create", "device %s has no fp64", scl_device(ctx)->name);
        return SCL_ERR_UNSUPPORTED;
    }
    if ((st = check_fits(ctx, m, c)) != SCL_OK)
        return st;
    scl_seis *sv = calloc(1, sizeof *sv);
    if (!sv)
        return SCL_ERR_MEMORY;
    sv->ctx = ctx;
    sv->fp64 = c->fp64;
    sv->real_size = c->fp64 ? sizeof(double) : sizeof(float);
    if ((st = seis_setup_slab(m, c, slab, &sv->s, err, sizeof err)) != SCL_OK) {
        scl_fail(ctx, st, "scl_seis_create", "%s", err);
        free(sv);
        return st;
    }
    if ((st = check_indexing(ctx, sv, opt)) != SCL_OK) {
        scl_seis_free(sv);
        return st;
    }
    if ((st = create_device(sv, opt)) == SCL_OK && slab)
        st = make_halo(sv);
    if (st != SCL_OK) {
        scl_seis_free(sv);
        return st;
    }
    *out = sv;
    return SCL_OK;
}

scl_status scl_seis_create(scl_context *ctx, const scl_seis_model *m, const scl_seis_config *c,
                           const scl_seis_options *opt, scl_seis **out)
{
    *out = NULL;
    char err[1024];
    scl_status st = scl_seis_check(m, c, NULL, 0, err, sizeof err);
    if (st != SCL_OK) {
        scl_fail(ctx, st, "scl_seis_create", "%s", err);
        return st;
    }
    return create_solver(ctx, m, c, NULL, opt, out);
}

/* What a slab's solver cannot take (a message in err), else 0. */
static int slab_refused(const scl_seis_model *w, const scl_seis_config *c, const scl_seis_slab *sl,
                        char *err, size_t errlen)
{
    const int gn[3] = {sl->nx, sl->ny, sl->nz}, a = sl->axis, R = c->order / 2;
    if (a < 0 || a > 2 || sl->n < 1 || sl->lo < 0 || sl->lo + sl->n > gn[a])
        return snprintf(err, errlen, "slab: cells [%d, %d) along axis %d of a %d x %d x %d model",
                        sl->lo, sl->lo + sl->n, a, gn[0], gn[1], gn[2]);
    const int wn[3] = {w->nx, w->ny, w->nz};
    for (int d = 0; d < 3; d++)
        if (wn[d] != (d == a ? sl->n + 4 : gn[d]) ||
            (d == 2 && c->free_surface ? c->pml : 2 * c->pml) >= gn[d])
            return snprintf(err, errlen, "slab: the window is %d x %d x %d (expected %d planes along "
                            "the cut, the whole model across it), pml %d",
                            wn[0], wn[1], wn[2], sl->n + 4, c->pml);
    if ((c->order != 2 && c->order != 4) || !(c->dt > 0) || c->steps < 1 || !(sl->vp_max > 0))
        return snprintf(err, errlen, "slab: order %d, dt %g, %ld steps, vp_max %g", c->order, c->dt,
                        c->steps, sl->vp_max);
    if (sl->n < R)
        return snprintf(err, errlen, "a slab of %d plane(s) along %c: at order %d each needs at "
                        "least %d (its neighbours read %d halo planes of it)", sl->n, "xyz"[a],
                        c->order, R, R);
    if (c->free_surface && a == 2 && sl->lo < 3 && (sl->lo > 0 || sl->n < 3) && gn[2] > sl->n)
        return snprintf(err, errlen, "a free surface over a z cut needs the top slab to hold at "
                        "least 3 planes (its stress images above the surface)");
    for (int q = 0; q < c->nsources; q++) {
        const scl_seis_source *s = &c->sources[q];
        if (s->i < 0 || s->j < 0 || s->k < 0 || s->i >= gn[0] || s->j >= gn[1] || s->k >= gn[2])
            return snprintf(err, errlen, "source %d is outside the model", q + 1);
    }
    for (int r = 0; r < c->nreceivers; r++) {
        const int p[3] = {c->receivers[r].i, c->receivers[r].j, c->receivers[r].k};
        if (p[a] < sl->lo || p[a] >= sl->lo + sl->n || p[(a + 1) % 3] < 0 || p[(a + 2) % 3] < 0 ||
            p[(a + 1) % 3] >= gn[(a + 1) % 3] || p[(a + 2) % 3] >= gn[(a + 2) % 3])
            return snprintf(err, errlen, "receiver %d is not in the slab", r + 1);
    }
    return 0;
}

scl_status scl_seis_create_slab(scl_context *ctx, const scl_seis_model *w, const scl_seis_config *c,
                                const scl_seis_slab *slab, const scl_seis_options *opt,
                                scl_seis **out)
{
    *out = NULL;
    char err[512];
    if (!w || !c || !slab || slab_refused(w, c, slab, err, sizeof err))
        return scl_fail(ctx, SCL_ERR_INPUT, "scl_seis_create_slab", "%s",
                        w && c && slab ? err : "no window, configuration or slab");
    return create_solver(ctx, w, c, slab, opt, out);
}

scl_status scl_seis_step_slab(scl_seis *sv, long steps, scl_seis_transport_fn fn, void *user,
                              int overlap)
{
    if (sv->s.cut < 0 || !fn)
        return scl_fail(sv->ctx, SCL_ERR_ARGUMENT, "scl_seis_step_slab", "%s",
                        fn ? "the solver is not a slab's" : "no transport");
    sv->overlap = overlap;
    sv->tx = (seis_transport){fn, user};
    if (!sv->acct) { /* the queues profile always: ~50 events a step, read as they complete */
        sv->acct = calloc(1, sizeof *sv->acct);
        if (sv->acct)
            sv->acct->cat = -1;
    }
    const double t0 = seis_now();
    const long before = sv->done;
    const scl_status st = scl_seis_step(sv, steps);
    if (sv->acct) { /* scl_seis_step finished the queue */
        acct_resolve(sv, sv->acct->n);
        free(sv->acct);
        sv->acct = NULL;
    }
    sv->stats.wall += seis_now() - t0;
    sv->stats.steps += sv->done - before;
    sv->tx = (seis_transport){NULL, NULL}; /* these steps' only */
    return st;
}

scl_status scl_seis_slab_stats_get(const scl_seis *sv, scl_seis_slab_stats *out)
{
    if (!sv || !out)
        return SCL_ERR_ARGUMENT;
    *out = sv->stats;
    return SCL_OK;
}

void scl_seis_slab_stats_reset(scl_seis *sv)
{
    if (sv)
        memset(&sv->stats, 0, sizeof sv->stats);
}

void scl_seis_free(scl_seis *sv)
{
    if (!sv)
        return;
    scl_plan_free(sv->plan);
    drop_second_set(sv);
    scl_kernel *ks[9] = {sv->vel[0], sv->str[0], sv->inj_v,  sv->inj_s[0], sv->rec[0],
                         sv->vel_in, sv->str_in, sv->vsh, sv->ssh};
    for (int q = 0; q < 9; q++)
        scl_kernel_free(ks[q]);
    scl_stream *ss[] = {sv->inj_field, sv->inj_index, sv->inj_source, sv->inj_coeff,
                        sv->wavelet,   sv->rec_index, sv->traces};
    for (size_t q = 0; q < sizeof ss / sizeof ss[0]; q++)
        scl_stream_free(ss[q]);
    for (int f = 0; f < F_COUNT; f++)
        scl_stream_free(sv->f[0][f]);
    for (int q = 0; q < M_COUNT; q++)
        scl_stream_free(sv->mat[q]);
    for (int d = 0; d < 3; d++) {
        scl_stream_free(sv->prof[d]);
        scl_stream_free(sv->psi[d]);
    }
    for (int q = 0; q < 2; q++)
        scl_kernel_free(sv->halo[q]);
    if (sv->pinned && sv->pinned_ptr)
        scl_stream_unmap(sv->pinned, sv->pinned_ptr);
    scl_stream_free(sv->pinned);
    scl_stream_free(sv->hbuf);
    seis_setup_free(&sv->s);
    free(sv);
}

scl_status scl_seis_step(scl_seis *sv, long steps)
{
    for (long q = 0; q < steps && sv->done < sv->s.steps; q++) {
        scl_status st = scl_plan_execute(sv->plan);
        if (st != SCL_OK)
            return st;
        sv->done++;
    }
    return scl_finish(sv->ctx);
}

long scl_seis_steps_done(const scl_seis *sv)
{
    return sv->done;
}

scl_status scl_seis_traces(scl_seis *sv, float *traces)
{
    if (sv->s.nrec == 0)
        return SCL_OK;
    return scl_stream_read(sv->traces, traces, 1, NULL);
}

scl_status scl_seis_read_field(scl_seis *sv, int field, double *out)
{
    if (field < 0 || field >= F_COUNT) {
        scl_fail(sv->ctx, SCL_ERR_ARGUMENT, "scl_seis_read_field", "field %d not in 0..8",
                              field);
        return SCL_ERR_ARGUMENT;
    }
    void *tmp = malloc((size_t)sv->s.g.n * sv->real_size);
    if (!tmp)
        return SCL_ERR_MEMORY;
    scl_status st = scl_stream_read(sv->f[sv->cur][field], tmp, 1, NULL);
    if (st == SCL_OK) {
        if (sv->fp64)
            seis_unpad_double(&sv->s.g, tmp, out);
        else
            seis_unpad_float(&sv->s.g, tmp, out);
    }
    free(tmp);
    return st;
}

double scl_seis_bytes_per_cell(const scl_seis *sv)
{
    /* separate: velocity 9 field reads + rho + 3 writes, stress 9 + lam + mu
     * + 6; fused (interior): 9 reads + rho, lam, mu + 9 writes */
    if (scl_plan_value(sv->plan, "fused", 0))
        return (double)sv->real_size * (9 + 3 + 9);
    return (double)sv->real_size * ((9 + 1 + 3) + (9 + 2 + 6));
}

double scl_seis_scheme_seconds(const scl_seis *sv, int scheme)
{
    return scheme >= 0 && scheme < 4 ? sv->scheme_s[scheme] : 0;
}

int scl_seis_fused(const scl_seis *sv)
{
    return scl_plan_value(sv->plan, "fused", 0);
}

int scl_seis_cpml_shell(const scl_seis *sv)
{
    return scl_plan_value(sv->plan, "cpml", 0);
}

int scl_seis_lds_early(const scl_seis *sv)
{
    return scl_plan_value(sv->plan, "early", 1);
}

scl_status scl_seis_set_halo_staging(scl_seis *sv, void *const send[2])
{
    if (sv->s.cut < 0)
        return scl_fail(sv->ctx, SCL_ERR_ARGUMENT, "scl_seis_set_halo_staging",
                        "the solver is not a slab's");
    for (int d = 0; d < 2; d++)
        sv->stage[d] = send ? send[d] : NULL;
    return SCL_OK;
}

size_t scl_seis_halo_bytes(const scl_seis *sv) /* a region's capacity */
{
    return sv && sv->s.cut >= 0 ? 3 * sv->plane_elems * sv->real_size : 0;
}

void scl_seis_work_group(const scl_seis *sv, int *lx, int *ly, int *kz)
{
    *lx = scl_plan_value(sv->plan, "lx", 0);
    *ly = scl_plan_value(sv->plan, "ly", 0);
    *kz = scl_plan_value(sv->plan, "kz", 1);
}
