/* Whole PPPM step on the device for one rank (see scl_pppm_solver_set in
 * streamcl/pppm.h): wrapping charge assignment, fixed point -> complex,
 * VkFFT forward, Poisson (ik) with energy/virial partials, three VkFFT
 * inverses, wrapping interpolation; forces and partials read back
 * asynchronously, finished in scl_pppm_solve_finish. */
#include "pppm_internal.h"

#include "core/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOLVE_WG 128

void pppm_solver_free(scl_pppm *p)
{
    if (p->partials_ready) scl_event_release(p->partials_ready);
    if (p->bad_ready) scl_event_release(p->bad_ready);
    p->partials_ready = p->bad_ready = NULL;
    for (int i = 0; i < 4; i++) {
        if (p->step_ev[i]) scl_event_release(p->step_ev[i]);
        p->step_ev[i] = NULL;
    }
    pppm_fft_free(p->fft);
    p->fft = NULL;
    scl_kernel *k[7] = {p->assign_p, p->interp_p, p->to_complex, p->poisson, p->green_k,
                        p->add_into[0], p->add_into[1]};
    for (int i = 0; i < 7; i++) scl_kernel_free(k[i]);
    p->assign_p = p->interp_p = p->to_complex = p->poisson = p->green_k = NULL;
    p->add_into[0] = p->add_into[1] = NULL;
    scl_stream *s[8] = {p->density_p, p->work, p->vdc[0], p->vdc[1], p->vdc[2], p->green, p->fk,
                        p->partials};
    for (int i = 0; i < 8; i++) scl_stream_free(s[i]);
    p->density_p = p->work = p->vdc[0] = p->vdc[1] = p->vdc[2] = p->green = p->fk = p->partials = NULL;
    free(p->partials_host);
    p->partials_host = NULL;
    memset(p->nk, 0, sizeof p->nk);
}

/* the four kernels of the step, for a grid smaller than the stencil or not */
static scl_status solver_kernels(scl_pppm *p, int small)
{
    scl_context *ctx = p->ctx;
    char opts[112];
    snprintf(opts, sizeof opts, "-DORDER=%d -DFP64=%d -DPERIODIC=1 -DVD_STRIDE=2 -DSMALL_GRID=%d",
             p->p.order, p->p.fp64 ? 1 : 0, small);
    char sopts[64];
    snprintf(sopts, sizeof sopts, "-DFP64=%d -DWG=%d", p->p.fp64 ? 1 : 0, SOLVE_WG);
    scl_status st;
    if ((st = scl_kernel_create(ctx, "pppm", "pppm_assign", opts, &p->assign_p)) ||
        (st = scl_kernel_create(ctx, "pppm", "pppm_interp", opts, &p->interp_p)) ||
        (st = scl_kernel_create(ctx, "pppm_solve", "pppm_fixed_to_complex", sopts, &p->to_complex)) ||
        (st = scl_kernel_create(ctx, "pppm_solve", "pppm_poisson_ik", sopts, &p->poisson)))
        return st;
    scl_kernel_set_label(p->assign_p, "pppm.assign");
    scl_kernel_set_label(p->interp_p, "pppm.interp");
    scl_kernel_set_label(p->to_complex, "pppm.to_complex");
    scl_kernel_set_label(p->poisson, "pppm.poisson");
    return SCL_OK;
}

