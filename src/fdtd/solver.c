/* The OpenCL solver: field streams on the padded grid; per step either one H
 * and one E kernel in place ("separate", CPML corrections by slab kernels
 * after each) or one fused kernel between two buffer sets (ping-pong,
 * "fused") whose slab points apply their CPML corrections inline: the walks
 * that meet the slabs run in a build of the kernel with the CPML code, over
 * a list of edge work-groups, the others in a build without it (half the
 * registers); sources and receivers by small kernels; launch shape chosen by
 * a plan, for the fused kernel with CPML also the variant (edge walks apart,
 * one kernel for all, the older slab passes: the kernel, then the slab
 * corrections and E redone there, or the shell corrections: the kernel,
 * then one launch each for H's corrections and E redone with its own over
 * exactly the slab cells, or those over the y and z slabs only and the x
 * slabs inline in the fused pass); receiver samples read back per chunk of
 * steps. */
#include "fdtd/fdtd_internal.h"
#include "fdtd/tline.h"
#include "core/internal.h"
#include "core/upload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 1024 /* steps whose source values and receiver samples travel together */
#define NVAR 6     /* CPML variants of the fused step (plan parameter cpml) */
#define SHELL_WG 256 /* work-group of the shell kernels (1D) */

struct scl_fdtd {
    scl_context *ctx;
    const scl_fdtd_model *m;
    int fp64, uniform;
    scl_type rt;
    size_t rs;
    int fused;
    scl_stream *fld[2][6], *id[6], *coef[4]; /* fld[1] aliases fld[0] unless fused; coef: ca cb da db */
    /* kernels per parity q: inputs fld[q], outputs fld[1-q] (fld[0] both when separate) */
    scl_kernel *kh[2], *ke[2], *kf[2], *ksrc[2], *krec[2], *kp[2][3][4];
    scl_kernel *kfs[2]; /* fused kernel without the CPML code (interior walks, slab passes) */
    scl_kernel *ksh[2], *kse[2]; /* cpml=3: the H and E shell kernels; their work-items */
    size_t shell_n[2];
    /* cpml=4: the fused kernel with the x slabs' CPML inline (CPML_X only),
     * the H and E shell kernels over the y and z slabs; their work-items */
    scl_kernel *kfx[2], *ksy[2], *key[2];
    size_t yz_n[2];
    int T[3], any_cpml;
    /* fused with CPML: 1 inline, the interior walks by the kernel without the
     * CPML code and the edge walks by the one with it; 2 inline, one kernel
     * for all; 0 slab passes after the kernel without CPML code; 3 shell
     * corrections after it (H, then E redone, over the slab cells only); 4
     * the x slabs inline (kfx), then the shell over the y and z slabs; 5 as
     * 4 with kfx over the x edge walks only, the others by kfs */
    int folded;
    scl_cpml_axis ax[3];
    scl_stream *psi[3][4], *prof[3][6]; /* prof: kinv b c at nodes, then at half nodes */
    scl_stream *psi_h2[3][2]; /* folded: the second set of H psi (ping-pong) */
    scl_stream *cp, *dummy;   /* folded: profiles of all axes in one stream; unused arguments */
    scl_stream *src_off, *src_pol, *src_hard, *src_amp, *src_val;
    /* magnetic dipoles: the source kernel on H after the H update (separate
     * path), its amplitudes (0 for the E sources), no hard edges, values; the
     * E sources' amplitude is 0 for them. hslot: the chunk slot, -1 outside runs */
    scl_kernel *ksrch;
    scl_stream *src_mamp, *src_mhard, *msrc_val;
    void *mstage;
    int nmag, hslot;
    scl_stream *rx_off, *rx_out;
    void *stage;                        /* host staging of CHUNK steps */
    double *rec;                        /* receiver samples [step][rx][6] */
    long rec_cap, steps;
    scl_plan *plan;
    int shape[3]; /* launch: work-group lx x ly, kz planes per work-item */
    /* what the tuner found per CPML variant (one plan each): the best step
     * (seconds, 0: none ran, -1: not tried) and its shape, the shapes
     * refused and the last reason for a refusal or the variant's failure */
    /* Debye poles: the dispersive E points and their kernels (separate path) */
    long ndisp;
    scl_stream *d_off, *d_comp, *d_mat, *d_np, *d_dc, *d_T, *d_phi;
    scl_kernel *kda, *kdapply, *kdb;
    double var_s[NVAR];
    int var_shape[NVAR][3], var_refused[NVAR], recording;
    char var_why[NVAR][320];
    /* sub-domain: the CPML slab cells inside it, the cut axis (-1: whole),
     * which low faces are cuts, the halo plane kernels (E, H) and staging,
     * the exchange of the run in progress */
    int lo[3], hi[3], split, sub_lo[3], sub_hi[3];
    int cut_lo[3][4], cut_hi[3][4]; /* CPML kernel (axis, pair): its range along the cut axis */
    scl_kernel *kpl[2];
    scl_stream *halo, *pinned; /* pinned: host-mapped send and receive planes */
    void *pinned_ptr;
    void *send_at[2]; /* the overlapped run's send plane of E (0) / H (1): caller's memory, or NULL: pinned */
    size_t halo_n; /* reals in one exchange */
    scl_fdtd_exchange_fn xfn;
    scl_fdtd_transport_fn ofn; /* the overlapped run's transport */
    void *xuser;
    fdtd_tline_dev *tl; /* transmission lines (tline_dev.c), NULL without */
};

static scl_status fail(scl_fdtd *f, scl_status s, const char *what)
{
    return scl_fail(f->ctx, s, "scl_fdtd_create", "%s", what);
}

static const void *zero_of(const scl_fdtd *f)
{
    static const double zd = 0;
    static const float zf = 0;
    return f->fp64 ? (const void *)&zd : (const void *)&zf;
}

/* A stream of n reals from doubles. */
static scl_status upload_real(scl_fdtd *f, const char *label, const double *v, size_t n,
                              scl_stream **out)
{
    return scl_stream_upload_reals(f->ctx, label, f->fp64, v, n, out);
}

static scl_status upload_int(scl_fdtd *f, const char *label, const int *v, size_t n,
                             scl_stream **out)
{
    return scl_stream_upload(f->ctx, label, SCL_INT, v, n, out);
}

static const char *const fe[3] = {"ex", "ey", "ez"}, *const fh[3] = {"hx", "hy", "hz"};
static const char *const fei[3] = {"exi", "eyi", "ezi"}, *const fhi[3] = {"hxi", "hyi", "hzi"};
static const char *const ide[3] = {"idex", "idey", "idez"}, *const idh[3] = {"idhx", "idhy", "idhz"};

/* Arguments every main kernel has: sizes, strides, spacings, coefficients. */
static scl_status bind_common(scl_fdtd *f, scl_kernel *k)
{
    const scl_grid3d *g = &f->m->grid;
    scl_status s = SCL_OK;
    static const char *co[4] = {"ca", "cb", "da", "db"};
    for (int c = 0; c < 4 && s == SCL_OK; c++)
        if (scl_kernel_has_arg(k, co[c]))
            s = scl_kernel_set_stream(k, co[c], f->coef[c]);
    for (int c = 0; c < 3 && s == SCL_OK; c++) {
        if (scl_kernel_has_arg(k, ide[c]))
            s = scl_kernel_set_stream(k, ide[c], f->id[c]);
        if (s == SCL_OK && scl_kernel_has_arg(k, idh[c]))
            s = scl_kernel_set_stream(k, idh[c], f->id[3 + c]);
    }
    if (s == SCL_OK) s = scl_kernel_set_int(k, "nx", g->nx);
    if (s == SCL_OK) s = scl_kernel_set_int(k, "ny", g->ny);
    if (s == SCL_OK) s = scl_kernel_set_int(k, "nz", g->nz);
    if (s == SCL_OK) s = scl_kernel_set_int(k, "base", (int)scl_grid3d_index(g, 0, 0, 0));
    if (s == SCL_OK) s = scl_kernel_set_int(k, "px", (int)g->px);
    if (s == SCL_OK) s = scl_kernel_set_int(k, "pxy", (int)(g->px * g->py));
    if (s == SCL_OK) s = scl_kernel_set_real(k, "rdx", 1 / g->dx);
    if (s == SCL_OK) s = scl_kernel_set_real(k, "rdy", 1 / g->dy);
    if (s == SCL_OK) s = scl_kernel_set_real(k, "rdz", 1 / g->dz);
    return s;
}

/* fdtd_e over box [o, m) (the whole domain by default). */
static scl_status e_box(scl_kernel *k, const int o[3], const int m[3])
{
    static const char *on[3] = {"ox", "oy", "oz"}, *mn[3] = {"mx", "my", "mz"};
    scl_status s = SCL_OK;
    for (int a = 0; a < 3 && s == SCL_OK; a++) {
        s = scl_kernel_set_int(k, on[a], o[a]);
        if (s == SCL_OK)
            s = scl_kernel_set_int(k, mn[a], m[a]);
    }
    return s;
}

static const char *const comp = "xyz";

/* The fused kernel's psi of axis a (on: the build has its CPML): pairs 0/1
 * are H_b/H_d (b, d = a+1, a+2), 2/3 E_b/E_d; H psi of step n from set q,
 * of step n+1 into set 1-q. */
static scl_status bind_fused_psi(scl_fdtd *f, scl_kernel *k, int q, int a, int on)
{
    scl_status s = SCL_OK;
    for (int p = 0; p < 4 && s == SCL_OK; p++) {
        char name[16];
        int t = (a + 1 + (p & 1)) % 3;
        snprintf(name, sizeof name, "p%c%c%c", p < 2 ? 'h' : 'e', comp[t], comp[a]);
        scl_stream *now = f->psi[a][p], *next = p < 2 ? f->psi_h2[a][p] : NULL;
        if (p < 2 && q == 1) {
            scl_stream *x = now;
            now = next;
            next = x;
        }
        s = scl_kernel_set_stream(k, name, on ? (p < 2 ? next : now) : f->dummy);
        if (s == SCL_OK && p < 2) {
            strcat(name, "_i");
            s = scl_kernel_set_stream(k, name, on ? now : f->dummy);
        }
    }
    return s;
}

/* The fused kernel of parity q, with the CPML folded in (cpml 1), none (0),
 * or that of the x slabs only, beside the y/z shell of cpml=4 and 5 (2). */
static scl_status make_fused(scl_fdtd *f, const char *options, int q, int cpml, scl_kernel **out_k)
{
    const scl_grid3d *g = &f->m->grid;
    int n[3] = {g->nx, g->ny, g->nz};
    scl_stream **in = f->fld[q], **out = f->fld[1 - q];
    char opts[384];
    snprintf(opts, sizeof opts, "%s -DCPML_X=%d -DCPML_Y=%d -DCPML_Z=%d -DSHELL_YZ=%d", options,
             cpml && f->T[0], cpml == 1 && f->T[1], cpml == 1 && f->T[2], cpml == 2);
    scl_status s = scl_kernel_create(f->ctx, "fdtd", "fdtd_fused", opts, out_k);
    if (s != SCL_OK)
        return s;
    scl_kernel *k = *out_k;
    if (cpml) /* profiled apart from the build without the CPML code */
        scl_kernel_set_label(k, cpml == 1 ? "fdtd_fused_cpml" : "fdtd_fused_xcpml");
    for (int c = 0; c < 3 && s == SCL_OK; c++) {
        s = scl_kernel_set_stream(k, fe[c], out[c]);
        if (s == SCL_OK) s = scl_kernel_set_stream(k, fh[c], out[3 + c]);
        if (s == SCL_OK) s = scl_kernel_set_stream(k, fei[c], in[c]);
        if (s == SCL_OK) s = scl_kernel_set_stream(k, fhi[c], in[3 + c]);
    }
    if (s == SCL_OK)
        s = bind_common(f, k);
    int off = 0;
    for (int a = 0; a < 3 && s == SCL_OK; a++) {
        s = bind_fused_psi(f, k, q, a, cpml && f->T[a] && (cpml == 1 || a == 0));
        char name[8];
        snprintf(name, sizeof name, "cp%c", comp[a]);
        if (s == SCL_OK) s = scl_kernel_set_int(k, name, off);
        snprintf(name, sizeof name, "lo%c", comp[a]);
        if (s == SCL_OK) s = scl_kernel_set_int(k, name, f->m->pml[a]);
        snprintf(name, sizeof name, "hi%c", comp[a]);
        if (s == SCL_OK) s = scl_kernel_set_int(k, name, f->m->pml[a + 3]);
        /* the x-only build: no y, z edges (its part 2 walks are the x edge ones) */
        snprintf(name, sizeof name, "t%c", comp[a]);
        if (s == SCL_OK) s = scl_kernel_set_int(k, name, cpml == 2 && a ? 0 : f->T[a]);
        if (f->T[a])
            off += 6 * (n[a] + 1);
    }
    if (s == SCL_OK)
        s = scl_kernel_set_stream(k, "cp", cpml && f->cp ? f->cp : f->dummy);
    static const char *list[10] = {"ngx", "ngy", "ngz", "xl", "xh", "yl", "yh", "zl", "zh", "part"};
    for (int a = 0; a < 10 && s == SCL_OK; a++) /* set per launch */
        s = scl_kernel_set_int(k, list[a], 0);
    return s;
}

/* A separate H (electric 0) or E (1) kernel: its target component set t,
 * that set's input and the other field's set, over the whole domain. */
static scl_status make_update(scl_fdtd *f, const char *options, int electric, scl_stream **t,
                              scl_stream **ti, scl_stream **o, scl_kernel **out)
{
    scl_status s = scl_kernel_create(f->ctx, "fdtd", electric ? "fdtd_e" : "fdtd_h", options, out);
    const char *const *tn = electric ? fe : fh, *const *tin = electric ? fei : fhi;
    const char *const *on = electric ? fh : fe;
    for (int c = 0; c < 3 && s == SCL_OK; c++) {
        s = scl_kernel_set_stream(*out, tn[c], t[c]);
        if (s == SCL_OK) s = scl_kernel_set_stream(*out, tin[c], ti[c]);
        if (s == SCL_OK) s = scl_kernel_set_stream(*out, on[c], o[c]);
    }
    const scl_grid3d *g = &f->m->grid;
    int zero[3] = {0, 0, 0}, m[3] = {g->nx, g->ny, g->nz};
    if (s == SCL_OK)
        s = bind_common(f, *out);
    if (s == SCL_OK)
        s = e_box(*out, zero, m);
    return s;
}

/* Main kernels of parity q: inputs fld[q], outputs fld[1-q]. */
static scl_status make_main(scl_fdtd *f, const char *options, int q)
{
    scl_stream **in = f->fld[q], **out = f->fld[1 - q];
    scl_status s;
    if (f->fused) {
        s = make_fused(f, options, q, f->any_cpml, &f->kf[q]);
        if (s == SCL_OK && f->any_cpml)
            s = make_fused(f, options, q, 0, &f->kfs[q]);
        if (s == SCL_OK && f->any_cpml)
            s = make_fused(f, options, q, 2, &f->kfx[q]);
        if (s != SCL_OK || !f->any_cpml)
            return s; /* without CPML the fused kernel is the whole step */
    } else if ((s = make_update(f, options, 0, out + 3, in + 3, in, &f->kh[q])) != SCL_OK)
        return s;
    /* E from E_in and H_out: the whole domain (separate) or the CPML slabs (fused) */
    return make_update(f, options, 1, out, in, out + 3, &f->ke[q]);
}

/* cpml=3: the H and E shell kernels of parity q (fdtd.cl, fdtd_shell_h/e)
 * over the folded state's psi streams (their own layout there), the shell
 * planes per axis (the E shell one more on a low face with CPML) and the
 * work-items of each launch. yz (cpml=4): the builds over the y and z slabs
 * only (SHELL_YZ), x given as the fused kernel has it (its slab cells; the
 * x psi in its layout, the H x psi of step n+1 being the fused pass's). */
static scl_status make_shell(scl_fdtd *f, const char *options, int q, int yz)
{
    const scl_grid3d *g = &f->m->grid;
    int n[3] = {g->nx, g->ny, g->nz};
    scl_stream **in = f->fld[q], **out = f->fld[1 - q];
    scl_status s = SCL_OK;
    char opts[384];
    snprintf(opts, sizeof opts, "%s -DSHELL_YZ=%d", options, yz);
    for (int e = 0; e < 2 && s == SCL_OK; e++) {
        scl_kernel **k = yz ? (e ? &f->key[q] : &f->ksy[q]) : (e ? &f->kse[q] : &f->ksh[q]);
        s = scl_kernel_create(f->ctx, "fdtd", e ? "fdtd_shell_e" : "fdtd_shell_h", opts, k);
        if (s == SCL_OK && yz)
            scl_kernel_set_label(*k, e ? "fdtd_shell_e_yz" : "fdtd_shell_h_yz");
        for (int c = 0; c < 3 && s == SCL_OK; c++) {
            s = scl_kernel_set_stream(*k, fh[c], out[3 + c]); /* H after the step */
            if (s == SCL_OK) /* E: before the step (H), after it and before (E) */
                s = scl_kernel_set_stream(*k, fe[c], e ? out[c] : in[c]);
            if (s == SCL_OK && e)
                s = scl_kernel_set_stream(*k, fei[c], in[c]);
        }
        if (s == SCL_OK)
            s = bind_common(f, *k);
        int off = 0, sl[3];
        for (int a = 0; a < 3 && s == SCL_OK; a++) {
            for (int p = 2 * e; p < 2 * e + 2 && s == SCL_OK; p++) {
                char name[8];
                snprintf(name, sizeof name, "p%c%c%c", e ? 'e' : 'h', comp[(a + 1 + (p & 1)) % 3], comp[a]);
                s = scl_kernel_set_stream(*k, name, f->T[a] ? f->psi[a][p] : f->dummy);
            }
            int xin = yz && a == 0; /* x as the fused kernel has it, no x part */
            int lo = f->T[a] ? f->lo[a] + (e && !xin && f->lo[a] > 0) : 0, hi = f->T[a] ? f->hi[a] : 0;
            sl[a] = xin ? 0 : lo + hi;
            char name[8];
            snprintf(name, sizeof name, "cp%c", comp[a]);
            if (s == SCL_OK) s = scl_kernel_set_int(*k, name, off);
            snprintf(name, sizeof name, "lo%c", comp[a]);
            if (s == SCL_OK) s = scl_kernel_set_int(*k, name, lo);
            snprintf(name, sizeof name, "hi%c", comp[a]);
            if (s == SCL_OK) s = scl_kernel_set_int(*k, name, hi);
            if (f->T[a])
                off += 6 * (n[a] + 1);
        }
        if (s == SCL_OK)
            s = scl_kernel_set_stream(*k, "cp", f->cp);
        /* the z part and the y part in rows of px, the x part lo + hi per row */
        size_t cy = (size_t)(n[1] - sl[1]), cz = (size_t)(n[2] - sl[2]);
        (yz ? f->yz_n : f->shell_n)[e] =
            (size_t)g->px * ((size_t)n[1] * sl[2] + sl[1] * cz) + (size_t)sl[0] * cy * cz;
    }
    return s;
}

static scl_status run_steps(scl_fdtd *f, long steps);
static scl_status step_overlap(scl_fdtd *f);

/* The CPML kernels of axis a and parity q: pair 0/1 magnetic (H_b <- +dE_d,
 * H_d <- -dE_b; targets H_out, sources E_in), 2/3 electric (E_b <- -dH_d,
 * E_d <- +dH_b; targets E_out, sources H_out), with the target's ranges. */
/* The arguments of CPML kernel k of axis a, pair p (0, 1: H; 2, 3: E),
 * parity q, over the box lo..hi. */
static scl_status bind_cpml(scl_fdtd *f, scl_kernel *k, int a, int p, int q, const int lo[3],
                            const int hi[3])
{
    const scl_grid3d *g = &f->m->grid;
    int n[3] = {g->nx, g->ny, g->nz};
    long st[3] = {1, g->px, g->px * g->py};
    double d[3] = {g->dx, g->dy, g->dz};
    int electric = p >= 2, pair = p & 1, b = (a + 1) % 3, dd = (a + 2) % 3;
    int tcomp = pair == 0 ? b : dd, fcomp = pair == 0 ? dd : b, pset = electric ? 0 : 3;
    scl_stream **in = f->fld[q], **out = f->fld[1 - q];
    const char *const sname[8] = {"t", "s", "psi", "ids", "coef", "kinv", "pb", "pc"};
    scl_stream *const sval[8] = {electric ? out[tcomp] : out[3 + tcomp],
                                 electric ? out[3 + fcomp] : in[fcomp],
                                 f->psi[a][p],
                                 f->id[electric ? tcomp : 3 + tcomp],
                                 f->coef[electric ? 1 : 3],
                                 f->prof[a][pset],
                                 f->prof[a][pset + 1],
                                 f->prof[a][pset + 2]};
    int e[3] = {n[0] + 1, n[1] + 1, n[2] + 1};
    e[a] = f->T[a];
    const char *const iname[19] = {"axis", "planes", "lo_cells", "hi_cells", "na",  "sa",  "e0",
                                   "e1",   "lo0",    "hi0",      "lo1",      "hi1", "lo2", "hi2",
                                   "base", "px",     "pxy",      "electric", NULL};
    const int ival[18] = {a,      f->T[a], f->lo[a], f->hi[a], n[a],   (int)st[a],
                          e[0],   e[1],    lo[0],    hi[0],    lo[1],  hi[1],
                          lo[2],  hi[2],   (int)scl_grid3d_index(g, 0, 0, 0),
                          (int)g->px, (int)(g->px * g->py), electric};
    scl_status s = SCL_OK;
    for (int i = 0; i < 8 && s == SCL_OK; i++)
        s = scl_kernel_set_stream(k, sname[i], sval[i]);
    for (int i = 0; iname[i] && s == SCL_OK; i++)
        s = scl_kernel_set_int(k, iname[i], ival[i]);
    if (s == SCL_OK)
        s = scl_kernel_set_real(k, "ra", 1 / d[a]);
    if (s == SCL_OK) /* the sign of the curl term the pair corrects */
        s = scl_kernel_set_real(k, "sign", (pair == 0) == electric ? -1 : 1);
    return s;
}

static scl_status make_cpml(scl_fdtd *f, const char *options, int a, int q)
{
    const scl_grid3d *g = &f->m->grid;
    int n[3] = {g->nx, g->ny, g->nz};
    int b = (a + 1) % 3, dd = (a + 2) % 3;
    int lo_node[3];
    for (int x = 0; x < 3; x++)
        lo_node[x] = f->m->periodic[x] || f->sub_lo[x] ? 0 : 1;
    size_t cells = (size_t)f->T[a] * (n[b] + 1) * (n[dd] + 1);
    scl_status s = SCL_OK;
    for (int p = 0; p < 4 && s == SCL_OK; p++) {
        int electric = p >= 2, tcomp = (p & 1) == 0 ? b : dd;
        int lo[3], hi[3];
        for (int x = 0; x < 3; x++) {
            int half = electric ? (x == tcomp) : (x != tcomp);
            lo[x] = half ? 0 : lo_node[x];
            hi[x] = n[x] - 1;
        }
        if (f->split >= 0) {
            f->cut_lo[a][p] = lo[f->split];
            f->cut_hi[a][p] = hi[f->split];
        }
        if (!f->psi[a][p]) { /* psi is shared by both parities */
            char label[32];
            snprintf(label, sizeof label, "fdtd.psi%c%d", "xyz"[a], p);
            s = scl_stream_create(f->ctx, label, f->rt, cells, 1, 1, 0, &f->psi[a][p]);
            if (s == SCL_OK)
                s = scl_stream_fill(f->psi[a][p], zero_of(f));
        }
        if (s == SCL_OK)
            s = scl_kernel_create(f->ctx, "fdtd", "fdtd_cpml", options, &f->kp[q][a][p]);
        if (s == SCL_OK)
            s = bind_cpml(f, f->kp[q][a][p], a, p, q, lo, hi);
    }
    return s;
}