/* the grids (np points), the k-space factors and the partial sums */
static scl_status solver_streams(scl_pppm *p, const int nk[3], size_t np)
{
    scl_context *ctx = p->ctx;
    const scl_type rt = p->p.fp64 ? SCL_DOUBLE : SCL_FLOAT;
    const scl_type at = scl_device(ctx)->fp64 ? SCL_DOUBLE : SCL_FLOAT;
    scl_status st;
    if ((st = scl_stream_create(ctx, "pppm.density_grid", SCL_LONG, np, 1, 1, 0, &p->density_p)) ||
        (st = scl_stream_create(ctx, "pppm.work", rt, 2 * np, 1, 1, 0, &p->work)) ||
        (st = scl_stream_create(ctx, "pppm.vdx_k", rt, 2 * np, 1, 1, 0, &p->vdc[0])) ||
        (st = scl_stream_create(ctx, "pppm.vdy_k", rt, 2 * np, 1, 1, 0, &p->vdc[1])) ||
        (st = scl_stream_create(ctx, "pppm.vdz_k", rt, 2 * np, 1, 1, 0, &p->vdc[2])) ||
        (st = scl_stream_create(ctx, "pppm.greensfn", rt, np, 1, 1, SCL_STREAM_READ_ONLY, &p->green)) ||
        (st = scl_stream_create(ctx, "pppm.fk", rt, (size_t)nk[0] + nk[1] + nk[2], 1, 1,
                                SCL_STREAM_READ_ONLY, &p->fk)) ||
        (st = scl_stream_create(ctx, "pppm.partials", at, 7 * (size_t)p->ngroups, 1, 1, 0, &p->partials)))
        return st;
    if (!(p->partials_host = malloc(7 * (size_t)p->ngroups * scl_type_size(at))))
        return scl_fail(ctx, SCL_ERR_MEMORY, "scl_pppm_solver_set", "out of host memory");
    return SCL_OK;
}

/* every argument of the four kernels that the grid fixes */
static scl_status solver_bind(scl_pppm *p, const int nk[3], size_t np)
{
    const int lo0[3] = {0, 0, 0}, hi0[3] = {nk[0] - 1, nk[1] - 1, nk[2] - 1};
    const scl_arg_stream assign_s[] = {{"density_fixed", p->density_p}, {"bad", p->bad}};
    const scl_arg_stream interp_s[] = {{"vdx", p->vdc[0]}, {"vdy", p->vdc[1]}, {"vdz", p->vdc[2]}};
    const scl_arg_stream complex_s[] = {{"density_fixed", p->density_p}, {"work", p->work}};
    const scl_arg_int complex_i[] = {{"npoints", (int)np}};
    const scl_arg_stream poisson_s[] = {{"work", p->work},      {"greensfn", p->green},
                                        {"fk", p->fk},          {"vdx", p->vdc[0]},
                                        {"vdy", p->vdc[1]},     {"vdz", p->vdc[2]},
                                        {"partials", p->partials}};
    const scl_arg_int poisson_i[] = {{"nx", nk[0]}, {"ny", nk[1]}, {"nz", nk[2]}};
    const scl_arg_real poisson_r[] = {{"scaleinv", 1.0 / (double)np},
                                      {"s2", 1.0 / ((double)np * (double)np)}};
    scl_status st;
    if ((st = pppm_bind_grid(p, p->assign_p, lo0, hi0)) ||
        (st = pppm_bind_grid(p, p->interp_p, lo0, hi0)) ||
        (st = scl_kernel_bind(p->assign_p, assign_s, 2, NULL, 0)) ||
        (st = scl_kernel_bind(p->interp_p, interp_s, 3, NULL, 0)) ||
        (st = scl_kernel_set_real(p->interp_p, "qscale", p->p.qscale)) ||
        (st = scl_kernel_bind(p->to_complex, complex_s, 2, complex_i, 1)) ||
        (st = scl_kernel_bind(p->poisson, poisson_s, 7, poisson_i, 3)) ||
        (st = scl_kernel_bind_reals(p->poisson, poisson_r, 2)))
        return st;
    if (p->x) { /* atoms already reserved: bind them to the new kernels */
        scl_kernel *ks[2] = {p->assign_p, p->interp_p};
        for (int i = 0; i < 2; i++)
            if ((st = scl_kernel_set_stream(ks[i], "x", p->x)) ||
                (st = scl_kernel_set_stream(ks[i], "q", p->q)))
                return st;
        if ((st = scl_kernel_set_stream(p->interp_p, "f", p->f)))
            return st;
    }
    return SCL_OK;
}