/* Work-items (x - 1, y, z chunk of kz planes): x starts one before the box so
 * that a work-group's row starts on the aligned first element of the padded
 * row (the halo point), the work-item there returning at once. */
static scl_status launch_box(scl_kernel *k, const int o[3], const int m[3], const int w[3])
{
    size_t local[3] = {(size_t)w[0], (size_t)w[1], 1};
    size_t global[3] = {(size_t)(m[0] - o[0] + 1), (size_t)(m[1] - o[1]),
                        (size_t)((m[2] - o[2] + w[2] - 1) / w[2])};
    scl_status s = scl_kernel_set_int(k, "kz", w[2]);
    return s == SCL_OK ? scl_kernel_launch(k, 3, global, local, NULL) : s;
}

/* The fused kernel over the box, all walks (part 0) or the interior ones (1). */
static scl_status fused_box(scl_kernel *k, int part, const int w[3], const int m[3])
{
    static const int o[3] = {0, 0, 0};
    scl_status s = scl_kernel_set_int(k, "part", part);
    return s == SCL_OK ? launch_box(k, o, m, w) : s;
}

/* Work-groups along one axis that hold an edge walk (as the kernel decides
 * per work-item: within lo + 1 of the low end or hi of the high end; first
 * points 'first' apart from -1 or 0, 'width' wide, up to n): [0, *l) and
 * [*h, ng). All groups when the two sets would not be a prefix and a suffix. */
static int edge_groups(int n, int lo, int hi, int has, int first, int width, int ng, int *l, int *h)
{
    int *edge = malloc(sizeof(int) * (size_t)ng);
    if (!edge)
        return -1;
    for (int gi = 0; gi < ng; gi++) {
        int a = gi * width + first, b = a + width - 1; /* the group's points, clipped */
        a = a < 0 ? 0 : a;
        b = b > n - 1 ? n - 1 : b;
        edge[gi] = has && a <= b && (a <= lo + 1 || b >= n - hi);
    }
    *l = 0;
    while (*l < ng && edge[*l])
        (*l)++;
    *h = ng;
    while (*h > *l && edge[*h - 1])
        (*h)--;
    for (int gi = *l; gi < *h; gi++)
        if (edge[gi]) { /* not a prefix and a suffix: take all */
            *l = *h = ng;
            break;
        }
    free(edge);
    return 0;
}

/* The fused kernel with the CPML code over the work-groups of edge walks
 * only (part 2), one dimension over the groups of the list; x_only: the
 * walks at the x slabs only (cpml=5's x-only build). */
static scl_status fused_edges(scl_fdtd *f, scl_kernel *k, const int w[3], int x_only)
{
    const scl_grid3d *g = &f->m->grid;
    const int *p = f->m->pml;
    int ng[3] = {(g->nx + 1 + w[0] - 1) / w[0], (g->ny + w[1] - 1) / w[1], (g->nz + w[2] - 1) / w[2]};
    int l[3], h[3];
    if (edge_groups(g->nx, p[0], p[3], f->T[0] > 0, -1, w[0], ng[0], &l[0], &h[0]) ||
        edge_groups(g->ny, p[1], p[4], f->T[1] > 0 && !x_only, 0, w[1], ng[1], &l[1], &h[1]))
        return fail(f, SCL_ERR_MEMORY, "out of host memory");
    /* z: walks of kz planes; an edge walk starts within lo + 1 or ends in the high slab */
    int lz = 0, hz = ng[2];
    if (f->T[2] && !x_only) {
        while (lz < ng[2] && lz * w[2] <= p[2] + 1)
            lz++;
        while (hz > lz && ((hz - 1) * w[2] + w[2] < g->nz ? (hz - 1) * w[2] + w[2] : g->nz) - 1 >= g->nz - p[5])
            hz--;
    }
    long groups = (long)(lz + ng[2] - hz) * ng[1] * ng[0] +
                  (long)(hz - lz) * (l[1] + ng[1] - h[1]) * ng[0] +
                  (long)(hz - lz) * (h[1] - l[1]) * (l[0] + ng[0] - h[0]);
    if (groups == 0)
        return SCL_OK;
    static const char *names[10] = {"ngx", "ngy", "ngz", "xl", "xh", "yl", "yh", "zl", "zh", "part"};
    int vals[10] = {ng[0], ng[1], ng[2], l[0], h[0], l[1], h[1], lz, hz, 2};
    scl_status s = scl_kernel_set_int(k, "kz", w[2]);
    for (int a = 0; a < 10 && s == SCL_OK; a++)
        s = scl_kernel_set_int(k, names[a], vals[a]);
    size_t local[3] = {(size_t)w[0], (size_t)w[1], 1};
    size_t global[3] = {(size_t)groups * (size_t)w[0], (size_t)w[1], 1};
    return s == SCL_OK ? scl_kernel_launch(k, 3, global, local, NULL) : s;
}

/* The CPML kernels of one field (H or E) of parity q; in a sub-domain with
 * the cut axis's range clipped to [r0, r1] (the part of an overlapped step;
 * every launch there sets it). */
static scl_status launch_cpml_part(scl_fdtd *f, int q, int electric, int r0, int r1)
{
    static const char *ln[3] = {"lo0", "lo1", "lo2"}, *hn[3] = {"hi0", "hi1", "hi2"};
    const scl_grid3d *g = &f->m->grid;
    int n[3] = {g->nx, g->ny, g->nz}, c = f->split;
    for (int a = 0; a < 3; a++) {
        if (!f->T[a])
            continue;
        size_t global[3] = {(size_t)n[0] + 1, (size_t)n[1] + 1, (size_t)n[2] + 1};
        global[a] = (size_t)f->T[a];
        /* an explicit shape: left to the driver, sizes like 513 or 22 got
         * work-groups of odd widths (uncoalesced rows, idle lanes) */
        size_t local[3] = {32, 4, 1};
        for (int p = electric * 2; p < electric * 2 + 2; p++) {
            scl_kernel *k = f->kp[q][a][p];
            scl_status s = SCL_OK;
            if (c >= 0) {
                int lo = f->cut_lo[a][p] > r0 ? f->cut_lo[a][p] : r0;
                int hi = f->cut_hi[a][p] < r1 ? f->cut_hi[a][p] : r1;
                if (lo > hi)
                    continue;
                s = scl_kernel_set_int(k, ln[c], lo);
                if (s == SCL_OK)
                    s = scl_kernel_set_int(k, hn[c], hi);
            }
            if (s == SCL_OK)
                s = scl_kernel_launch(k, 3, global, local, NULL);
            if (s != SCL_OK)
                return s;
        }
    }
    return SCL_OK;
}

/* A shell kernel over its n work-items. */
static scl_status launch_shell(scl_kernel *k, size_t n)
{
    size_t local = SHELL_WG, global = (n + local - 1) / local * local;
    return n ? scl_kernel_launch(k, 1, &global, &local, NULL) : SCL_OK;
}

/* The whole range (an overlapped step may have clipped a sub-domain's). */
static scl_status launch_cpml(scl_fdtd *f, int q, int electric)
{
    return launch_cpml_part(f, q, electric, -1, 1 << 30);
}

/* Fused path: E again in the slabs where corrected H values enter
 * (axis a: [0, lo] and [n - hi, n)), from E_in and the corrected H_out. */
static scl_status redo_e_slabs(scl_fdtd *f, int q, const int w[3])
{
    const scl_grid3d *g = &f->m->grid;
    int n[3] = {g->nx, g->ny, g->nz};
    scl_status s = SCL_OK;
    for (int a = 0; a < 3 && s == SCL_OK; a++)
        for (int side = 0; side < 2 && s == SCL_OK; side++) {
            int cells = f->m->pml[a + 3 * side];
            if (!cells)
                continue;
            int o[3] = {0, 0, 0}, m[3] = {n[0], n[1], n[2]};
            if (side == 0)
                m[a] = cells + 1 < n[a] ? cells + 1 : n[a];
            else
                o[a] = n[a] - cells;
            s = e_box(f->ke[q], o, m);
            if (s == SCL_OK)
                s = launch_box(f->ke[q], o, m, w);
        }
    if (s == SCL_OK) {
        int o[3] = {0, 0, 0}, m[3] = {n[0], n[1], n[2]};
        s = e_box(f->ke[q], o, m);
    }
    return s;
}

/* The axes whose edge walks the interior pass (part 1 of the build without
 * the CPML code) leaves to the CPML build: all (cpml=1) or x only (cpml=5). */
static scl_status interior_edges(scl_fdtd *f, scl_kernel *k, int x_only)
{
    scl_status s = scl_kernel_set_int(k, "ty", x_only ? 0 : f->T[1]);
    return s == SCL_OK ? scl_kernel_set_int(k, "tz", x_only ? 0 : f->T[2]) : s;
}

/* One step of the fields without sources and receivers (what the plan times). */
static scl_status step_fields(scl_fdtd *f, int q, const int w[3])
{
    const scl_grid3d *g = &f->m->grid;
    int o[3] = {0, 0, 0}, m[3] = {g->nx, g->ny, g->nz};
    scl_status s;
    if (f->fused && (!f->any_cpml || f->folded == 2))
        return fused_box(f->kf[q], 0, w, m); /* CPML inline, if any */
    if (f->fused && f->folded == 3) { /* every point, then the shell's corrections */
        s = fused_box(f->kfs[q], 0, w, m);
        if (s == SCL_OK)
            s = launch_shell(f->ksh[q], f->shell_n[0]);
        return s == SCL_OK ? launch_shell(f->kse[q], f->shell_n[1]) : s;
    }
    if (f->fused && (f->folded == 4 || f->folded == 5)) { /* x slabs inline, then the y/z shell */
        if (f->folded == 4) {
            s = fused_box(f->kfx[q], 0, w, m);
        } else { /* the walks off the x slabs without the CPML code */
            s = interior_edges(f, f->kfs[q], 1);
            if (s == SCL_OK)
                s = fused_box(f->kfs[q], 1, w, m);
            if (s == SCL_OK)
                s = fused_edges(f, f->kfx[q], w, 1);
        }
        if (s == SCL_OK)
            s = launch_shell(f->ksy[q], f->yz_n[0]);
        return s == SCL_OK ? launch_shell(f->key[q], f->yz_n[1]) : s;
    }
    if (f->fused && f->folded == 1) {
        s = interior_edges(f, f->kfs[q], 0);
        if (s == SCL_OK)
            s = fused_box(f->kfs[q], 1, w, m);
        return s == SCL_OK ? fused_edges(f, f->kf[q], w, 0) : s;
    }
    if (f->fused) {
        s = fused_box(f->kfs[q], 0, w, m);
        if (s == SCL_OK)
            s = launch_cpml(f, q, 0);
        if (s == SCL_OK)
            s = redo_e_slabs(f, q, w);
    } else {
        s = launch_box(f->kh[q], o, m, w);
        if (s == SCL_OK)
            s = launch_cpml(f, q, 0);
        if (s == SCL_OK && f->ksrch && f->hslot >= 0) { /* magnetic dipoles: on the new H */
            size_t one = 1, gs = (size_t)f->m->nsrc;
            s = scl_kernel_set_int(f->ksrch, "slot", f->hslot);
            if (s == SCL_OK)
                s = scl_kernel_launch(f->ksrch, 1, &gs, &one, NULL);
        }
        if (s == SCL_OK && f->xfn) /* sub-domain: H halo before the E update */
            s = f->xfn(f->xuser, f, 1);
        if (s == SCL_OK)
            s = launch_box(f->ke[q], o, m, w);
    }
    if (s == SCL_OK)
        s = launch_cpml(f, q, 1);
    return s;
}

static int parity(const scl_fdtd *f) { return f->fused ? (int)(f->steps & 1) : 0; }

static scl_status plan_prepare(void *user, const int *values, void **variant)
{
    scl_fdtd *f = user;
    size_t local[3] = {(size_t)values[0], (size_t)values[1], 1};
    *variant = NULL;
    f->folded = values[3];
    /* the kernels this variant launches with the shape (the CPML build has
     * more registers, so a lower work-group limit) */
    int with_cpml = f->fused && (!f->any_cpml || f->folded == 1 || f->folded == 2);
    int without = f->fused && f->any_cpml && f->folded != 2;
    size_t wg = SHELL_WG;
    int shell = f->fused && f->any_cpml && f->folded == 3;
    int xin = f->fused && f->any_cpml && (f->folded == 4 || f->folded == 5);
    without = without && f->folded != 4;
    if ((f->fused ? 0 : scl_kernel_check_local(f->kh[0], 3, local) != SCL_OK) ||
        (shell && (scl_kernel_check_local(f->ksh[0], 1, &wg) != SCL_OK ||
                   scl_kernel_check_local(f->kse[0], 1, &wg) != SCL_OK)) ||
        (xin && (scl_kernel_check_local(f->kfx[0], 3, local) != SCL_OK ||
                 scl_kernel_check_local(f->ksy[0], 1, &wg) != SCL_OK ||
                 scl_kernel_check_local(f->key[0], 1, &wg) != SCL_OK)) ||
        (with_cpml && scl_kernel_check_local(f->kf[0], 3, local) != SCL_OK) ||
        (without && scl_kernel_check_local(f->kfs[0], 3, local) != SCL_OK) ||
        ((!f->fused || f->folded == 0) && f->ke[0] &&
         scl_kernel_check_local(f->ke[0], 3, local) != SCL_OK)) {
        if (f->recording && values[3] >= 0 && values[3] < NVAR) {
            f->var_refused[values[3]]++;
            snprintf(f->var_why[values[3]], sizeof f->var_why[0], "%s", scl_last_error(f->ctx));
        }
        scl_clear_error(f->ctx);
        return SCL_ERR_UNSUPPORTED;
    }
    return SCL_OK;
}

static scl_status plan_run(void *user, void *variant, const int *values)
{
    (void)variant;
    scl_fdtd *f = user;
    f->folded = values[3];
    scl_status s = step_fields(f, parity(f), values);
    if (f->fused)
        f->steps++; /* keeps the ping-pong in step; reset after planning */
    return s;
}

void scl_fdtd_free(scl_fdtd *f)
{
    if (!f)
        return;
    scl_plan_free(f->plan);
    for (int c = 0; c < 6; c++) {
        if (f->fld[1][c] != f->fld[0][c])
            scl_stream_free(f->fld[1][c]);
        scl_stream_free(f->fld[0][c]);
        scl_stream_free(f->id[c]);
    }
    for (int c = 0; c < 4; c++)
        scl_stream_free(f->coef[c]);
    for (int q = 0; q < 2; q++) {
        scl_kernel_free(f->kh[q]);
        scl_kernel_free(f->ke[q]);
        scl_kernel_free(f->kf[q]);
        scl_kernel_free(f->kfs[q]);
        scl_kernel_free(f->ksh[q]);
        scl_kernel_free(f->kse[q]);
        scl_kernel_free(f->kfx[q]);
        scl_kernel_free(f->ksy[q]);
        scl_kernel_free(f->key[q]);
        scl_kernel_free(f->ksrc[q]);
        scl_kernel_free(f->krec[q]);
        for (int a = 0; a < 3; a++)
            for (int p = 0; p < 4; p++)
                scl_kernel_free(f->kp[q][a][p]);
    }
    for (int a = 0; a < 3; a++) {
        for (int p = 0; p < 4; p++)
            scl_stream_free(f->psi[a][p]);
        for (int p = 0; p < 2; p++)
            scl_stream_free(f->psi_h2[a][p]);
        for (int p = 0; p < 6; p++)
            scl_stream_free(f->prof[a][p]);
        scl_cpml_axis_free(&f->ax[a]);
    }
    scl_stream_free(f->cp);
    scl_stream_free(f->dummy);
    scl_kernel_free(f->kpl[0]);
    scl_kernel_free(f->kpl[1]);
    scl_stream_free(f->halo);
    if (f->pinned_ptr)
        scl_stream_unmap(f->pinned, f->pinned_ptr);
    scl_stream_free(f->pinned);
    scl_stream *ds[7] = {f->d_off, f->d_comp, f->d_mat, f->d_np, f->d_dc, f->d_T, f->d_phi};
    for (int q = 0; q < 7; q++)
        scl_stream_free(ds[q]);
    scl_kernel_free(f->kda);
    scl_kernel_free(f->kdapply);
    scl_kernel_free(f->kdb);
    scl_stream_free(f->src_off);
    scl_stream_free(f->src_pol);
    scl_stream_free(f->src_hard);
    scl_stream_free(f->src_amp);
    scl_stream_free(f->src_val);
    scl_kernel_free(f->ksrch);
    fdtd_tline_dev_free(f->tl);
    scl_stream_free(f->src_mamp);
    scl_stream_free(f->src_mhard);
    scl_stream_free(f->msrc_val);
    free(f->mstage);
    scl_stream_free(f->rx_off);
    scl_stream_free(f->rx_out);
    free(f->stage);
    free(f->rec);
    free(f);
}

/* The source tables at the model's positions: offsets, polarisations and
 * hard flags (off, 3 nsrc), the E sources' amplitude (cb of the edge's
 * material) and the magnetic dipoles' (gprMax's 1/HA: db of the H
 * component's material), each 0 for the other kind. */
static int source_tables(const scl_fdtd_model *m, int *off, double *amp, double *mamp)
{
    double *co = malloc(sizeof(double) * 4 * (size_t)m->nmat);
    if (!co)
        return -1;
    scl_fdtd_coefficients(m, co, co + m->nmat, co + 2 * m->nmat, co + 3 * m->nmat);
    for (int q = 0; q < m->nsrc; q++) {
        const scl_fdtd_source *src = &m->src[q];
        long o = scl_grid3d_index(&m->grid, src->ijk[0], src->ijk[1], src->ijk[2]);
        int mag = src->kind == SCL_FDTD_MAGNETIC;
        off[q] = (int)o;
        off[m->nsrc + q] = src->pol;
        off[2 * m->nsrc + q] = src->kind == SCL_FDTD_VOLTAGE && src->resistance == 0;
        amp[q] = mag ? 0 : co[m->nmat + m->id[src->pol][o]];
        mamp[q] = mag ? co[3 * m->nmat + m->id[3 + src->pol][o]] : 0;
    }
    free(co);
    return 0;
}

/* The source kernel acting on fields c0..c0+2 of buffer set b. */
static scl_status bind_source(scl_fdtd *f, scl_kernel *k, int b, int c0, scl_stream *hard,
                              scl_stream *amp, scl_stream *val)
{
    scl_status s = SCL_OK;
    for (int c = 0; c < 3 && s == SCL_OK; c++)
        s = scl_kernel_set_stream(k, fe[c], f->fld[b][c0 + c]);
    if (s == SCL_OK) s = scl_kernel_set_stream(k, "offset", f->src_off);
    if (s == SCL_OK) s = scl_kernel_set_stream(k, "pol", f->src_pol);
    if (s == SCL_OK) s = scl_kernel_set_stream(k, "hard", hard);
    if (s == SCL_OK) s = scl_kernel_set_stream(k, "amp", amp);
    if (s == SCL_OK) s = scl_kernel_set_stream(k, "values", val);
    if (s == SCL_OK) s = scl_kernel_set_int(k, "nsrc", f->m->nsrc);
    return s;
}

static scl_status make_sources(scl_fdtd *f, const char *options)
{
    const scl_fdtd_model *m = f->m;
    size_t n = (size_t)m->nsrc;
    int *off = malloc(3 * sizeof(int) * n);
    double *amp = malloc(2 * sizeof(double) * n);
    if (!off || !amp || source_tables(m, off, amp, amp + n) != 0) {
        free(off);
        free(amp);
        return fail(f, SCL_ERR_MEMORY, "out of host memory");
    }
    for (int q = 0; q < m->nsrc; q++)
        f->nmag += m->src[q].kind == SCL_FDTD_MAGNETIC;
    scl_status s = upload_int(f, "fdtd.src", off, n, &f->src_off);
    if (s == SCL_OK) s = upload_int(f, "fdtd.src", off + n, n, &f->src_pol);
    if (s == SCL_OK) s = upload_int(f, "fdtd.src", off + 2 * n, n, &f->src_hard);
    if (s == SCL_OK) s = upload_real(f, "fdtd.src", amp, n, &f->src_amp);
    if (s == SCL_OK && f->nmag) {
        memset(off, 0, n * sizeof(int)); /* no hard H edges */
        s = upload_int(f, "fdtd.src", off, n, &f->src_mhard);
        if (s == SCL_OK) s = upload_real(f, "fdtd.src", amp + n, n, &f->src_mamp);
    }
    free(off);
    free(amp);
    if (s == SCL_OK)
        s = scl_stream_create(f->ctx, "fdtd.srcval", f->rt, n * CHUNK, 1, 1, 0, &f->src_val);
    for (int q = 0; q < 1 + f->fused && s == SCL_OK; q++) { /* sources act on the new E */
        s = scl_kernel_create(f->ctx, "fdtd", "fdtd_source", options, &f->ksrc[q]);
        if (s == SCL_OK)
            s = bind_source(f, f->ksrc[q], 1 - q, 0, f->src_hard, f->src_amp, f->src_val);
    }
    if (s == SCL_OK && f->nmag) {
        f->mstage = malloc(n * CHUNK * f->rs);
        if (!f->mstage)
            return fail(f, SCL_ERR_MEMORY, "out of host memory");
        s = scl_stream_create(f->ctx, "fdtd.srcval", f->rt, n * CHUNK, 1, 1, 0, &f->msrc_val);
        if (s == SCL_OK)
            s = scl_kernel_create(f->ctx, "fdtd", "fdtd_source", options, &f->ksrch);
        if (s == SCL_OK)
            s = bind_source(f, f->ksrch, 0, 3, f->src_mhard, f->src_mamp, f->msrc_val);
    }
    return s;
}

static scl_status make_receivers(scl_fdtd *f, const char *options)
{
    const scl_fdtd_model *m = f->m;
    const scl_grid3d *g = &m->grid;
    int *off = malloc(sizeof(int) * (size_t)m->nrx);
    if (!off)
        return fail(f, SCL_ERR_MEMORY, "out of host memory");
    for (int r = 0; r < m->nrx; r++)
        off[r] = (int)scl_grid3d_index(g, m->rx_ijk[r][0], m->rx_ijk[r][1], m->rx_ijk[r][2]);
    scl_status s = upload_int(f, "fdtd.rx", off, (size_t)m->nrx, &f->rx_off);
    free(off);
    if (s == SCL_OK)
        s = scl_stream_create(f->ctx, "fdtd.rxout", f->rt, (size_t)m->nrx * 6 * CHUNK, 1, 1, 0, &f->rx_out);
    for (int q = 0; q < 1 + f->fused && s == SCL_OK; q++) {
        s = scl_kernel_create(f->ctx, "fdtd", "fdtd_record", options, &f->krec[q]);
        for (int c = 0; c < 3 && s == SCL_OK; c++) { /* receivers read the current state */
            s = scl_kernel_set_stream(f->krec[q], fe[c], f->fld[q][c]);
            if (s == SCL_OK)
                s = scl_kernel_set_stream(f->krec[q], fh[c], f->fld[q][3 + c]);
        }
        if (s == SCL_OK) s = scl_kernel_set_stream(f->krec[q], "offset", f->rx_off);
        if (s == SCL_OK) s = scl_kernel_set_stream(f->krec[q], "out", f->rx_out);
        if (s == SCL_OK) s = scl_kernel_set_int(f->krec[q], "nrx", m->nrx);
    }
    return s;
}