/* streams, kernels and FFT plan for an nx*ny*nz grid */
static scl_status solver_build(scl_pppm *p, const int nk[3])
{
    const char *fn = "scl_pppm_solver_set";
    scl_context *ctx = p->ctx;
    /* any grid LAMMPS's pppm runs, also one smaller than the stencil (the
     * kernels then wrap by a modulo, SMALL_GRID) */
    int small = 0;
    for (int d = 0; d < 3; d++) {
        if (nk[d] < 2 || nk[d] > 16384)
            return scl_fail(ctx, SCL_ERR_ARGUMENT, fn, "grid %dx%dx%d: every dimension must be "
                            "between 2 and 16384", nk[0], nk[1], nk[2]);
        small |= nk[d] < p->p.order;
    }
    const size_t np = (size_t)nk[0] * nk[1] * nk[2];
    if (np > (size_t)1 << 30)
        return scl_fail(ctx, SCL_ERR_TOO_LARGE, fn, "grid of %zu points is too large", np);
    memcpy(p->nk, nk, sizeof p->nk);
    p->wg = SOLVE_WG;
    p->ngroups = (int)((np + SOLVE_WG - 1) / SOLVE_WG);
    scl_status st;
    if ((st = solver_kernels(p, small)) || (st = solver_streams(p, nk, np)) ||
        (st = solver_bind(p, nk, np)))
        return st;
    return pppm_fft_create(ctx, nk, p->p.fp64, p->work, &p->fft);
}

/* the solver for an nx*ny*nz grid: kept, or built anew */
static scl_status solver_grid(scl_pppm *p, const int nk[3], const char *fn)
{
    if (p->pending) return scl_fail(p->ctx, SCL_ERR_ARGUMENT, fn, "a step is pending");
    if (!memcmp(nk, p->nk, sizeof p->nk)) return SCL_OK;
    pppm_solver_free(p);
    scl_status st = solver_build(p, nk);
    if (st) pppm_solver_free(p);
    return st;
}

scl_status scl_pppm_solver_set_box(scl_pppm *p, const scl_pppm_kspace_box *b)
{
    static const char *fn = "scl_pppm_solver_set_box";
    if (!p || !b || !b->gf_b) return SCL_ERR_ARGUMENT;
    if (!scl_device(p->ctx)->fp64)
        return scl_fail(p->ctx, SCL_ERR_UNSUPPORTED, fn, "the Green's function kernel needs fp64");
    if (p->p.order < 1 || p->p.order > 7 || b->nbx < 0 || b->nby < 0 || b->nbz < 0 ||
        !(b->xprd > 0 && b->yprd > 0 && b->zprd_slab > 0 && b->g_ewald > 0))
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, fn,
                        "order %d (1..7), images %d %d %d, box %g %g %g, g_ewald %g: out of range",
                        p->p.order, b->nbx, b->nby, b->nbz, b->xprd, b->yprd, b->zprd_slab,
                        b->g_ewald);
    const int nk[3] = {b->nx, b->ny, b->nz};
    scl_status st = solver_grid(p, nk, fn);
    char sopts[64];
    snprintf(sopts, sizeof sopts, "-DFP64=%d -DWG=%d", p->p.fp64 ? 1 : 0, SOLVE_WG);
    if (!st && !p->green_k)
        st = scl_kernel_create(p->ctx, "pppm_solve", "pppm_green_ik", sopts, &p->green_k);
    if (st) return st;
    double gf[7] = {0, 0, 0, 0, 0, 0, 0};
    memcpy(gf, b->gf_b, sizeof(double) * (size_t)p->p.order);
    const scl_arg_int ints[] = {{"nx", nk[0]},     {"ny", nk[1]},     {"nz", nk[2]},
                                {"nbx", b->nbx},   {"nby", b->nby},   {"nbz", b->nbz},
                                {"order", p->p.order}};
    const scl_arg_stream streams[] = {{"greensfn", p->green}, {"fk", p->fk}};
    const size_t np = (size_t)nk[0] * nk[1] * nk[2];
    const size_t local = SOLVE_WG, global = (np + local - 1) / local * local;
    if ((st = scl_kernel_bind(p->green_k, streams, 2, ints, 7))) return st;
    static const char *gname[7] = {"gf0", "gf1", "gf2", "gf3", "gf4", "gf5", "gf6"};
    const double box[4] = {b->xprd, b->yprd, b->zprd_slab, b->g_ewald};
    static const char *bname[4] = {"xprd", "yprd", "zprd_slab", "g_ewald"};
    for (int i = 0; i < 7 && !st; i++) st = scl_kernel_set_double(p->green_k, gname[i], gf[i]);
    for (int i = 0; i < 4 && !st; i++) st = scl_kernel_set_double(p->green_k, bname[i], box[i]);
    if (!st) st = scl_kernel_launch(p->green_k, 1, &global, &local, NULL);
    if (st) return st;
    return scl_kernel_set_real(p->poisson, "gew_term", 0.25 / (b->g_ewald * b->g_ewald));
}