static scl_status reset_state(scl_fdtd *f)
{
    scl_status s = SCL_OK;
    for (int q = 0; q < 2; q++)
        for (int c = 0; c < 6 && s == SCL_OK; c++)
            s = scl_stream_fill(f->fld[q][c], zero_of(f));
    for (int a = 0; a < 3; a++)
        for (int p = 0; p < 4 && s == SCL_OK; p++) {
            if (f->psi[a][p])
                s = scl_stream_fill(f->psi[a][p], zero_of(f));
            if (s == SCL_OK && p < 2 && f->psi_h2[a][p])
                s = scl_stream_fill(f->psi_h2[a][p], zero_of(f));
        }
    if (s == SCL_OK && f->d_T)
        s = scl_stream_fill(f->d_T, zero_of(f));
    if (s == SCL_OK && f->tl) /* at the model's positions now (a B-scan's trace) */
        s = fdtd_tline_dev_reset(f->tl);
    f->steps = 0;
    return s;
}

/* The dispersive points, their state and the three Debye kernels. */
static scl_status make_debye(scl_fdtd *f, const char *options)
{
    const scl_fdtd_model *m = f->m;
    int *off;
    unsigned char *cmp;
    long n = scl_fdtd_dispersive_points(m, &off, &cmp);
    if (n < 0)
        return fail(f, SCL_ERR_MEMORY, "out of host memory");
    f->ndisp = n;
    if (n == 0)
        return SCL_OK;
    unsigned char *mat = malloc((size_t)n);
    int *np = malloc(sizeof(int) * (size_t)m->nmat);
    double *dc = calloc((size_t)m->nmat * SCL_FDTD_MAX_POLES * 6, sizeof(double));
    scl_status s = SCL_OK;
    if (!mat || !np || !dc)
        s = fail(f, SCL_ERR_MEMORY, "out of host memory");
    for (long i = 0; i < n && s == SCL_OK; i++)
        mat[i] = m->id[cmp[i]][off[i]];
    for (int q = 0; q < m->nmat && s == SCL_OK; q++) {
        np[q] = m->mat[q].npoles;
        for (int p = 0; p < np[q]; p++)
            scl_fdtd_pole_coefficients(m, q, p, dc + ((size_t)q * SCL_FDTD_MAX_POLES + p) * 6);
    }
    if (s == SCL_OK) s = upload_int(f, "fdtd.debye", off, (size_t)n, &f->d_off);
    if (s == SCL_OK) s = scl_stream_create(f->ctx, "fdtd.debye", SCL_UCHAR, (size_t)n, 1, 1, 0, &f->d_comp);
    if (s == SCL_OK) s = scl_stream_write(f->d_comp, cmp, 1, NULL);
    if (s == SCL_OK) s = scl_stream_create(f->ctx, "fdtd.debye", SCL_UCHAR, (size_t)n, 1, 1, 0, &f->d_mat);
    if (s == SCL_OK) s = scl_stream_write(f->d_mat, mat, 1, NULL);
    if (s == SCL_OK) s = upload_int(f, "fdtd.debye", np, (size_t)m->nmat, &f->d_np);
    if (s == SCL_OK)
        s = upload_real(f, "fdtd.debye", dc, (size_t)m->nmat * SCL_FDTD_MAX_POLES * 6, &f->d_dc);
    if (s == SCL_OK)
        s = scl_stream_create(f->ctx, "fdtd.debye.T", f->rt, (size_t)n * SCL_FDTD_MAX_POLES * 2, 1, 1, 0, &f->d_T);
    if (s == SCL_OK) s = scl_stream_create(f->ctx, "fdtd.debye.phi", f->rt, (size_t)n, 1, 1, 0, &f->d_phi);
    free(off);
    free(cmp);
    free(mat);
    free(np);
    free(dc);
    static const char *names[3] = {"fdtd_debye_a", "fdtd_debye_apply", "fdtd_debye_b"};
    scl_kernel **ks[3] = {&f->kda, &f->kdapply, &f->kdb};
    for (int q = 0; q < 3 && s == SCL_OK; q++) {
        s = scl_kernel_create(f->ctx, "fdtd", names[q], options, ks[q]);
        scl_kernel *k = *ks[q];
        for (int c = 0; c < 3 && s == SCL_OK; c++)
            s = scl_kernel_set_stream(k, fe[c], f->fld[0][c]);
        if (s == SCL_OK) s = scl_kernel_set_stream(k, "off", f->d_off);
        if (s == SCL_OK) s = scl_kernel_set_stream(k, "comp", f->d_comp);
        if (s == SCL_OK) s = scl_kernel_set_stream(k, "mat", f->d_mat);
        if (s == SCL_OK) s = scl_kernel_set_int(k, "n", (int)n);
        if (s == SCL_OK && q != 1) {
            s = scl_kernel_set_stream(k, "np", f->d_np);
            if (s == SCL_OK) s = scl_kernel_set_stream(k, "dc", f->d_dc);
            if (s == SCL_OK) s = scl_kernel_set_stream(k, "T", f->d_T);
            if (s == SCL_OK) s = scl_kernel_set_int(k, "maxp", SCL_FDTD_MAX_POLES);
        }
        if (s == SCL_OK && q < 2)
            s = scl_kernel_set_stream(k, "phi", f->d_phi);
        if (s == SCL_OK && q == 1)
            s = scl_kernel_set_stream(k, "cb", f->coef[1]);
    }
    return s;
}

/* Halo planes of a sub-domain: per field (0 E, 1 H) a kernel over the
 * padded plane across the cut axis, its two tangential components, and a
 * staging stream of one plane of both. */
static scl_status make_halo(scl_fdtd *f, const char *options)
{
    const scl_grid3d *g = &f->m->grid;
    int a = f->split, b = (a + 1) % 3, d = (a + 2) % 3;
    long ext[3] = {g->px, g->py, g->pz}, st[3] = {1, g->px, g->px * g->py};
    int c0 = b < d ? b : d, c1 = b < d ? d : b; /* the plane's axes, x fastest */
    f->halo_n = 2 * (size_t)ext[c0] * (size_t)ext[c1];
    scl_status s = scl_stream_create(f->ctx, "fdtd.halo", f->rt, f->halo_n, 1, 1, 0, &f->halo);
    /* pinned host memory for the planes on their way: a copy from pageable
     * memory is staged by the driver at a fraction of the bus speed */
    if (s == SCL_OK)
        s = scl_stream_create(f->ctx, "fdtd.halo.host", SCL_UCHAR, 2 * f->halo_n * f->rs, 1, 1,
                              SCL_STREAM_HOST_MAPPED, &f->pinned);
    if (s == SCL_OK)
        s = scl_stream_map(f->pinned, SCL_MAP_READ | SCL_MAP_WRITE, &f->pinned_ptr);
    for (int q = 0; q < 2 && s == SCL_OK; q++) {
        s = scl_kernel_create(f->ctx, "fdtd", "fdtd_plane", options, &f->kpl[q]);
        scl_kernel *k = f->kpl[q];
        if (s == SCL_OK) s = scl_kernel_set_stream(k, "a", f->fld[0][3 * q + b]);
        if (s == SCL_OK) s = scl_kernel_set_stream(k, "b", f->fld[0][3 * q + d]);
        if (s == SCL_OK) s = scl_kernel_set_stream(k, "buf", f->halo);
        if (s == SCL_OK) s = scl_kernel_set_int(k, "s0", (int)st[c0]);
        if (s == SCL_OK) s = scl_kernel_set_int(k, "s1", (int)st[c1]);
        if (s == SCL_OK) s = scl_kernel_set_int(k, "e0", (int)ext[c0]);
        if (s == SCL_OK) s = scl_kernel_set_int(k, "e1", (int)ext[c1]);
    }
    return s;
}

static scl_status launch_debye(scl_fdtd *f, scl_kernel *k)
{
    size_t local = 64, global = ((size_t)f->ndisp + local - 1) / local * local;
    return scl_kernel_launch(k, 1, &global, &local, NULL);
}

/* State of the fused kernel's inline CPML: psi of every pair (the H pairs
 * twice) and the profiles of all axes in one stream (per axis kinv, b, c at
 * nodes then at half nodes, n + 1 each). */
static scl_status make_folded_state(scl_fdtd *f)
{
    const scl_grid3d *g = &f->m->grid;
    int n[3] = {g->nx, g->ny, g->nz};
    size_t total = 0;
    scl_status s = SCL_OK;
    for (int a = 0; a < 3 && s == SCL_OK; a++) {
        if (!f->T[a])
            continue;
        /* the kernel's layout (y and z psi in rows of px), also large enough
         * for the slab kernels' (rows of nx + 1) */
        size_t cells = (size_t)f->T[a] * (n[(a + 1) % 3] + 1) * (n[(a + 2) % 3] + 1);
        if (a > 0)
            cells = cells / ((size_t)n[0] + 1) * (size_t)g->px;
        for (int p = 0; p < 6 && s == SCL_OK; p++) {
            scl_stream **st = p < 4 ? &f->psi[a][p] : &f->psi_h2[a][p - 4];
            s = scl_stream_create(f->ctx, "fdtd.psi", f->rt, cells, 1, 1, 0, st);
        }
        total += 6 * ((size_t)n[a] + 1);
    }
    double *v = s == SCL_OK ? malloc(total * sizeof(double)) : NULL;
    if (s == SCL_OK && !v)
        return fail(f, SCL_ERR_MEMORY, "out of host memory");
    size_t off = 0;
    for (int a = 0; a < 3 && s == SCL_OK; a++) {
        if (!f->T[a])
            continue;
        const double *arrays[6] = {f->ax[a].kinv_node, f->ax[a].b_node, f->ax[a].c_node,
                                   f->ax[a].kinv_half, f->ax[a].b_half, f->ax[a].c_half};
        for (int p = 0; p < 6; p++, off += (size_t)n[a] + 1)
            memcpy(v + off, arrays[p], ((size_t)n[a] + 1) * sizeof(double));
    }
    if (s == SCL_OK)
        s = upload_real(f, "fdtd.cpml", v, total, &f->cp);
    free(v);
    return s;
}

/* The plan. Fused with CPML and tuning: one plan per CPML variant (forced),
 * each tuned over the launch shape, the fastest kept, so that each variant's
 * best step, or why none of its shapes ran, can be reported; a variant that
 * fails on the device leaves the others. Otherwise one plan. */
static scl_status plan_variants(scl_fdtd *f, const scl_plan_desc *desc, const scl_fdtd_options *opt)
{
    const char *user = opt ? opt->force : NULL;
    int no_tune = opt ? opt->no_tune : 0;
    for (int v = 0; v < NVAR; v++)
        f->var_s[v] = -1;
    if (!f->fused || !f->any_cpml || no_tune || (user && strstr(user, "cpml"))) {
        scl_tune_options to = {.no_tune = no_tune, .force = user};
        return scl_plan_create(f->ctx, desc, &to, &f->plan);
    }
    static const int order[NVAR] = {1, 2, 0, 3, 4, 5}; /* the default first */
    for (int n = 0; n < NVAR; n++) {
        int v = order[n];
        char force[320];
        snprintf(force, sizeof force, "%s%scpml=%d", user ? user : "", user && *user ? "," : "", v);
        scl_tune_options to = {.force = force};
        scl_plan *plan = NULL;
        f->recording = 1;
        scl_status s = scl_plan_create(f->ctx, desc, &to, &plan);
        f->recording = 0;
        if (s != SCL_OK) {
            /* no legal shape, or a build/launch error on this device */
            char why[sizeof f->var_why[0]];
            if (f->var_refused[v] > 0) /* the tuner's message hides the refusals' */
                snprintf(why, sizeof why, "%d shapes refused, the last: %.200s", f->var_refused[v],
                         f->var_why[v]);
            else
                snprintf(why, sizeof why, "%s", scl_last_error(f->ctx));
            memcpy(f->var_why[v], why, sizeof why);
            f->var_s[v] = 0;
            scl_clear_error(f->ctx);
            continue;
        }
        if (scl_plan_seconds(plan) <= 0) {
            /* nothing timed (every shape parameter forced, or the context's
             * tuning off): no comparison, the default variant as before */
            scl_plan_free(f->plan);
            f->plan = plan;
            for (int w = 0; w < NVAR; w++)
                f->var_s[w] = -1;
            return SCL_OK;
        }
        f->var_s[v] = scl_plan_seconds(plan);
        f->var_shape[v][0] = scl_plan_value(plan, "lx", 0);
        f->var_shape[v][1] = scl_plan_value(plan, "ly", 0);
        f->var_shape[v][2] = scl_plan_value(plan, "kz", 0);
        if (!f->plan || scl_plan_seconds(plan) < scl_plan_seconds(f->plan)) {
            scl_plan_free(f->plan);
            f->plan = plan;
        } else {
            scl_plan_free(plan);
        }
    }
    if (f->plan)
        return SCL_OK;
    return scl_fail(f->ctx, SCL_ERR_UNSUPPORTED, "scl_fdtd_create",
                    "no CPML variant of the fused step runs on %s: cpml=1: %s; cpml=2: %s; cpml=0: %s; "
                    "cpml=3: %s; cpml=4: %s; cpml=5: %s",
                    scl_device(f->ctx)->name, f->var_why[1], f->var_why[2], f->var_why[0], f->var_why[3],
                    f->var_why[4], f->var_why[5]);
}

/* The field buffers (two sets for the fused kernel), the material indices,
 * the update coefficients and the CPML profiles on the device. */
static scl_status make_buffers(scl_fdtd *f)
{
    const scl_fdtd_model *m = f->m;
    const scl_grid3d *g = &m->grid;
    scl_status s = SCL_OK;
    long pts = scl_grid3d_points(g);
    static const char *names[6] = {"fdtd.ex", "fdtd.ey", "fdtd.ez", "fdtd.hx", "fdtd.hy", "fdtd.hz"};
    for (int q = 0; q < 2; q++)
        for (int c = 0; c < 6; c++) {
            if (q == 1 && !f->fused) {
                f->fld[1][c] = f->fld[0][c];
                continue;
            }
            s = scl_stream_create(f->ctx, names[c], f->rt, (size_t)g->px, (size_t)g->py,
                                  (size_t)g->pz, 0, &f->fld[q][c]);
            if (s != SCL_OK)
                return s;
        }
    for (int c = 0; c < 6; c++) {
        /* material indices: one byte per point, or a single byte when uniform */
        s = scl_stream_create(f->ctx, "fdtd.id", SCL_UCHAR, f->uniform ? 1 : (size_t)pts, 1, 1,
                              SCL_STREAM_READ_ONLY, &f->id[c]);
        if (s == SCL_OK)
            s = scl_stream_write(f->id[c], m->id[c], 1, NULL);
        if (s != SCL_OK)
            return s;
    }
    double *co = malloc(4 * (size_t)m->nmat * sizeof(double));
    if (!co)
        return fail(f, SCL_ERR_MEMORY, "out of host memory");
    scl_fdtd_coefficients(m, co, co + m->nmat, co + 2 * m->nmat, co + 3 * m->nmat);
    for (int c = 0; c < 4 && s == SCL_OK; c++)
        s = upload_real(f, "fdtd.coef", co + c * m->nmat, (size_t)m->nmat, &f->coef[c]);
    free(co);
    for (int a = 0; a < 3 && s == SCL_OK; a++) {
        if (!f->T[a])
            continue;
        const double *arrays[6] = {f->ax[a].kinv_node, f->ax[a].b_node, f->ax[a].c_node,
                                   f->ax[a].kinv_half, f->ax[a].b_half, f->ax[a].c_half};
        /* prof[0..2]: electric (node) coefficients, [3..5]: magnetic (half) */
        for (int p = 0; p < 6 && s == SCL_OK; p++)
            s = upload_real(f, "fdtd.cpml", arrays[p], (size_t)f->ax[a].n + 1, &f->prof[a][p]);
    }
    return s;
}

/* The launch shape and CPML variant: tuned per device, grid and variant,
 * cached; the fields reset after the tuner's steps. */
static scl_status tune_shape(scl_fdtd *f, const scl_fdtd_options *opt)
{
    const scl_fdtd_model *m = f->m;
    const scl_grid3d *g = &m->grid;
    scl_status s;
    /* cpml: the fused kernel's CPML inline in a kernel for the edge walks (1),
     * inline in one kernel for all (2), as slab passes (0), as shell
     * corrections (3), or the x slabs inline and the y, z shell (4; 5: the
     * x edge walks apart) */
    scl_tune_param params[4] = {{"lx", 4, {64, 32, 128, 256}},
                                {"ly", 4, {1, 2, 4, 8}},
                                {"kz", 4, {16, 1, 4, 64}},
                                {"cpml", f->fused && f->any_cpml ? NVAR : 1, {1, 2, 0, 3, 4, 5}}};
    char shape[160];
    snprintf(shape, sizeof shape, "%dx%dx%d %s %s %s 2.5D pml %d %d %d %d %d %d", g->nx, g->ny,
             g->nz, f->fp64 ? "fp64" : "fp32", f->uniform ? "uniform" : "materials",
             f->fused ? "fused" : "separate", m->pml[0], m->pml[1], m->pml[2], m->pml[3],
             m->pml[4], m->pml[5]);
    static const scl_param_rule rules[4] = {
        {.min = 1, .max = 1024, .why = "the work-group width"},
        {.min = 1, .max = 1024, .why = "the work-group height"},
        {.min = 1, .max = 4096, .why = "the z planes a work-item walks"},
        {.min = 0, .max = 5,
         .why = "the CPML scheme (0 slab passes, 1 edge walks, 2 inline, 3 shell, 4 x inline + y/z shell, 5 as 4 "
                "with the x edge walks apart)"},
    };
    scl_plan_desc desc = {.name = "fdtd.step",
                          .shape = shape,
                          .params = params,
                          .nparams = 4,
                          .prepare = plan_prepare,
                          .run_variant = plan_run,
                          .user = f,
                          .rules = rules};
    if ((s = plan_variants(f, &desc, opt)) != SCL_OK)
        return s;
    f->shape[0] = scl_plan_value(f->plan, "lx", 64);
    f->shape[1] = scl_plan_value(f->plan, "ly", 1);
    f->shape[2] = scl_plan_value(f->plan, "kz", 16);
    f->folded = scl_plan_value(f->plan, "cpml", 1);
    /* the tuner stepped the fields: start again from rest */
    if ((s = scl_finish(f->ctx)) == SCL_OK)
        s = reset_state(f);
    return s;
}

static scl_status create(scl_fdtd *f, const scl_fdtd_options *opt)
{
    const scl_fdtd_model *m = f->m;
    const scl_grid3d *g = &m->grid;
    scl_status s;
    char err[1024];
    if ((s = scl_fdtd_cpml_local(m, f->ax, f->T, f->lo, f->hi, err, sizeof err)) != SCL_OK)
        return fail(f, s, err);
    char options[256];
    f->uniform = scl_fdtd_model_uniform(m);
    snprintf(options, sizeof options, "-DFDTD_FP64=%d -DPER_X=%d -DPER_Y=%d -DPER_Z=%d", f->fp64,
             m->periodic[0], m->periodic[1], m->periodic[2]);
    for (int a = 0; a < 3; a++)
        if (f->sub_lo[a]) { /* only then: whole domains keep their kernel builds */
            size_t len = strlen(options);
            snprintf(options + len, sizeof options - len, " -DSUB_LO_%c=1", "XYZ"[a]);
        }
    if (f->uniform) {
        size_t len = strlen(options);
        snprintf(options + len, sizeof options - len, " -DUNIFORM=%d",
                 m->id[0][scl_grid3d_index(g, 0, 0, 0)]);
    }
    if ((s = make_buffers(f)) != SCL_OK)
        return s;
    f->any_cpml = f->T[0] || f->T[1] || f->T[2];
    if (s == SCL_OK)
        s = scl_stream_create(f->ctx, "fdtd.unused", f->rt, 1, 1, 1, 0, &f->dummy);
    if (s == SCL_OK && f->fused && f->any_cpml)
        s = make_folded_state(f);
    for (int q = 0; q < 1 + f->fused && s == SCL_OK; q++) {
        s = make_main(f, options, q);
        for (int a = 0; a < 3 && s == SCL_OK; a++)
            if (f->T[a])
                s = make_cpml(f, options, a, q);
        if (s == SCL_OK && f->fused && f->any_cpml)
            s = make_shell(f, options, q, 0);
        if (s == SCL_OK && f->fused && f->any_cpml)
            s = make_shell(f, options, q, 1);
    }
    if (s == SCL_OK && m->nsrc > 0)
        s = make_sources(f, options);
    if (s == SCL_OK && m->nrx > 0)
        s = make_receivers(f, options);
    if (s == SCL_OK)
        s = make_debye(f, options);
    if (s == SCL_OK && f->split >= 0)
        s = make_halo(f, options);
    if (s == SCL_OK)
        s = fdtd_tline_dev_create(f->ctx, m, f->fp64, options, f->fld, f->fused, CHUNK, &f->tl);
    if (s != SCL_OK)
        return s;
    size_t stage = (size_t)CHUNK * f->rs * (size_t)(m->nsrc > 6 * m->nrx ? m->nsrc : 6 * m->nrx);
    f->stage = malloc(stage ? stage : 1);
    if (!f->stage)
        return fail(f, SCL_ERR_MEMORY, "out of host memory");
    if ((s = reset_state(f)) != SCL_OK)
        return s;
    return tune_shape(f, opt);
}

/* The device-memory budget, checked before any buffer is made: the field
 * components (two sets for the fused kernel), the material bytes and the
 * CPML memory variables (four per axis over both slabs), against the
 * device's per-buffer limit and 90% of its memory. */
static scl_status check_fits(scl_context *ctx, const scl_fdtd_model *m, int fp64, int fused)
{
    const scl_device_info *dev = scl_device(ctx);
    const scl_grid3d *g = &m->grid;
    const double pts = (double)scl_grid3d_points(g), rs = fp64 ? 8.0 : 4.0, field = pts * rs;
    const double n[3] = {g->nx + 1.0, g->ny + 1.0, g->nz + 1.0};
    double psi = 0;
    for (int a = 0; a < 3; a++)
        psi += 4.0 * (m->pml[a] + m->pml[a + 3]) * (n[0] * n[1] * n[2] / n[a]) * rs;
    const double total = 6.0 * field * (fused ? 2 : 1) + 6.0 * pts + psi;
    if (field > (double)dev->max_alloc || total > 0.9 * (double)dev->global_mem)
        return scl_fail(ctx, SCL_ERR_TOO_LARGE, "scl_fdtd_create",
                        "a %d x %d x %d grid (%s%s) needs %.0f MiB per field buffer and %.0f MiB "
                        "in all; %s allows %.0f MiB per buffer and has %.0f MiB",
                        g->nx, g->ny, g->nz, fp64 ? "fp64" : "fp32", fused ? ", fused" : "",
                        field / 1048576.0, total / 1048576.0, dev->name,
                        (double)dev->max_alloc / 1048576.0, (double)dev->global_mem / 1048576.0);
    return SCL_OK;
}