scl_status scl_pppm_solver_set(scl_pppm *p, const scl_pppm_kspace *k)
{
    if (!p || !k || !k->greensfn || !k->fkx || !k->fky || !k->fkz) return SCL_ERR_ARGUMENT;
    const int nk[3] = {k->nx, k->ny, k->nz};
    scl_status st = solver_grid(p, nk, "scl_pppm_solver_set");
    if (st) return st;
    const size_t np = (size_t)nk[0] * nk[1] * nk[2], nf = (size_t)nk[0] + nk[1] + nk[2];
    double *fk = malloc(nf * sizeof *fk);
    float *tmp = p->p.fp64 ? NULL : malloc((np > nf ? np : nf) * sizeof *tmp);
    if (!fk || (!p->p.fp64 && !tmp)) {
        free(fk);
        free(tmp);
        return scl_fail(p->ctx, SCL_ERR_MEMORY, "scl_pppm_solver_set", "out of host memory");
    }
    memcpy(fk, k->fkx, (size_t)nk[0] * sizeof *fk);
    memcpy(fk + nk[0], k->fky, (size_t)nk[1] * sizeof *fk);
    memcpy(fk + nk[0] + nk[1], k->fkz, (size_t)nk[2] * sizeof *fk);
    if (p->p.fp64) {
        st = scl_stream_write(p->green, k->greensfn, 1, NULL);
        if (!st) st = scl_stream_write(p->fk, fk, 1, NULL);
    } else {
        for (size_t i = 0; i < np; i++) tmp[i] = (float)k->greensfn[i];
        st = scl_stream_write(p->green, tmp, 1, NULL);
        for (size_t i = 0; i < nf; i++) tmp[i] = (float)fk[i];
        if (!st) st = scl_stream_write(p->fk, tmp, 1, NULL);
    }
    free(fk);
    free(tmp);
    if (st) return st;
    return scl_kernel_set_real(p->poisson, "gew_term", 0.25 / (k->g_ewald * k->g_ewald));
}

static scl_status solve_start(scl_pppm *p, int n, const double *x, const double *q,
                              const scl_stream *xq_dev, size_t q_first, int tally);

scl_status scl_pppm_solve_start(scl_pppm *p, int n, const double *x, const double *q, int tally)
{
    if (!p || n < 0 || (n > 0 && (!x || !q))) return SCL_ERR_ARGUMENT;
    return solve_start(p, n, x, q, NULL, 0, tally);
}

scl_status scl_pppm_solve_start_device(scl_pppm *p, int n, const scl_stream *xq_dev,
                                       size_t q_first, const double *q, int tally)
{
    if (!p || n < 0 || (n > 0 && !q)) return SCL_ERR_ARGUMENT;
    if (!xq_dev)
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, "scl_pppm_solve_start_device",
                        "xq_dev is NULL (scl_pppm_solve_start uploads x and q)");
    return solve_start(p, n, NULL, q, xq_dev, q_first, tally);
}