scl_status scl_fdtd_create(scl_context *ctx, const scl_fdtd_model *m, const scl_fdtd_options *opt,
                           scl_fdtd **out)
{
    if (!ctx || !m || !out || !m->id[0])
        return scl_fail(ctx, SCL_ERR_ARGUMENT, "scl_fdtd_create",
                        "NULL context/model/out or model not finished");
    *out = NULL;
    int fp64 = opt && opt->fp64;
    if (fp64 && !scl_device(ctx)->fp64)
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_fdtd_create", "device %s has no fp64",
                        scl_device(ctx)->name);
    scl_status fits = check_fits(ctx, m, fp64, opt && opt->kernel == SCL_FDTD_FUSED);
    if (fits != SCL_OK)
        return fits;
    scl_fdtd *f = calloc(1, sizeof *f);
    if (!f)
        return scl_fail(ctx, SCL_ERR_MEMORY, "scl_fdtd_create", "out of host memory");
    f->ctx = ctx;
    f->m = m;
    f->fp64 = fp64;
    f->rt = fp64 ? SCL_DOUBLE : SCL_FLOAT;
    f->rs = fp64 ? sizeof(double) : sizeof(float);
    f->fused = opt && opt->kernel == SCL_FDTD_FUSED;
    int poles = 0, mag = 0;
    for (int q = 0; q < m->nmat; q++)
        poles |= m->mat[q].npoles > 0;
    for (int q = 0; q < m->nsrc; q++)
        mag |= m->src[q].kind == SCL_FDTD_MAGNETIC;
    if ((f->fused && (poles || mag)) || (mag && (m->grid.nx != m->grid.gnx || m->grid.ny != m->grid.gny ||
                                                  m->grid.nz != m->grid.gnz))) {
        int p = poles && f->fused;
        free(f);
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_fdtd_create", "%s run with the separate kernels%s",
                        p ? "dispersive materials" : "magnetic dipoles",
                        p ? ", not the fused one" : " on the whole domain (not the fused one, nor a sub-domain)");
    }
    const scl_grid3d *g = &m->grid;
    int o[3] = {g->ox, g->oy, g->oz}, n[3] = {g->nx, g->ny, g->nz}, gn[3] = {g->gnx, g->gny, g->gnz};
    f->split = -1;
    f->hslot = -1;
    for (int a = 0; a < 3; a++) {
        f->sub_lo[a] = o[a] > 0;
        f->sub_hi[a] = o[a] + n[a] < gn[a];
        if (o[a] > 0 || n[a] != gn[a])
            f->split = f->split < 0 ? a : 3; /* 3: more than one axis cut */
    }
    if (f->split == 3 || (f->split >= 0 && f->fused)) {
        const char *why = f->split == 3 ? "a sub-domain cut along more than one axis"
                                        : "a sub-domain runs with the separate kernels, not the fused one";
        free(f);
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_fdtd_create", "%s", why);
    }
    if (f->fused && (m->periodic[0] || m->periodic[1] || m->periodic[2])) {
        free(f);
        return scl_fail(ctx, SCL_ERR_UNSUPPORTED, "scl_fdtd_create",
                        "the fused kernel needs a PEC box (no periodic axis); use the separate kernels");
    }
    scl_status s = create(f, opt);
    if (s != SCL_OK) {
        scl_fdtd_free(f);
        return s;
    }
    *out = f;
    return SCL_OK;
}

static double stage_value(const scl_fdtd *f, size_t i)
{
    return f->fp64 ? ((double *)f->stage)[i] : (double)((float *)f->stage)[i];
}

/* Before step 0: the hard sources' E at t = 0 (gprMax's), through the source
 * kernel whose outputs are the buffers step 0 reads. */
static scl_status initial_sources(scl_fdtd *f)
{
    const scl_fdtd_model *m = f->m;
    for (int q = 0; q < m->nsrc; q++) {
        double v = scl_fdtd_source_value(m, q, -1);
        if (f->fp64)
            ((double *)f->stage)[q] = v;
        else
            ((float *)f->stage)[q] = (float)v;
    }
    scl_status s = scl_stream_write_range(f->src_val, 0, (size_t)m->nsrc, f->stage, 1, NULL);
    scl_kernel *k = f->ksrc[f->fused ? 1 - parity(f) : 0];
    size_t one = 1, gs = (size_t)m->nsrc;
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "slot", 0);
    if (s == SCL_OK)
        s = scl_kernel_launch(k, 1, &gs, &one, NULL);
    return s;
}

scl_status scl_fdtd_run(scl_fdtd *f, long steps)
{
    return scl_fdtd_run_exchange(f, steps, NULL, NULL);
}

/* The steps with the halo exchange (xfn) or the overlapped transport (ofn)
 * of this run only: neither outlives it. */
static scl_status run_with(scl_fdtd *f, long steps, scl_fdtd_exchange_fn xfn,
                           scl_fdtd_transport_fn ofn, void *user)
{
    f->xfn = xfn;
    f->ofn = ofn;
    f->xuser = user;
    scl_status s = run_steps(f, steps);
    f->xfn = NULL;
    f->ofn = NULL;
    f->xuser = NULL;
    return s;
}

scl_status scl_fdtd_run_exchange(scl_fdtd *f, long steps, scl_fdtd_exchange_fn fn, void *user)
{
    return run_with(f, steps, fn, NULL, user);
}

scl_status scl_fdtd_run_overlap(scl_fdtd *f, long steps, scl_fdtd_transport_fn fn, void *user)
{
    if (f->split < 0 || !fn)
        return scl_fail(f->ctx, SCL_ERR_ARGUMENT, "scl_fdtd_run_overlap", "%s",
                        fn ? "the solver's model is not a sub-domain" : "no transport");
    return run_with(f, steps, NULL, fn, user);
}

/* The sources' values for the chunk's steps, step-major: the E sources'
 * (a magnetic dipole's too: its E amplitude is 0), and with magnetic dipoles
 * theirs apart (the others' 0, never a hard source's NaN) */
static scl_status stage_sources(scl_fdtd *f, int chunk)
{
    const scl_fdtd_model *m = f->m;
    for (int n = 0; n < chunk; n++)
        for (int q = 0; q < m->nsrc; q++) {
            double v = scl_fdtd_source_value(m, q, f->steps + n);
            int mag = m->src[q].kind == SCL_FDTD_MAGNETIC;
            size_t i = (size_t)n * m->nsrc + q;
            if (f->fp64) {
                ((double *)f->stage)[i] = v;
                if (f->nmag)
                    ((double *)f->mstage)[i] = mag ? v : 0;
            } else {
                ((float *)f->stage)[i] = (float)v;
                if (f->nmag)
                    ((float *)f->mstage)[i] = mag ? (float)v : 0;
            }
        }
    size_t cnt = (size_t)chunk * m->nsrc;
    scl_status s = scl_stream_write_range(f->src_val, 0, cnt, f->stage, 1, NULL);
    if (s == SCL_OK && f->nmag)
        s = scl_stream_write_range(f->msrc_val, 0, cnt, f->mstage, 1, NULL);
    return s;
}

static scl_status run_steps(scl_fdtd *f, long steps)
{
    const scl_fdtd_model *m = f->m;
    scl_status s = SCL_OK;
    if (f->steps == 0 && m->nsrc > 0 && steps > 0)
        s = initial_sources(f);
    for (long done = 0; done < steps && s == SCL_OK;) {
        int chunk = (int)(steps - done < CHUNK ? steps - done : CHUNK);
        if (m->nsrc > 0)
            s = stage_sources(f, chunk);
        if (s == SCL_OK && f->tl)
            s = fdtd_tline_dev_stage(f->tl, f->steps, chunk);
        if (m->nrx > 0 && f->rec_cap < f->steps + chunk) {
            long cap = (f->steps + chunk) * 2;
            double *r = realloc(f->rec, (size_t)cap * m->nrx * 6 * sizeof(double));
            if (!r)
                return scl_fail(f->ctx, SCL_ERR_MEMORY, "scl_fdtd_run", "out of host memory");
            f->rec = r;
            f->rec_cap = cap;
        }
        size_t one = 1, gs = (size_t)m->nsrc, gr = (size_t)m->nrx;
        long first = f->steps;
        for (int n = 0; n < chunk && s == SCL_OK; n++) {
            int q = parity(f);
            if (m->nrx > 0) {
                s = scl_kernel_set_int(f->krec[q], "slot", n);
                if (s == SCL_OK)
                    s = scl_kernel_launch(f->krec[q], 1, &gr, &one, NULL);
            }
            /* E^n is read before the H update too: part A may go first */
            if (s == SCL_OK && f->ndisp)
                s = launch_debye(f, f->kda);
            f->hslot = n; /* magnetic dipoles in step_fields */
            if (s == SCL_OK)
                s = f->ofn ? step_overlap(f) : step_fields(f, q, f->shape);
            f->hslot = -1;
            if (s == SCL_OK && f->ndisp)
                s = launch_debye(f, f->kdapply);
            if (s == SCL_OK && m->nsrc > 0) {
                s = scl_kernel_set_int(f->ksrc[q], "slot", n);
                if (s == SCL_OK)
                    s = scl_kernel_launch(f->ksrc[q], 1, &gs, &one, NULL);
            }
            if (s == SCL_OK && f->tl) /* gprMax: lines after the voltage sources */
                s = fdtd_tline_dev_launch(f->tl, q, n);
            if (s == SCL_OK && f->ndisp)
                s = launch_debye(f, f->kdb);
            if (s == SCL_OK && f->xfn) /* sub-domain: E halo before the next H update */
                s = f->xfn(f->xuser, f, 0);
            if (s == SCL_OK)
                f->steps++;
        }
        if (s == SCL_OK && m->nrx > 0) {
            size_t cnt = (size_t)chunk * m->nrx * 6;
            s = scl_stream_read_range(f->rx_out, 0, cnt, f->stage, 1, NULL);
            for (size_t i = 0; i < cnt && s == SCL_OK; i++)
                f->rec[(size_t)first * m->nrx * 6 + i] = stage_value(f, i);
        }
        if (s == SCL_OK && f->tl)
            s = fdtd_tline_dev_collect(f->tl, first, chunk);
        done += chunk;
    }
    if (s == SCL_OK)
        s = scl_finish(f->ctx);
    return s;
}

long scl_fdtd_steps(const scl_fdtd *f) { return f->steps; }

/* Reals from doubles into the staging buffer, then to the device. */
static scl_status put_reals(scl_fdtd *f, scl_stream *st, const double *v, size_t n)
{
    for (size_t q = 0; q < n; q++) {
        if (f->fp64)
            ((double *)f->stage)[q] = v[q];
        else
            ((float *)f->stage)[q] = (float)v[q];
    }
    return scl_stream_write(st, f->stage, 1, NULL);
}

scl_status scl_fdtd_restart(scl_fdtd *f)
{
    const scl_fdtd_model *m = f->m;
    const scl_grid3d *g = &m->grid;
    int n = m->nsrc > m->nrx ? m->nsrc : m->nrx;
    int *off = malloc(3 * sizeof(int) * (size_t)(n ? n : 1));
    double *amp = malloc(2 * sizeof(double) * (size_t)(n ? n : 1));
    scl_status s = SCL_OK;
    /* the same tables make_sources and make_receivers upload, at the
     * positions the model has now (the staging holds CHUNK * nsrc reals) */
    if (!off || !amp || (m->nsrc > 0 && source_tables(m, off, amp, amp + m->nsrc) != 0))
        s = scl_fail(f->ctx, SCL_ERR_MEMORY, "scl_fdtd_restart", "out of host memory");
    if (s == SCL_OK && m->nsrc > 0) {
        s = scl_stream_write(f->src_off, off, 1, NULL);
        if (s == SCL_OK)
            s = put_reals(f, f->src_amp, amp, (size_t)m->nsrc);
        if (s == SCL_OK && f->nmag)
            s = put_reals(f, f->src_mamp, amp + m->nsrc, (size_t)m->nsrc);
    }
    if (s == SCL_OK && m->nrx > 0) {
        for (int r = 0; r < m->nrx; r++)
            off[r] = (int)scl_grid3d_index(g, m->rx_ijk[r][0], m->rx_ijk[r][1], m->rx_ijk[r][2]);
        s = scl_stream_write(f->rx_off, off, 1, NULL);
    }
    free(off);
    free(amp);
    if (s == SCL_OK)
        s = reset_state(f);
    if (s == SCL_OK)
        s = scl_finish(f->ctx);
    return s;
}

scl_status scl_fdtd_read_receivers(scl_fdtd *f, scl_receivers *rx)
{
    const scl_fdtd_model *m = f->m;
    if (!rx || rx->ncomp < 6 || rx->n < m->nrx)
        return scl_fail(f->ctx, SCL_ERR_ARGUMENT, "scl_fdtd_read_receivers",
                        "receivers need %d x 6 components", m->nrx);
    for (long n = 0; n < f->steps && n < rx->nt; n++)
        for (int r = 0; r < m->nrx; r++)
            for (int c = 0; c < 6; c++)
                scl_receivers_series(rx, r, c)[n] = f->rec[((size_t)n * m->nrx + r) * 6 + c];
    fdtd_tline_dev_read(f->tl, rx, f->steps);
    return SCL_OK;
}

scl_status scl_fdtd_get(scl_fdtd *f, int c, double *out)
{
    if (c < 0 || c > 5 || !out)
        return scl_fail(f->ctx, SCL_ERR_ARGUMENT, "scl_fdtd_get", "component %d", c);
    scl_stream *st = f->fld[parity(f)][c];
    size_t n = scl_stream_count(st);
    void *buf = malloc(n * f->rs);
    if (!buf)
        return scl_fail(f->ctx, SCL_ERR_MEMORY, "scl_fdtd_get", "out of host memory");
    scl_status s = scl_stream_read(st, buf, 1, NULL);
    for (size_t i = 0; i < n && s == SCL_OK; i++)
        out[i] = f->fp64 ? ((double *)buf)[i] : (double)((float *)buf)[i];
    free(buf);
    return s;
}

scl_status scl_fdtd_set(scl_fdtd *f, int c, const double *in)
{
    if (c < 0 || c > 5 || !in)
        return scl_fail(f->ctx, SCL_ERR_ARGUMENT, "scl_fdtd_set", "component %d", c);
    size_t n = scl_stream_count(f->fld[0][c]);
    void *buf = malloc(n * f->rs);
    if (!buf)
        return scl_fail(f->ctx, SCL_ERR_MEMORY, "scl_fdtd_set", "out of host memory");
    for (size_t i = 0; i < n; i++) {
        if (f->fp64)
            ((double *)buf)[i] = in[i];
        else
            ((float *)buf)[i] = (float)in[i];
    }
    /* both halves of a ping-pong pair: points no kernel writes stay consistent */
    scl_status s = scl_stream_write(f->fld[0][c], buf, 1, NULL);
    if (s == SCL_OK && f->fld[1][c] != f->fld[0][c])
        s = scl_stream_write(f->fld[1][c], buf, 1, NULL);
    free(buf);
    return s;
}

double scl_fdtd_bytes_per_cell(const scl_fdtd *f)
{
    /* separate: each kernel reads 6 components and writes 3; fused: 6 and 6 */
    double fields = f->fused ? 12 : 18;
    return fields * (double)f->rs + (f->uniform ? 0 : 6);
}

void scl_fdtd_work_group(const scl_fdtd *f, int *lx, int *ly, int *kz)
{
    *kz = f->shape[2];
    *lx = f->shape[0];
    *ly = f->shape[1];
}

int scl_fdtd_cpml_inline(const scl_fdtd *f)
{
    return f->any_cpml ? (f->fused ? f->folded : 0) : -1;
}

double scl_fdtd_cpml_variant(const scl_fdtd *f, int cpml, int shape[3], int *refused,
                             size_t *limit, const char **why)
{
    int v = cpml >= 0 && cpml < NVAR ? cpml : -1;
    scl_kernel *k = v < 0 ? NULL : v == 0 || v == 3 ? f->kfs[0] : v >= 4 ? f->kfx[0] : f->kf[0];
    for (int a = 0; a < 3; a++)
        shape[a] = v < 0 ? 0 : f->var_shape[v][a];
    *refused = v < 0 ? 0 : f->var_refused[v];
    *limit = k ? scl_kernel_max_work_group(k) : 0;
    *why = v < 0 ? "" : f->var_why[v];
    return v < 0 ? -1 : f->var_s[v];
}

void *scl_fdtd_halo_staging(scl_fdtd *f)
{
    return f->split >= 0 ? f->pinned_ptr : NULL;
}

scl_status scl_fdtd_set_halo_staging(scl_fdtd *f, void *const send[2])
{
    if (f->split < 0)
        return scl_fail(f->ctx, SCL_ERR_ARGUMENT, "scl_fdtd_set_halo_staging",
                        "the solver's model is not a sub-domain");
    for (int q = 0; q < 2; q++)
        f->send_at[q] = send ? send[q] : NULL;
    return SCL_OK;
}

int scl_fdtd_halo_axis(const scl_fdtd *f)
{
    return f->split;
}

size_t scl_fdtd_halo_bytes(const scl_fdtd *f)
{
    return f->split >= 0 ? f->halo_n * f->rs : 0;
}

/* The plane kernel of field (0 E, 1 H) at node plane index along the cut
 * axis, packing (0) or unpacking (1). */
static scl_status plane_launch(scl_fdtd *f, int field, int index, int unpack)
{
    const scl_grid3d *g = &f->m->grid;
    long st[3] = {1, g->px, g->px * g->py}, ext[3] = {g->px, g->py, g->pz};
    int a = f->split, b = (a + 1) % 3, d = (a + 2) % 3;
    int c0 = b < d ? b : d, c1 = b < d ? d : b;
    scl_kernel *k = f->kpl[field];
    scl_status s = scl_kernel_set_int(k, "start", (int)((index + g->halo) * st[a]));
    if (s == SCL_OK)
        s = scl_kernel_set_int(k, "unpack", unpack);
    size_t local[2] = {32, 4};
    size_t global[2] = {((size_t)ext[c0] + 31) / 32 * 32, ((size_t)ext[c1] + 3) / 4 * 4};
    return s == SCL_OK ? scl_kernel_launch(k, 2, global, local, NULL) : s;
}

scl_status scl_fdtd_halo_read(scl_fdtd *f, int field, void *buf)
{
    if (f->split < 0 || field < 0 || field > 1 || !buf)
        return scl_fail(f->ctx, SCL_ERR_ARGUMENT, "scl_fdtd_halo_read", "%s (field %d)",
                        f->split < 0 ? "the solver's model is not a sub-domain" : "bad field", field);
    const int n[3] = {f->m->grid.nx, f->m->grid.ny, f->m->grid.nz};
    scl_status s = plane_launch(f, field, field ? n[f->split] - 1 : 0, 0);
    return s == SCL_OK ? scl_stream_read(f->halo, buf, 1, NULL) : s;
}

scl_status scl_fdtd_halo_write(scl_fdtd *f, int field, const void *buf)
{
    if (f->split < 0 || field < 0 || field > 1 || !buf)
        return scl_fail(f->ctx, SCL_ERR_ARGUMENT, "scl_fdtd_halo_write", "%s (field %d)",
                        f->split < 0 ? "the solver's model is not a sub-domain" : "bad field", field);
    const int n[3] = {f->m->grid.nx, f->m->grid.ny, f->m->grid.nz};
    scl_status s = scl_stream_write(f->halo, buf, 1, NULL);
    return s == SCL_OK ? plane_launch(f, field, field ? -1 : n[f->split], 1) : s;
}

/* The H (field 1) or E kernel and its CPML over the planes [a0, a1) of the
 * cut axis (whole across it); the kernel's box back to whole after. */
static scl_status update_part(scl_fdtd *f, int field, int a0, int a1)
{
    if (a1 <= a0)
        return SCL_OK;
    const scl_grid3d *g = &f->m->grid;
    int o[3] = {0, 0, 0}, m[3] = {g->nx, g->ny, g->nz};
    scl_kernel *k = field ? f->kh[0] : f->ke[0];
    o[f->split] = a0;
    m[f->split] = a1;
    scl_status s = e_box(k, o, m);
    if (s == SCL_OK)
        s = launch_box(k, o, m, f->shape);
    o[f->split] = 0;
    m[f->split] = (f->split == 0 ? g->nx : f->split == 1 ? g->ny : g->nz);
    if (s == SCL_OK)
        s = e_box(k, o, m);
    return s == SCL_OK ? launch_cpml_part(f, 0, !field, a0, a1 - 1) : s;
}

/* The send plane of field (E: plane 0, when there is a lower neighbour; H:
 * plane n - 1, when there is an upper one) packed and read into the pinned
 * send half without blocking. */
static scl_status post_plane(scl_fdtd *f, int field, scl_event *ev)
{
    const int n[3] = {f->m->grid.nx, f->m->grid.ny, f->m->grid.nz}, a = f->split;
    *ev = NULL;
    if (!(field ? f->sub_hi[a] : f->sub_lo[a]))
        return SCL_OK;
    scl_status s = plane_launch(f, field, field ? n[a] - 1 : 0, 0);
    void *send = f->send_at[field] ? f->send_at[field] : f->pinned_ptr;
    return s == SCL_OK ? scl_stream_read(f->halo, send, 0, ev) : s;
}

/* Wait for the send plane while the queued interior runs, let the caller's
 * transport swap it, queue the received plane's write (E into plane n, H
 * into plane -1, where that face is a cut). */
static scl_status swap_plane(scl_fdtd *f, int field, scl_event ev)
{
    const int n[3] = {f->m->grid.nx, f->m->grid.ny, f->m->grid.nz}, a = f->split;
    scl_status s = scl_flush(f->ctx);
    if (ev) {
        if (s == SCL_OK)
            s = scl_event_wait(f->ctx, ev);
        scl_event_release(ev);
    }
    char *recv = (char *)f->pinned_ptr + f->halo_n * f->rs;
    const void *send = f->send_at[field] ? f->send_at[field] : f->pinned_ptr;
    scl_status t = f->ofn(f->xuser, field, send, recv); /* always: the neighbours wait */
    s = s == SCL_OK ? t : s;
    if (s != SCL_OK || !(field ? f->sub_lo[a] : f->sub_hi[a]))
        return s;
    s = scl_stream_write(f->halo, recv, 0, NULL);
    return s == SCL_OK ? plane_launch(f, field, field ? -1 : n[a], 1) : s;
}

/* One step's fields of a sub-domain with each halo swap behind an interior
 * update: E of plane 0 goes down while H updates planes [0, n - 1); H of
 * plane n - 1 goes up while E updates planes [1, n); then E of plane 0. The
 * same points computed by the same kernels as step_fields: the same bits. */
static scl_status step_overlap(scl_fdtd *f)
{
    const int n[3] = {f->m->grid.nx, f->m->grid.ny, f->m->grid.nz}, N = n[f->split];
    scl_event ev = NULL;
    scl_status s = post_plane(f, 0, &ev);
    if (s == SCL_OK)
        s = update_part(f, 1, 0, N - 1);
    if (s == SCL_OK)
        s = swap_plane(f, 0, ev);
    else if (ev) /* failed: the caller keeps the neighbours' swaps company */
        scl_event_release(ev);
    ev = NULL;
    if (s == SCL_OK)
        s = update_part(f, 1, N - 1, N);
    if (s == SCL_OK)
        s = post_plane(f, 1, &ev);
    if (s == SCL_OK)
        s = update_part(f, 0, 1, N);
    if (s == SCL_OK)
        s = swap_plane(f, 1, ev);
    else if (ev)
        scl_event_release(ev);
    if (s == SCL_OK)
        s = update_part(f, 0, 0, 1);
    return s;
}