static scl_status solve_start(scl_pppm *p, int n, const double *x, const double *q,
                              const scl_stream *xq_dev, size_t q_first, int tally)
{
    const char *fn = "scl_pppm_solve_start";
    if (!p->fft) return scl_fail(p->ctx, SCL_ERR_ARGUMENT, fn, "call scl_pppm_solver_set first");
    if (p->pending) return scl_fail(p->ctx, SCL_ERR_ARGUMENT, fn, "a step is pending");
    double scale;
    scl_status st = pppm_put_atoms(p, n, x, q, xq_dev, q_first, &scale);
    if (st) return st;
    const size_t np = (size_t)p->nk[0] * p->nk[1] * p->nk[2];
    const int64_t zero = 0;
    const int izero = 0;
    if ((st = scl_stream_fill_range(p->density_p, 0, np, &zero, NULL)) ||
        (st = scl_stream_fill_range(p->bad, 0, 1, &izero, NULL)))
        return st;
    const size_t ga = (size_t)(n > 0 ? n : 1), gp = np, gq = (size_t)p->ngroups * p->wg;
    const size_t lq = (size_t)p->wg;
    if ((st = scl_kernel_set_int(p->assign_p, "n", n)) ||
        (st = scl_kernel_set_real(p->assign_p, "scale", scale)) ||
        (st = scl_kernel_set_int(p->interp_p, "n", n)) ||
        (st = scl_kernel_set_real(p->to_complex, "inv_scale", p->inv_scale)) ||
        (st = scl_kernel_set_int(p->poisson, "tally", tally ? 1 : 0)))
        return st;
    /* launch events only when profiling (accounted in finish, not waited for here) */
    const int prof = scl_profiling(p->ctx);
    scl_event *ev = p->step_ev;
    if ((n > 0 && (st = scl_kernel_launch(p->assign_p, 1, &ga, NULL, prof ? &ev[0] : NULL))) ||
        (st = scl_kernel_launch(p->to_complex, 1, &gp, NULL, prof ? &ev[1] : NULL)) ||
        (st = pppm_fft_run(p->fft, p->work, 0)) ||
        (st = scl_kernel_launch(p->poisson, 1, &gq, &lq, prof ? &ev[2] : NULL)))
        return st;
    for (int d = 0; d < 3; d++)
        if ((st = pppm_fft_run(p->fft, p->vdc[d], 1))) return st;
    if (n > 0 && (st = scl_kernel_launch(p->interp_p, 1, &ga, NULL, prof ? &ev[3] : NULL))) return st;
    p->pending = 1;   /* from here finish releases what was queued */
    p->solve_pending = 1;
    p->tally_pending = tally != 0;
    if ((st = scl_stream_read(p->bad, &p->bad_host, 0, &p->bad_ready))) return st;
    if (tally && (st = scl_stream_read(p->partials, p->partials_host, 0, &p->partials_ready)))
        return st;
    p->forces_deferred = p->defer_forces;
    if (n > 0 && !p->forces_deferred &&
        (st = scl_stream_read_range(p->f, 0, 3 * (size_t)n, p->f_host, 0, &p->f_ready)))
        return st;
    return SCL_OK;
}

scl_status scl_pppm_defer_forces(scl_pppm *p, int on)
{
    if (!p) return SCL_ERR_ARGUMENT;
    p->defer_forces = on != 0;
    return SCL_OK;
}

static scl_status add_into_kernel(scl_pppm *p, scl_type type)
{
    scl_kernel **kp = &p->add_into[type == SCL_DOUBLE];
    if (*kp) return SCL_OK;
    char opts[64];
    snprintf(opts, sizeof opts, "-DFP64=%d -DWG=%d -DINTO_DOUBLE=%d", p->p.fp64 ? 1 : 0, SOLVE_WG,
             type == SCL_DOUBLE);
    return scl_kernel_create(p->ctx, "pppm_solve", "pppm_add_into", opts, kp);
}

scl_status scl_pppm_prepare_rows(scl_pppm *p, scl_type type)
{
    if (!p) return SCL_ERR_ARGUMENT;
    if ((type != SCL_FLOAT && type != SCL_DOUBLE) || (type == SCL_DOUBLE && !scl_device(p->ctx)->fp64))
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, "scl_pppm_prepare_rows",
                        "rows of %s: SCL_FLOAT, or SCL_DOUBLE on an fp64 device", scl_type_name(type));
    return add_into_kernel(p, type);
}

scl_status scl_pppm_add_forces_into(scl_pppm *p, scl_stream *rows, scl_type type, int nrows)
{
    static const char *fn = "scl_pppm_add_forces_into";
    if (!p) return SCL_ERR_ARGUMENT;
    if (!p->solve_pending || !p->forces_deferred)
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, fn, "no solve step with deferred forces is pending");
    if (!rows || (type != SCL_FLOAT && type != SCL_DOUBLE) || p->n > nrows ||
        scl_stream_type(rows) != type || scl_stream_count(rows) < 4 * (size_t)p->n ||
        (type == SCL_DOUBLE && !scl_device(p->ctx)->fp64))
        return scl_fail(p->ctx, SCL_ERR_ARGUMENT, fn, "%d atoms do not fit the %d rows given",
                        p->n, nrows);
    scl_kernel **kp = &p->add_into[type == SCL_DOUBLE];
    scl_status st = add_into_kernel(p, type);   /* (built at set-up by prepare_rows) */
    const scl_arg_stream streams[] = {{"f", p->f}, {"rows", rows}};
    const scl_arg_int ints[] = {{"n", p->n}};
    if (!st) st = scl_kernel_bind(*kp, streams, 2, ints, 1);
    const size_t global = (size_t)(p->n > 0 ? p->n : 1);
    if (!st && p->n > 0) st = scl_kernel_launch(*kp, 1, &global, NULL, NULL);
    return st;
}

scl_status scl_pppm_solve_finish(scl_pppm *p, double *f, double *energy, double virial[6])
{
    if (!p) return SCL_ERR_ARGUMENT;
    if (!p->pending || !p->solve_pending) return SCL_OK;
    p->pending = p->solve_pending = 0;
    scl_status st = SCL_OK;
    scl_event evs[3] = {p->bad_ready, p->partials_ready, p->f_ready};
    for (int i = 0; i < 3; i++) {
        if (evs[i] && !st) st = scl_event_wait(p->ctx, evs[i]);
    }
    pppm_add_seconds(p, p->f_ready, &p->stats.t_download);
    pppm_account_uploads(p);
    double *acc[4] = {&p->stats.t_assign, &p->stats.t_solve, &p->stats.t_solve, &p->stats.t_interp};
    for (int i = 0; i < 4; i++) {
        pppm_add_seconds(p, p->step_ev[i], acc[i]);
        p->step_ev[i] = NULL;
    }
    if (p->bad_ready) scl_event_release(p->bad_ready);
    if (p->partials_ready) scl_event_release(p->partials_ready);
    p->bad_ready = p->partials_ready = p->f_ready = NULL;
    if (st) return st;
    p->stats.device_steps++;
    if (p->bad_host)
        return scl_fail(p->ctx, SCL_ERR_INPUT, "scl_pppm_solve_finish", "%d of %d atoms are out "
                        "of range (far outside the box, or coordinates are not finite)",
                        p->bad_host, p->n);
    if (p->tally_pending) {
        double sum[7] = {0, 0, 0, 0, 0, 0, 0};
        const int dbl = scl_device(p->ctx)->fp64 != 0;
        for (int g = 0; g < p->ngroups; g++)
            for (int c = 0; c < 7; c++)
                sum[c] += dbl ? ((const double *)p->partials_host)[7 * g + c]
                              : (double)((const float *)p->partials_host)[7 * g + c];
        if (energy) *energy = sum[0];
        if (virial)
            for (int c = 0; c < 6; c++) virial[c] = sum[1 + c];
    }
    /* deferred: another module's download brought them (add_forces_into) */
    return p->forces_deferred ? SCL_OK : pppm_add_forces(p, f);
}
